package xsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Defaults and bounds, as the original has them (maxRetries is ours: the
// original takes any count).
const (
	defaultBaseURL  = "https://api.x.ai/v1"
	defaultModel    = "grok-4.5"
	defaultTimeout  = 180
	minTimeout      = 30
	defaultRetries  = 2
	maxRetries      = 10
	maxHandles      = 10
	maxQueryChars   = 4000
	maxResponseSize = 16 << 20
)

type args struct {
	Query    string   `json:"query"`
	Allowed  []string `json:"allowed_x_handles"`
	Excluded []string `json:"excluded_x_handles"`
	FromDate string   `json:"from_date"`
	ToDate   string   `json:"to_date"`
	Image    bool     `json:"enable_image_understanding"`
	Video    bool     `json:"enable_video_understanding"`
}

// config is config.yaml's x_search section, read as the original reads it.
type config struct {
	XSearch map[string]any `yaml:"x_search"`
}

func (c config) model() string {
	if s := pystr.Strip(strOr(c.XSearch["model"])); s != "" {
		return s
	}
	return defaultModel
}

// strOr is Python's str(v or "").
func strOr(v any) string {
	if !pystr.Truthy(v) {
		return ""
	}
	return pystr.Str(v)
}

var efforts = []string{"low", "medium", "high", "xhigh"}

func (c config) effort() (string, error) {
	raw, ok := c.XSearch["reasoning_effort"]
	if !ok || raw == nil || pystr.Strip(pystr.Str(raw)) == "" {
		return "", nil
	}
	e := pystr.Lower(pystr.Strip(pystr.Str(raw)))
	for _, ok := range efforts {
		if e == ok {
			return e, nil
		}
	}
	return "", fmt.Errorf("x_search.reasoning_effort must be one of: %s (got %s)", strings.Join(efforts, ", "), pyRepr(raw))
}

// pyRepr is Python's repr() of a YAML scalar, as the message quotes it.
func pyRepr(v any) string {
	if s, ok := v.(string); ok {
		if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
			return `"` + s + `"`
		}
		return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
	}
	return pystr.Str(v)
}

// intSetting is max(floor, int(v)) with the default where int() fails.
func (c config) intSetting(key string, def, floor int) int {
	v, ok := c.XSearch[key]
	if !ok {
		return def
	}
	var n int
	switch x := v.(type) {
	case int:
		n = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return def
		}
		n = int(max(min(x, math.MaxInt32), math.MinInt32))
	case bool:
		if x {
			n = 1
		}
	case string:
		var err error
		if n, err = strconv.Atoi(strings.ReplaceAll(pystr.Strip(x), "_", "")); err != nil {
			return def
		}
	default:
		return def
	}
	return max(floor, n)
}

// toolError is the original's tool_error shape.
func toolError(format string, a ...any) tooldef.Result {
	return tooldef.Failure(map[string]any{"error": fmt.Sprintf(format, a...), "success": false})
}

// failure is the original's error shape for a failed request.
type failure struct {
	Success   bool   `json:"success"`
	Provider  string `json:"provider"`
	Tool      string `json:"tool"`
	Error     string `json:"error"`
	ErrorType string `json:"error_type"`
}

func fail(msg, kind string) tooldef.Result {
	return tooldef.Failure(failure{Success: false, Provider: "xai", Tool: ToolName, Error: msg, ErrorType: kind})
}

// xTool is the x_search tool object of the request; the filters sit on it
// flat, as the original sends them.
type xTool struct {
	Type     string   `json:"type"`
	Allowed  []string `json:"allowed_x_handles,omitempty"`
	Excluded []string `json:"excluded_x_handles,omitempty"`
	FromDate string   `json:"from_date,omitempty"`
	ToDate   string   `json:"to_date,omitempty"`
	Image    bool     `json:"enable_image_understanding,omitempty"`
	Video    bool     `json:"enable_video_understanding,omitempty"`
}

