package xsearch

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/tooldef/tooldeftest"
)

// fixture is the toolset over the xAI fake, with a clock fixed at noon
// UTC on 2026-06-15 and the waits between retries recorded, not slept.
type fixture struct {
	fake   *fakeapis.Server
	ts     tooldef.Toolset
	mu     sync.Mutex
	sleeps []time.Duration
}

func newFixture(t *testing.T, env map[string]string, configYAML string, timeout time.Duration) *fixture {
	t.Helper()
	fake := fakeapis.Start(t)
	home := t.TempDir()
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	full := map[string]string{"XAI_API_KEY": fakeapis.XAIKey, "XAI_BASE_URL": fake.Base(fakeapis.XAI) + "/"}
	for k, v := range env {
		full[k] = v
	}
	f := &fixture{fake: fake}
	dialer := &net.Dialer{ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
		host, _, _ := net.SplitHostPort(address)
		if a, err := netip.ParseAddr(host); err != nil || !a.IsLoopback() {
			t.Errorf("dial %s: tests reach loopback only", address)
			return syscall.EPERM
		}
		return nil
	}}
	f.ts = Toolset(Options{
		Home: home, Getenv: func(k string) string { return full[k] }, Timeout: timeout, Version: "9.9.9",
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}},
		Now:        func() time.Time { return time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC) },
		Sleep: func(ctx context.Context, d time.Duration) error {
			f.mu.Lock()
			f.sleeps = append(f.sleeps, d)
			f.mu.Unlock()
			return ctx.Err()
		},
	})
	return f
}

// call runs x_search and returns its JSON text, checking a success
// against the output schema.
func (f *fixture) call(t *testing.T, args map[string]any) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	tl := f.ts.Tools[0]
	res, err := tl.Handler(context.Background(), raw)
	if err != nil {
		t.Fatalf("Go error %v", err)
	}
	b, _ := tooldef.EncodeJSON(res.Value)
	if !res.IsError {
		var v any
		_ = json.Unmarshal(b, &v)
		if err := tooldeftest.CompileSchema(t, "x_search", tl.OutputSchema).Validate(v); err != nil {
			t.Errorf("result does not match the output schema: %v\n%s", err, b)
		}
	}
	return string(b), res.IsError
}

