package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/fakeapis"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// publicResolver answers every host with a public documentation address,
// so the URL policy passes without any DNS traffic leaving the machine.
type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

// fixture is a toolset wired to a fake API server and a private home.
type fixture struct {
	fake *fakeapis.Server
	home string
	ts   tooldef.Toolset
}

func newFixture(t *testing.T, env map[string]string, configYAML string) *fixture {
	t.Helper()
	return newFixtureWith(t, fakeapis.Start(t), env, configYAML, 3*time.Second)
}

func newFixtureWith(t *testing.T, fake *fakeapis.Server, env map[string]string, configYAML string, timeout time.Duration) *fixture {
	t.Helper()
	home := t.TempDir()
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string { return env[k] }
	ts := Toolset(Options{Home: home, Getenv: getenv, Resolver: publicResolver{}, Timeout: timeout})
	return &fixture{fake: fake, home: home, ts: ts}
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

// call runs a tool and returns its result as decoded JSON.
func (f *fixture) call(t *testing.T, ctx context.Context, name string, args any) (map[string]any, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := f.tool(t, name).Handler(ctx, raw)
	if err != nil {
		t.Fatalf("%s: Go error %v (model-actionable failures must be results)", name, err)
	}
	b, err := tooldef.EncodeJSON(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s result is not a JSON object: %s", name, b)
	}
	return out, res.IsError
}

func searchEnv(fake *fakeapis.Server, backend string) map[string]string {
	switch backend {
	case BackendFirecrawl:
		return map[string]string{"FIRECRAWL_API_KEY": fakeapis.FirecrawlKey, "FIRECRAWL_API_URL": fake.Base(fakeapis.Firecrawl)}
	case BackendTavily:
		return map[string]string{"TAVILY_API_KEY": fakeapis.TavilyKey, "TAVILY_BASE_URL": fake.Base(fakeapis.Tavily)}
	case BackendExa:
		return map[string]string{"EXA_API_KEY": fakeapis.ExaKey, "EXA_BASE_URL": fake.Base(fakeapis.Exa)}
	case BackendSearXNG:
		return map[string]string{"SEARXNG_URL": fake.Base(fakeapis.SearXNG)}
	case BackendBrave:
		return map[string]string{"BRAVE_SEARCH_API_KEY": fakeapis.BraveKey, "BRAVE_SEARCH_BASE_URL": fake.Base(fakeapis.Brave)}
	}
	return nil
}

var fakeProvider = map[string]string{
	BackendFirecrawl: fakeapis.Firecrawl, BackendTavily: fakeapis.Tavily, BackendExa: fakeapis.Exa,
	BackendSearXNG: fakeapis.SearXNG, BackendBrave: fakeapis.Brave,
}

func TestSearchBackends(t *testing.T) {
	fake := fakeapis.Start(t)
	tests := []struct {
		backend string
		// authHeader and authValue: what the request must carry.
		authHeader, authValue string
		// body is a field the request must carry, for POST APIs.
		bodyField string
	}{
		{BackendFirecrawl, "Authorization", "Bearer " + fakeapis.FirecrawlKey, `"limit":3`},
		{BackendTavily, "Authorization", "Bearer " + fakeapis.TavilyKey, `"max_results":3`},
		{BackendExa, "X-Api-Key", fakeapis.ExaKey, `"numResults":3`},
		{BackendSearXNG, "", "", ""},
		{BackendBrave, "X-Subscription-Token", fakeapis.BraveKey, ""},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			f := newFixtureWith(t, fake, searchEnv(fake, tt.backend), "", 3*time.Second)
			if err := f.tool(t, "web_search").Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			before := len(fake.Requests(fakeProvider[tt.backend]))
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "gopher news", "limit": 3})
			if isErr {
				t.Fatalf("search failed: %v", out)
			}
			if out["success"] != true {
				t.Errorf("success = %v", out["success"])
			}
			web := out["data"].(map[string]any)["web"].([]any)
			if len(web) != 3 {
				t.Fatalf("got %d results, want 3: %v", len(web), web)
			}
			for i, w := range web {
				h := w.(map[string]any)
				if h["position"] != float64(i+1) || h["title"] != "Result "+string(rune('1'+i))+" for gopher news" ||
					!strings.HasPrefix(h["url"].(string), "https://example.com/") || !strings.Contains(h["description"].(string), "gopher news") {
					t.Errorf("result %d = %v", i, h)
				}
			}
			reqs := fake.Requests(fakeProvider[tt.backend])[before:]
			if len(reqs) != 1 {
				t.Fatalf("provider got %d requests, want 1", len(reqs))
			}
			if tt.authHeader != "" && reqs[0].Header.Get(tt.authHeader) != tt.authValue {
				t.Errorf("%s = %q, want %q", tt.authHeader, reqs[0].Header.Get(tt.authHeader), tt.authValue)
			}
			if tt.bodyField != "" && !strings.Contains(string(reqs[0].Body), tt.bodyField) {
				t.Errorf("request body %s lacks %s", reqs[0].Body, tt.bodyField)
			}
		})
	}
}

