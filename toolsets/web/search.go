package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type searchArgs struct {
	Query string `json:"query"`
	Limit *int   `json:"limit"`
}

// hit is one search result in the Python Hermes' shape.
type hit struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Position    int    `json:"position"`
}

func (t *tools) handleSearch(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[searchArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	query := strings.TrimSpace(args.Query)
	if query == "" {
		return tooldef.Errorf("query is required: pass the words to search for"), nil
	}
	limit := 5
	if args.Limit != nil {
		limit = min(max(*args.Limit, 1), 100)
	}
	c, err := LoadConfig(t.home)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	backend, err := SearchBackend(c, t.getenv)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	hits, err := t.search(ctx, backend, query, limit)
	if err != nil {
		if ctx.Err() != nil {
			return tooldef.Failure(map[string]any{"error": "Interrupted", "success": false}), nil
		}
		return tooldef.Errorf("Error searching web: %v", err), nil
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	for i := range hits {
		hits[i].Position = i + 1
	}
	if hits == nil {
		hits = []hit{}
	}
	return tooldef.OK(map[string]any{"success": true, "data": map[string]any{"web": hits}}), nil
}

func (t *tools) search(ctx context.Context, backend, query string, limit int) ([]hit, error) {
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	base := t.baseURL(backend)
	switch backend {
	case BackendFirecrawl:
		var resp struct {
			Success bool `json:"success"`
			Data    struct {
				Web []hit `json:"web"`
			} `json:"data"`
			Warning string `json:"warning"`
		}
		err := t.postJSON(ctx, backend, base+"/v2/search", firecrawlAuth(t.getenv), map[string]any{"query": query, "limit": limit}, &resp)
		return resp.Data.Web, err
	case BackendTavily:
		var resp struct {
			Results []struct {
				Title   string `json:"title"`
				URL     string `json:"url"`
				Content string `json:"content"`
			} `json:"results"`
		}
		body := map[string]any{"query": query, "max_results": min(limit, 20), "search_depth": "basic",
			"include_answer": false, "include_raw_content": false, "include_images": false}
		if err := t.postJSON(ctx, backend, base+"/search", bearerAuth(t.getenv("TAVILY_API_KEY")), body, &resp); err != nil {
			return nil, err
		}
		out := make([]hit, 0, len(resp.Results))
		for _, r := range resp.Results {
			out = append(out, hit{Title: r.Title, URL: r.URL, Description: r.Content})
		}
		return out, nil
	case BackendExa:
		var resp struct {
			Results []struct {
				Title      string   `json:"title"`
				URL        string   `json:"url"`
				Text       string   `json:"text"`
				Summary    string   `json:"summary"`
				Highlights []string `json:"highlights"`
			} `json:"results"`
		}
		body := map[string]any{"query": query, "numResults": limit, "type": "auto",
			"contents": map[string]any{"text": map[string]any{"maxCharacters": 300}}}
		if err := t.postJSON(ctx, backend, base+"/search", headerAuth("x-api-key", t.getenv("EXA_API_KEY")), body, &resp); err != nil {
			return nil, err
		}
		out := make([]hit, 0, len(resp.Results))
		for _, r := range resp.Results {
			desc := r.Summary
			if desc == "" && len(r.Highlights) > 0 {
				desc = strings.Join(r.Highlights, " … ")
			}
			if desc == "" {
				desc = r.Text
			}
			out = append(out, hit{Title: r.Title, URL: r.URL, Description: strings.TrimSpace(desc)})
		}
		return out, nil
	case BackendSearXNG:
		var resp struct {
			Results []struct {
				Title   string `json:"title"`
				URL     string `json:"url"`
				Content string `json:"content"`
			} `json:"results"`
		}
		// SearXNG has no result-count parameter (about 20 a page); the
		// handler trims.
		u := base + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
		if err := t.getJSON(ctx, backend, u, nil, &resp); err != nil {
			return nil, err
		}
		out := make([]hit, 0, len(resp.Results))
		for _, r := range resp.Results {
			out = append(out, hit{Title: r.Title, URL: r.URL, Description: r.Content})
		}
		return out, nil
	case BackendBrave:
		var resp struct {
			Web struct {
				Results []struct {
					Title       string `json:"title"`
					URL         string `json:"url"`
					Description string `json:"description"`
				} `json:"results"`
			} `json:"web"`
		}
		// Brave answers at most 20 results a request.
		u := base + "/res/v1/web/search?" + url.Values{"q": {query}, "count": {strconv.Itoa(min(limit, 20))}}.Encode()
		if err := t.getJSON(ctx, backend, u, headerAuth("X-Subscription-Token", t.getenv("BRAVE_SEARCH_API_KEY")), &resp); err != nil {
			return nil, err
		}
		out := make([]hit, 0, len(resp.Web.Results))
		for _, r := range resp.Web.Results {
			out = append(out, hit{Title: r.Title, URL: r.URL, Description: stripTags(r.Description)})
		}
		return out, nil
	}
	return nil, fmt.Errorf("web search backend %q is not supported by hermes-tools (supported: firecrawl, tavily, exa, searxng, brave-free)", backend)
}

// stripTags removes the <strong> highlighting Brave puts in descriptions.
func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>' && in:
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// authFunc sets a provider's auth header on a request.
type authFunc func(*http.Request)

func bearerAuth(key string) authFunc {
	return func(r *http.Request) {
		if key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
	}
}

func headerAuth(name, key string) authFunc {
	return func(r *http.Request) { r.Header.Set(name, key) }
}

// firecrawlAuth sends the key when there is one: a self-hosted Firecrawl
// runs without, and the official SDK leaves the header out then too.
func firecrawlAuth(getenv func(string) string) authFunc {
	return bearerAuth(getenv("FIRECRAWL_API_KEY"))
}

func (t *tools) postJSON(ctx context.Context, backend, u string, auth authFunc, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode %s request: %w", DisplayName(backend), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s base URL: %w (fix %s)", DisplayName(backend), err, baseEnv(backend))
	}
	req.Header.Set("Content-Type", "application/json")
	return t.do(req, backend, auth, out)
}

