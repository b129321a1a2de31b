//go:build unix

package bridge

// Session tests against the real codex pinned in .ci/npm (`make test`
// installs it) and internal/testkit/fakeresponses as the model, on 127.0.0.1. Codex
// gets a throwaway HOME and CODEX_HOME and a black-hole proxy (codextest), so
// no traffic leaves the machine. Each test asserts on the projected
// transcript and on what reached the fake model.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// realSession is a Session on the real codex, with its fake model and
// workspace.
type realSession struct {
	*Session
	fake *fakeresponses.Server
	ws   string
	home codextest.Home

	mu     sync.Mutex
	onNote func(Notification) // test hook, called from OnEvent
}

func (r *realSession) hook(fn func(Notification)) {
	r.mu.Lock()
	r.onNote = fn
	r.mu.Unlock()
}

// newRealSession starts nothing yet: codex starts on the first turn.
func newRealSession(t testing.TB, mod func(*SessionConfig), args ...string) *realSession {
	t.Helper()
	bin := codextest.Binary(t)
	r := &realSession{fake: fakeresponses.New(t), home: codextest.NewHome(t), ws: filepath.Join(t.TempDir(), "ws")}
	if err := os.Mkdir(r.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := SessionConfig{
		Codex: Config{
			Binary: bin,
			Args:   append(r.fake.CodexArgs(), args...),
			Env:    r.home.Env(codextest.NewProxy(t).URL()),
			Dir:    r.home.Home,
			Logger: testLogger(t),
		},
		Cwd:          r.ws,
		ThreadParams: map[string]any{"approvalPolicy": "on-request", "sandbox": "workspace-write"},
		OnEvent: func(n Notification) {
			r.mu.Lock()
			fn := r.onNote
			r.mu.Unlock()
			if fn != nil {
				fn(n)
			}
		},
		TurnTimeout:  60 * time.Second,
		StartTimeout: 60 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	sess, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.Session = sess
	t.Cleanup(func() {
		pid := sess.PID()
		start := time.Now()
		if err := sess.Close(); err != nil {
			t.Logf("Close: %v", err)
		}
		if pid != 0 {
			checkReaped(t, pid)
		}
		t.Logf("Close and reaping took %v", time.Since(start))
	})
	return r
}

func (r *realSession) turn(t *testing.T, ctx context.Context, text string) TurnResult {
	t.Helper()
	start := time.Now()
	res := r.RunTurn(ctx, TextInput(text))
	t.Logf("turn took %v: err=%v interrupted=%v status=%q", time.Since(start), res.Err, res.Interrupted, res.Status)
	t.Logf("transcript: %s", mustMarshal(res.Messages))
	return res
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func request(t *testing.T, fake *fakeresponses.Server, n int) *fakeresponses.Request {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := fake.WaitRequest(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestRealSessionTextTurn(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	r.fake.Enqueue(fakeresponses.Reply{
		Items: []fakeresponses.Item{fakeresponses.Message("Hello from the fake model.")},
		Usage: &fakeresponses.Usage{InputTokens: 120, CachedTokens: 20, OutputTokens: 7},
	})
	res := r.turn(t, ctxT(t, 60*time.Second), "say hello")
	if res.Err != nil || res.Interrupted || res.ShouldRetire || res.Status != "completed" {
		t.Fatalf("result %+v", res)
	}
	if got := mustMarshal(res.Messages); got != `[{"role":"assistant","content":"Hello from the fake model."}]` {
		t.Errorf("transcript %s", got)
	}
	if res.FinalText != "Hello from the fake model." || res.TurnID == "" || res.ThreadID != r.ThreadID() || res.ToolIterations != 0 {
		t.Errorf("result %+v", res)
	}
	if u := res.Usage; u == nil || u.Last.InputTokens != 120 || u.Last.CachedInputTokens != 20 || u.Last.OutputTokens != 7 {
		t.Errorf("usage %+v", res.Usage)
	}
	req := request(t, r.fake, 1)
	if req.LastUserText() != "say hello" || req.Header.Get("originator") != "hermes" {
		t.Errorf("model request: user %q, originator %q", req.LastUserText(), req.Header.Get("originator"))
	}
}

// The model calls skills_list of our own hermes-tools-mcp, which codex runs
// as an MCP server, and the result goes back to the model. The same binary
// also runs under another name: codex asks to approve each call (an
// elicitation), which the session accepts for hermes-tools only.
func TestRealSessionMCPTool(t *testing.T) {
	t.Parallel()
	toolsBin := toolsbuild.ServerBinary(t)
	hermesHome := filepath.Join(t.TempDir(), "hermes")
	if err := os.CopyFS(hermesHome, os.DirFS("../cmd/hermes-tools-mcp/testdata/home")); err != nil {
		t.Fatal(err)
	}
	server := func(name string) string {
		return `mcp_servers.` + name + `={command=` + strconv.Quote(toolsBin) +
			`, args=["--hermes-home", ` + strconv.Quote(hermesHome) + `, "--toolsets", "skills"], startup_timeout_sec=30,` +
			// skills_list is read-only, so codex would not ask
			// without this.
			` default_tools_approval_mode="prompt"}`
	}
	r := newRealSession(t, nil, "-c", server("hermes-tools"), "-c", server("other-tools"))

	var (
		mu        sync.Mutex
		ready     = map[string]string{}
		approvals int
		allReady  = make(chan struct{})
	)
	r.hook(func(n Notification) {
		mu.Lock()
		defer mu.Unlock()
		switch n.Method {
		case "mcpServer/startupStatus/updated":
			var p struct{ Name, Status, Error string }
			_ = json.Unmarshal(n.Params, &p)
			if p.Status == "ready" || p.Status == "failed" {
				ready[p.Name] = p.Status + " " + p.Error
				if len(ready) == 2 {
					close(allReady)
				}
			}
		case "thread/status/changed":
			if strings.Contains(string(n.Params), "waitingOnApproval") {
				approvals++
			}
		}
	})
	ctx := ctxT(t, 60*time.Second)
	if _, err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-allReady:
	case <-ctx.Done():
		t.Fatal("MCP servers never became ready")
	}
	mu.Lock()
	for name, st := range ready {
		if !strings.HasPrefix(st, "ready") {
			t.Fatalf("MCP server %s: %s", name, st)
		}
	}
	mu.Unlock()

	r.fake.Enqueue(
		fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.MCPCall("call_skills", "hermes-tools", "skills_list", map[string]any{})}},
		fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.MCPCall("call_other", "other-tools", "skills_list", map[string]any{"category": "devops"})}},
		fakeresponses.Text("You have three skills."),
	)
	res := r.turn(t, ctx, "which skills do I have?")
	if res.Err != nil || res.ToolIterations != 2 || res.FinalText != "You have three skills." {
		t.Fatalf("result %+v", res)
	}
	if len(res.Messages) != 5 {
		t.Fatalf("transcript has %d messages", len(res.Messages))
	}
	call, result := res.Messages[0], res.Messages[1]
	if len(call.ToolCalls) != 1 || call.ToolCalls[0].ID != "codex_mcp_hermes-tools_skills_list_call_skills" ||
		call.ToolCalls[0].Function.Name != "mcp.hermes-tools.skills_list" || call.ToolCalls[0].Function.Arguments != "{}" {
		t.Errorf("tool call %s", mustMarshal(call))
	}
	if result.Role != "tool" || result.ToolCallID != call.ToolCalls[0].ID || !strings.Contains(result.Content, "interop-alpha") {
		t.Errorf("tool result %s", mustMarshal(result))
	}
	out, ok := request(t, r.fake, 2).ToolOutput("call_skills")
	if !ok || !strings.Contains(out, "interop-alpha") || !strings.Contains(out, "interop-deploy") {
		t.Errorf("the model got %q (present %v)", out, ok)
	}
	if tools := strings.Join(request(t, r.fake, 1).ToolNames(), " "); !strings.Contains(tools, "mcp__hermes_tools.skills_list") {
		t.Errorf("tools offered to the model: %s", tools)
	}

	// The other server's call was declined.
	want := `[{"role":"assistant","content":null,"tool_calls":[{"id":"codex_mcp_other-tools_skills_list_call_other","type":"function","function":{"name":"mcp.other-tools.skills_list","arguments":"{\"category\": \"devops\"}"}}]},` +
		`{"role":"tool","content":"[error] {\"message\": \"user rejected MCP tool call\"}","tool_call_id":"codex_mcp_other-tools_skills_list_call_other"}]`
	if got := mustMarshal(res.Messages[2:4]); got != want {
		t.Errorf("declined call\n got %s\nwant %s", got, want)
	}
	if out, _ := request(t, r.fake, 3).ToolOutput("call_other"); !strings.Contains(out, "rejected") {
		t.Errorf("the model got %q for the declined call", out)
	}
	mu.Lock()
	if approvals != 2 {
		t.Errorf("codex asked %d approvals, want 2", approvals)
	}
	mu.Unlock()
}

