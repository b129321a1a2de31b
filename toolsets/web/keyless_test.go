package web

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
)

// ringProvider is each ring vendor's fake.
var ringProvider = map[string]string{
	BackendExa: fakeapis.ExaMCP, BackendParallel: fakeapis.ParallelMCP,
	BackendFirecrawl: fakeapis.Firecrawl, BackendKeenable: fakeapis.Keenable,
}

// counts is how many requests each ring vendor's fake has had.
func counts(fake *fakeapis.Server) map[string]int {
	out := map[string]int{}
	for v, p := range ringProvider {
		out[v] = len(fake.Requests(p))
	}
	return out
}

// A fresh home with no keys searches: the keyless tier answers, starting
// at the seeded vendor and moving one vendor on per call, each vendor on
// its own wire (Exa's MCP server as an event stream that stays open,
// Parallel's as JSON, Firecrawl and Keenable without keys), rows url-first.
func TestKeylessRoundRobin(t *testing.T) {
	f := newFixture(t, nil, "")
	if err := f.tool(t, "web_search").Check(); err != nil {
		t.Fatalf("web_search hidden on a fresh home: %v", err)
	}
	order := []string{BackendExa, BackendParallel, BackendFirecrawl, BackendKeenable, BackendExa}
	for i, vendor := range order {
		before := counts(f.fake)
		start := time.Now()
		raw, isErr := f.callRaw(t, context.Background(), "web_search", map[string]any{"query": "gopher news"})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("call %d took %v: the client waited for a stream to end", i, d)
		}
		var out map[string]any
		_ = json.Unmarshal([]byte(raw), &out)
		web := webRows(t, out, isErr)
		if len(web) != 5 || !strings.Contains(raw, `"web":[{"url":`) {
			t.Fatalf("call %d: want 5 url-first rows, got %s", i, raw)
		}
		if web[0]["title"] != "Result 1 for gopher news" || web[0]["position"] != float64(1) ||
			!strings.Contains(web[0]["description"].(string), "Snippet 1 about gopher news.") {
			t.Errorf("call %d row 0 = %v", i, web[0])
		}
		if _, ok := out["data"].(map[string]any)["served_by"]; ok {
			t.Errorf("call %d: served_by set though the first vendor served it", i)
		}
		after := counts(f.fake)
		for v := range ringProvider {
			want := before[v]
			if v == vendor {
				want++
			}
			if after[v] != want {
				t.Errorf("call %d: %s got %d requests, want %d (the ring should be at %s)", i, v, after[v]-before[v], want-before[v], vendor)
			}
		}
	}
	// The wire of each vendor, from the requests the fakes kept.
	exa := f.fake.Requests(fakeapis.ExaMCP)[0]
	if exa.Header.Get("Accept") != "application/json, text/event-stream" || exa.Header.Get("User-Agent") != "hermes-agent" ||
		string(exa.Body) != `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search_exa","arguments":{"query":"gopher news","numResults":10}}}` {
		t.Errorf("exa request: %v %s", exa.Header, exa.Body)
	}
	par := string(f.fake.Requests(fakeapis.ParallelMCP)[0].Body)
	if !strings.Contains(par, `"name":"web_search"`) || !strings.Contains(par, `"objective":"gopher news","search_queries":["gopher news"],"session_id":"`) {
		t.Errorf("parallel request: %s", par)
	}
	fc := f.fake.Requests(fakeapis.Firecrawl)[0]
	if fc.Path != "/v2/search" || fc.Header.Get("Authorization") != "" || string(fc.Body) != `{"query":"gopher news","limit":10}` {
		t.Errorf("firecrawl keyless request: %s %v %s", fc.Path, fc.Header, fc.Body)
	}
	kn := f.fake.Requests(fakeapis.Keenable)[0]
	if kn.Path != "/v1/search/public" || kn.Header.Get("X-Keenable-Title") != "hermes-agent" || kn.Header.Get("Authorization") != "" {
		t.Errorf("keenable keyless request: %s %v", kn.Path, kn.Header)
	}
}

