package web

// The keyed search backends, each on its vendor's wire format as the
// original's plugins/web/<vendor>/provider.py sends it, and each failing
// with the original's words (plus, where a status says what fixes it, a
// short hint of ours in parentheses).

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/pystr"
)

// tavilyKeys is TAVILY_API_KEY read as the original reads it: a comma (or
// semicolon) separated pool of keys.
func tavilyKeys(getenv func(string) string) []string {
	var out []string
	for _, k := range strings.Split(strings.ReplaceAll(getenv("TAVILY_API_KEY"), ";", ","), ",") {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// tavilyKeyless is the original's use_keyless for Tavily: pinned free, or
// no key while the keyless tier is on (Tavily is never picked without a
// key, so this is an opt-in by naming it).
func tavilyKeyless(c Config, keys []string) bool {
	switch c.Tier(BackendTavily) {
	case "free":
		return true
	case "paid":
		return false
	}
	return len(keys) == 0 && c.KeylessOn()
}

func tavilyMissingKey(action string) error {
	return fmt.Errorf("TAVILY_API_KEY is not set. Get a key at https://app.tavily.com/home, or set "+
		"web.provider_tier.tavily: free in config.yaml for Tavily's opt-in keyless %s.", action)
}

// tavilyRetryable are the statuses on which the next key of the pool is
// tried (and any 5xx).
func tavilyRetryable(status int) bool {
	return status == 401 || status == 402 || status == 429 || status == 432 || status >= 500
}

// tavilyRequest posts to Tavily with the next key of the pool, moving on
// through the pool on auth, billing, rate-limit and server errors, bad
// JSON and transport failures; the last failure is the call's, its body
// verbatim as the original returns it.
func (t *tools) tavilyRequest(ctx context.Context, c Config, endpoint, action string, payload any, out any) error {
	keys := tavilyKeys(t.getenv)
	keyless := tavilyKeyless(c, keys)
	if !keyless && len(keys) == 0 {
		return tavilyMissingKey(action)
	}
	order := []string{""}
	if !keyless {
		start := int(t.tavilyNext.Add(1)-1) % len(keys)
		order = append(slices.Clone(keys[start:]), keys[:start]...)
	}
	u := t.url(tavilyAPI) + "/" + endpoint
	body := encodeBody(payload)
	for i, key := range order {
		last := i == len(order)-1
		h := headers("Content-Type", "application/json", "X-Client-Name", "hermes-agent")
		if key != "" {
			h.Set("Authorization", "Bearer "+key)
		} else {
			h.Set("X-Tavily-Access-Mode", "keyless")
		}
		r, err := t.send(ctx, http.MethodPost, u, h, body)
		switch {
		case err != nil:
			if !last && ctx.Err() == nil {
				continue
			}
			return fmt.Errorf("Tavily %s failed: %s", action, t.describe(err))
		case !r.ok():
			if !last && tavilyRetryable(r.status) {
				continue
			}
			return errors.New(bodyText(r) + retryNote(r) + fixHint(BackendTavily, r.status))
		}
		if err := json.Unmarshal(r.body, out); err != nil {
			if !last {
				continue
			}
			return fmt.Errorf("Tavily %s failed: the answer is not JSON (%v); check TAVILY_BASE_URL", action, err)
		}
		return nil
	}
	return fmt.Errorf("Tavily %s failed: no keys left to try", action)
}

func (t *tools) tavilySearch(ctx context.Context, c Config, query string, limit int) ([]json.RawMessage, error) {
	var resp struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	payload := object{"query", query, "max_results", min(limit, 20), "include_raw_content", false, "include_images", false}
	if err := t.tavilyRequest(ctx, c, "search", "search", payload, &resp); err != nil {
		return nil, err
	}
	rows := make([]json.RawMessage, len(resp.Results))
	for i, r := range resp.Results {
		rows[i] = row(titleHit{r.Title, r.URL, r.Content, i + 1})
	}
	return rows, nil
}

// vendorCall posts (or gets) one keyed request and decodes the JSON
// answer; a failure is "<Vendor> search failed: …" as the original's SDK
// wrappers word it.
func (t *tools) vendorCall(ctx context.Context, backend, what, method, u string, h http.Header, payload any, out any) error {
	var body []byte
	if payload != nil {
		body = encodeBody(payload)
	}
	r, err := t.send(ctx, method, u, h, body)
	if err != nil {
		return fmt.Errorf("%s %s failed: %s", DisplayName(backend), what, t.describe(err))
	}
	if !r.ok() {
		return fmt.Errorf("%s %s failed: %v%s", DisplayName(backend), what, statusErr(r), fixHint(backend, r.status))
	}
	if err := json.Unmarshal(r.body, out); err != nil {
		return fmt.Errorf("%s %s failed: the answer is not JSON (%v)", DisplayName(backend), what, err)
	}
	return nil
}

func (t *tools) exaSearch(ctx context.Context, query string, limit int) ([]json.RawMessage, error) {
	key := t.getenv("EXA_API_KEY")
	if key == "" {
		return nil, errors.New(exaMissingKey)
	}
	var resp struct {
		Results []struct {
			Title      string   `json:"title"`
			URL        string   `json:"url"`
			Highlights []string `json:"highlights"`
		} `json:"results"`
	}
	h := headers("Content-Type", "application/json", "x-api-key", key, "x-exa-integration", "hermes-agent")
	payload := object{"query", query, "numResults", limit, "contents", object{"highlights", true}}
	if err := t.vendorCall(ctx, BackendExa, "search", http.MethodPost, t.url(exaAPI)+"/search", h, payload, &resp); err != nil {
		return nil, err
	}
	rows := make([]json.RawMessage, len(resp.Results))
	for i, r := range resp.Results {
		rows[i] = row(urlHit{r.URL, r.Title, strings.Join(r.Highlights, " "), i + 1})
	}
	return rows, nil
}

const (
	exaMissingKey      = "EXA_API_KEY environment variable not set. Get your API key at https://exa.ai"
	parallelMissingKey = "PARALLEL_API_KEY environment variable not set. Get your API key at https://parallel.ai"
	perplexityMissing  = "PERPLEXITY_API_KEY is not set. Get a key at https://www.perplexity.ai/account/api"
	parallelBeta       = "search-extract-2025-10-10"
)

// parallelMode is PARALLEL_SEARCH_MODE: agentic (the default), fast or
// one-shot.
func (t *tools) parallelMode() string {
	m := strings.ToLower(strings.TrimSpace(t.getenv("PARALLEL_SEARCH_MODE")))
	if m != "fast" && m != "one-shot" {
		return "agentic"
	}
	return m
}

func (t *tools) parallelSearch(ctx context.Context, query string, limit int) ([]json.RawMessage, error) {
	key := t.getenv("PARALLEL_API_KEY")
	if key == "" {
		return nil, errors.New(parallelMissingKey)
	}
	var resp struct {
		Results []struct {
			URL      string   `json:"url"`
			Title    string   `json:"title"`
			Excerpts []string `json:"excerpts"`
		} `json:"results"`
	}
	h := headers("Content-Type", "application/json", "x-api-key", key, "parallel-beta", parallelBeta)
	payload := object{"objective", query, "search_queries", []string{query}, "mode", t.parallelMode(), "max_results", min(limit, 20)}
	if err := t.vendorCall(ctx, BackendParallel, "search", http.MethodPost, t.url(parallelAPI)+"/v1beta/search", h, payload, &resp); err != nil {
		return nil, err
	}
	rows := make([]json.RawMessage, len(resp.Results))
	for i, r := range resp.Results {
		rows[i] = row(urlHit{r.URL, r.Title, strings.Join(r.Excerpts, " "), i + 1})
	}
	return rows, nil
}

// perplexityRequest posts to Perplexity; a status comes back as the body
// verbatim, as the original passes Perplexity's own error text on.
func (t *tools) perplexityRequest(ctx context.Context, endpoint, what string, payload, out any) error {
	key := t.getenv("PERPLEXITY_API_KEY")
	if key == "" {
		return errors.New(perplexityMissing)
	}
	r, err := t.send(ctx, http.MethodPost, t.url(perplexityAPI)+"/"+endpoint,
		headers("Authorization", "Bearer "+key, "Content-Type", "application/json"), encodeBody(payload))
	if err != nil {
		return fmt.Errorf("Perplexity %s failed: %s", what, t.describe(err))
	}
	if !r.ok() {
		return errors.New(bodyText(r) + retryNote(r) + fixHint(BackendPerplexity, r.status))
	}
	if err := json.Unmarshal(r.body, out); err != nil {
		return fmt.Errorf("Perplexity %s failed: the answer is not JSON (%v)", what, err)
	}
	return nil
}

func (t *tools) perplexitySearch(ctx context.Context, query string, limit int) ([]json.RawMessage, error) {
	var resp struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Snippet string `json:"snippet"`
		} `json:"results"`
	}
	payload := object{"query", query, "max_results", max(1, min(limit, 20)), "search_context_size", "low"}
	if err := t.perplexityRequest(ctx, "search", "search", payload, &resp); err != nil {
		return nil, err
	}
	rows := make([]json.RawMessage, len(resp.Results))
	for i, r := range resp.Results {
		rows[i] = row(titleHit{r.Title, r.URL, r.Snippet, i + 1})
	}
	return rows, nil
}

