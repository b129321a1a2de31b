package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/tooldef/tooldeftest"
)

// publicResolver answers every host with a public documentation address,
// so the URL policy passes without any DNS traffic leaving the machine.
type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

// loopbackOnly is the dialer of every connection these tests make: any
// address but loopback is refused before a packet leaves, so a test that
// forgot an endpoint override fails instead of reaching the internet.
func loopbackOnly() *net.Dialer {
	return &net.Dialer{Timeout: 5 * time.Second, ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		if a, err := netip.ParseAddr(host); err != nil || !a.IsLoopback() {
			return fmt.Errorf("test dialer: %s is not loopback; tests reach nothing else", address)
		}
		return nil
	}}
}

// fixture is a toolset wired to a fake API server and a private home.
type fixture struct {
	fake  *fakeapis.Server
	home  string
	ts    tooldef.Toolset
	tools *tools
}

// keylessEnv points every endpoint the toolset may reach without a key at
// the fake.
func keylessEnv(fake *fakeapis.Server) map[string]string {
	return map[string]string{
		envExaMCP:           fake.Base(fakeapis.ExaMCP),
		envParallelMCP:      fake.Base(fakeapis.ParallelMCP),
		envFirecrawlKeyless: fake.Base(fakeapis.Firecrawl),
		envKeenableBase:     fake.Base(fakeapis.Keenable),
		envDuckDuckGo:       fake.Base(fakeapis.DuckDuckGo),
		envWikipedia:        fake.Base(fakeapis.Wikipedia),
	}
}

func newFixture(t *testing.T, env map[string]string, configYAML string) *fixture {
	t.Helper()
	return newFixtureWith(t, fakeapis.Start(t), env, configYAML, 3*time.Second)
}

// newFixtureWith builds the toolset over fake with env on top of the
// keyless endpoints, config.yaml as given, and the ring starting at exa.
func newFixtureWith(t *testing.T, fake *fakeapis.Server, env map[string]string, configYAML string, timeout time.Duration) *fixture {
	t.Helper()
	home := t.TempDir()
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	full := keylessEnv(fake)
	for k, v := range env {
		full[k] = v
	}
	start := 0
	tl := newTools(Options{
		Home: home, Getenv: func(k string) string { return full[k] }, Resolver: publicResolver{}, Timeout: timeout,
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: loopbackOnly().DialContext}},
		RingStart:  &start,
	})
	tl.pageNet = loopbackOnly()
	return &fixture{fake: fake, home: home, ts: tl.toolset(), tools: tl}
}

func (f *fixture) tool(t *testing.T, name string) tooldef.Tool {
	t.Helper()
	for _, tl := range f.ts.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return tooldef.Tool{}
}

// callRaw runs a tool and returns its result as the JSON text the client
// gets, checking a success against the tool's output schema.
func (f *fixture) callRaw(t *testing.T, ctx context.Context, name string, args any) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	tl := f.tool(t, name)
	res, err := tl.Handler(ctx, raw)
	if err != nil {
		t.Fatalf("%s: Go error %v (model-actionable failures must be results)", name, err)
	}
	b, err := tooldef.EncodeJSON(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		var v any
		_ = json.Unmarshal(b, &v)
		if err := tooldeftest.CompileSchema(t, name, tl.OutputSchema).Validate(v); err != nil {
			t.Errorf("%s result does not match its output schema: %v\n%s", name, err, b)
		}
	}
	return string(b), res.IsError
}

// call runs a tool and returns its result as decoded JSON.
func (f *fixture) call(t *testing.T, ctx context.Context, name string, args any) (map[string]any, bool) {
	t.Helper()
	b, isErr := f.callRaw(t, ctx, name, args)
	var out map[string]any
	if err := json.Unmarshal([]byte(b), &out); err != nil {
		t.Fatalf("%s result is not a JSON object: %s", name, b)
	}
	return out, isErr
}

// errorText is a failed call's error, failing the test on a success.
func errorText(t *testing.T, out map[string]any, isErr bool) string {
	t.Helper()
	msg, _ := out["error"].(string)
	if !isErr || out["success"] != false || msg == "" {
		t.Fatalf("want a failure with an error, got %v", out)
	}
	return msg
}