// Only a rate limit moves a call on to the next vendor, and the answer
// says who served it; any other failure ends the walk with the vendor's
// error and the setting that picks a keyed backend.
func TestKeylessFailover(t *testing.T) {
	tests := []struct {
		name     string
		query    string
		servedBy string // "" with wantErr: the call fails
		wantErr  []string
		asked    []string
	}{
		{"exa 429 → parallel", "q throttle-exa-mcp", BackendParallel, nil, []string{BackendExa, BackendParallel}},
		{"exa rate-limit tool result → parallel", "q trigger-mcp-ratelimit", BackendParallel, nil, []string{BackendExa, BackendParallel}},
		{"exa and parallel 429 → firecrawl", "q throttle-exa-mcp throttle-parallel-mcp", BackendFirecrawl, nil, []string{BackendExa, BackendParallel, BackendFirecrawl}},
		{"exa 500 ends the walk", "q trigger-500", "",
			[]string{"Keyless Exa search failed: HTTP 500: Internal Server Error. Set EXA_API_KEY (https://exa.ai) or another web backend (web.search_backend / web.extract_backend in config.yaml) for reliable service."},
			[]string{BackendExa}},
		{"exa 401 ends the walk", "q trigger-401", "", []string{"Keyless Exa search failed: HTTP 401: Unauthorized."}, []string{BackendExa}},
		{"exa malformed stream", "q trigger-malformed", "", []string{"Keyless Exa search failed: Unrecognized MCP response shape."}, []string{BackendExa}},
		{"exa JSON-RPC error", "q trigger-rpc-error", "", []string{"Keyless Exa search failed: Invalid params: query must be a non-empty string."}, []string{BackendExa}},
		{"all throttled", "q trigger-429", "",
			[]string{`Keyless Keenable search failed: {"detail":"rate limit exceeded"} (Retry-After: 7).`,
				" (all keyless vendors throttled: exa, parallel, firecrawl, keenable)"},
			[]string{BackendExa, BackendParallel, BackendFirecrawl, BackendKeenable}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil, "")
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": tt.query})
			if tt.servedBy != "" {
				webRows(t, out, isErr)
				if got := out["data"].(map[string]any)["served_by"]; got != tt.servedBy {
					t.Errorf("served_by = %v, want %s", got, tt.servedBy)
				}
			} else {
				msg := errorText(t, out, isErr)
				for _, w := range tt.wantErr {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q lacks %q", msg, w)
					}
				}
			}
			got := counts(f.fake)
			for v := range ringProvider {
				want := 0
				for _, a := range tt.asked {
					if a == v {
						want = 1
					}
				}
				if got[v] != want {
					t.Errorf("%s asked %d times, want %d", v, got[v], want)
				}
			}
		})
	}
	// Each vendor's own failure shapes, alone at the head of the ring.
	for vendor, want := range map[string][]string{
		BackendParallel:  {"Keyless Parallel search failed: HTTP 500: ", "Set PARALLEL_API_KEY (https://parallel.ai)"},
		BackendFirecrawl: {"Keyless Firecrawl search failed: HTTP 500: ", "Set FIRECRAWL_API_KEY (https://firecrawl.dev)"},
		BackendKeenable:  {`Keyless Keenable search failed: {"detail":"internal server error"}`, "Set KEENABLE_API_KEY (https://keenable.ai)"},
	} {
		t.Run(vendor+"/500", func(t *testing.T) {
			f := newFixture(t, nil, "web:\n  search_backend: "+vendor+"\n")
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q trigger-500"})
			msg := errorText(t, out, isErr)
			for _, w := range want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
		t.Run(vendor+"/malformed", func(t *testing.T) {
			f := newFixture(t, nil, "web:\n  search_backend: "+vendor+"\n")
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q trigger-malformed"})
			if msg := errorText(t, out, isErr); !strings.HasPrefix(msg, "Keyless ") {
				t.Errorf("error %q", msg)
			}
		})
		t.Run(vendor+"/timeout", func(t *testing.T) {
			f := newFixtureWith(t, fakeapis.Start(t), nil, "web:\n  search_backend: "+vendor+"\n", 300*time.Millisecond)
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q trigger-slow"})
			if msg := errorText(t, out, isErr); !strings.Contains(msg, "no answer within 300ms") {
				t.Errorf("error %q", msg)
			}
		})
	}
}

// config.yaml steers the ring as in the original: a named vendor (no key)
// is pinned and starts every call; provider_tier paid takes a vendor out,
// free pins it even with a key; all paid leaves no tier at all.
func TestKeylessPinsAndTiers(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		config string
		first  string
		err    string
	}{
		{"named keenable is pinned", nil, "web:\n  backend: keenable\n", BackendKeenable, ""},
		{"pinned start stays put", nil, "web:\n  search_backend: firecrawl\n", BackendFirecrawl, ""},
		{"paid exa is skipped", nil, "web:\n  provider_tier:\n    exa: paid\n", BackendParallel, ""},
		{"free exa with a key stays keyless", map[string]string{"EXA_API_KEY": "k", envExaBase: "http://127.0.0.1:1"},
			"web:\n  provider_tier:\n    exa: free\n", BackendExa, ""},
		{"all paid", nil, "web:\n  backend: exa\n  provider_tier: {exa: paid, parallel: paid, firecrawl: paid, keenable: paid}\n", "",
			exaMissingKey + " (keyless rescue also failed: " + allPaidError + ")"},
		{"all paid with keyless search", nil, "web:\n  provider_tier: {exa: paid, parallel: paid, firecrawl: paid, keenable: paid}\n", "",
			allPaidError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.env, tt.config)
			for range 2 {
				before := counts(f.fake)
				out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
				if tt.err != "" {
					if msg := errorText(t, out, isErr); msg != tt.err {
						t.Errorf("error = %q, want %q", msg, tt.err)
					}
					return
				}
				webRows(t, out, isErr)
				after := counts(f.fake)
				if after[tt.first] != before[tt.first]+1 {
					t.Errorf("%s was not asked first: %v → %v", tt.first, before, after)
				}
			}
		})
	}
}

