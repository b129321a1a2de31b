package main

// Streamable HTTP tests of the built binary (hermes-tools-mcp --listen):
//
//   - TestHTTPTypeScriptSDK: 40 official TypeScript SDK clients at once
//     (testdata/interop/sdk-http-client.mjs), each in its own session,
//     calling the skills and memory tools, one also a web_extract whose
//     progress must arrive in order before its result; then the security
//     rules against the same process (401 without the token, 403 for a
//     foreign Origin or Host) and a graceful SIGTERM.
//   - TestHTTPConformance: the MCP conformance suite
//     (@modelcontextprotocol/conformance) for every scenario that applies
//     to a server with our tools (see conformanceScenarios).
//
// Both need the pinned Node from .ci/npm (see interop_test.go): they skip
// without it, and fail when CI is set.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/web"
)

// httpServer is a running hermes-tools-mcp --listen.
type httpServer struct {
	url    string // the MCP endpoint
	cmd    *exec.Cmd
	stderr *lockedBuffer
	done   chan error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// servingLine names the port; a server listening on every interface is
// reached through 127.0.0.1 all the same (tests send nothing off loopback).
var servingLine = regexp.MustCompile(`serving MCP on http://(?:127\.0\.0\.1|0\.0\.0\.0|\[::\]):(\d+)/mcp`)

// startHTTPServer starts the binary on a free loopback port and waits for
// the line that names it. env replaces the inherited environment's
// entries of the same name; drop lists names to remove.
func startHTTPServer(t testing.TB, bin string, args []string, env []string, drop []string) *httpServer {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--listen", "127.0.0.1:0", "--log-level", "info"}, args...)...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, name) && name != tokenEnvName {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	pr, pw := io.Pipe()
	s := &httpServer{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = io.MultiWriter(s.stderr, pw)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.done <- cmd.Wait(); pw.Close() }()
	t.Cleanup(func() {
		// Not cmd.ProcessState: Wait writes it on its own goroutine. A
		// process that has exited and been waited for is not signalled.
		_ = cmd.Process.Kill()
		<-s.done
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- "http://127.0.0.1:" + m[1] + "/mcp"
				break
			}
		}
		io.Copy(io.Discard, pr)
	}()
	select {
	case s.url = <-found:
	case err := <-s.done:
		t.Fatalf("server exited before serving: %v\n%s", err, s.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not report its address\n%s", s.stderr)
	}
	return s
}

const tokenEnvName = TokenEnv

func TestHTTPTypeScriptSDK(t *testing.T) {
	env := newInteropEnv(t)
	fake := fakeapis.Start(t)
	if err := os.WriteFile(filepath.Join(env.home, "config.yaml"), []byte("web:\n  allow_private_urls: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const token = "interop-token-5f2a"
	srv := startHTTPServer(t, env.bin, []string{"--hermes-home", env.home, "--toolsets", "skills,memory,web"},
		[]string{TokenEnv + "=" + token, "HERMES_HOME=" + env.home}, web.Toolset(web.Options{}).EnvVars)

	calls := interopCalls()
	type planEntry struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	var plan []planEntry
	for _, c := range calls {
		args := map[string]any{}
		for k, v := range c.args {
			args[k] = v
		}
		plan = append(plan, planEntry{Name: c.tool, Arguments: args})
	}
	plan = append(plan, planEntry{Name: "memory", Arguments: map[string]any{"action": "read", "target": "memory"}})
	planJSON, _ := json.Marshal(plan)
	progressJSON, _ := json.Marshal(planEntry{Name: "web_extract", Arguments: map[string]any{"urls": []string{
		fake.Page("slow?ms=100&name=article"), fake.Page("slow?ms=300&name=table"), fake.Page("slow?ms=500&name=login"),
	}}})
	const clients = 40
	script := filepath.Join(env.repoRoot, "cmd", "hermes-tools-mcp", "testdata", "interop", "sdk-http-client.mjs")
	stdout, stderr, err := env.run(t, env.node, script, "--url", srv.url, "--token", token,
		"--clients", fmt.Sprint(clients), "--plan", string(planJSON), "--progress", string(progressJSON), "--memory-add", "interop client")
	if err != nil {
		t.Fatalf("sdk-http-client.mjs: %v\nstderr:\n%s\nserver:\n%s", err, stderr, srv.stderr)
	}
	var out struct {
		ServerInfo      struct{ Name string }
		ProtocolVersion string
		Tools           []string
		Clients         []struct {
			SessionID string
			Error     string
			MemoryAdd *toolResult
			Calls     []struct {
				Name   string
				Result *toolResult
				Error  string
			}
		}
		Progress *struct {
			Events []struct {
				Progress float64
				Total    float64
			}
			Result toolResult
			Late   int
		}
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	t.Logf("server %s, protocol %s, %d tools", out.ServerInfo.Name, out.ProtocolVersion, len(out.Tools))
	if out.ServerInfo.Name != "hermes-tools" || out.ProtocolVersion == "" {
		t.Errorf("handshake: %+v %q", out.ServerInfo, out.ProtocolVersion)
	}
	for _, want := range []string{"skills_list", "skill_view", "memory", "web_extract"} {
		if !slices.Contains(out.Tools, want) {
			t.Errorf("tools/list %v lacks %s", out.Tools, want)
		}
	}
	if len(out.Clients) != clients {
		t.Fatalf("%d clients reported, want %d", len(out.Clients), clients)
	}
	sessions := map[string]bool{}
	for n, c := range out.Clients {
		if c.Error != "" || c.SessionID == "" {
			t.Errorf("client %d: session %q, error %q", n, c.SessionID, c.Error)
			continue
		}
		sessions[c.SessionID] = true
		if len(c.Calls) != len(plan) {
			t.Errorf("client %d: %d calls, want %d", n, len(c.Calls), len(plan))
			continue
		}
		for i, ic := range calls {
			got := c.Calls[i]
			if got.Error != "" || got.Result == nil {
				t.Errorf("client %d: %s failed: %q", n, ic.label, got.Error)
				continue
			}
			t.Run(fmt.Sprintf("client%d/%s", n, ic.label), func(t *testing.T) { ic.verify(t, *got.Result) })
		}
		if m := c.Calls[len(calls)]; m.Error != "" || m.Result == nil || m.Result.IsError {
			t.Errorf("client %d: memory read: %+v", n, m)
		}
		if c.MemoryAdd == nil || c.MemoryAdd.IsError {
			t.Errorf("client %d: memory add: %+v", n, c.MemoryAdd)
		}
	}
	// Every session's write landed in the one home: none lost to another.
	saved, err := os.ReadFile(filepath.Join(env.home, "memories", "MEMORY.md"))
	if err != nil {
		t.Fatal(err)
	}
	for n := range clients {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^interop client %d$`, n)).Match(saved) {
			t.Errorf("MEMORY.md lacks client %d's entry:\n%s", n, saved)
		}
	}
	if len(sessions) != clients {
		t.Errorf("%d distinct sessions for %d clients", len(sessions), clients)
	}
	if p := out.Progress; p == nil {
		t.Error("no progress call reported")
	} else {
		var got []float64
		for _, e := range p.Events {
			got = append(got, e.Progress)
		}
		if !slices.Equal(got, []float64{0, 1, 2}) || p.Late != 0 || p.Result.IsError {
			t.Errorf("web_extract progress %v (late %d, isError %v), want [0 1 2] before the result", got, p.Late, p.Result.IsError)
		}
	}

	// The security rules, against the same process.
	ping := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"no token", nil, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, 401},
		{"foreign origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "https://evil.example"}, 403},
		{"rebound host", map[string]string{"Authorization": "Bearer " + token, "Host": "evil.example"}, 403},
		{"headers over the limit", map[string]string{"Authorization": "Bearer " + token, "X-Big": strings.Repeat("a", 100<<10)}, 431},
		{"token", map[string]string{"Authorization": "Bearer " + token}, 200},
	} {
		req, _ := http.NewRequest("POST", srv.url, strings.NewReader(ping))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.hdr {
			req.Header.Set(k, v)
			if k == "Host" {
				req.Host = v
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		}
	}

	// SIGTERM: a graceful stop, exit 0.
	srv.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-srv.done:
		if err != nil {
			t.Errorf("after SIGTERM: %v\n%s", err, srv.stderr)
		}
		srv.done <- err // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatalf("server still running 30s after SIGTERM\n%s", srv.stderr)
	}
	log := srv.stderr.String()
	if strings.Contains(log, token) {
		t.Error("the server log contains the token")
	}
	if !strings.Contains(log, "msg=http method=POST path=/mcp status=200") || !strings.Contains(log, "status=401") {
		t.Errorf("no access log lines on stderr:\n%.2000s", log)
	}
}

// conformanceScenarios are the conformance suite's server scenarios that
// apply to hermes-tools. The others need the suite's "everything" fixture
// server, which we are not:
//
//   - tools-call-* (simple-text, image, audio, embedded-resource,
//     mixed-content, with-logging, error, with-progress, sampling,
//     elicitation), json-schema-2020-12 and elicitation-sep1034-defaults,
//     elicitation-sep1330-enums call test_* tools we do not have (our
//     progress, errors and ordering are tested with our own tools in
//     TestHTTPTypeScriptSDK and mcpserver/httpmcp);
//   - resources-read-text, -read-binary, -templates-read, -subscribe,
//     -unsubscribe read test:// resources (ours are skill:// files) or
//     need subscriptions, which we do not offer;
//   - prompts-* and completion-complete: we serve no prompts and no
//     completions;
//   - server-sse-polling (pending in the suite) checks resumable POST
//     streams (event ids, retry); we do not offer resumption, so it runs
//     0 checks.
var conformanceScenarios = []string{
	"server-initialize",
	"ping",
	"tools-list",
	"logging-set-level",
	"resources-list",
	"server-sse-multiple-streams",
	"dns-rebinding-protection",
}

var conformanceResult = regexp.MustCompile(`Passed: (\d+)/(\d+), (\d+) failed`)

func TestHTTPConformance(t *testing.T) {
	env := newInteropEnv(t)
	srv := startHTTPServer(t, env.bin, []string{"--hermes-home", env.home, "--toolsets", "skills,memory"}, nil, nil)
	suite := filepath.Join(env.npmDir, "node_modules", ".bin", "conformance")
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			stdout, stderr, err := env.run(t, env.node, suite, "server", "--url", srv.url, "--scenario", sc, "-o", t.TempDir())
			m := conformanceResult.FindSubmatch(stdout)
			if err != nil || m == nil || string(m[3]) != "0" || string(m[1]) == "0" || string(m[1]) != string(m[2]) {
				t.Fatalf("conformance %s: %v\n%s\n%s", sc, err, stdout, stderr)
			}
			t.Logf("%s: passed %s/%s", sc, m[1], m[2])
		})
	}
}

// --listen refuses, with the reason, what would be unsafe or cannot work;
// nothing is listened on for a refused address.
func TestListenRefusals(t *testing.T) {
	home := fixtureHome(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	twoWords := filepath.Join(dir, "two")
	good := filepath.Join(dir, "good")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	os.WriteFile(twoWords, []byte("a b\n"), 0o600)
	os.WriteFile(good, []byte("tok\n"), 0o600)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"every interface without a token", "", []string{"--listen", ":0"}, "a token is required"},
		{"wildcard IP without a token", "", []string{"--listen", "0.0.0.0:0"}, "a token is required"},
		{"a host name without a token", "", []string{"--listen", "example.invalid:0"}, "a token is required"},
		{"no port", "", []string{"--listen", "127.0.0.1"}, "--listen 127.0.0.1: missing port; use 127.0.0.1:8787"},
		{"no port, localhost", "", []string{"--listen", "localhost"}, "--listen localhost: missing port; use localhost:8787"},
		{"no port, bracketed IPv6", "", []string{"--listen", "[::1]"}, "--listen [::1]: missing port; use [::1]:8787"},
		{"no port, bare IPv6", "", []string{"--listen", "::1"}, "--listen ::1: missing port; use [::1]:8787"},
		{"no port, with a token", "tok", []string{"--listen", "0.0.0.0"}, "missing port; use 0.0.0.0:8787"},
		{"blank token in the environment", "   ", []string{"--listen", "127.0.0.1:0"}, "$" + TokenEnv + " is empty"},
		{"token with a space in the environment", "a b", []string{"--listen", "127.0.0.1:0"}, "$" + TokenEnv + " holds more than one word"},
		{"empty token file", "", []string{"--listen", "127.0.0.1:0", "--token-file", empty}, "is empty"},
		{"origin with a path", "", []string{"--listen", "127.0.0.1:0", "--allow-origin", "https://app.example/x"}, "--allow-origin"},
		{"origin without a scheme", "", []string{"--listen", "127.0.0.1:0", "--allow-origin", "app.example"}, "want an origin"},
		{"origin with a slash", "", []string{"--listen", "127.0.0.1:0", "--allow-origin", "https://app.example/"}, "use https://app.example"},
		{"host with a scheme", "", []string{"--listen", "127.0.0.1:0", "--allow-host", "https://mcp.example.com"}, "--allow-host"},
		{"allow flags without --listen", "", []string{"--allow-host", "mcp.example.com"}, "apply to --listen only"},
		{"token file with two words", "", []string{"--listen", "127.0.0.1:0", "--token-file", twoWords}, "more than one word"},
		{"missing token file", "", []string{"--listen", "127.0.0.1:0", "--token-file", filepath.Join(dir, "nope")}, "--token-file"},
		{"unusable port with a token", "tok", []string{"--listen", "127.0.0.1:99999"}, "99999 is not a port number (0-65535)"},
		{"a port in use", "", []string{"--listen", busy.Addr().String()}, "the port is already in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(TokenEnv, tc.env)
			// At info level every start-up line shows: a refused start
			// must not first announce that it is serving.
			code, _, stderr := runCLI(t, "", append([]string{"--hermes-home", home, "--log-level", "info"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
			if strings.Contains(stderr, "serving") || strings.Contains(stderr, "want HOST:PORT") && !strings.Contains(tc.want, "HOST:PORT") {
				t.Errorf("a refused start said %q", stderr)
			}
		})
	}
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"127.0.0.1:1", true}, {"[::1]:1", true}, {"localhost:1", true}, {"127.9.9.9:1", true},
		{":1", false}, {"0.0.0.0:1", false}, {"[::]:1", false}, {"10.0.0.1:1", false}, {"host:1", false}, {"127.0.0.1", false},
	} {
		if got := loopbackAddr(tc.addr); got != tc.want {
			t.Errorf("loopbackAddr(%q) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	if tok, err := readToken(good, func(string) string { return "env" }); err != nil || tok != "tok" {
		t.Errorf("token file: %q %v", tok, err)
	}
	if tok, err := readToken("", func(string) string { return "" }); tok != "" || err != nil {
		t.Errorf("unset environment: %q %v", tok, err)
	}
}

// The environment and --token-file follow one rule: the same value gives
// the same token or the same refusal, whichever source it comes from.
func TestTokenSourcesAgree(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct {
		raw  string
		want string // "" means refused
	}{
		{"tok", "tok"},
		{" env-tok\n", "env-tok"},
		{"t0k-._~+/=", "t0k-._~+/="},
		{" ", ""},
		{"\t\n", ""},
		{"a b", ""},
		{"a\tb", ""},
		{"a\nb", ""},
		{"a\x00b", ""},
		{"a\u00a0b", ""},
	} {
		file := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(file, []byte(tc.raw), 0o600); err != nil {
			t.Fatal(err)
		}
		fromFile, errFile := readToken(file, func(string) string { return "other" })
		fromEnv, errEnv := readToken("", func(string) string { return tc.raw })
		if fromFile != tc.want || fromEnv != tc.want || (errFile == nil) != (tc.want != "") || (errEnv == nil) != (tc.want != "") {
			t.Errorf("%q: file %q %v, environment %q %v; want %q for both", tc.raw, fromFile, errFile, fromEnv, errEnv, tc.want)
		}
	}
}

// SIGTERM while a call runs past the shutdown grace: the official
// TypeScript SDK client's callTool rejects with the server's "shutting
// down" error soon after the grace ends, instead of waiting for an answer
// that never comes.
func TestHTTPShutdownAnswersCallsInFlight(t *testing.T) {
	env := newInteropEnv(t)
	if err := os.WriteFile(filepath.Join(env.home, "config.yaml"), []byte("web:\n  allow_private_urls: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A page that answers only when its client gives up: the call is in
	// flight until the server cancels it.
	hit := make(chan struct{}, 1)
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hit <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: page, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	const token = "shutdown-token-9c1e"
	srv := startHTTPServer(t, env.bin, []string{"--hermes-home", env.home, "--toolsets", "web"},
		[]string{TokenEnv + "=" + token, "HERMES_HOME=" + env.home}, web.Toolset(web.Options{}).EnvVars)
	callJSON, _ := json.Marshal(map[string]any{"name": "web_extract", "arguments": map[string]any{"urls": []string{"http://" + ln.Addr().String() + "/hang"}}})
	script := filepath.Join(env.repoRoot, "cmd", "hermes-tools-mcp", "testdata", "interop", "sdk-http-shutdown.mjs")
	type outcome struct {
		stdout, stderr []byte
		err            error
		at             time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		stdout, stderr, err := env.run(t, env.node, script, "--url", srv.url, "--token", token, "--call", string(callJSON))
		done <- outcome{stdout, stderr, err, time.Now()}
	}()
	select {
	case <-hit:
	case o := <-done:
		t.Fatalf("the client ended before its call reached the page: %v\n%s\n%s\nserver:\n%s", o.err, o.stdout, o.stderr, srv.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("the call never reached the page\nserver:\n%s", srv.stderr)
	}
	sent := time.Now()
	srv.cmd.Process.Signal(syscall.SIGTERM)
	var o outcome
	select {
	case o = <-done:
	case <-time.After(shutdownGrace + 15*time.Second):
		t.Fatalf("callTool still waiting %s after SIGTERM (grace %s)\nserver:\n%s", shutdownGrace+15*time.Second, shutdownGrace, srv.stderr)
	}
	var got struct {
		Error string
		Code  *int
	}
	if err := json.Unmarshal(o.stdout, &got); err != nil || o.err != nil {
		t.Fatalf("client: %v %v\n%s\n%s", o.err, err, o.stdout, o.stderr)
	}
	if !strings.Contains(got.Error, "server shutting down; retry on another instance") || got.Code == nil || *got.Code != -32603 {
		t.Errorf("callTool ended with %s; want a -32603 \"server shutting down\" rejection", o.stdout)
	}
	// Promptly: at the grace's end, not at some client timeout.
	took := o.at.Sub(sent)
	if took > shutdownGrace+5*time.Second {
		t.Errorf("callTool rejected %s after SIGTERM; want about the %s grace", took, shutdownGrace)
	}
	t.Logf("callTool rejected %s after SIGTERM (grace %s): %s", took.Round(time.Millisecond), shutdownGrace, bytes.TrimSpace(o.stdout))
	select {
	case err := <-srv.done:
		if err != nil {
			t.Errorf("server exit after SIGTERM: %v\n%s", err, srv.stderr)
		}
		srv.done <- err
	case <-time.After(10 * time.Second):
		t.Fatalf("server still running after the client's call was answered\n%s", srv.stderr)
	}
}