func TestSearchErrors(t *testing.T) {
	fake := fakeapis.Start(t)
	type tc struct {
		name    string
		backend string
		env     map[string]string
		query   string
		want    []string
	}
	var tests []tc
	for _, b := range []string{BackendFirecrawl, BackendTavily, BackendExa, BackendBrave} {
		wrongKey := searchEnv(fake, b)
		wrongKey[keyEnv(b)] = "wrong-key"
		tests = append(tests,
			tc{b + "/401", b, wrongKey, "q", []string{"HTTP 401", "check " + keyEnv(b)}},
			tc{b + "/429", b, searchEnv(fake, b), "trigger-429", []string{"HTTP 429", "rate limit exceeded", "wait a moment"}},
			tc{b + "/500", b, searchEnv(fake, b), "trigger-500", []string{"HTTP 500", "server error"}},
			tc{b + "/timeout", b, searchEnv(fake, b), "trigger-slow", []string{"did not answer within 300ms"}},
		)
	}
	tests = append(tests,
		tc{"searxng/timeout", BackendSearXNG, searchEnv(fake, BackendSearXNG), "trigger-slow", []string{"did not answer"}},
		tc{"searxng/500", BackendSearXNG, searchEnv(fake, BackendSearXNG), "trigger-500", []string{"HTTP 500"}},
		tc{"searxng/bad-url", BackendSearXNG, map[string]string{"SEARXNG_URL": fake.URL + "/nowhere"}, "q", []string{"HTTP 404", "check SEARXNG_URL"}},
	)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, fake, tt.env, "", 300*time.Millisecond)
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": tt.query})
			if !isErr || out["success"] != false {
				t.Fatalf("want an error result, got %v", out)
			}
			msg, _ := out["error"].(string)
			if !strings.HasPrefix(msg, "Error searching web: ") {
				t.Errorf("error = %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
			if strings.Contains(msg, "wrong-key") {
				t.Errorf("error leaks the key: %q", msg)
			}
		})
	}
	t.Run("searxng/json-disabled", func(t *testing.T) {
		fake2 := fakeapis.Start(t)
		fake2.SearXNGJSONDisabled = true
		f := newFixtureWith(t, fake2, searchEnv(fake2, BackendSearXNG), "", time.Second)
		out, _ := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
		if msg, _ := out["error"].(string); !strings.Contains(msg, "HTTP 403") || !strings.Contains(msg, "settings.yml") {
			t.Errorf("error = %q, want the settings.yml hint", msg)
		}
	})
}

// A call made while web_search is hidden gets the reason it is hidden.
func TestSearchHiddenWithoutBackend(t *testing.T) {
	f := newFixture(t, nil, "web:\n  backend: tavily\n")
	if err := f.tool(t, "web_search").Check(); !errors.Is(err, ErrNoSearchBackend) {
		t.Fatalf("Check = %v, want the no-provider reason", err)
	}
	// web_extract has a keyless path and stays available.
	if f.tool(t, "web_extract").Check != nil {
		t.Error("web_extract has a Check; it must always be available")
	}
	out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
	if !isErr || !strings.Contains(out["error"].(string), "No web search provider configured") {
		t.Errorf("search without backend = %v", out)
	}
}