// A configured backend that fails a call is rescued once by the keyless
// tier: the answer says which backend failed and why; the next call goes
// to that backend again. When the tier fails too, both failures are told.
func TestKeylessRescue(t *testing.T) {
	fake := fakeapis.Start(t)
	t.Run("brave 500 rescued", func(t *testing.T) {
		f := newFixtureWith(t, fake, searchEnv(fake, BackendBrave), "", 3*time.Second)
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q throttle-brave"})
		webRows(t, out, isErr)
		data := out["data"].(map[string]any)
		if data["rescued_from"] != BackendBrave || data["served_by"] != BackendExa {
			t.Errorf("data = %v", data)
		}
		want := "Configured backend 'brave-free' failed this call (Brave Search returned HTTP 429 (Retry-After: 7) (rate limited; wait a moment and retry)); " +
			"result served by the keyless free tier. The next call will use 'brave-free' again."
		if data["backend_error"] != want {
			t.Errorf("backend_error = %q\nwant %q", data["backend_error"], want)
		}
		before := len(fake.Requests(fakeapis.Brave))
		out, isErr = f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
		webRows(t, out, isErr)
		if len(fake.Requests(fakeapis.Brave)) != before+1 {
			t.Error("the call after a rescue did not go to Brave")
		}
	})
	t.Run("rescue fails too", func(t *testing.T) {
		f := newFixtureWith(t, fake, searchEnv(fake, BackendBrave), "", 3*time.Second)
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q trigger-500"})
		msg := errorText(t, out, isErr)
		if !strings.HasPrefix(msg, "Brave Search returned HTTP 500 (Brave Search had a server error; retry later) (keyless rescue also failed: Keyless Exa search failed: HTTP 500") {
			t.Errorf("error = %q", msg)
		}
	})
	t.Run("rescue off", func(t *testing.T) {
		f := newFixtureWith(t, fake, searchEnv(fake, BackendBrave), noRescue, 3*time.Second)
		before := len(fake.Requests(fakeapis.ExaMCP))
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q throttle-brave"})
		if msg := errorText(t, out, isErr); !strings.HasPrefix(msg, "Brave Search returned HTTP 429") {
			t.Errorf("error = %q", msg)
		}
		if len(fake.Requests(fakeapis.ExaMCP)) != before {
			t.Error("the keyless tier was asked though keyless_rescue is off")
		}
	})
	t.Run("keyed ring vendor rescued", func(t *testing.T) {
		f := newFixtureWith(t, fake, searchEnv(fake, BackendExa), "", 3*time.Second)
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q throttle-exa"})
		webRows(t, out, isErr)
		// Exa's free tier serves a rescue made on Exa's behalf: no
		// served_by, as the vendor is the one the call was for.
		if data := out["data"].(map[string]any); data["rescued_from"] != BackendExa || data["served_by"] != nil {
			t.Errorf("data = %v", data)
		}
	})
	t.Run("extract batch rescued", func(t *testing.T) {
		f := newFixtureWith(t, fake, searchEnv(fake, BackendTavily), "", 3*time.Second)
		out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{
			"https://example.com/throttle-tavily/a", "https://example.com/throttle-tavily/b"}})
		rs := rows(t, out, isErr)
		for _, r := range rs {
			if r["error"] != nil || !strings.Contains(r["content"].(string), "Content of https://example.com/throttle-tavily/") {
				t.Errorf("row = %v", r)
			}
		}
	})
}