type request struct {
	Model string `json:"model"`
	Input []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"input"`
	Tools     []xTool `json:"tools"`
	Store     bool    `json:"store"`
	Reasoning *struct {
		Effort string `json:"effort"`
	} `json:"reasoning,omitempty"`
}

type success struct {
	Success          bool              `json:"success"`
	Provider         string            `json:"provider"`
	CredentialSource string            `json:"credential_source"`
	Tool             string            `json:"tool"`
	Model            string            `json:"model"`
	Query            string            `json:"query"`
	Answer           string            `json:"answer"`
	Citations        []json.RawMessage `json:"citations"`
	InlineCitations  []inlineCitation  `json:"inline_citations"`
	XSearchCalls     json.RawMessage   `json:"x_search_calls"`
	Degraded         bool              `json:"degraded"`
	DegradedReason   *string           `json:"degraded_reason"`
}

type inlineCitation struct {
	URL        json.RawMessage `json:"url"`
	Title      json.RawMessage `json:"title"`
	StartIndex json.RawMessage `json:"start_index"`
	EndIndex   json.RawMessage `json:"end_index"`
}

func (t *tool) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	query := pystr.Strip(a.Query)
	if query == "" {
		return toolError("query is required for x_search"), nil
	}
	if n := utf8.RuneCountInString(query); n > maxQueryChars {
		return toolError("query is %d characters long; x_search takes at most %d", n, maxQueryChars), nil
	}
	key := strings.TrimSpace(t.getenv("XAI_API_KEY"))
	if key == "" {
		return toolError("No xAI credentials available: set XAI_API_KEY (hermes-tools does not read the Python Hermes' " +
			"SuperGrok sign-in)."), nil
	}
	base := strings.TrimRight(strings.TrimSpace(t.getenv("XAI_BASE_URL")), "/")
	if base == "" {
		base = defaultBaseURL
	}
	allowed, err := handles(a.Allowed, "allowed_x_handles")
	if err != nil {
		return fail(err.Error(), "ValueError"), nil
	}
	excluded, err := handles(a.Excluded, "excluded_x_handles")
	if err != nil {
		return fail(err.Error(), "ValueError"), nil
	}
	if len(allowed) > 0 && len(excluded) > 0 {
		return toolError("allowed_x_handles and excluded_x_handles cannot be used together"), nil
	}
	if err := t.checkDates(a.FromDate, a.ToDate); err != nil {
		return toolError("%v", err), nil
	}
	var c config
	if err := hermeshome.Decode(t.home, &c); err != nil {
		return fail(err.Error(), "ConfigError"), nil
	}
	effort, err := c.effort()
	if err != nil {
		return toolError("%v", err), nil
	}

	req := request{Model: c.model(), Store: false}
	req.Input = append(req.Input, struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}{"user", query})
	req.Tools = []xTool{{Type: "x_search", Allowed: allowed, Excluded: excluded, FromDate: pystr.Strip(a.FromDate),
		ToDate: pystr.Strip(a.ToDate), Image: a.Image, Video: a.Video}}
	if effort != "" {
		req.Reasoning = &struct {
			Effort string `json:"effort"`
		}{effort}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("encode x_search request: %w", err)
	}

	timeout := time.Duration(c.intSetting("timeout_seconds", defaultTimeout, minTimeout)) * time.Second
	if t.timeout > 0 {
		timeout = t.timeout
	}
	retries := min(c.intSetting("retries", defaultRetries, 0), maxRetries)
	data, res, ok := t.post(ctx, base+"/responses", key, body, timeout, retries)
	if !ok {
		return res, nil
	}

	var resp struct {
		OutputText string `json:"output_text"`
		Output     []struct {
			Type    string `json:"type"`
			Content []struct {
				Type        string `json:"type"`
				Text        any    `json:"text"`
				Annotations []struct {
					Type       string          `json:"type"`
					URL        json.RawMessage `json:"url"`
					Title      json.RawMessage `json:"title"`
					StartIndex json.RawMessage `json:"start_index"`
					EndIndex   json.RawMessage `json:"end_index"`
				} `json:"annotations"`
			} `json:"content"`
		} `json:"output"`
		Citations json.RawMessage `json:"citations"`
		Usage     struct {
			Details struct {
				Calls json.RawMessage `json:"x_search_calls"`
			} `json:"server_side_tool_usage_details"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return fail(fmt.Sprintf("xAI answered with something that is not its JSON response (%v); check XAI_BASE_URL", err), "JSONDecodeError"), nil
	}
	out := success{Success: true, Provider: "xai", CredentialSource: "xai", Tool: ToolName, Model: req.Model, Query: query,
		Citations: []json.RawMessage{}, InlineCitations: []inlineCitation{}, XSearchCalls: json.RawMessage("null")}
	out.Answer = pystr.Strip(resp.OutputText)
	var parts []string
	orEmpty := func(r json.RawMessage, def string) json.RawMessage {
		if len(r) == 0 {
			return json.RawMessage(def)
		}
		return r
	}
	for _, item := range resp.Output {
		if item.Type != "message" {
			continue
		}
		for _, part := range item.Content {
			if part.Type == "output_text" || part.Type == "text" {
				if s := pystr.Strip(strOr(part.Text)); s != "" {
					parts = append(parts, s)
				}
			}
			for _, an := range part.Annotations {
				if an.Type == "url_citation" {
					out.InlineCitations = append(out.InlineCitations, inlineCitation{
						URL: orEmpty(an.URL, `""`), Title: orEmpty(an.Title, `""`),
						StartIndex: orEmpty(an.StartIndex, "null"), EndIndex: orEmpty(an.EndIndex, "null")})
				}
			}
		}
	}
	if out.Answer == "" {
		out.Answer = pystr.Strip(strings.Join(parts, "\n\n"))
	}
	_ = json.Unmarshal(resp.Citations, &out.Citations)
	if out.Citations == nil {
		out.Citations = []json.RawMessage{}
	}
	if c := bytes.TrimSpace(resp.Usage.Details.Calls); len(c) > 0 {
		out.XSearchCalls = c
	}
	t.degrade(&out, allowed, excluded, a)
	return tooldef.OK(out), nil
}