// A command that needs escalation asks for approval; accepted it runs,
// declined the model hears so and the turn goes on.
func TestRealSessionShellApproval(t *testing.T) {
	tests := []struct {
		name     string
		decision Decision
		content  string // the tool message
		toModel  string // in the output the model gets
	}{
		{"accepted", DecisionOnce, "hi-from-shell\n", "hi-from-shell"},
		{"declined", DecisionDeny, "", "rejected by user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var asked []ApprovalRequest
			var mu sync.Mutex
			r := newRealSession(t, func(c *SessionConfig) {
				c.Approver = ApproverFunc(func(_ context.Context, req ApprovalRequest) (Decision, error) {
					mu.Lock()
					asked = append(asked, req)
					mu.Unlock()
					return tt.decision, nil
				})
			})
			r.fake.Enqueue(
				fakeresponses.Call("call_sh", "exec_command", map[string]any{
					"cmd": "echo hi-from-shell", "sandbox_permissions": "require_escalated", "justification": "testing approval"}),
				fakeresponses.Text("Ran it."),
			)
			res := r.turn(t, ctxT(t, 60*time.Second), "run echo")
			if res.Err != nil || res.FinalText != "Ran it." || res.ToolIterations != 1 {
				t.Fatalf("result %+v", res)
			}
			mu.Lock()
			if len(asked) != 1 || asked[0].Kind != ApproveCommand || asked[0].Command != "/bin/bash -lc 'echo hi-from-shell'" ||
				asked[0].Description != "Codex requests exec in "+r.ws+" — testing approval" {
				t.Errorf("approvals asked %+v", asked)
			}
			mu.Unlock()
			want := `[{"role":"assistant","content":null,"tool_calls":[{"id":"codex_exec_call_sh","type":"function","function":{"name":"exec_command","arguments":` +
				strconv.Quote(`{"command": "/bin/bash -lc 'echo hi-from-shell'", "cwd": "`+r.ws+`"}`) + `}}]},` +
				`{"role":"tool","content":` + strconv.Quote(tt.content) + `,"tool_call_id":"codex_exec_call_sh"},` +
				`{"role":"assistant","content":"Ran it."}]`
			if got := mustMarshal(res.Messages); got != want {
				t.Errorf("transcript\n got %s\nwant %s", got, want)
			}
			if out, _ := request(t, r.fake, 2).ToolOutput("call_sh"); !strings.Contains(out, tt.toModel) {
				t.Errorf("the model got %q", out)
			}
		})
	}
}