// keenableHeaders carry Keenable's mandatory app name, and the key when
// there is one (a paid-pinned Keenable without a key is refused by
// Keenable itself, as in the original).
func (t *tools) keenableHeaders(post bool) http.Header {
	h := headers("X-Keenable-Title", keenableTitle)
	if k := t.getenv("KEENABLE_API_KEY"); k != "" {
		h.Set("Authorization", "Bearer "+k)
	}
	if post {
		h.Set("Content-Type", "application/json")
	}
	return h
}

func (t *tools) keenableSearch(ctx context.Context, query string, limit int) ([]json.RawMessage, error) {
	r, err := t.send(ctx, http.MethodPost, t.url(keenableAPI)+"/v1/search", t.keenableHeaders(true),
		encodeBody(object{"query", query, "max_results", min(max(1, limit), 20)}))
	if err != nil {
		return nil, fmt.Errorf("Keenable search failed: %s", t.describe(err))
	}
	if !r.ok() {
		return nil, fmt.Errorf("Keenable search failed: %s%s%s", bodyText(r), retryNote(r), fixHint(BackendKeenable, r.status))
	}
	rows, err := keenableRows(r.body)
	if err != nil {
		return nil, fmt.Errorf("Keenable search failed: %v", err)
	}
	return rows, nil
}