// degrade marks an answer that came without sources, as the original does:
// when xAI says how many X searches ran, by that count and the citations;
// else when filters narrowed the search and nothing was cited.
func (t *tool) degrade(out *success, allowed, excluded []string, a args) {
	var filters []string
	if len(allowed) > 0 {
		filters = append(filters, "allowed_x_handles")
	}
	if len(excluded) > 0 {
		filters = append(filters, "excluded_x_handles")
	}
	if pystr.Strip(a.FromDate) != "" {
		filters = append(filters, "from_date")
	}
	if pystr.Strip(a.ToDate) != "" {
		filters = append(filters, "to_date")
	}
	cited := len(out.Citations) > 0 || len(out.InlineCitations) > 0
	reason := ""
	if calls := string(out.XSearchCalls); calls != "null" {
		var n float64
		isZero := calls == "false" || (json.Unmarshal(out.XSearchCalls, &n) == nil && n == 0)
		switch {
		case isZero:
			reason = "x_search index returned no results (x_search_calls=0)"
		case !cited:
			reason = "no citations returned despite x_search_calls=" + pyNumber(out.XSearchCalls)
			if len(filters) > 0 {
				reason += " and filters: " + strings.Join(filters, ", ")
			}
		}
	} else if len(filters) > 0 && !cited {
		reason = "no citations returned despite filters: " + strings.Join(filters, ", ")
	}
	if reason != "" {
		out.Degraded, out.DegradedReason = true, &reason
	}
}

// pyNumber renders a JSON scalar as Python's f-string would.
func pyNumber(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return pystr.Str(v)
}

// handles strips each handle and its @, drops empty ones, and allows ten.
func handles(in []string, field string) ([]string, error) {
	var out []string
	for _, h := range in {
		if h = strings.TrimLeft(pystr.Strip(h), "@"); h != "" {
			out = append(out, h)
		}
	}
	if len(out) > maxHandles {
		return nil, fmt.Errorf("%s supports at most %d handles", field, maxHandles)
	}
	return out, nil
}

// checkDates refuses malformed, inverted and wholly future date ranges
// before a billable call: xAI would answer them with unsourced prose.
func (t *tool) checkDates(from, to string) error {
	parse := func(v, field string) (time.Time, bool, error) {
		s := pystr.Strip(v)
		if s == "" {
			return time.Time{}, false, nil
		}
		d, err := parseStrictDate(s)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("%s must be YYYY-MM-DD (got %s)", field, pyRepr(s))
		}
		return d, true, nil
	}
	f, hasFrom, err := parse(from, "from_date")
	if err != nil {
		return err
	}
	tt, hasTo, err := parse(to, "to_date")
	if err != nil {
		return err
	}
	if hasFrom && hasTo && f.After(tt) {
		return fmt.Errorf("from_date (%s) must be on or before to_date (%s)", f.Format(time.DateOnly), tt.Format(time.DateOnly))
	}
	if hasFrom {
		today := t.now().UTC()
		today = time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
		if f.After(today) {
			return fmt.Errorf("from_date (%s) is in the future; X Search only indexes past posts (today UTC is %s)",
				f.Format(time.DateOnly), today.Format(time.DateOnly))
		}
	}
	return nil
}