// webRows returns a successful search's rows.
func webRows(t *testing.T, out map[string]any, isErr bool) []map[string]any {
	t.Helper()
	if isErr || out["success"] != true {
		t.Fatalf("search failed: %v", out)
	}
	var rows []map[string]any
	for _, r := range out["data"].(map[string]any)["web"].([]any) {
		rows = append(rows, r.(map[string]any))
	}
	return rows
}

// searchEnv is what each keyed backend needs, pointed at the fake.
func searchEnv(fake *fakeapis.Server, backend string) map[string]string {
	switch backend {
	case BackendFirecrawl:
		return map[string]string{"FIRECRAWL_API_KEY": fakeapis.FirecrawlKey, envFirecrawlURL: fake.Base(fakeapis.Firecrawl)}
	case BackendTavily:
		return map[string]string{"TAVILY_API_KEY": fakeapis.TavilyKey, envTavilyBase: fake.Base(fakeapis.Tavily)}
	case BackendExa:
		return map[string]string{"EXA_API_KEY": fakeapis.ExaKey, envExaBase: fake.Base(fakeapis.Exa)}
	case BackendSearXNG:
		return map[string]string{envSearXNG: fake.Base(fakeapis.SearXNG)}
	case BackendBrave:
		return map[string]string{"BRAVE_SEARCH_API_KEY": fakeapis.BraveKey, envBraveBase: fake.Base(fakeapis.Brave)}
	case BackendPerplexity:
		return map[string]string{"PERPLEXITY_API_KEY": fakeapis.PerplexityKey, envPerplexityBase: fake.Base(fakeapis.Perplexity)}
	case BackendParallel:
		return map[string]string{"PARALLEL_API_KEY": fakeapis.ParallelKey, envParallelBase: fake.Base(fakeapis.Parallel)}
	case BackendKeenable:
		return map[string]string{"KEENABLE_API_KEY": fakeapis.KeenableKey}
	}
	return nil
}

var fakeProvider = map[string]string{
	BackendFirecrawl: fakeapis.Firecrawl, BackendTavily: fakeapis.Tavily, BackendExa: fakeapis.Exa,
	BackendSearXNG: fakeapis.SearXNG, BackendBrave: fakeapis.Brave, BackendPerplexity: fakeapis.Perplexity,
	BackendParallel: fakeapis.Parallel, BackendKeenable: fakeapis.Keenable,
}

// noRescue keeps a keyed backend's failure from being rescued by the
// keyless tier, so the failure itself is what the call returns.
const noRescue = "web:\n  keyless_rescue: false\n"

// Each keyed backend on its wire format: the request carries the vendor's
// auth and the original's body (limit 3 asks for the bucket, 10), and the
// rows come back in the vendor's key order, cut to the limit.
func TestSearchBackends(t *testing.T) {
	fake := fakeapis.Start(t)
	tests := []struct {
		backend string
		// header and value: a header the request must carry.
		header, value string
		// body: fields the request must carry (query for GET APIs).
		body []string
		// notBody: fields the original does not send.
		notBody []string
		// first is the rows' first key.
		first string
	}{
		{BackendFirecrawl, "Authorization", "Bearer " + fakeapis.FirecrawlKey, []string{`"limit":10`}, []string{"onlyMainContent"}, "url"},
		{BackendTavily, "X-Client-Name", "hermes-agent", []string{`"max_results":10`, `"include_raw_content":false`, `"include_images":false`},
			[]string{"search_depth", "include_answer", "api_key"}, "title"},
		{BackendExa, "X-Exa-Integration", "hermes-agent", []string{`"numResults":10`, `"contents":{"highlights":true}`}, []string{`"type"`}, "url"},
		{BackendSearXNG, "Accept", "application/json", []string{"pageno=1", "format=json"}, nil, "title"},
		{BackendBrave, "X-Subscription-Token", fakeapis.BraveKey, []string{"count=10"}, nil, "title"},
		{BackendPerplexity, "Authorization", "Bearer " + fakeapis.PerplexityKey, []string{`"max_results":10`, `"search_context_size":"low"`}, nil, "title"},
		{BackendParallel, "Parallel-Beta", parallelBeta, []string{`"max_results":10`, `"mode":"agentic"`, `"search_queries":["gopher news"]`}, nil, "url"},
		{BackendKeenable, "Authorization", "Bearer " + fakeapis.KeenableKey, []string{`"max_results":10`}, nil, "url"},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			f := newFixtureWith(t, fake, searchEnv(fake, tt.backend), "", 3*time.Second)
			if err := f.tool(t, "web_search").Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			before := len(fake.Requests(fakeProvider[tt.backend]))
			raw, isErr := f.callRaw(t, context.Background(), "web_search", map[string]any{"query": "gopher news", "limit": 3})
			var out map[string]any
			_ = json.Unmarshal([]byte(raw), &out)
			web := webRows(t, out, isErr)
			if len(web) != 3 {
				t.Fatalf("got %d results, want 3: %v", len(web), web)
			}
			for i, h := range web {
				if h["position"] != float64(i+1) || h["title"] != fmt.Sprintf("Result %d for gopher news", i+1) ||
					!strings.HasPrefix(h["url"].(string), "https://example.com/") || !strings.Contains(h["description"].(string), "gopher news") {
					t.Errorf("result %d = %v", i, h)
				}
			}
			if !strings.Contains(raw, `"web":[{"`+tt.first+`":`) {
				t.Errorf("rows are not %s-first: %s", tt.first, raw)
			}
			if !strings.HasPrefix(raw, `{"success":true,"data":`) {
				t.Errorf("envelope = %.60s, want the original's {success, data}", raw)
			}
			reqs := fake.Requests(fakeProvider[tt.backend])[before:]
			if len(reqs) != 1 {
				t.Fatalf("provider got %d requests, want 1", len(reqs))
			}
			if got := reqs[0].Header.Get(tt.header); got != tt.value {
				t.Errorf("%s = %q, want %q", tt.header, got, tt.value)
			}
			sent := string(reqs[0].Body) + " " + reqs[0].Query.Encode()
			for _, w := range tt.body {
				if !strings.Contains(sent, w) {
					t.Errorf("request %s lacks %s", sent, w)
				}
			}
			for _, w := range tt.notBody {
				if strings.Contains(sent, w) {
					t.Errorf("request %s carries %s, which the original does not send", sent, w)
				}
			}
		})
	}
}