func TestRealSessionDynamicTool(t *testing.T) {
	t.Parallel()
	var gotArgs string
	r := newRealSession(t, func(c *SessionConfig) {
		c.DynamicTools = []DynamicTool{{
			Name:        "lookup_ticket",
			Description: "Look up a support ticket by id.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
			Handler: func(_ context.Context, args json.RawMessage) (ToolOutput, error) {
				gotArgs = string(args)
				return TextOutput("Ticket ABC-123 is open."), nil
			},
		}}
	})
	r.fake.Enqueue(
		fakeresponses.Call("call_dyn", "lookup_ticket", map[string]any{"id": "ABC-123"}),
		fakeresponses.Text("It is open."),
	)
	res := r.turn(t, ctxT(t, 60*time.Second), "status of ABC-123?")
	if res.Err != nil || res.ToolIterations != 1 || gotArgs != `{"id":"ABC-123"}` {
		t.Fatalf("result %+v, handler args %q", res, gotArgs)
	}
	want := `[{"role":"assistant","content":null,"tool_calls":[{"id":"codex_dyn_lookup_ticket_call_dyn","type":"function","function":{"name":"lookup_ticket","arguments":"{\"id\": \"ABC-123\"}"}}]},` +
		`{"role":"tool","content":"[{\"text\": \"Ticket ABC-123 is open.\", \"type\": \"inputText\"}]","tool_call_id":"codex_dyn_lookup_ticket_call_dyn"},` +
		`{"role":"assistant","content":"It is open."}]`
	if got := mustMarshal(res.Messages); got != want {
		t.Errorf("transcript\n got %s\nwant %s", got, want)
	}
	if out, _ := request(t, r.fake, 2).ToolOutput("call_dyn"); out != "Ticket ABC-123 is open." {
		t.Errorf("the model got %q", out)
	}
	if tools := request(t, r.fake, 1).ToolNames(); !strings.Contains(strings.Join(tools, " "), "lookup_ticket") {
		t.Errorf("tools offered: %v", tools)
	}
}

