package httpmcp_test

// The transport's tests, through the server that serves it in the
// product (mcpserver.New): a fixture toolset whose tools exercise the
// transport (progress bursts, calls that block until cancelled, a
// per-session counter) and the skills library, whose writes are the
// notifications no request owns.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/mcpserver/httpmcp"
	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/skills"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// The transport's wire names and answers, as a client sees them.
const (
	headerSession     = "Mcp-Session-Id"
	headerProtocol    = "Mcp-Protocol-Version"
	msgShuttingDown   = "server shutting down"
	msgSessionEnded   = "session ended"
	codeInternalError = -32603
)

// fixture is a server with tools that exercise the transport.
type fixture struct {
	srv     *mcpserver.Server
	blocked chan struct{} // a "block" call has started
	burst   chan struct{} // a "progress" call has started
	ended   chan error    // a "block" call's context ended, with its error
}

func newFixture(t testing.TB) *fixture {
	f := &fixture{blocked: make(chan struct{}, 8), burst: make(chan struct{}, 64), ended: make(chan error, 8)}
	tool := func(name, schema string, h tooldef.Handler) tooldef.Tool {
		return tooldef.Tool{Name: name, Description: name, InputSchema: json.RawMessage(schema), Handler: h}
	}
	const empty = `{"type":"object"}`
	ts := tooldef.Toolset{Name: "fixture", Description: "transport fixture", Tools: []tooldef.Tool{
		tool("progress", `{"type":"object","properties":{"n":{"type":"number"},"pad":{"type":"number"}}}`,
			func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
				args := struct{ N, Pad *int }{}
				if err := json.Unmarshal(raw, &args); err != nil {
					return tooldef.Result{}, err
				}
				n := 10
				if args.N != nil {
					n = *args.N
				}
				select {
				case f.burst <- struct{}{}:
				default:
				}
				msg := ""
				if args.Pad != nil {
					msg = strings.Repeat("x", *args.Pad)
				}
				for i := 1; i <= n && ctx.Err() == nil; i++ {
					tooldef.ReportProgress(ctx, float64(i), float64(n), msg)
				}
				return tooldef.OK(fmt.Sprint(n)), nil
			}),
		tool("block", empty, func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
			f.blocked <- struct{}{}
			<-ctx.Done()
			f.ended <- ctx.Err()
			return tooldef.OK("cancelled"), nil
		}),
		// As most tools do: the cancellation ends it with an error result
		// of its own, at once.
		tool("blockfail", empty, func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
			f.blocked <- struct{}{}
			<-ctx.Done()
			return tooldef.Result{Value: "Interrupted", IsError: true}, nil
		}),
		tool("count", empty, func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
			st := sessionstate.FromContext(ctx)
			v, err := st.Value("n", func() (any, error) { return new(int), nil })
			if err != nil {
				return tooldef.Result{}, err
			}
			p := v.(*int)
			*p++
			return tooldef.OK(fmt.Sprint(*p)), nil
		}),
	}}
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	lib := skills.NewLibrary(skills.Options{Home: home, LookupEnv: func(string) (string, bool) { return "", false }})
	f.srv = mcpserver.New(mcpserver.Options{Version: "test", Plan: toolsets.EveryTool(ts, lib.Toolset()), Skills: lib, Methods: methods()})
	return f
}

func methods() map[string]jsonrpc.MethodFunc {
	return map[string]jsonrpc.MethodFunc{
		"x/echo":  func(_ context.Context, p json.RawMessage) (any, error) { return map[string]any{"params": p}, nil },
		"x/panic": func(context.Context, json.RawMessage) (any, error) { panic("boom") },
	}
}

type env struct {
	t   *testing.T
	f   *fixture
	h   *httpmcp.Handler
	url string
	ts  *httptest.Server
}

func newEnv(t *testing.T, opts httpmcp.Options) *env {
	t.Helper()
	f := newFixture(t)
	h := f.srv.HTTPHandler(opts)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Shutdown(ctx)
		ts.Close()
	})
	return &env{t: t, f: f, h: h, url: ts.URL + httpmcp.Endpoint, ts: ts}
}