func TestDeclaration(t *testing.T) {
	ts := Toolset(Options{Getenv: func(string) string { return "" }})
	if ts.Name != "x_search" || ts.Default || len(ts.Tools) != 1 || ts.Tools[0].Name != "x_search" {
		t.Fatalf("toolset = %+v", ts)
	}
	if err := ts.Tools[0].Check(); err != ErrNoKey || !strings.Contains(err.Error(), "XAI_API_KEY") {
		t.Errorf("Check without a key = %v", err)
	}
	with := Toolset(Options{Getenv: func(k string) string { return map[string]string{"XAI_API_KEY": "k"}[k] }})
	if err := with.Tools[0].Check(); err != nil {
		t.Errorf("Check with a key = %v", err)
	}
	var schema map[string]any
	if err := json.Unmarshal(ts.Tools[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	props := schema["properties"].(map[string]any)
	for _, p := range []string{"query", "allowed_x_handles", "excluded_x_handles", "from_date", "to_date", "enable_image_understanding", "enable_video_understanding"} {
		if props[p] == nil {
			t.Errorf("schema lacks %s", p)
		}
	}
}

// A search: the original's request (model, one user input, the x_search
// tool with its filters flat on it, store false), headers, and its
// success shape with both citation channels.
func TestSearch(t *testing.T) {
	f := newFixture(t, nil, "x_search:\n  reasoning_effort: High\n", 5*time.Second)
	raw, isErr := f.call(t, map[string]any{"query": "  hermes agent  ", "allowed_x_handles": []string{"@NousResearch", " ", "teknium"},
		"from_date": "2026-06-01", "to_date": "2026-06-30", "enable_image_understanding": true})
	if isErr {
		t.Fatalf("failed: %s", raw)
	}
	want := `{"success":true,"provider":"xai","credential_source":"xai","tool":"x_search","model":"grok-4.5","query":"hermes agent",` +
		`"answer":"People on X are discussing hermes agent.","citations":["https://x.com/gopher/status/1","https://x.com/gopher/status/2"],` +
		`"inline_citations":[{"url":"https://x.com/gopher/status/1","title":"1","start_index":0,"end_index":6}],` +
		`"x_search_calls":1,"degraded":false,"degraded_reason":null}`
	if raw != want {
		t.Errorf("result\n%s\nwant\n%s", raw, want)
	}
	reqs := f.fake.Requests(fakeapis.XAI)
	if len(reqs) != 1 || reqs[0].Path != "/v1/responses" {
		t.Fatalf("requests: %+v", reqs)
	}
	r := reqs[0]
	if r.Header.Get("Authorization") != "Bearer "+fakeapis.XAIKey || r.Header.Get("User-Agent") != "Hermes-Agent/9.9.9" ||
		r.Header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: %v", r.Header)
	}
	body := `{"model":"grok-4.5","input":[{"role":"user","content":"hermes agent"}],"tools":[{"type":"x_search",` +
		`"allowed_x_handles":["NousResearch","teknium"],"from_date":"2026-06-01","to_date":"2026-06-30","enable_image_understanding":true}],` +
		`"store":false,"reasoning":{"effort":"high"}}`
	if string(r.Body) != body {
		t.Errorf("body\n%s\nwant\n%s", r.Body, body)
	}
}

// An answer without sources is flagged, as the original flags it.
func TestDegraded(t *testing.T) {
	tests := []struct {
		args   map[string]any
		reason string
	}{
		{map[string]any{"query": "q trigger-nocite"}, "x_search index returned no results (x_search_calls=0)"},
		{map[string]any{"query": "q trigger-nousage", "excluded_x_handles": []string{"a"}, "to_date": "2026-07-01"},
			"no citations returned despite filters: excluded_x_handles, to_date"},
	}
	for _, tt := range tests {
		f := newFixture(t, nil, "", 5*time.Second)
		raw, isErr := f.call(t, tt.args)
		var out map[string]any
		_ = json.Unmarshal([]byte(raw), &out)
		if isErr || out["degraded"] != true || out["degraded_reason"] != tt.reason {
			t.Errorf("%v: %s", tt.args, raw)
		}
	}
	f := newFixture(t, nil, "", 5*time.Second)
	raw, _ := f.call(t, map[string]any{"query": "q trigger-nousage"})
	if !strings.Contains(raw, `"x_search_calls":null,"degraded":false,"degraded_reason":null`) {
		t.Errorf("no filters, no usage: %s", raw)
	}
}

// The original's validation, before any request.
func TestValidation(t *testing.T) {
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = "h" + string(rune('a'+i))
	}
	tests := []struct {
		env    map[string]string
		config string
		args   map[string]any
		want   string
	}{
		{nil, "", map[string]any{"query": "  "}, `{"error":"query is required for x_search","success":false}`},
		{map[string]string{"XAI_API_KEY": ""}, "", map[string]any{"query": "q"},
			`{"error":"No xAI credentials available: set XAI_API_KEY (hermes-tools does not read the Python Hermes' SuperGrok sign-in).","success":false}`},
		{nil, "", map[string]any{"query": "q", "allowed_x_handles": eleven},
			`{"success":false,"provider":"xai","tool":"x_search","error":"allowed_x_handles supports at most 10 handles","error_type":"ValueError"}`},
		{nil, "", map[string]any{"query": "q", "allowed_x_handles": []string{"a"}, "excluded_x_handles": []string{"b"}},
			`{"error":"allowed_x_handles and excluded_x_handles cannot be used together","success":false}`},
		{nil, "", map[string]any{"query": "q", "from_date": "2026/01/01"}, `{"error":"from_date must be YYYY-MM-DD (got '2026/01/01')","success":false}`},
		{nil, "", map[string]any{"query": "q", "to_date": "2026-02-30"}, `{"error":"to_date must be YYYY-MM-DD (got '2026-02-30')","success":false}`},
		{nil, "", map[string]any{"query": "q", "from_date": "2026-05-02", "to_date": "2026-05-01"},
			`{"error":"from_date (2026-05-02) must be on or before to_date (2026-05-01)","success":false}`},
		{nil, "", map[string]any{"query": "q", "from_date": "2026-06-16"},
			`{"error":"from_date (2026-06-16) is in the future; X Search only indexes past posts (today UTC is 2026-06-15)","success":false}`},
		{nil, "x_search:\n  reasoning_effort: max\n", map[string]any{"query": "q"},
			`{"error":"x_search.reasoning_effort must be one of: low, medium, high, xhigh (got 'max')","success":false}`},
	}
	for _, tt := range tests {
		f := newFixture(t, tt.env, tt.config, 5*time.Second)
		raw, isErr := f.call(t, tt.args)
		if !isErr || raw != tt.want {
			t.Errorf("%v:\n got %s\nwant %s", tt.args, raw, tt.want)
		}
		if n := len(f.fake.Requests(fakeapis.XAI)); n != 0 {
			t.Errorf("%v: %d requests sent for a refused call", tt.args, n)
		}
	}
	// A to_date in the future is allowed ("from yesterday to tomorrow").
	f := newFixture(t, nil, "", 5*time.Second)
	if raw, isErr := f.call(t, map[string]any{"query": "q", "from_date": "2026-06-14", "to_date": "2026-6-16"}); isErr {
		t.Errorf("future to_date refused: %s", raw)
	}
}