// The handlers choose backends as the check does (TestBackendSelection).
func TestBackendSelectionInHandlers(t *testing.T) {
	all := map[string]string{
		"TAVILY_API_KEY": "t", "EXA_API_KEY": "e", "FIRECRAWL_API_KEY": "f",
		"SEARXNG_URL": "http://127.0.0.1:1", "BRAVE_SEARCH_API_KEY": "b",
	}
	t.Run("search-only extract_backend", func(t *testing.T) {
		f := newFixture(t, all, "web:\n  extract_backend: brave\n")
		out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{"https://example.com/"}})
		if !isErr || !strings.Contains(out["error"].(string), "is a search-only backend") {
			t.Errorf("got %v", out)
		}
	})
	t.Run("bad config.yaml", func(t *testing.T) {
		f := newFixture(t, all, "web: [unclosed\n")
		for _, name := range []string{"web_search", "web_extract"} {
			out, isErr := f.call(t, context.Background(), name, map[string]any{"query": "q", "urls": []string{"https://example.com/"}})
			if msg, _ := out["error"].(string); !isErr || !strings.Contains(msg, "config.yaml") {
				t.Errorf("%s = %v, want an error naming config.yaml", name, out)
			}
		}
	})
}

const allowPrivate = "web:\n  allow_private_urls: true\n"

// rows returns web_extract's results, failing the test on a failed call:
// a bad URL must never fail the whole call.
func rows(t *testing.T, out map[string]any, isErr bool) []map[string]any {
	t.Helper()
	if isErr {
		t.Fatalf("web_extract failed as a whole: %v", out)
	}
	var rs []map[string]any
	for _, r := range out["results"].([]any) {
		rs = append(rs, r.(map[string]any))
	}
	return rs
}

func TestExtractKeyless(t *testing.T) {
	f := newFixture(t, nil, allowPrivate)
	fake := f.fake
	tests := []struct {
		url       string
		title     string
		want      string
		wantError string
	}{
		{fake.Page("article"), "Ada Gopher on Concurrency | The Fixture Gazette", "The quick amber fox audits seventeen ledgers", ""},
		{fake.Page("login"), "Sign in - Fixture Portal", "[input password: password]", ""},
		{fake.Page("table"), "Release table", "| 2.0     | 2026-09-30 | Harbour Lights  |", ""},
		{fake.Page("doc.pdf"), "Fixture PDF", "The harbour lights are visible from the brass telescope.", ""},
		{fake.Page("nope"), "", "", "HTTP 404"},
		{fake.Page("binary"), "", "", "unsupported content type"},
		{fake.Page("big"), "", "", "larger than 5 MB"},
		{fake.Page("redirect?to=" + url.QueryEscape(fake.Page("table"))), "Release table", "Brass Telescope", ""},
		{"http://127.0.0.1:1/closed", "", "", "fetch failed"},
		{"not a url", "", "", "only http and https"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{tt.url}})
			r := rows(t, out, isErr)[0]
			if r["url"] != tt.url {
				t.Errorf("url = %v", r["url"])
			}
			if tt.wantError != "" {
				if e, _ := r["error"].(string); !strings.Contains(e, tt.wantError) {
					t.Errorf("error = %v, want %q", r["error"], tt.wantError)
				}
				return
			}
			if r["error"] != nil {
				t.Fatalf("error = %v", r["error"])
			}
			if r["title"] != tt.title || !strings.Contains(r["content"].(string), tt.want) {
				t.Errorf("title %q, content:\n%s\nwant title %q and %q", r["title"], r["content"], tt.title, tt.want)
			}
		})
	}
}

func TestExtractConcurrentMixed(t *testing.T) {
	f := newFixture(t, nil, allowPrivate)
	urls := []string{
		f.fake.Page("slow?ms=300&name=article"),
		f.fake.Page("slow?ms=300&name=table"),
		f.fake.Page("missing"),
		"http://169.254.169.254/latest/meta-data/",
		f.fake.Page("slow?ms=300&name=login"),
	}
	start := time.Now()
	out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": urls})
	rs := rows(t, out, isErr)
	if d := time.Since(start); d > 800*time.Millisecond {
		t.Errorf("3 slow pages took %v; they should be fetched concurrently", d)
	}
	if len(rs) != 5 {
		t.Fatalf("got %d rows", len(rs))
	}
	for i, r := range rs {
		if r["url"] != urls[i] {
			t.Errorf("row %d url = %v, want input order", i, r["url"])
		}
	}
	if rs[0]["error"] != nil || rs[1]["error"] != nil || rs[4]["error"] != nil {
		t.Errorf("good rows failed: %v", rs)
	}
	if rs[2]["error"] == nil || rs[3]["blocked_by_policy"] != true {
		t.Errorf("bad rows: %v / %v", rs[2], rs[3])
	}
}