// reply is one POST's outcome: status, headers and the messages received.
type reply struct {
	status int
	header http.Header
	msgs   []map[string]any
	raw    string
}

func (e *env) do(method, sid, body string, hdr map[string]string) reply {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(headerSession, sid)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if k, ok := hdr["Host"]; ok {
		req.Host = k
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	r := reply{status: resp.StatusCode, header: resp.Header}
	b, _ := io.ReadAll(resp.Body)
	r.raw = string(b)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, ev := range strings.Split(r.raw, "\n\n") {
			for _, line := range strings.Split(ev, "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok {
					var m map[string]any
					if err := json.Unmarshal([]byte(d), &m); err != nil {
						e.t.Fatalf("event data is not JSON: %q", d)
					}
					r.msgs = append(r.msgs, m)
				}
			}
		}
	} else if len(bytes.TrimSpace(b)) > 0 {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			e.t.Fatalf("body is not JSON: %q", b)
		}
		r.msgs = append(r.msgs, m)
	}
	return r
}

func (e *env) post(sid, body string) reply { return e.do(http.MethodPost, sid, body, nil) }

// open initializes a session and returns its id.
func (e *env) open(hdr map[string]string) string {
	e.t.Helper()
	r := e.do(http.MethodPost, "", initBody, hdr)
	sid := r.header.Get(headerSession)
	if r.status != 200 || sid == "" || len(r.msgs) != 1 || r.msgs[0]["result"] == nil {
		e.t.Fatalf("initialize: %d %q %s", r.status, sid, r.raw)
	}
	if r := e.do(http.MethodPost, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr); r.status != http.StatusAccepted {
		e.t.Fatalf("initialized: %d %s", r.status, r.raw)
	}
	return sid
}