// Each keyed backend's failure shapes, as the original words them: an
// auth failure, a rate limit (with how long to wait), a server error, a
// body that is not the vendor's JSON, and no answer at all.
func TestSearchErrors(t *testing.T) {
	fake := fakeapis.Start(t)
	want := map[string]map[string][]string{
		BackendFirecrawl: {
			"trigger-401": {"Firecrawl search failed: HTTP 401: ", "Unauthorized", "(check FIRECRAWL_API_KEY)"},
			"trigger-429": {"Firecrawl search failed: HTTP 429: ", "rate limit exceeded", "(Retry-After: 7)"},
			"trigger-500": {"Firecrawl search failed: HTTP 500: ", "server error"},
			"malformed":   {"Firecrawl search failed: the answer is not JSON"},
			"slow":        {"Firecrawl search failed: no answer within 300ms"},
		},
		BackendTavily: {
			"trigger-401": {`{"detail":{"error":"Unauthorized: invalid token"}}`, "(check TAVILY_API_KEY)"},
			"trigger-429": {`{"detail":{"error":"rate limit exceeded"}}`, "(Retry-After: 7)"},
			"trigger-500": {`{"detail":{"error":"internal server error"}}`},
			"malformed":   {"Tavily search failed: the answer is not JSON"},
			"slow":        {"Tavily search failed: no answer within 300ms"},
		},
		BackendExa: {
			"trigger-401": {"Exa search failed: HTTP 401: ", "(check EXA_API_KEY)"},
			"trigger-429": {"Exa search failed: HTTP 429: ", "(Retry-After: 7)"},
			"trigger-500": {"Exa search failed: HTTP 500: "},
			"malformed":   {"Exa search failed: the answer is not JSON"},
			"slow":        {"Exa search failed: no answer within 300ms"},
		},
		BackendBrave: {
			"trigger-401": {"Brave Search returned HTTP 401 (check BRAVE_SEARCH_API_KEY)"},
			"trigger-429": {"Brave Search returned HTTP 429 (Retry-After: 7)"},
			"trigger-500": {"Brave Search returned HTTP 500"},
			"malformed":   {"Could not parse Brave Search response as JSON"},
			"slow":        {"Could not reach Brave Search: no answer within 300ms"},
		},
		BackendSearXNG: {
			"trigger-500": {"SearXNG returned HTTP 500"},
			"malformed":   {"Could not parse SearXNG response as JSON"},
			"slow":        {"Could not reach SearXNG at " + fake.Base(fakeapis.SearXNG) + ": no answer within 300ms"},
		},
		BackendPerplexity: {
			"trigger-401": {`"message":"Invalid API key provided"`, "(check PERPLEXITY_API_KEY)"},
			"trigger-429": {`"type":"rate_limit_exceeded"`, "(Retry-After: 7)"},
			"trigger-500": {`"message":"Internal server error"`},
			"malformed":   {"Perplexity search failed: the answer is not JSON"},
			"slow":        {"Perplexity search failed: no answer within 300ms"},
		},
		BackendParallel: {
			"trigger-401": {"Parallel search failed: HTTP 401: ", "Invalid API key"},
			"trigger-429": {"Parallel search failed: HTTP 429: ", "(Retry-After: 7)"},
			"trigger-500": {"Parallel search failed: HTTP 500: "},
			"malformed":   {"Parallel search failed: the answer is not JSON"},
			"slow":        {"Parallel search failed: no answer within 300ms"},
		},
		BackendKeenable: {
			"trigger-401": {`Keenable search failed: {"detail":"Invalid API key"}`},
			"trigger-429": {`Keenable search failed: {"detail":"rate limit exceeded"} (Retry-After: 7)`},
			"trigger-500": {`Keenable search failed: {"detail":"internal server error"}`},
			"malformed":   {"Keenable search failed: the answer is not JSON"},
			"slow":        {"Keenable search failed: no answer within 300ms"},
		},
	}
	for backend, cases := range want {
		for trigger, wants := range cases {
			t.Run(backend+"/"+trigger, func(t *testing.T) {
				f := newFixtureWith(t, fake, searchEnv(fake, backend), noRescue, 300*time.Millisecond)
				query := "q trigger-" + strings.TrimPrefix(trigger, "trigger-")
				out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": query})
				msg := errorText(t, out, isErr)
				for _, w := range wants {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q lacks %q", msg, w)
					}
				}
				for _, key := range []string{fakeapis.TavilyKey, fakeapis.ExaKey, fakeapis.PerplexityKey, fakeapis.ParallelKey, fakeapis.KeenableKey} {
					if strings.Contains(msg, key) {
						t.Errorf("error leaks a key: %q", msg)
					}
				}
			})
		}
	}
	t.Run("searxng/json-disabled", func(t *testing.T) {
		fake2 := fakeapis.Start(t)
		fake2.SearXNGJSONDisabled = true
		f := newFixtureWith(t, fake2, searchEnv(fake2, BackendSearXNG), noRescue, time.Second)
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
		if msg := errorText(t, out, isErr); !strings.Contains(msg, "HTTP 403") || !strings.Contains(msg, "settings.yml") {
			t.Errorf("error = %q, want the settings.yml hint", msg)
		}
	})
}