func TestExtractURLPolicy(t *testing.T) {
	strict := newFixture(t, nil, "")
	open := newFixtureWith(t, strict.fake, nil, allowPrivate, 3*time.Second)
	fake := strict.fake
	secret := "https://example.com/page?api_key=sk-abcdefghijklmnopqrstuvwx123"
	// The fake's own address, spelt as one decimal number.
	decimalLoopback := strings.Replace(fake.Page("article"), "127.0.0.1", "2130706433", 1)
	hint := "; to allow it, set web.allow_private_urls: true in " + filepath.Join(strict.home, "config.yaml")
	tests := []struct {
		name string
		f    *fixture
		url  string
		want string
	}{
		{"loopback refused by default", strict, fake.Page("article"), "Blocked: URL targets a private or internal network address (host 127.0.0.1)" + hint},
		{"decimal spelling of loopback", strict, decimalLoopback, "Blocked: URL targets a private or internal network address (host 2130706433, address 127.0.0.1)" + hint},
		{"hex spelling of metadata", open, "http://0xA9FEA9FE/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint (host 0xA9FEA9FE, address 169.254.169.254)"},
		{"mapped IPv6 metadata", open, "http://[::ffff:a9fe:a9fe]/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint"},
		{"localhost refused by default", strict, "http://localhost:9/", "Blocked: URL targets a private or internal network address"},
		{"private range refused by default", strict, "http://10.1.2.3/", "Blocked: URL targets a private or internal network address"},
		{"metadata refused even when private allowed", open, "http://169.254.169.254/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint"},
		{"metadata host name", open, "http://metadata.google.internal/computeMetadata/v1/", "Blocked: URL targets a cloud metadata endpoint"},
		{"secret in URL", open, secret, "Blocked: URL contains what appears to be an API key or token"},
		{"encoded secret in URL", open, "https://example.com/?t=ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789", "Blocked: URL contains what appears to be an API key or token"},
		{"encoded secret beside a malformed escape", open, "https://example.com/?t=ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789&x=%zz", "Blocked: URL contains what appears to be an API key or token"},
		{"password in URL", open, "https://bob:abcdefghijklmnop@example.com/", "Blocked: URL contains a user name or password"},
		{"redirect to a spelling of metadata", open, fake.Page("redirect?to=" + url.QueryEscape("http://0xa9.0xfe.0xa9.0xfe/latest/")), "Blocked: URL targets a cloud metadata endpoint"},
		{"redirect to metadata", open, fake.Page("redirect?to=" + url.QueryEscape("http://169.254.169.254/latest/")), "Blocked: URL targets a cloud metadata endpoint"},
		{"secret inside a redirect parameter", open, fake.Page("redirect?to=" + url.QueryEscape(secret)), "Blocked: URL contains what appears to be an API key or token"},
		{"redirect to a secret", open, fake.Page("redirect-secret"), "Blocked: URL contains what appears to be an API key or token"},
		{"redirect to file", open, fake.Page("redirect?to=" + url.QueryEscape("file:///etc/passwd")), "Blocked: only http and https"},
		{"file scheme", open, "file:///etc/passwd", "Blocked: only http and https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, isErr := tt.f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{tt.url, tt.f.fake.Page("table")}})
			rs := rows(t, out, isErr)
			if e, _ := rs[0]["error"].(string); !strings.HasPrefix(e, tt.want) || rs[0]["blocked_by_policy"] != true {
				t.Errorf("row = %v, want error %q and blocked_by_policy", rs[0], tt.want)
			}
			if strings.Contains(rs[0]["url"].(string), "abcdefghijklmnop") {
				t.Errorf("refused row echoes the secret: %v", rs[0]["url"])
			}
			// The other URL of the call is unaffected (refused only when
			// the policy refuses loopback).
			if tt.f == open && rs[1]["error"] != nil {
				t.Errorf("second URL failed: %v", rs[1])
			}
		})
	}
	// Nothing refused reached the fake: no request carried the secret or
	// a metadata path.
	for _, r := range fake.Requests(fakeapis.Pages) {
		if strings.Contains(r.Path, "meta-data") || strings.Contains(r.Query.Encode(), "abcdefghijklmnop") && r.Path != "/redirect" {
			t.Errorf("refused URL reached the network: %s %v", r.Path, r.Query)
		}
	}
}