const firecrawlNotConfigured = "Web tools are not configured. Set FIRECRAWL_API_KEY for cloud Firecrawl or set " +
	"FIRECRAWL_API_URL for a self-hosted Firecrawl instance."

// firecrawlTarget is where a Firecrawl call goes when it is not on the
// keyless ring: the API (cloud or self-hosted) with its key, or, for a
// Firecrawl named in config.yaml with neither key nor URL, the cloud
// without one.
func (t *tools) firecrawlTarget(c Config) (base string, h http.Header, err error) {
	key, api := t.getenv("FIRECRAWL_API_KEY"), t.getenv(envFirecrawlURL)
	h = headers("Content-Type", "application/json")
	switch {
	case key != "" || api != "":
		if key != "" {
			h.Set("Authorization", "Bearer "+key)
		}
		return t.url(firecrawlAPI), h, nil
	case c.selects(BackendFirecrawl):
		return t.url(firecrawlKeyless), h, nil
	}
	return "", nil, errors.New(firecrawlNotConfigured)
}

func (t *tools) firecrawlSearch(ctx context.Context, c Config, query string, limit int) ([]json.RawMessage, error) {
	base, h, err := t.firecrawlTarget(c)
	if err != nil {
		return nil, err
	}
	r, err := t.send(ctx, http.MethodPost, base+"/v2/search", h, encodeBody(object{"query", query, "limit", limit}))
	if err != nil {
		return nil, fmt.Errorf("Firecrawl search failed: %s", t.describe(err))
	}
	if !r.ok() {
		return nil, fmt.Errorf("Firecrawl search failed: %v%s", statusErr(r), fixHint(BackendFirecrawl, r.status))
	}
	rows, err := firecrawlRows(r.body)
	if err != nil {
		return nil, fmt.Errorf("Firecrawl search failed: %v", err)
	}
	return rows, nil
}