// A backend named in config.yaml is used as named: without its key the
// vendor's own missing-key error reaches the model (rescue off), as in
// the original.
func TestConfiguredBackendMissingKey(t *testing.T) {
	tests := []struct {
		backend, want string
	}{
		{"perplexity", "PERPLEXITY_API_KEY is not set. Get a key at https://www.perplexity.ai/account/api"},
		{"brave-free", "BRAVE_SEARCH_API_KEY is not set"},
		{"searxng", "SEARXNG_URL is not set"},
		{"tavily", "TAVILY_API_KEY is not set. Get a key at https://app.tavily.com/home, or set web.provider_tier.tavily: free " +
			"in config.yaml for Tavily's opt-in keyless search."},
		{"exa", exaMissingKey},
		{"parallel", parallelMissingKey},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			// With the keyless tier off nothing stands in for the key.
			f := newFixture(t, nil, "web:\n  search_backend: "+tt.backend+"\n  keyless_fallback: false\n")
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
			if msg := errorText(t, out, isErr); msg != tt.want {
				t.Errorf("error = %q, want %q", msg, tt.want)
			}
		})
	}
}

// web_search is hidden only when the keyless tier is off and nothing is
// configured; a call made then gets the reason.
func TestSearchHiddenWithoutBackend(t *testing.T) {
	f := newFixture(t, nil, "web:\n  keyless_fallback: false\n")
	err := f.tool(t, "web_search").Check()
	if err != ErrNoSearchBackend {
		t.Fatalf("Check = %v, want the no-provider reason", err)
	}
	if !strings.Contains(err.Error(), "web.keyless_fallback: false") {
		t.Errorf("reason %q does not name the setting that hides the tool", err)
	}
	if f.tool(t, "web_extract").Check != nil {
		t.Error("web_extract has a Check; it must always be available")
	}
	out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
	if msg := errorText(t, out, isErr); !strings.Contains(msg, "No web search provider configured") {
		t.Errorf("search without backend = %v", out)
	}
}