// Cancelling the context mid-stream interrupts the turn; the half-streamed
// message is kept, and the session goes on.
func TestRealSessionInterrupt(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	r.fake.Enqueue(fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.PartialMessage("Thinking about it"), fakeresponses.Hold(nil)}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.hook(func(n Notification) {
		if n.Method == "item/agentMessage/delta" {
			cancel()
		}
	})
	res := r.turn(t, ctx, "think")
	if res.Err != nil || !res.Interrupted || res.ShouldRetire || res.Status != "interrupted" {
		t.Fatalf("result %+v", res)
	}
	if got := mustMarshal(res.Messages); got != `[{"role":"assistant","content":"Thinking about it"}]` {
		t.Errorf("transcript %s", got)
	}

	r.hook(nil)
	r.fake.Enqueue(fakeresponses.Text("Back."))
	res = r.turn(t, ctxT(t, 60*time.Second), "go on")
	if res.Err != nil || res.FinalText != "Back." {
		t.Errorf("turn after the interrupt %+v", res)
	}
}

func TestRealSessionUpstream500(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	r.fake.Enqueue(fakeresponses.Error(500, "upstream exploded"))
	res := r.turn(t, ctxT(t, 60*time.Second), "hello?")
	te := turnErr(t, res.Err)
	if te.Kind != TurnErrFailed || !strings.HasPrefix(te.Message, "turn ended status=failed: internalServerError: ") ||
		res.ShouldRetire || res.Status != "failed" {
		t.Errorf("result %+v\nmessage %q", res, te.Message)
	}
	if len(res.Messages) != 0 {
		t.Errorf("transcript %s", mustMarshal(res.Messages))
	}
	// The thread is still usable.
	r.fake.Enqueue(fakeresponses.Text("Better now."))
	if res := r.turn(t, ctxT(t, 60*time.Second), "again"); res.Err != nil || res.FinalText != "Better now." {
		t.Errorf("turn after the failure %+v", res)
	}
}

// Codex killed mid-turn: the turn reports it and asks to retire; the next
// turn starts a new codex that resumes the thread, history included.
func TestRealSessionChildKilled(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	r.fake.Enqueue(fakeresponses.Text("First answer."))
	if res := r.turn(t, ctxT(t, 60*time.Second), "first question"); res.Err != nil {
		t.Fatalf("first turn %+v", res)
	}
	thread, pid := r.ThreadID(), r.PID()

	r.fake.Enqueue(fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.PartialMessage("Working on"), fakeresponses.Hold(nil)}})
	r.hook(func(n Notification) {
		if n.Method == "item/agentMessage/delta" {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	res := r.turn(t, ctxT(t, 60*time.Second), "second question")
	te := turnErr(t, res.Err)
	if te.Kind != TurnErrExited || !strings.HasPrefix(te.Message, "codex app-server subprocess exited unexpectedly (signal: killed)") || !res.ShouldRetire {
		t.Errorf("result %+v\nmessage %q", res, te.Message)
	}
	if got := mustMarshal(res.Messages); got != `[{"role":"assistant","content":"Working on"}]` {
		t.Errorf("transcript %s", got)
	}
	checkReaped(t, pid)

	r.hook(nil)
	r.fake.Enqueue(fakeresponses.Text("Resumed."))
	res = r.turn(t, ctxT(t, 60*time.Second), "third question")
	if res.Err != nil || res.FinalText != "Resumed." || res.ThreadID != thread || r.PID() == pid {
		t.Fatalf("turn after the kill %+v (thread %s, pid %d→%d)", res, thread, pid, r.PID())
	}
	users := strings.Join(request(t, r.fake, 3).UserTexts(), "|")
	if !strings.Contains(users, "first question") || !strings.Contains(users, "third question") {
		t.Errorf("resumed history sent to the model: %q", users)
	}
}

// A permission request is answered with an empty grant, which codex passes
// to the model as "nothing granted" without complaint.
func TestRealSessionPermissionsRequest(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil, "-c", "features.request_permissions_tool=true")
	r.fake.Enqueue(
		fakeresponses.Call("call_perm", "request_permissions", map[string]any{
			"permissions": map[string]any{"network": map[string]any{"enabled": true}}, "reason": "need the network"}),
		fakeresponses.Text("Understood."),
	)
	res := r.turn(t, ctxT(t, 60*time.Second), "fetch something")
	if res.Err != nil || res.FinalText != "Understood." {
		t.Fatalf("result %+v", res)
	}
	out, _ := request(t, r.fake, 2).ToolOutput("call_perm")
	if out != `{"permissions":{"network":null,"file_system":null},"scope":"turn"}` {
		t.Errorf("the model got %q", out)
	}
	if tail := r.StderrTail(); strings.Contains(tail, "failed to deserialize") {
		t.Errorf("codex did not understand the reply:\n%s", tail)
	}
}