func TestExtractAPIBackends(t *testing.T) {
	fake := fakeapis.Start(t)
	tests := []struct {
		backend            string
		authHeader, authOK string
		path               string
		titled             bool
	}{
		{BackendFirecrawl, "Authorization", "Bearer " + fakeapis.FirecrawlKey, "/v2/scrape", true},
		{BackendTavily, "Authorization", "Bearer " + fakeapis.TavilyKey, "/extract", false},
		{BackendExa, "X-Api-Key", fakeapis.ExaKey, "/contents", true},
	}
	urls := []string{"https://example.com/a", "https://example.com/trigger-404", "http://169.254.169.254/"}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			f := newFixtureWith(t, fake, searchEnv(fake, tt.backend), "", 2*time.Second)
			before := len(fake.Requests(fakeProvider[tt.backend]))
			out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": urls})
			rs := rows(t, out, isErr)
			if rs[0]["error"] != nil || !strings.Contains(rs[0]["content"].(string), "Content of https://example.com/a.") {
				t.Errorf("row 0 = %v", rs[0])
			}
			if tt.titled && rs[0]["title"] != "Fake page https://example.com/a" {
				t.Errorf("title = %v", rs[0]["title"])
			}
			if rs[1]["error"] == nil {
				t.Errorf("row 1 should carry the provider's per-URL failure: %v", rs[1])
			}
			if rs[2]["blocked_by_policy"] != true {
				t.Errorf("metadata URL was not refused: %v", rs[2])
			}
			reqs := fake.Requests(fakeProvider[tt.backend])[before:]
			if len(reqs) == 0 {
				t.Fatal("provider got no request")
			}
			for _, r := range reqs {
				if r.Path != tt.path || r.Header.Get(tt.authHeader) != tt.authOK {
					t.Errorf("request %s with %s=%q", r.Path, tt.authHeader, r.Header.Get(tt.authHeader))
				}
				if strings.Contains(string(r.Body), "169.254") {
					t.Errorf("refused URL was sent to the provider: %s", r.Body)
				}
			}
		})
		t.Run(tt.backend+"/errors", func(t *testing.T) {
			for _, c := range []struct {
				env  func(map[string]string)
				url  string
				want string
			}{
				{func(e map[string]string) { e[keyEnv(tt.backend)] = "wrong" }, "https://example.com/x", "HTTP 401"},
				{nil, "https://example.com/trigger-429", "HTTP 429"},
				{nil, "https://example.com/trigger-slow", "did not answer within"},
			} {
				env := searchEnv(fake, tt.backend)
				if c.env != nil {
					c.env(env)
				}
				f := newFixtureWith(t, fake, env, "", 300*time.Millisecond)
				out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{c.url}})
				r := rows(t, out, isErr)[0]
				if e, _ := r["error"].(string); !strings.Contains(e, c.want) {
					t.Errorf("%s: error = %v, want %q", c.url, r["error"], c.want)
				}
			}
		})
	}
}

func TestExtractTruncates(t *testing.T) {
	got := truncate(strings.Repeat("é", 50), 10)
	if !strings.HasPrefix(got, strings.Repeat("é", 10)+"\n\n[… truncated: showing 10 of 50") {
		t.Errorf("truncate = %q", got)
	}
}

// Progress for a multi-URL call arrives in order, counts up, and stops
// short of the total: the result itself says the call is done.
func TestExtractProgress(t *testing.T) {
	f := newFixture(t, nil, allowPrivate)
	var mu sync.Mutex
	type update struct {
		progress, total float64
		msg             string
	}
	var got []update
	ctx := tooldef.WithProgress(context.Background(), func(p, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, update{p, total, msg})
	})
	urls := []string{
		f.fake.Page("slow?ms=150&name=article"),
		f.fake.Page("slow?ms=400&name=table"),
		f.fake.Page("slow?ms=650&name=login"),
	}
	out, isErr := f.call(t, ctx, "web_extract", map[string]any{"urls": urls})
	rows(t, out, isErr)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("got %d updates, want 3 (start, 1/3, 2/3): %+v", len(got), got)
	}
	for i, u := range got {
		if u.progress != float64(i) || u.total != 3 || u.msg == "" {
			t.Errorf("update %d = %+v", i, u)
		}
	}
	// One URL: no progress at all.
	got = nil
	f.call(t, ctx, "web_extract", map[string]any{"urls": urls[:1]})
	if len(got) != 0 {
		t.Errorf("single URL sent progress: %+v", got)
	}
}