// The handlers choose backends as the check does.
func TestBackendSelectionInHandlers(t *testing.T) {
	all := map[string]string{
		"TAVILY_API_KEY": "t", "EXA_API_KEY": "e", "FIRECRAWL_API_KEY": "f",
		"SEARXNG_URL": "http://127.0.0.1:1", "BRAVE_SEARCH_API_KEY": "b",
	}
	t.Run("search-only extract_backend", func(t *testing.T) {
		f := newFixture(t, all, "web:\n  extract_backend: brave\n")
		out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{"https://example.com/"}})
		want := "Brave Search is a search-only backend and cannot extract URL content. Set web.extract_backend to firecrawl, tavily, keenable, exa, or parallel."
		if msg := errorText(t, out, isErr); msg != want {
			t.Errorf("got %q", msg)
		}
	})
	t.Run("unknown backend", func(t *testing.T) {
		f := newFixture(t, all, "web:\n  search_backend: bingo\n")
		if err := f.tool(t, "web_search").Check(); err == nil || !strings.Contains(err.Error(), `web.search_backend is set to "bingo"`) {
			t.Errorf("Check = %v", err)
		}
	})
	t.Run("bad config.yaml", func(t *testing.T) {
		f := newFixture(t, all, "web: [unclosed\n")
		for _, name := range []string{"web_search", "web_extract"} {
			out, isErr := f.call(t, context.Background(), name, map[string]any{"query": "q", "urls": []string{"https://example.com/"}})
			if msg := errorText(t, out, isErr); !strings.Contains(msg, "config.yaml") {
				t.Errorf("%s = %v, want an error naming config.yaml", name, out)
			}
		}
	})
	t.Run("argument bounds", func(t *testing.T) {
		f := newFixture(t, nil, "")
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": strings.Repeat("x", maxQueryChars+1)})
		if msg := errorText(t, out, isErr); !strings.Contains(msg, "at most 2000") {
			t.Errorf("long query: %q", msg)
		}
		out, isErr = f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{"https://example.com/"}, "offset": -1})
		if msg := errorText(t, out, isErr); !strings.Contains(msg, "offset must be between 0 and") {
			t.Errorf("negative offset: %q", msg)
		}
		if n := len(f.fake.Requests(fakeapis.ExaMCP)) + len(f.fake.Requests(fakeapis.ParallelMCP)); n != 0 {
			t.Errorf("%d requests made for calls refused up front", n)
		}
	})
}

// Tavily's key pool turns per call and moves past a key Tavily refuses;
// named with no key, Tavily is asked in its opt-in keyless mode.
func TestTavilyPoolAndKeyless(t *testing.T) {
	fake := fakeapis.Start(t)
	f := newFixtureWith(t, fake, map[string]string{"TAVILY_API_KEY": "tvly-refused; " + fakeapis.TavilyKey, envTavilyBase: fake.Base(fakeapis.Tavily)}, "", 3*time.Second)
	for call, wantAuth := range [][]string{{"Bearer tvly-refused", "Bearer " + fakeapis.TavilyKey}, {"Bearer " + fakeapis.TavilyKey}} {
		before := len(fake.Requests(fakeapis.Tavily))
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
		webRows(t, out, isErr)
		reqs := fake.Requests(fakeapis.Tavily)[before:]
		var got []string
		for _, r := range reqs {
			got = append(got, r.Header.Get("Authorization"))
		}
		if strings.Join(got, "|") != strings.Join(wantAuth, "|") {
			t.Errorf("call %d used keys %q, want %q", call, got, wantAuth)
		}
	}
	k := newFixtureWith(t, fake, map[string]string{envTavilyBase: fake.Base(fakeapis.Tavily)}, "web:\n  search_backend: tavily\n", 3*time.Second)
	before := len(fake.Requests(fakeapis.Tavily))
	out, isErr := k.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
	webRows(t, out, isErr)
	r := fake.Requests(fakeapis.Tavily)[before]
	if r.Header.Get("Authorization") != "" || r.Header.Get("X-Tavily-Access-Mode") != "keyless" {
		t.Errorf("keyless Tavily request headers: %v", r.Header)
	}
}