func (t *tools) getJSON(ctx context.Context, backend, u string, auth authFunc, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%s base URL: %w (fix %s)", DisplayName(backend), err, baseEnv(backend))
	}
	return t.do(req, backend, auth, out)
}

// maxAPIResponse bounds what a provider may send back.
const maxAPIResponse = 16 << 20

func (t *tools) do(req *http.Request, backend string, auth authFunc, out any) error {
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if auth != nil {
		auth(req)
	}
	name := DisplayName(backend)
	resp, err := t.api.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%s did not answer within %v; try again, or check %s", name, t.timeout, baseEnv(backend))
		}
		return fmt.Errorf("%s request failed: %w", name, redactErr(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIResponse))
	if err != nil {
		return fmt.Errorf("read %s response: %w", name, err)
	}
	if resp.StatusCode >= 300 {
		return statusError(backend, resp.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s answered with something that is not its JSON format (%w); check %s points at the %s API", name, err, baseEnv(backend), name)
	}
	return nil
}

// statusError explains a provider's error status and what fixes it.
func statusError(backend string, code int, body []byte) error {
	name := DisplayName(backend)
	msg := providerMessage(body)
	var fix string
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		fix = "check " + keyEnv(backend)
		if backend == BackendSearXNG {
			fix = "enable the json format in the SearXNG instance's settings.yml (search: formats: [html, json])"
		}
	case http.StatusPaymentRequired, 432, 433:
		fix = "the " + name + " plan's credits or limits are exhausted"
	case http.StatusTooManyRequests:
		fix = "rate limited; wait a moment and retry"
	case http.StatusNotFound:
		fix = "check " + baseEnv(backend)
	default:
		if code >= 500 {
			fix = name + " had a server error; retry later"
		}
	}
	out := fmt.Sprintf("%s returned HTTP %d", name, code)
	if msg != "" {
		out += ": " + msg
	}
	if fix != "" {
		out += " (" + fix + ")"
	}
	return errors.New(out)
}

// providerMessage pulls the human message out of a provider error body,
// whichever of the usual shapes it has.
func providerMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Detail  json.RawMessage `json:"detail"`
		Message string          `json:"message"`
	}
	msg := ""
	if json.Unmarshal(body, &v) == nil {
		for _, raw := range []json.RawMessage{v.Error, v.Detail} {
			if len(raw) == 0 {
				continue
			}
			var s string
			if json.Unmarshal(raw, &s) == nil {
				msg = s
				break
			}
			var o struct {
				Message string `json:"message"`
				Error   string `json:"error"`
				Detail  string `json:"detail"`
			}
			if json.Unmarshal(raw, &o) == nil {
				msg = firstNonEmpty(o.Message, o.Error, o.Detail)
				if msg != "" {
					break
				}
			}
		}
		if msg == "" {
			msg = v.Message
		}
	}
	if msg == "" {
		msg = strings.TrimSpace(string(body))
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return redact.String(msg)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func keyEnv(backend string) string {
	switch backend {
	case BackendTavily:
		return "TAVILY_API_KEY"
	case BackendExa:
		return "EXA_API_KEY"
	case BackendFirecrawl:
		return "FIRECRAWL_API_KEY"
	case BackendBrave:
		return "BRAVE_SEARCH_API_KEY"
	case BackendSearXNG:
		return "SEARXNG_URL"
	}
	return "the provider key"
}

func baseEnv(backend string) string {
	switch backend {
	case BackendTavily:
		return "TAVILY_BASE_URL"
	case BackendExa:
		return "EXA_BASE_URL"
	case BackendFirecrawl:
		return "FIRECRAWL_API_URL"
	case BackendBrave:
		return "BRAVE_SEARCH_BASE_URL"
	case BackendSearXNG:
		return "SEARXNG_URL"
	}
	return "the provider URL"
}

// redactErr keeps keys out of transport errors, which quote URLs.
func redactErr(err error) error {
	return errors.New(redact.String(err.Error()))
}

const userAgent = "Mozilla/5.0 (compatible; hermes-tools; +https://github.com/hermes-go/hermes)"