// searxngTimeout is SEARXNG_TIMEOUT in seconds: 15 by default, 5 at least.
func (t *tools) searxngTimeout() time.Duration {
	s := 15.0
	if v, err := strconv.ParseFloat(strings.TrimSpace(t.getenv("SEARXNG_TIMEOUT")), 64); err == nil {
		s = max(v, 5)
	}
	return time.Duration(s * float64(time.Second))
}

func (t *tools) searxngSearch(ctx context.Context, query string, limit int) ([]json.RawMessage, error) {
	base := t.url(searxngAPI)
	if base == "" {
		return nil, errors.New("SEARXNG_URL is not set")
	}
	ctx, cancel := context.WithTimeout(ctx, t.searxngTimeout())
	defer cancel()
	u := base + "/search?" + url.Values{"q": {query}, "format": {"json"}, "pageno": {"1"}}.Encode()
	r, err := t.send(ctx, http.MethodGet, u, headers("Accept", "application/json"), nil)
	if err != nil {
		return nil, fmt.Errorf("Could not reach SearXNG at %s: %s", base, t.describe(err))
	}
	if !r.ok() {
		return nil, fmt.Errorf("SearXNG returned HTTP %d%s%s", r.status, retryNote(r), fixHint(BackendSearXNG, r.status))
	}
	var resp struct {
		Results []map[string]any `json:"results"`
	}
	if json.Unmarshal(r.body, &resp) != nil {
		return nil, errors.New("Could not parse SearXNG response as JSON")
	}
	res := slices.Clone(resp.Results)
	slices.SortStableFunc(res, func(a, b map[string]any) int { return cmp.Compare(score(b["score"]), score(a["score"])) })
	if len(res) > limit {
		res = res[:limit]
	}
	return titledRows(res, "content"), nil
}

// score is float(r.get("score", 0)), 0 where that would fail.
func score(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		f, _ := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// titledRows is the original's titled_rows: str() of title, url and the
// description field, as sent (Brave's <strong> highlighting included).
func titledRows(res []map[string]any, descKey string) []json.RawMessage {
	str := func(m map[string]any, k string) string {
		v, ok := m[k]
		if !ok {
			return ""
		}
		return pystr.Str(v)
	}
	rows := make([]json.RawMessage, len(res))
	for i, r := range res {
		rows[i] = row(titleHit{str(r, "title"), str(r, "url"), str(r, descKey), i + 1})
	}
	return rows
}

func (t *tools) braveSearch(ctx context.Context, query string, limit int) ([]json.RawMessage, error) {
	key := t.getenv("BRAVE_SEARCH_API_KEY")
	if key == "" {
		return nil, errors.New("BRAVE_SEARCH_API_KEY is not set")
	}
	u := t.url(braveAPI) + "/res/v1/web/search?" + url.Values{"q": {query}, "count": {strconv.Itoa(max(1, min(limit, 20)))}}.Encode()
	r, err := t.send(ctx, http.MethodGet, u, headers("X-Subscription-Token", key, "Accept", "application/json"), nil)
	if err != nil {
		return nil, fmt.Errorf("Could not reach Brave Search: %s", t.describe(err))
	}
	if !r.ok() {
		return nil, fmt.Errorf("Brave Search returned HTTP %d%s%s", r.status, retryNote(r), fixHint(BackendBrave, r.status))
	}
	var resp struct {
		Web struct {
			Results []map[string]any `json:"results"`
		} `json:"web"`
	}
	if json.Unmarshal(r.body, &resp) != nil {
		return nil, errors.New("Could not parse Brave Search response as JSON")
	}
	res := resp.Web.Results
	if len(res) > limit {
		res = res[:limit]
	}
	return titledRows(res, "description"), nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