// parseStrictDate is Python's strptime(s, "%Y-%m-%d"), which also takes
// one-digit months and days.
func parseStrictDate(s string) (time.Time, error) {
	parts := strings.Split(s, "-")
	if len(parts) != 3 || len(parts[0]) != 4 || len(parts[1]) < 1 || len(parts[1]) > 2 || len(parts[2]) < 1 || len(parts[2]) > 2 {
		return time.Time{}, errors.New("not YYYY-MM-DD")
	}
	var n [3]int
	for i, p := range parts {
		for _, c := range p {
			if c < '0' || c > '9' {
				return time.Time{}, errors.New("not YYYY-MM-DD")
			}
		}
		n[i], _ = strconv.Atoi(p)
	}
	d := time.Date(n[0], time.Month(n[1]), n[2], 0, 0, 0, 0, time.UTC)
	if d.Year() != n[0] || int(d.Month()) != n[1] || d.Day() != n[2] {
		return time.Time{}, errors.New("no such date")
	}
	return d, nil
}

// retryable are the statuses the original retries.
func retryable(status int) bool {
	switch status {
	case 408, 425, 429, 500, 502, 503, 504:
		return true
	}
	return false
}

// backoff is the original's wait when no Retry-After says otherwise.
func backoff(attempt int) time.Duration {
	return time.Duration(min(5.0, 1.5*float64(attempt+1)) * float64(time.Second))
}

// post sends the request, retrying transient failures; ok false means res
// is the failure to return.
func (t *tool) post(ctx context.Context, u, key string, body []byte, timeout time.Duration, retries int) (data []byte, res tooldef.Result, ok bool) {
	for attempt := 0; ; attempt++ {
		status, header, data, err := t.attempt(ctx, u, key, body, timeout)
		if ctx.Err() != nil {
			return nil, toolError("Interrupted"), false
		}
		last := attempt >= retries
		switch {
		case err != nil:
			timedOut := errors.Is(err, context.DeadlineExceeded)
			if last {
				if timedOut {
					return nil, fail(fmt.Sprintf("xAI x_search timed out after %s seconds", strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64)), "ReadTimeout"), false
				}
				return nil, fail(redact.String(err.Error()), "ConnectionError"), false
			}
			if t.sleep(ctx, backoff(attempt)) != nil {
				return nil, toolError("Interrupted"), false
			}
		case status >= 400:
			if last || !retryable(status) {
				return nil, fail(httpMessage(status, data), "HTTPError"), false
			}
			wait := backoff(attempt)
			if s, err := strconv.ParseFloat(strings.TrimSpace(header.Get("Retry-After")), 64); err == nil && s >= 0 && !math.IsInf(s, 0) {
				wait = time.Duration(min(s, 600) * float64(time.Second))
			}
			if t.sleep(ctx, wait) != nil {
				return nil, toolError("Interrupted"), false
			}
		default:
			return data, tooldef.Result{}, true
		}
	}
}

func (t *tool) attempt(ctx context.Context, u, key string, body []byte, timeout time.Duration) (int, http.Header, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("XAI_BASE_URL is not a usable URL: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", t.agent)
	resp, err := t.api.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, context.DeadlineExceeded
		}
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseSize))
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil, context.DeadlineExceeded
		}
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, data, nil
}

// httpMessage is the original's wording of an error status: xAI's
// {code, error} when the body is JSON, else the body's first 500
// characters, else the status.
func httpMessage(status int, body []byte) string {
	var payload map[string]any
	if json.Unmarshal(body, &payload) == nil && payload != nil {
		code := pystr.Strip(strOr(payload["code"]))
		msg := pystr.Strip(strOr(payload["error"]))
		if _, isStr := payload["error"].(string); !isStr && payload["error"] != nil {
			b, _ := json.Marshal(payload["error"])
			msg = string(b)
		}
		if msg == "" {
			msg = strings.TrimSpace(string(body))
		}
		if code != "" && !strings.Contains(msg, code) {
			msg = code + ": " + msg
		}
		return redact.String(msg)
	}
	if s := strings.TrimSpace(string(body)); s != "" {
		r := []rune(s)
		if len(r) > 500 {
			r = r[:500]
		}
		return redact.String(string(r))
	}
	return fmt.Sprintf("%d %s", status, http.StatusText(status))
}