// With nothing configured, extract fails over like search (only when the
// whole batch was throttled), and a page the tier could not read is
// fetched by our own extractor, whose failure is added to the tier's.
func TestKeylessExtract(t *testing.T) {
	t.Run("failover", func(t *testing.T) {
		f := newFixture(t, nil, "")
		out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{
			"https://example.com/throttle-exa-mcp/a", "https://example.com/dropme/throttle-exa-mcp"}})
		rs := rows(t, out, isErr)
		if rs[0]["error"] != nil || rs[0]["title"] != "Fake page https://example.com/throttle-exa-mcp/a" {
			t.Errorf("row 0 = %v", rs[0])
		}
		// Parallel dropped the second URL; our own fetch cannot reach it
		// here (the test dialer refuses the internet), and says both.
		e, _ := rs[1]["error"].(string)
		if !strings.HasPrefix(e, "no content returned; reading it directly also failed: fetch failed:") {
			t.Errorf("row 1 error = %q", e)
		}
		if len(f.fake.Requests(fakeapis.ParallelMCP)) != 1 {
			t.Error("parallel was not asked after exa throttled the whole batch")
		}
	})
	t.Run("pinned vendor, no fallback", func(t *testing.T) {
		f := newFixture(t, nil, "web:\n  extract_backend: keenable\n")
		out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{"https://example.com/trigger-404"}})
		e, _ := rows(t, out, isErr)[0]["error"].(string)
		if e != `Keyless Keenable extract failed: {"detail":"page not found"}. Set KEENABLE_API_KEY (https://keenable.ai) for reliable service.` {
			t.Errorf("error = %q", e)
		}
	})
}

// The tier is only the last resort: any key of the ladder wins over it,
// in the original's order.
func TestKeylessNeverPreemptsAKey(t *testing.T) {
	fake := fakeapis.Start(t)
	f := newFixtureWith(t, fake, searchEnv(fake, BackendPerplexity), "", 3*time.Second)
	out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "q"})
	webRows(t, out, isErr)
	if len(fake.Requests(fakeapis.Perplexity)) != 1 || counts(fake)[BackendExa]+counts(fake)[BackendParallel] != 0 {
		t.Error("the keyless tier answered though PERPLEXITY_API_KEY is set")
	}
}