// Failures: retried on the original's statuses with the wait Retry-After
// asks for (else its backoff), not retried otherwise; each in the
// original's error shape.
func TestFailures(t *testing.T) {
	tests := []struct {
		name   string
		config string
		query  string
		want   string // the whole result; "" means success
		sleeps []time.Duration
		asked  int
	}{
		{"429 then success", "", "q trigger-flaky", "", []time.Duration{2 * time.Second}, 2},
		{"503 then success", "", "q trigger-busyonce", "", []time.Duration{1500 * time.Millisecond}, 2},
		{"429 every time", "", "q trigger-429",
			`{"success":false,"provider":"xai","tool":"x_search","error":"Too Many Requests: rate limited, retry later","error_type":"HTTPError"}`,
			[]time.Duration{2 * time.Second, 2 * time.Second}, 3},
		{"500 with fewer retries", "x_search:\n  retries: 1\n", "q trigger-500",
			`{"success":false,"provider":"xai","tool":"x_search","error":"Internal error: upstream failure","error_type":"HTTPError"}`,
			[]time.Duration{1500 * time.Millisecond}, 2},
		{"400 is not retried", "", "q trigger-400",
			`{"success":false,"provider":"xai","tool":"x_search","error":"Client specified an invalid argument: x_search tool rejected the filters","error_type":"HTTPError"}`,
			nil, 1},
		{"401", "", "q", "", nil, 1},
		{"malformed body", "", "q trigger-malformed", "JSONDecodeError", nil, 1},
		{"timeout", "x_search:\n  retries: 0\n", "q trigger-slow",
			`{"success":false,"provider":"xai","tool":"x_search","error":"xAI x_search timed out after 0.3 seconds","error_type":"ReadTimeout"}`, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string(nil)
			want := tt.want
			if tt.name == "401" {
				env = map[string]string{"XAI_API_KEY": "xai-wrong"}
				want = `{"success":false,"provider":"xai","tool":"x_search","error":"Unauthenticated: Incorrect API key provided: xa***. You can obtain an API key from https://console.x.ai.","error_type":"HTTPError"}`
			}
			f := newFixture(t, env, tt.config, 300*time.Millisecond)
			raw, isErr := f.call(t, map[string]any{"query": tt.query})
			switch {
			case want == "" && isErr:
				t.Errorf("failed: %s", raw)
			case want == "JSONDecodeError":
				if !isErr || !strings.Contains(raw, `"error_type":"JSONDecodeError"`) || !strings.Contains(raw, "check XAI_BASE_URL") {
					t.Errorf("got %s", raw)
				}
			case want != "" && raw != want:
				t.Errorf("got  %s\nwant %s", raw, want)
			}
			if n := len(f.fake.Requests(fakeapis.XAI)); n != tt.asked {
				t.Errorf("%d requests, want %d", n, tt.asked)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.sleeps) != len(tt.sleeps) {
				t.Fatalf("waited %v, want %v", f.sleeps, tt.sleeps)
			}
			for i := range f.sleeps {
				if f.sleeps[i] != tt.sleeps[i] {
					t.Errorf("waited %v, want %v", f.sleeps, tt.sleeps)
				}
			}
		})
	}
}