func call(id any, tool string, args map[string]any, token any) string {
	p := map[string]any{"name": tool, "arguments": args}
	if token != nil {
		p["_meta"] = map[string]any{"progressToken": token}
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": p})
	return string(b)
}

func TestRequestRules(t *testing.T) {
	const token = "s3cret-token"
	e := newEnv(t, httpmcp.Options{Token: token, Loopback: true, MaxBodyBytes: 1 << 10, AllowedOrigins: []string{"https://app.example"},
		AllowedHosts: []string{"mcp.example.com", "proxy.example:8443"}})
	auth := map[string]string{"Authorization": "Bearer " + token}
	with := func(kv ...string) map[string]string {
		m := map[string]string{"Authorization": "Bearer " + token}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	sid := e.open(auth)
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	for _, tc := range []struct {
		name   string
		method string
		sid    string
		body   string
		hdr    map[string]string
		want   int
	}{
		{"ok", "POST", sid, ping, auth, 200},
		{"no token", "POST", sid, ping, nil, 401},
		{"wrong token", "POST", sid, ping, with("Authorization", "Bearer s3cret-tokem"), 401},
		{"token as basic", "POST", sid, ping, with("Authorization", "Basic "+token), 401},
		{"token prefix", "POST", sid, ping, with("Authorization", "Bearer s3cret"), 401},
		{"lower-case scheme", "POST", sid, ping, with("Authorization", "bearer "+token), 200},
		{"foreign origin", "POST", sid, ping, with("Origin", "https://evil.example"), 403},
		{"origin null", "POST", sid, ping, with("Origin", "null"), 403},
		{"allowed origin", "POST", sid, ping, with("Origin", "https://app.example"), 200},
		{"loopback origin", "POST", sid, ping, with("Origin", "http://localhost:6274"), 200},
		{"rebound host", "POST", sid, ping, with("Host", "evil.example:80"), 403},
		{"localhost host", "POST", sid, ping, with("Host", "localhost"), 200},
		{"ipv6 loopback host", "POST", sid, ping, with("Host", "[::1]:1"), 200},
		{"allowed host", "POST", sid, ping, with("Host", "mcp.example.com"), 200},
		{"allowed host, any port", "POST", sid, ping, with("Host", "MCP.example.com:443"), 200},
		{"allowed host:port", "POST", sid, ping, with("Host", "proxy.example:8443"), 200},
		{"allowed host, other port", "POST", sid, ping, with("Host", "proxy.example:9"), 403},
		{"body too large", "POST", sid, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", 2<<10) + `"}}`, auth, 413},
		{"not JSON", "POST", sid, `{"jsonrpc":`, auth, 400},
		{"batch", "POST", sid, `[` + ping + `]`, auth, 400},
		{"not an object", "POST", sid, `"ping"`, auth, 400},
		{"wrong content type", "POST", sid, ping, with("Content-Type", "text/plain"), 415},
		{"unknown session", "POST", "hermes-0000", ping, auth, 404},
		{"no session", "POST", "", ping, auth, 400},
		{"unknown protocol header", "POST", sid, ping, with(headerProtocol, "1999-01-01"), 400},
		{"known protocol header", "POST", sid, ping, with(headerProtocol, "2025-06-18"), 200},
		{"notification", "POST", sid, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, auth, 202},
		{"put", "PUT", sid, ping, auth, 405},
		{"get without session", "GET", "", "", auth, 400},
		{"delete unknown", "DELETE", "hermes-0000", "", auth, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.sid, tc.body, tc.hdr)
			if r.status != tc.want {
				t.Fatalf("status %d, want %d: %s", r.status, tc.want, r.raw)
			}
			if tc.want >= 400 {
				if len(r.msgs) != 1 || r.msgs[0]["error"] == nil {
					t.Errorf("error reply is not a JSON-RPC error: %s", r.raw)
				}
				if strings.Contains(r.raw, token) {
					t.Errorf("reply echoes the token: %s", r.raw)
				}
			}
			if code := errorCode(r); tc.name == "not JSON" && code != float64(-32700) || tc.name == "batch" && code != float64(-32600) {
				t.Errorf("JSON-RPC code %v: %s", code, r.raw)
			}
			// A refusal names the header and the flag that allows it.
			if tc.want == 403 {
				hdr, flag := "Origin header", "--allow-origin "+tc.hdr["Origin"]
				if _, ok := tc.hdr["Host"]; ok {
					hdr, flag = "Host header", "--allow-host "+strings.Split(tc.hdr["Host"], ":")[0]
				}
				if !strings.Contains(r.raw, hdr) || !strings.Contains(r.raw, flag) {
					t.Errorf("403 does not say %q and %q: %s", hdr, flag, r.raw)
				}
			}
			if tc.want == 401 && r.header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
	if r := e.do("GET", "", "", nil); r.status != 401 {
		t.Errorf("GET without token: %d", r.status)
	}
	req, _ := http.NewRequest("GET", e.ts.URL+httpmcp.HealthPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health without token: %v %v", resp, err)
	}
	resp.Body.Close()
}

// A JSON-only client gets the response alone; a streaming one gets every
// notification of its call, in order, before the response, and none of
// another call's, even with calls of the same session in parallel.
func TestProgressOrderPerCall(t *testing.T) {
	e := newEnv(t, httpmcp.Options{})
	sid := e.open(nil)
	const calls, n = 6, 300
	var wg sync.WaitGroup
	for c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := fmt.Sprintf("tok-%d", c)
			r := e.post(sid, call(c, "progress", map[string]any{"n": n}, tok))
			if len(r.msgs) != n+1 {
				t.Errorf("call %d: %d messages, want %d", c, len(r.msgs), n+1)
				return
			}
			for i, m := range r.msgs[:n] {
				p, _ := m["params"].(map[string]any)
				if m["method"] != "notifications/progress" || p["progressToken"] != tok || p["progress"] != float64(i+1) {
					t.Errorf("call %d: message %d = %v", c, i, m)
					return
				}
			}
			if last := r.msgs[n]; last["id"] != float64(c) || last["result"] == nil {
				t.Errorf("call %d: last message %v is not its response", c, last)
			}
		}()
	}
	wg.Wait()
	r := e.do("POST", sid, call("j", "progress", map[string]any{"n": 5}, "t"), map[string]string{"Accept": "application/json"})
	if r.header.Get("Content-Type") != "application/json" || len(r.msgs) != 1 || r.msgs[0]["id"] != "j" {
		t.Errorf("JSON-only client: %s %s", r.header.Get("Content-Type"), r.raw)
	}
}

// notifications/cancelled in one POST cancels the call another POST of the
// same session is serving, and no response is written for it; another
// session cannot cancel it. Ids are per session.
func TestCancelAcrossPOSTs(t *testing.T) {
	e := newEnv(t, httpmcp.Options{})
	a, b := e.open(nil), e.open(nil)
	done := make(chan reply, 1)
	go func() { done <- e.post(a, call(42, "block", nil, nil)) }()
	<-e.f.blocked
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}`
	if r := e.post(b, cancel); r.status != 202 {
		t.Fatalf("cancel from b: %d", r.status)
	}
	if r := e.post(b, `{"jsonrpc":"2.0","id":42,"method":"ping"}`); r.status != 200 || len(r.msgs) != 1 {
		t.Fatalf("the same id in another session: %d %s", r.status, r.raw)
	}
	select {
	case err := <-e.f.ended:
		t.Fatalf("another session's cancel ended the call: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if r := e.post(a, `{"jsonrpc":"2.0","id":42,"method":"ping"}`); len(r.msgs) != 1 || r.msgs[0]["error"] == nil {
		t.Fatalf("an id in use in the session was accepted: %s", r.raw)
	}
	if r := e.post(a, cancel); r.status != 202 {
		t.Fatalf("cancel: %d", r.status)
	}
	if err := <-e.f.ended; err == nil {
		t.Fatal("call not cancelled")
	}
	if r := <-done; len(r.msgs) != 0 {
		t.Errorf("a cancelled call was answered: %s", r.raw)
	}
}

// Per-session state is the session's own, released when it is deleted or
// idles out; a deleted session's calls are cancelled.
func TestSessionLifecycle(t *testing.T) {
	e := newEnv(t, httpmcp.Options{IdleTimeout: 200 * time.Millisecond})
	a, b := e.open(nil), e.open(nil)
	count := func(sid string) string {
		r := e.post(sid, call(1, "count", nil, nil))
		if len(r.msgs) != 1 {
			t.Fatalf("count: %s", r.raw)
		}
		res := r.msgs[0]["result"].(map[string]any)
		return res["content"].([]any)[0].(map[string]any)["text"].(string)
	}
	if count(a) != "1" || count(a) != "2" || count(b) != "1" {
		t.Fatal("sessions share state")
	}
	done := make(chan reply, 1)
	go func() { done <- e.post(a, call(9, "block", nil, nil)) }()
	<-e.f.blocked
	if r := e.do("DELETE", a, "", nil); r.status != 200 {
		t.Fatalf("delete: %d", r.status)
	}
	if err := <-e.f.ended; err == nil {
		t.Error("delete did not cancel the session's call")
	}
	<-done
	if r := e.post(a, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != 404 {
		t.Errorf("deleted session still served: %d", r.status)
	}
	// b idles out: no request for IdleTimeout.
	deadline := time.Now().Add(10 * time.Second)
	for e.h.Sessions() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := e.h.Sessions(); n != 0 {
		t.Fatalf("%d sessions left after idling", n)
	}
	if r := e.post(b, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != 404 {
		t.Errorf("idle session still served: %d", r.status)
	}
}

// Methods served by the loop (our tools/list, skills/*) work over HTTP,
// and a panic in one is an error response, not a dead server.
func TestLoopMethodsAndPanics(t *testing.T) {
	e := newEnv(t, httpmcp.Options{})
	sid := e.open(nil)
	r := e.post(sid, `{"jsonrpc":"2.0","id":"e","method":"x/echo","params":{"a":1}}`)
	if len(r.msgs) != 1 || r.msgs[0]["result"] == nil {
		t.Fatalf("echo: %s", r.raw)
	}
	r = e.post(sid, `{"jsonrpc":"2.0","id":"p","method":"x/panic"}`)
	if len(r.msgs) != 1 || r.msgs[0]["error"] == nil || r.msgs[0]["id"] != "p" {
		t.Fatalf("panic: %s", r.raw)
	}
	// A body pretty-printed over several lines is one message.
	r = e.post(sid, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 3,\n  \"method\": \"ping\"\n}\n")
	if len(r.msgs) != 1 || r.msgs[0]["id"] != float64(3) {
		t.Fatalf("multi-line body: %s", r.raw)
	}
}

// The GET stream carries what no request owns; one per session.
func TestGetStream(t *testing.T) {
	e := newEnv(t, httpmcp.Options{Heartbeat: 20 * time.Millisecond})
	sid := e.open(nil)
	req, _ := http.NewRequest("GET", e.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSession, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET: %v %v", resp, err)
	}
	defer resp.Body.Close()
	if r := e.do("GET", sid, "", map[string]string{"Accept": "text/event-stream"}); r.status != 409 {
		t.Errorf("second GET: %d", r.status)
	}
	// Another session saves a skill: every client is told the list of
	// skill resources changed, this one on its GET stream.
	other := e.open(nil)
	content := "---\nname: deploy-check\ndescription: Verify a deploy.\n---\nRun the smoke test.\n"
	if r := e.post(other, call(5, "skill_manage", map[string]any{"action": "create", "name": "deploy-check", "content": content}, nil)); len(r.msgs) == 0 || strings.Contains(r.raw, `"isError":true`) {
		t.Fatalf("skill_manage create: %s", r.raw)
	}
	got := make(chan []string, 1)
	go func() {
		var lines []string
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if strings.Contains(sc.Text(), "notifications/resources/list_changed") {
				break
			}
		}
		got <- lines
	}()
	select {
	case lines := <-got:
		last := lines[len(lines)-1]
		if !strings.HasPrefix(last, "data: ") || !strings.Contains(last, "list_changed") {
			t.Fatalf("GET stream: %q", lines)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the notification never reached the GET stream")
	}
}

// 2026-07-28 requests need no session: each carries its version and
// capabilities, and its tools keep nothing between requests.
func TestModernRequests(t *testing.T) {
	e := newEnv(t, httpmcp.Options{})
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	discover := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`
	count := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"count","arguments":{},` + meta + `}}`
	hdr := func(method, name string) map[string]string {
		m := map[string]string{headerProtocol: "2026-07-28", "Mcp-Method": method}
		if name != "" {
			m["Mcp-Name"] = name
		}
		return m
	}
	for _, tc := range []struct {
		name string
		body string
		hdr  map[string]string
		want int
		text string
	}{
		{"discover", discover, hdr("server/discover", ""), 200, "supportedVersions"},
		{"no Mcp-Method", discover, map[string]string{headerProtocol: "2026-07-28"}, 400, "Mcp-Method"},
		{"call", count, hdr("tools/call", "count"), 200, `"text":"1"`},
		{"again: no state kept", count, hdr("tools/call", "count"), 200, `"text":"1"`},
		{"wrong Mcp-Name", count, hdr("tools/call", "other"), 400, "Mcp-Name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("POST", "", tc.body, tc.hdr)
			if r.status != tc.want || !strings.Contains(r.raw, tc.text) {
				t.Errorf("status %d, want %d with %q: %s", r.status, tc.want, tc.text, r.raw)
			}
		})
	}
	if n := e.h.Sessions(); n != 0 {
		t.Errorf("%d sessions opened by stateless requests", n)
	}
}

// A keep-alive connection reused after a stream's write deadline has
// passed still serves the next request (net/http clears the deadline a
// handler set once the request is done; the per-write deadlines rely on it).
func TestDeadlineNotInherited(t *testing.T) {
	e := newEnv(t, httpmcp.Options{WriteTimeout: 50 * time.Millisecond})
	sid := e.open(nil)
	for i := range 3 {
		time.Sleep(120 * time.Millisecond)
		if r := e.post(sid, call(i, "count", nil, nil)); r.status != 200 || len(r.msgs) != 1 {
			t.Fatalf("request %d on a reused connection: %d %s", i, r.status, r.raw)
		}
	}
}

// Shutdown lets a call finish within the bound, then cancels it; the GET
// stream ends at once.
func TestShutdown(t *testing.T) {
	f := newFixture(t)
	h := f.srv.HTTPHandler(httpmcp.Options{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	e := &env{t: t, f: f, h: h, url: ts.URL + httpmcp.Endpoint, ts: ts}
	sid := e.open(nil)
	done := make(chan reply, 1)
	go func() { done <- e.post(sid, call(1, "block", nil, nil)) }()
	<-f.blocked
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := h.Shutdown(ctx); err == nil {
		t.Error("Shutdown with a call still running reported no error")
	}
	if err := <-f.ended; err == nil {
		t.Error("call not cancelled at the deadline")
	}
	<-done
	if r := e.post(sid, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.status != 503 {
		t.Errorf("after shutdown: %d", r.status)
	}
	resp, err := http.Get(ts.URL + httpmcp.HealthPath)
	if err != nil || resp.StatusCode != 503 {
		t.Errorf("health after shutdown: %v %v", resp, err)
	}
}

// A call the server cancels at shutdown is answered with the shutdown's
// reason, in both response modes, even when the tool answers its own
// cancellation with an error result first (a race the tool often wins):
// the client learns to retry elsewhere, not that its call failed.
func TestShutdownAnswersCancelledCallsWithTheReason(t *testing.T) {
	for _, accept := range []string{"application/json, text/event-stream", "application/json"} {
		for round := range 5 {
			f := newFixture(t)
			h := f.srv.HTTPHandler(httpmcp.Options{})
			ts := httptest.NewServer(h)
			e := &env{t: t, f: f, h: h, url: ts.URL + httpmcp.Endpoint, ts: ts}
			sid := e.open(nil)
			done := make(chan reply, 1)
			go func() {
				done <- e.do(http.MethodPost, sid, call(7, "blockfail", nil, nil), map[string]string{"Accept": accept})
			}()
			<-f.blocked
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			_ = h.Shutdown(ctx)
			cancel()
			r := <-done
			ts.Close()
			var answer map[string]any
			for _, m := range r.msgs {
				if m["id"] == 7.0 {
					answer = m
				}
			}
			errObj, _ := answer["error"].(map[string]any)
			if errObj == nil || errObj["code"] != -32603.0 || !strings.Contains(fmt.Sprint(errObj["message"]), msgShuttingDown) {
				t.Errorf("Accept %q, round %d: the cancelled call was answered with %s; want the -32603 shutdown rejection", accept, round, r.raw)
			}
		}
	}
}

// A client that sends its body too slowly is cut off.
func TestSlowBody(t *testing.T) {
	e := newEnv(t, httpmcp.Options{BodyTimeout: 100 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{", httpmcp.Endpoint)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408", resp.StatusCode)
	}
}

// Whatever the body, the handler answers with a status and, for errors,
// a JSON-RPC error; it never panics or hangs.
func FuzzPost(f *testing.F) {
	for _, s := range []string{initBody, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[]`, `{"id":null}`, `{"method":1}`, "\xff", `{"jsonrpc":"2.0","id":{},"method":"x/echo"}`} {
		f.Add(s)
	}
	fx := newFixture(f)
	h := fx.srv.HTTPHandler(httpmcp.Options{})
	defer h.Shutdown(context.Background())
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", httpmcp.Endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 400 && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("status %d with a body that is not JSON: %q", w.Code, w.Body.String())
		}
		if w.Code == 200 && !json.Valid(w.Body.Bytes()) {
			t.Fatalf("200 with a body that is not JSON: %q", w.Body.String())
		}
	})
}

// A client that stops reading its stream is cut off after WriteTimeout:
// the POST ends, and so does its call, instead of holding them forever.
func TestSlowReaderCutOff(t *testing.T) {
	f := newFixture(t)
	h := f.srv.HTTPHandler(httpmcp.Options{WriteTimeout: 200 * time.Millisecond})
	ts := httptest.NewServer(h)
	defer ts.Close()
	e := &env{t: t, f: f, h: h, url: ts.URL + httpmcp.Endpoint, ts: ts}
	sid := e.open(nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Megabytes of progress, more than the socket buffers hold, and the
	// client reads none of it.
	body := call(1, "progress", map[string]any{"n": 100000, "pad": 32 << 10}, "tok")
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n%s: %s\r\nContent-Length: %d\r\n\r\n%s",
		httpmcp.Endpoint, headerSession, sid, len(body), body)
	<-f.burst
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Shutdown(ctx); err != nil {
		t.Fatalf("the POST of a client that stopped reading was still running: %v", err)
	}
}

func errorCode(r reply) any {
	if len(r.msgs) != 1 {
		return nil
	}
	e, _ := r.msgs[0]["error"].(map[string]any)
	return e["code"]
}

// A call the server cancels (shutdown, its session deleted by another
// party) gets a JSON-RPC error on its own stream or as its JSON body, so
// its client does not wait forever; a call the client cancelled gets none.
func TestServerCancelledCallsAnswered(t *testing.T) {
	sse := map[string]string{}
	jsonOnly := map[string]string{"Accept": "application/json"}
	for _, tc := range []struct {
		name    string
		hdr     map[string]string
		end     func(e *env, sid string)
		want    string // error message prefix; "" means no answer
		jsonOff int    // status of a JSON-only answer
	}{
		{"shutdown, stream", sse, shutdownNow, msgShuttingDown, 200},
		{"shutdown, JSON", jsonOnly, shutdownNow, msgShuttingDown, 200},
		{"session deleted, stream", sse, deleteSession, msgSessionEnded, 200},
		{"session deleted, JSON", jsonOnly, deleteSession, msgSessionEnded, 200},
		{"cancelled by the client, stream", sse, clientCancel, "", 200},
		{"cancelled by the client, JSON", jsonOnly, clientCancel, "", 204},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, httpmcp.Options{})
			sid := e.open(nil)
			done := make(chan reply, 1)
			go func() { done <- e.do(http.MethodPost, sid, call("c-7", "block", nil, nil), tc.hdr) }()
			<-e.f.blocked
			tc.end(e, sid)
			var r reply
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("no answer 10s after the call was cancelled")
			}
			if r.status != tc.jsonOff {
				t.Errorf("status %d, want %d", r.status, tc.jsonOff)
			}
			if tc.want == "" {
				if len(r.msgs) != 0 {
					t.Errorf("a call the client cancelled was answered: %s", r.raw)
				}
				return
			}
			if len(r.msgs) != 1 {
				t.Fatalf("want one error answer, got %s", r.raw)
			}
			m := r.msgs[0]
			msg, _ := m["error"].(map[string]any)["message"].(string)
			if m["id"] != "c-7" || errorCode(r) != float64(codeInternalError) || !strings.HasPrefix(msg, tc.want) {
				t.Errorf("answer %s; want id c-7, code %d, message %q", r.raw, codeInternalError, tc.want)
			}
		})
	}
}

func shutdownNow(e *env, _ string) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.h.Shutdown(ctx); err == nil {
		e.t.Error("Shutdown with a call running reported no error")
	}
}

func deleteSession(e *env, sid string) {
	if r := e.do(http.MethodDelete, sid, "", nil); r.status != 200 {
		e.t.Errorf("delete: %d", r.status)
	}
}

func clientCancel(e *env, sid string) {
	if r := e.post(sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c-7"}}`); r.status != 202 {
		e.t.Errorf("cancel: %d", r.status)
	}
}
