package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Unit tests of Session against the scripted app-server (script_test.go):
// the checklist is the Python original's run_turn behaviour
// (hermes-original.md §3.3) plus what codex-app-server.md documents.

func messagesJSON(t *testing.T, msgs []Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func turnErr(t *testing.T, err error) *TurnError {
	t.Helper()
	var te *TurnError
	if !errors.As(err, &te) {
		t.Fatalf("Err = %v (%T), want a *TurnError", err, err)
	}
	return te
}

func TestSessionTextTurn(t *testing.T) {
	sc := newAppServer(t)
	sc.onTurn = func(tc *turnCtx) {
		tc.echo("hello")
		tc.say("msg_1", "hi there")
		usage := map[string]any{"totalTokens": 30, "inputTokens": 20, "cachedInputTokens": 5, "outputTokens": 10}
		tc.notify("thread/tokenUsage/updated", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID,
			"tokenUsage": map[string]any{"total": usage, "last": usage, "modelContextWindow": 1000}})
		tc.notify("thread/tokenUsage/updated", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID,
			"tokenUsage": map[string]any{"total": map[string]any{"totalTokens": 60}, "last": usage, "modelContextWindow": 1000}})
		tc.notify("some/futureNotification", map[string]any{"x": []int{1}})
		tc.complete("completed", nil)
	}
	var events atomic.Int32
	sess := sc.session(t, func(c *SessionConfig) {
		c.OnEvent = func(Notification) { events.Add(1) }
	})
	res := runTurn(t, sess, "hello")
	if res.Err != nil || res.Interrupted || res.ShouldRetire {
		t.Fatalf("result = %+v", res)
	}
	if got := messagesJSON(t, res.Messages); got != `[{"role":"assistant","content":"hi there"}]` || res.FinalText != "hi there" {
		t.Errorf("messages %s, final %q", got, res.FinalText)
	}
	if res.TurnID != "turn_1" || res.ThreadID != "thr_1" || res.Status != "completed" || res.ToolIterations != 0 {
		t.Errorf("result = %+v", res)
	}
	if u := res.Usage; u == nil || u.Total.TotalTokens != 60 || u.Last.CachedInputTokens != 5 || u.ModelContextWindow != 1000 || u.Turn.TotalTokens != 60 {
		t.Errorf("usage %+v", res.Usage)
	}
	if events.Load() < 8 {
		t.Errorf("OnEvent saw %d notifications", events.Load())
	}

	var methods []string
	for _, c := range sc.received() {
		methods = append(methods, c.Method)
	}
	if got := strings.Join(methods, " "); got != "initialize initialized thread/start turn/start" {
		t.Errorf("client sent %s", got)
	}
	var init struct {
		ClientInfo   ClientInfo     `json:"clientInfo"`
		Capabilities map[string]any `json:"capabilities"`
	}
	_ = json.Unmarshal(sc.paramsOf("initialize")[0], &init)
	if init.ClientInfo != (ClientInfo{Name: "hermes", Title: "Hermes Agent", Version: "0.0.0"}) || len(init.Capabilities) != 0 {
		t.Errorf("initialize params %s", sc.paramsOf("initialize")[0])
	}
	if got := string(sc.paramsOf("thread/start")[0]); got != `{"cwd":"/work/space"}` {
		t.Errorf("thread/start params %s", got)
	}
	if got := string(sc.paramsOf("turn/start")[0]); got != `{"input":[{"text":"hello","text_elements":[],"type":"text"}],"threadId":"thr_1"}` {
		t.Errorf("turn/start params %s", got)
	}

	// The next turn reuses codex and the thread.
	pid := sess.PID()
	res = runTurn(t, sess, "again")
	if res.Err != nil || res.TurnID != "turn_2" || sess.PID() != pid || len(sc.paramsOf("thread/start")) != 1 {
		t.Errorf("second turn: %+v, pid %d→%d", res, pid, sess.PID())
	}
}

func TestSessionToolTurnTranscript(t *testing.T) {
	sc := newAppServer(t)
	sc.onTurn = func(tc *turnCtx) {
		tc.echo("list files")
		tc.both(map[string]any{"type": "reasoning", "id": "r1", "summary": []string{"Need to look"}, "content": []string{"ls it is"}})
		tc.started(map[string]any{"type": "commandExecution", "id": "call_1", "command": "/bin/bash -lc ls", "cwd": "/w", "status": "inProgress"})
		tc.notify("item/commandExecution/outputDelta", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "itemId": "call_1", "delta": "a.txt\n"})
		tc.completed(map[string]any{"type": "commandExecution", "id": "call_1", "command": "/bin/bash -lc ls", "cwd": "/w",
			"status": "completed", "aggregatedOutput": "a.txt\n", "exitCode": 0})
		tc.both(map[string]any{"type": "dynamicToolCall", "id": "call_2", "tool": "lookup", "arguments": map[string]any{"b": 1, "a": "é"},
			"contentItems": []any{map[string]any{"type": "inputText", "text": "found"}}, "success": true, "status": "completed"})
		tc.say("m1", "There is a.txt")
		tc.complete("completed", nil)
	}
	res := runTurn(t, sc.session(t, nil), "list files")
	want := `[{"role":"assistant","content":null,"reasoning":"Need to look\nls it is","tool_calls":[{"id":"codex_exec_call_1","type":"function","function":{"name":"exec_command","arguments":"{\"command\": \"/bin/bash -lc ls\", \"cwd\": \"/w\"}"}}]},` +
		`{"role":"tool","content":"a.txt\n","tool_call_id":"codex_exec_call_1"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"codex_dyn_lookup_call_2","type":"function","function":{"name":"lookup","arguments":"{\"a\": \"é\", \"b\": 1}"}}]},` +
		`{"role":"tool","content":"[{\"text\": \"found\", \"type\": \"inputText\"}]","tool_call_id":"codex_dyn_lookup_call_2"},` +
		`{"role":"assistant","content":"There is a.txt"}]`
	if got := messagesJSON(t, res.Messages); got != want {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	if res.Err != nil || res.ToolIterations != 2 || res.FinalText != "There is a.txt" {
		t.Errorf("result %+v", res)
	}
}

func TestSessionTurnEndings(t *testing.T) {
	const secret = "sk-" + "proj-SECRETsecretSECRET0123456789"
	tests := []struct {
		name  string
		turn  func(tc *turnCtx)
		check func(t *testing.T, res TurnResult)
	}{{
		name: "failed status with error",
		turn: func(tc *turnCtx) {
			tc.s.stderr("ERROR provider said: Authorisation header was Bearer " + secret)
			time.Sleep(50 * time.Millisecond) // stderr and stdout are separate pipes
			tc.notify("error", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "willRetry": false,
				"error": map[string]any{"message": "We’re currently experiencing high demand", "codexErrorInfo": "internalServerError"}})
			tc.complete("failed", map[string]any{"message": "We’re currently experiencing high demand", "codexErrorInfo": "internalServerError"})
		},
		check: func(t *testing.T, res TurnResult) {
			te := turnErr(t, res.Err)
			if te.Kind != TurnErrFailed || res.ShouldRetire || res.Interrupted || res.Status != "failed" {
				t.Errorf("result %+v", res)
			}
			if !strings.HasPrefix(te.Message, "turn ended status=failed: internalServerError: We’re currently experiencing high demand\ncodex stderr (last 1 lines):\nERROR provider said") ||
				strings.Contains(te.Message, secret) {
				t.Errorf("message %q", te.Message)
			}
		},
	}, {
		name: "failed status, error only in an error notification, object code",
		turn: func(tc *turnCtx) {
			tc.notify("error", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "willRetry": true, "error": map[string]any{"message": "retrying"}})
			tc.notify("error", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "willRetry": false,
				"error": map[string]any{"message": "connect failed", "codexErrorInfo": map[string]any{"httpConnectionFailed": map[string]any{"httpStatusCode": 502}}}})
			tc.complete("failed", nil)
		},
		check: func(t *testing.T, res TurnResult) {
			if te := turnErr(t, res.Err); te.Message != "turn ended status=failed: httpConnectionFailed: connect failed" {
				t.Errorf("message %q", te.Message)
			}
		},
	}, {
		name: "failed for an expired login",
		turn: func(tc *turnCtx) {
			tc.complete("failed", map[string]any{"message": "401 Unauthorized: token has expired", "codexErrorInfo": "unauthorized"})
		},
		check: func(t *testing.T, res TurnResult) {
			if te := turnErr(t, res.Err); te.Kind != TurnErrAuth || te.Message != AuthHint || !res.ShouldRetire {
				t.Errorf("result %+v", res)
			}
		},
	}, {
		name: "interrupted by codex",
		turn: func(tc *turnCtx) {
			tc.started(map[string]any{"type": "agentMessage", "id": "m1", "text": ""})
			tc.delta("m1", "half a sen")
			tc.complete("interrupted", nil)
		},
		check: func(t *testing.T, res TurnResult) {
			if res.Err != nil || !res.Interrupted || res.ShouldRetire || res.FinalText != "half a sen" {
				t.Errorf("result %+v", res)
			}
			if got := messagesJSON(t, res.Messages); got != `[{"role":"assistant","content":"half a sen"}]` {
				t.Errorf("messages %s", got)
			}
		},
	}, {
		name: "turn_aborted marker without turn/completed",
		turn: func(tc *turnCtx) {
			tc.say("m1", "<turn_aborted>")
			tc.waitInterrupt(5 * time.Second)
		},
		check: func(t *testing.T, res TurnResult) {
			if te := turnErr(t, res.Err); te.Kind != TurnErrAborted || te.Message != "codex reported turn_aborted" || !res.Interrupted || res.ShouldRetire {
				t.Errorf("result %+v", res)
			}
		},
	}, {
		name: "self-closing turn_aborted marker",
		turn: func(tc *turnCtx) {
			tc.say("m1", "stopping <turn_aborted/>")
			tc.waitInterrupt(5 * time.Second)
		},
		check: func(t *testing.T, res TurnResult) {
			if te := turnErr(t, res.Err); te.Kind != TurnErrAborted {
				t.Errorf("result %+v", res)
			}
		},
	}, {
		name: "notifications of other turns and threads are ignored",
		turn: func(tc *turnCtx) {
			tc.notify("item/completed", map[string]any{"threadId": tc.ThreadID, "turnId": "turn_old", "item": map[string]any{"type": "agentMessage", "id": "x", "text": "stale"}})
			tc.notify("item/completed", map[string]any{"threadId": "thr_other", "turnId": tc.ID, "item": map[string]any{"type": "agentMessage", "id": "y", "text": "other thread"}})
			tc.notify("turn/completed", map[string]any{"threadId": tc.ThreadID, "turn": map[string]any{"id": "turn_old", "status": "failed"}})
			tc.say("m1", "mine")
			tc.complete("completed", nil)
		},
		check: func(t *testing.T, res TurnResult) {
			if got := messagesJSON(t, res.Messages); res.Err != nil || got != `[{"role":"assistant","content":"mine"}]` {
				t.Errorf("result %+v, messages %s", res, got)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newAppServer(t)
			sc.onTurn = tt.turn
			res := runTurn(t, sc.session(t, nil), "go")
			tt.check(t, res)
		})
	}
}

func TestSessionInterruptByContext(t *testing.T) {
	sc := newAppServer(t)
	streaming := make(chan struct{})
	sc.onTurn = func(tc *turnCtx) {
		tc.echo("go")
		tc.started(map[string]any{"type": "commandExecution", "id": "c1", "command": "sleep 100", "cwd": "/w", "status": "inProgress"})
		tc.notify("item/commandExecution/outputDelta", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "itemId": "c1", "delta": "tick\n"})
		tc.started(map[string]any{"type": "agentMessage", "id": "m1", "text": ""})
		tc.delta("m1", "Working on")
		close(streaming)
		tc.waitInterrupt(10 * time.Second) // the script then completes the turn as interrupted
	}
	sess := sc.session(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-streaming
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	res := sess.RunTurn(ctx, TextInput("go"))
	if res.Err != nil || !res.Interrupted || res.ShouldRetire || res.Status != "interrupted" {
		t.Fatalf("result %+v", res)
	}
	want := `[{"role":"assistant","content":null,"tool_calls":[{"id":"codex_exec_c1","type":"function","function":{"name":"exec_command","arguments":"{\"command\": \"sleep 100\", \"cwd\": \"/w\"}"}}]},` +
		`{"role":"tool","content":"tick\n","tool_call_id":"codex_exec_c1"},{"role":"assistant","content":"Working on"}]`
	if got := messagesJSON(t, res.Messages); got != want {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	if res.ToolIterations != 0 || res.FinalText != "Working on" {
		t.Errorf("result %+v", res)
	}
	if got := sc.paramsOf("turn/interrupt"); len(got) != 1 || string(got[0]) != `{"threadId":"thr_1","turnId":"turn_1"}` {
		t.Errorf("turn/interrupt params %s", got)
	}
	// The session stays usable.
	sc.onTurn = func(tc *turnCtx) { tc.say("m2", "ok"); tc.complete("completed", nil) }
	if res := runTurn(t, sess, "next"); res.Err != nil || res.FinalText != "ok" {
		t.Errorf("next turn %+v", res)
	}
}

func TestSessionInterruptNotConfirmed(t *testing.T) {
	sc := newAppServer(t)
	sc.ignoreInterrupt = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Cancel once the turn runs, and a moment after codex answered
	// turn/start: a cancel before the session has that answer is another
	// case (nothing to interrupt yet), which a loaded machine could
	// otherwise turn this test into.
	sc.onTurn = func(tc *turnCtx) {
		time.AfterFunc(200*time.Millisecond, cancel)
		tc.waitInterrupt(10 * time.Second)
	}
	sess := sc.session(t, func(c *SessionConfig) { c.InterruptTimeout = 300 * time.Millisecond })
	res := sess.RunTurn(ctx, TextInput("go"))
	if res.Err != nil || !res.Interrupted || !res.ShouldRetire || sess.PID() != 0 {
		t.Errorf("result %+v, pid %d", res, sess.PID())
	}
}

func TestSessionTimeouts(t *testing.T) {
	tests := []struct {
		name     string
		cfg      func(*SessionConfig)
		turn     func(tc *turnCtx)
		ctxLimit time.Duration
		kind     TurnErrorKind
		msg      string
	}{{
		name: "turn deadline",
		cfg:  func(c *SessionConfig) { c.TurnTimeout = 300 * time.Millisecond },
		turn: func(tc *turnCtx) { tc.s.stderr("still thinking"); tc.waitInterrupt(5 * time.Second) },
		kind: TurnErrTimeout,
		msg:  "turn timed out after 0.3s\ncodex stderr (last 1 lines):\nstill thinking",
	}, {
		name:     "context deadline",
		turn:     func(tc *turnCtx) { tc.waitInterrupt(5 * time.Second) },
		ctxLimit: 300 * time.Millisecond,
		kind:     TurnErrTimeout,
		msg:      "turn timed out (context deadline)",
	}, {
		name: "silent after a tool result",
		cfg:  func(c *SessionConfig) { c.PostToolQuietTimeout = 300 * time.Millisecond },
		turn: func(tc *turnCtx) {
			tc.both(map[string]any{"type": "mcpToolCall", "id": "c1", "server": "s", "tool": "t", "status": "completed", "result": map[string]any{"content": []any{}}})
			tc.waitInterrupt(5 * time.Second)
		},
		kind: TurnErrSilent,
		msg:  "codex went silent for 0.3s after a tool result; retiring app-server session.",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newAppServer(t)
			sc.ignoreInterrupt = true
			sc.onTurn = tt.turn
			sess := sc.session(t, tt.cfg)
			// Start codex first: the context deadline is meant to hit the
			// turn, not a startup slowed by a loaded machine.
			if _, err := sess.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			limit := tt.ctxLimit
			if limit == 0 {
				limit = 20 * time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), limit)
			defer cancel()
			start := time.Now()
			res := sess.RunTurn(ctx, TextInput("go"))
			te := turnErr(t, res.Err)
			if te.Kind != tt.kind || te.Message != tt.msg || !res.Interrupted || !res.ShouldRetire {
				t.Errorf("result %+v, message %q", res, te.Message)
			}
			if len(sc.paramsOf("turn/interrupt")) != 1 {
				t.Errorf("turn/interrupt sent %d times", len(sc.paramsOf("turn/interrupt")))
			}
			if sess.PID() != 0 {
				t.Error("codex not retired")
			}
			t.Logf("ended after %v", time.Since(start))
		})
	}
}

// The watchdog only counts silence: activity resets it, and it waits while
// a tool runs or an approval is pending.
func TestSessionWatchdogResets(t *testing.T) {
	// Activity comes 4x as often as the watchdog's limit and goes on for
	// twice the limit: it must reset the watchdog, and a loaded machine's
	// scheduling delays stay well inside the margin.
	const quiet = time.Second
	tests := []struct {
		name string
		turn func(tc *turnCtx)
	}{{
		name: "streamed activity",
		turn: func(tc *turnCtx) {
			tc.both(map[string]any{"type": "dynamicToolCall", "id": "d1", "tool": "x", "status": "completed", "success": true})
			tc.started(map[string]any{"type": "reasoning", "id": "r1"})
			for range 8 {
				time.Sleep(quiet / 4)
				tc.notify("item/reasoning/summaryTextDelta", map[string]any{"threadId": tc.ThreadID, "turnId": tc.ID, "itemId": "r1", "delta": ".", "summaryIndex": 0})
			}
			tc.completed(map[string]any{"type": "reasoning", "id": "r1", "summary": []string{"......"}})
			tc.say("m", "done")
			tc.complete("completed", nil)
		},
	}, {
		name: "a long tool",
		turn: func(tc *turnCtx) {
			tc.both(map[string]any{"type": "dynamicToolCall", "id": "d1", "tool": "x", "status": "completed", "success": true})
			tc.started(map[string]any{"type": "commandExecution", "id": "c1", "command": "sleep 1", "status": "inProgress"})
			time.Sleep(3 * quiet)
			tc.completed(map[string]any{"type": "commandExecution", "id": "c1", "command": "sleep 1", "status": "completed", "exitCode": 0})
			tc.say("m", "done")
			tc.complete("completed", nil)
		},
	}, {
		name: "a slow approval",
		turn: func(tc *turnCtx) {
			tc.both(map[string]any{"type": "dynamicToolCall", "id": "d1", "tool": "x", "status": "completed", "success": true})
			tc.request("item/commandExecution/requestApproval", map[string]any{"itemId": "c2", "command": "rm -rf /tmp/x"})
			time.Sleep(quiet / 2)
			tc.say("m", "done")
			tc.complete("completed", nil)
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newAppServer(t)
			sc.onTurn = tt.turn
			sess := sc.session(t, func(c *SessionConfig) {
				c.PostToolQuietTimeout = quiet
				c.Approver = ApproverFunc(func(ctx context.Context, _ ApprovalRequest) (Decision, error) {
					time.Sleep(3 * quiet)
					return DecisionDeny, nil
				})
			})
			if res := runTurn(t, sess, "go"); res.Err != nil || res.FinalText != "done" {
				t.Errorf("result %+v", res)
			}
		})
	}
}

func TestSessionChildDies(t *testing.T) {
	const secret = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
	tests := []struct {
		name   string
		stderr string
		kind   TurnErrorKind
		want   string
	}{{
		name:   "crash",
		stderr: "thread 'main' panicked at core/src/lib.rs: token " + secret,
		kind:   TurnErrExited,
		want:   "codex app-server subprocess exited unexpectedly (exit status 3)\ncodex stderr (last 1 lines):\nthread 'main' panicked at core/src/lib.rs: token ghp_ab...6789",
	}, {
		name:   "auth refresh killed it",
		stderr: "ERROR auth: failed to refresh token: invalid_grant",
		kind:   TurnErrAuth,
		want:   AuthHint,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newAppServer(t)
			sc.onTurn = func(tc *turnCtx) {
				tc.echo("go")
				tc.started(map[string]any{"type": "agentMessage", "id": "m1", "text": ""})
				tc.delta("m1", "so far")
				tc.s.stderr(tt.stderr)
				time.Sleep(50 * time.Millisecond) // let stderr be read before the exit
				tc.s.exit(3)
			}
			sess := sc.session(t, nil)
			res := runTurn(t, sess, "go")
			te := turnErr(t, res.Err)
			if te.Kind != tt.kind || te.Message != tt.want || !res.ShouldRetire {
				t.Errorf("result %+v\nmessage %q", res, te.Message)
			}
			if got := messagesJSON(t, res.Messages); got != `[{"role":"assistant","content":"so far"}]` {
				t.Errorf("messages %s", got)
			}

			// The next turn starts a new codex and resumes the thread.
			sc.onTurn = func(tc *turnCtx) { tc.say("m2", "back"); tc.complete("completed", nil) }
			res = runTurn(t, sess, "again")
			if res.Err != nil || res.FinalText != "back" || res.ThreadID != "thr_1" {
				t.Errorf("turn after restart %+v", res)
			}
			if got := sc.paramsOf("thread/resume"); len(got) != 1 || string(got[0]) != `{"cwd":"/work/space","threadId":"thr_1"}` {
				t.Errorf("thread/resume params %s", got)
			}
		})
	}
}

// A codex that exits right after finishing the turn: the turn's result
// stands, and the session knows to start over.
func TestSessionChildExitsAfterTurn(t *testing.T) {
	sc := newAppServer(t)
	sc.onTurn = func(tc *turnCtx) {
		tc.say("m1", "finished")
		tc.complete("completed", nil)
		tc.s.exit(0)
	}
	sess := sc.session(t, nil)
	res := runTurn(t, sess, "go")
	if res.FinalText != "finished" {
		t.Errorf("result %+v", res)
	}
	// Whichever it saw first, the exit or the completion, the next turn
	// works.
	sc.onTurn = func(tc *turnCtx) { tc.say("m2", "again"); tc.complete("completed", nil) }
	if res := runTurn(t, sess, "go"); res.Err != nil || res.FinalText != "again" {
		t.Errorf("next turn %+v", res)
	}
}

func TestSessionStartupFailures(t *testing.T) {
	tests := []struct {
		name    string
		cfg     func(*SessionConfig)
		handler map[string]func(sc *appServer, id, params json.RawMessage)
		kind    TurnErrorKind
		prefix  string
	}{{
		name:   "no binary",
		cfg:    func(c *SessionConfig) { c.Codex.Binary = filepath.Join(t.TempDir(), "codex") },
		kind:   TurnErrStartup,
		prefix: "codex app-server startup failed: start codex app-server",
	}, {
		name: "thread/start refused",
		handler: map[string]func(sc *appServer, id, params json.RawMessage){"thread/start": func(sc *appServer, id, _ json.RawMessage) {
			sc.stderr("mcp server hermes-tools failed to start")
			time.Sleep(50 * time.Millisecond)
			sc.replyError(id, CodeInternalError, "required MCP server failed")
		}},
		kind:   TurnErrStartup,
		prefix: "codex app-server startup failed: codex app-server thread/start: error -32603: required MCP server failed\ncodex stderr (last 1 lines):\nmcp server hermes-tools failed to start",
	}, {
		name: "thread/start without a thread id",
		handler: map[string]func(sc *appServer, id, params json.RawMessage){"thread/start": func(sc *appServer, id, _ json.RawMessage) {
			sc.reply(id, map[string]any{"model": "x", "thread": map[string]any{"preview": ""}})
		}},
		kind:   TurnErrStartup,
		prefix: "codex app-server startup failed: thread/start: codex returned no thread id (payload keys: [model thread])",
	}, {
		name: "initialize refused for a bad login",
		handler: map[string]func(sc *appServer, id, params json.RawMessage){"initialize": func(sc *appServer, id, _ json.RawMessage) {
			sc.replyError(id, CodeInvalidRequest, "not authenticated")
		}},
		kind:   TurnErrAuth,
		prefix: AuthHint,
	}, {
		name:    "startup timeout",
		cfg:     func(c *SessionConfig) { c.StartTimeout = 200 * time.Millisecond },
		handler: map[string]func(sc *appServer, id, params json.RawMessage){"initialize": func(*appServer, json.RawMessage, json.RawMessage) {}},
		kind:    TurnErrStartup,
		prefix:  "codex app-server startup failed: codex app-server initialize: context deadline exceeded",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newAppServer(t)
			for m, h := range tt.handler {
				sc.handlers[m] = func(id, params json.RawMessage) { h(sc, id, params) }
			}
			sess := sc.session(t, tt.cfg)
			res := runTurn(t, sess, "go")
			te := turnErr(t, res.Err)
			if te.Kind != tt.kind || !strings.HasPrefix(te.Message, tt.prefix) || !res.ShouldRetire || sess.PID() != 0 {
				t.Errorf("result %+v\nmessage %q", res, te.Message)
			}
		})
	}
}

func TestSessionTurnStartFailures(t *testing.T) {
	tests := []struct {
		name    string
		handler func(sc *appServer, id json.RawMessage)
		kind    TurnErrorKind
		prefix  string
		retire  bool
	}{{
		name: "refused",
		handler: func(sc *appServer, id json.RawMessage) {
			sc.replyError(id, CodeInvalidRequest, "Invalid request: bad input")
		},
		kind:   TurnErrTurnStart,
		prefix: "turn/start failed: codex app-server turn/start: error -32600: Invalid request: bad input",
	}, {
		name: "refused for a bad token",
		handler: func(sc *appServer, id json.RawMessage) {
			sc.replyError(id, CodeInternalError, "token refresh failed: invalid_grant")
		},
		kind:   TurnErrAuth,
		prefix: AuthHint,
		retire: true,
	}, {
		name:    "no answer",
		handler: func(*appServer, json.RawMessage) {},
		kind:    TurnErrTurnStart,
		prefix:  "turn/start timed out: codex app-server turn/start: context deadline exceeded",
		retire:  true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newAppServer(t)
			sc.handlers["turn/start"] = func(id, _ json.RawMessage) { tt.handler(sc, id) }
			sess := sc.session(t, nil)
			sess.turnStartTimeout = 200 * time.Millisecond
			res := runTurn(t, sess, "go")
			te := turnErr(t, res.Err)
			if te.Kind != tt.kind || !strings.HasPrefix(te.Message, tt.prefix) || res.ShouldRetire != tt.retire {
				t.Errorf("result %+v\nmessage %q", res, te.Message)
			}
		})
	}
}

func TestSessionMisuse(t *testing.T) {
	sc := newAppServer(t)
	sess := sc.session(t, nil)
	if res := sess.RunTurn(context.Background()); turnErr(t, res.Err).Kind != TurnErrUsage {
		t.Errorf("no input: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res := sess.RunTurn(ctx, TextInput("x")); !res.Interrupted || res.Err != nil {
		t.Errorf("cancelled before start: %+v", res)
	}
	if err := sess.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if res := runTurn(t, sess, "x"); !errors.Is(res.Err, ErrSessionClosed) {
		t.Errorf("after Close: %+v", res)
	}
	if _, err := sess.Start(context.Background()); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("Start after Close: %v", err)
	}

	for name, cfg := range map[string]SessionConfig{
		"no binary":       {},
		"own handlers":    {Codex: Config{Binary: "codex", OnNotification: func(Notification) {}}},
		"tool no handler": {Codex: Config{Binary: "codex"}, DynamicTools: []DynamicTool{{Name: "x"}}},
		"tool no name":    {Codex: Config{Binary: "codex"}, DynamicTools: []DynamicTool{{Handler: func(context.Context, json.RawMessage) (ToolOutput, error) { return ToolOutput{}, nil }}}},
		"duplicate tool": {Codex: Config{Binary: "codex"}, DynamicTools: []DynamicTool{
			{Name: "x", Handler: func(context.Context, json.RawMessage) (ToolOutput, error) { return ToolOutput{}, nil }},
			{Name: "x", Handler: func(context.Context, json.RawMessage) (ToolOutput, error) { return ToolOutput{}, nil }}}},
	} {
		if _, err := NewSession(cfg); err == nil {
			t.Errorf("NewSession with %s succeeded", name)
		}
	}
}

// Close from another goroutine ends a running turn.
func TestSessionCloseDuringTurn(t *testing.T) {
	sc := newAppServer(t)
	started := make(chan struct{})
	sc.onTurn = func(tc *turnCtx) { close(started); tc.waitInterrupt(5 * time.Second) }
	sess := sc.session(t, nil)
	go func() { <-started; _ = sess.Close() }()
	res := runTurn(t, sess, "go")
	if !errors.Is(res.Err, ErrSessionClosed) || !res.Interrupted {
		t.Errorf("result %+v", res)
	}
}

func TestSessionResumeAndTools(t *testing.T) {
	sc := newAppServer(t)
	sc.onTurn = func(tc *turnCtx) { tc.complete("completed", nil) }
	handler := func(context.Context, json.RawMessage) (ToolOutput, error) { return TextOutput("x"), nil }
	sess := sc.session(t, func(c *SessionConfig) {
		c.ResumeThreadID = "thr_saved"
		c.ThreadParams = map[string]any{"approvalPolicy": "on-request", "sandbox": "workspace-write"}
		c.TurnParams = map[string]any{"effort": "low"}
		c.DynamicTools = []DynamicTool{{Name: "lookup", Description: "Look up", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: handler}}
	})
	id, err := sess.Start(context.Background())
	if err != nil || id != "thr_saved" {
		t.Fatalf("Start = %q, %v", id, err)
	}
	if got := string(sc.paramsOf("thread/resume")[0]); got != `{"approvalPolicy":"on-request","cwd":"/work/space","sandbox":"workspace-write","threadId":"thr_saved"}` {
		t.Errorf("thread/resume params %s", got)
	}
	if got := string(sc.paramsOf("initialize")[0]); !strings.Contains(got, `"capabilities":{"experimentalApi":true}`) {
		t.Errorf("initialize params %s", got)
	}
	if res := runTurn(t, sess, "go"); res.Err != nil || res.ThreadID != "thr_saved" {
		t.Errorf("turn %+v", res)
	}
	if got := string(sc.paramsOf("turn/start")[0]); !strings.Contains(got, `"effort":"low"`) {
		t.Errorf("turn/start params %s", got)
	}

	// A new thread declares the tools.
	sc2 := newAppServer(t)
	sess2 := sc2.session(t, func(c *SessionConfig) {
		c.DynamicTools = []DynamicTool{{Name: "lookup", Description: "Look up", Handler: handler, DeferLoading: true}}
	})
	if _, err := sess2.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := `{"cwd":"/work/space","dynamicTools":[{"deferLoading":true,"description":"Look up","inputSchema":{"type":"object","properties":{}},"name":"lookup","type":"function"}]}`
	if got := string(sc2.paramsOf("thread/start")[0]); got != want {
		t.Errorf("thread/start params\n got %s\nwant %s", got, want)
	}
}

func TestThreadIDCrossFill(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"thread":{"id":"a","sessionId":"b"},"sessionId":"c","threadId":"d"}`, "a"},
		{`{"thread":{"sessionId":"b"},"sessionId":"c"}`, "b"},
		{`{"thread":{},"sessionId":"c","threadId":"d"}`, "c"},
		{`{"threadId":"d"}`, "d"},
		{`{"thread":null,"other":1}`, ""},
	}
	for _, tt := range tests {
		got, err := threadIDFrom(json.RawMessage(tt.raw))
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("threadIDFrom(%s) = %q, %v", tt.raw, got, err)
		}
	}
}

// Server requests: what the session answers for each.
func TestSessionServerRequests(t *testing.T) {
	type call struct {
		method string
		params map[string]any
	}
	var (
		mu        sync.Mutex
		approvals []ApprovalRequest
	)
	decisions := map[string]Decision{"once": DecisionOnce, "session": DecisionSession, "always": DecisionAlways, "deny": DecisionDeny, "bogus": "maybe"}
	approver := ApproverFunc(func(ctx context.Context, r ApprovalRequest) (Decision, error) {
		mu.Lock()
		approvals = append(approvals, r)
		mu.Unlock()
		switch r.Reason {
		case "error":
			return DecisionOnce, errors.New("prompt failed")
		case "panic":
			panic("approver bug")
		}
		return decisions[r.Reason], nil
	})
	tools := []DynamicTool{{
		Name: "lookup",
		Handler: func(ctx context.Context, args json.RawMessage) (ToolOutput, error) {
			var a struct{ ID string }
			_ = json.Unmarshal(args, &a)
			switch a.ID {
			case "err":
				return ToolOutput{}, errors.New("backend down, key sk-" + "proj-abcdefghijklmnop1234")
			case "bad":
				return ErrorOutput("no such ticket"), nil
			case "panic":
				panic("tool bug")
			case "img":
				return ToolOutput{Content: []ToolContent{{Text: "see"}, {ImageURL: "data:image/png;base64,AA"}}}, nil
			}
			return TextOutput("ticket " + a.ID + " is open; args " + string(args)), nil
		},
	}}
	tests := []struct {
		name  string
		noApp bool
		calls []call
		want  []string // the "result" or "error" of each reply
	}{{
		name: "command approvals",
		calls: []call{
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "cwd": "/w", "reason": "once"}},
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "reason": "session"}},
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "reason": "always"}},
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "reason": "deny"}},
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "reason": "bogus"}},
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "reason": "error"}},
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "reason": "panic"}},
		},
		want: []string{`{"decision":"accept"}`, `{"decision":"acceptForSession"}`, `{"decision":"acceptForSession"}`,
			`{"decision":"decline"}`, `{"decision":"decline"}`, `{"decision":"decline"}`, `{"decision":"decline"}`},
	}, {
		name:  "no approver fails closed",
		noApp: true,
		calls: []call{
			{"item/commandExecution/requestApproval", map[string]any{"command": "ls", "reason": "once"}},
			{"item/fileChange/requestApproval", map[string]any{"itemId": "f1", "reason": "once"}},
		},
		want: []string{`{"decision":"decline"}`, `{"decision":"decline"}`},
	}, {
		name: "file change approval",
		calls: []call{
			{"item/fileChange/requestApproval", map[string]any{"itemId": "f1", "reason": "once", "grantRoot": "/w"}},
			{"item/fileChange/requestApproval", map[string]any{"itemId": "unknown", "reason": "deny"}},
		},
		want: []string{`{"decision":"accept"}`, `{"decision":"decline"}`},
	}, {
		name: "permissions grant nothing",
		calls: []call{{"item/permissions/requestApproval", map[string]any{"itemId": "p1", "reason": "need net",
			"permissions": map[string]any{"network": map[string]any{"enabled": true}, "fileSystem": nil}}}},
		want: []string{`{"permissions":{},"scope":"turn"}`},
	}, {
		name: "elicitations",
		calls: []call{
			{"mcpServer/elicitation/request", map[string]any{"serverName": "hermes-tools", "mode": "form", "message": "Allow?",
				"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
				"_meta":           map[string]any{"codex_approval_kind": "mcp_tool_call", "tool_name": "web_search"}}},
			{"mcpServer/elicitation/request", map[string]any{"serverName": "everything", "mode": "form", "message": "Name?"}},
			{"mcpServer/elicitation/request", map[string]any{"mode": "url"}},
		},
		want: []string{`{"_meta":null,"action":"accept","content":null}`, `{"_meta":null,"action":"decline","content":null}`, `{"_meta":null,"action":"decline","content":null}`},
	}, {
		name: "dynamic tool calls",
		calls: []call{
			{"item/tool/call", map[string]any{"callId": "c1", "tool": "lookup", "arguments": map[string]any{"id": "A-1"}}},
			{"item/tool/call", map[string]any{"callId": "c2", "tool": "lookup", "arguments": map[string]any{"id": "bad"}}},
			{"item/tool/call", map[string]any{"callId": "c3", "tool": "lookup", "arguments": map[string]any{"id": "err"}}},
			{"item/tool/call", map[string]any{"callId": "c4", "tool": "lookup", "arguments": map[string]any{"id": "panic"}}},
			{"item/tool/call", map[string]any{"callId": "c5", "tool": "lookup", "arguments": map[string]any{"id": "img"}}},
			{"item/tool/call", map[string]any{"callId": "c6", "tool": "nope", "arguments": nil}},
			{"item/tool/call", map[string]any{"callId": "c7", "tool": "lookup", "namespace": "ns", "arguments": nil}},
			{"item/tool/call", map[string]any{"callId": "c8", "tool": "lookup", "arguments": nil}},
		},
		want: []string{
			`{"contentItems":[{"type":"inputText","text":"ticket A-1 is open; args {\"id\":\"A-1\"}"}],"success":true}`,
			`{"contentItems":[{"type":"inputText","text":"no such ticket"}],"success":false}`,
			`{"contentItems":[{"type":"inputText","text":"tool \"lookup\" failed: backend down, key sk-pro...1234"}],"success":false}`,
			`{"contentItems":[{"type":"inputText","text":"tool \"lookup\" failed: internal error"}],"success":false}`,
			`{"contentItems":[{"type":"inputText","text":"see"},{"type":"inputImage","imageUrl":"data:image/png;base64,AA"}],"success":true}`,
			`{"contentItems":[{"type":"inputText","text":"unknown tool \"nope\""}],"success":false}`,
			`{"contentItems":[{"type":"inputText","text":"unknown tool \"ns.lookup\""}],"success":false}`,
			`{"contentItems":[{"type":"inputText","text":"ticket  is open; args {}"}],"success":true}`,
		},
	}, {
		name:  "unknown requests",
		calls: []call{{"item/tool/requestUserInput", map[string]any{}}, {"account/chatgptAuthTokens/refresh", map[string]any{}}},
		want:  []string{`{"code":-32601,"message":"method not found: item/tool/requestUserInput"}`, `{"code":-32601,"message":"method not found: account/chatgptAuthTokens/refresh"}`},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := newAppServer(t)
			var got []string
			sc.onTurn = func(tc *turnCtx) {
				tc.started(map[string]any{"type": "fileChange", "id": "f1", "status": "inProgress", "changes": []any{
					map[string]any{"path": "/w/new.go", "kind": map[string]any{"type": "add"}},
					map[string]any{"path": "/w/a.go", "kind": map[string]any{"type": "update", "move_path": nil}},
					map[string]any{"path": "/w/b.go", "kind": map[string]any{"type": "update"}},
					map[string]any{"path": "/w/c.go"},
				}})
				for _, c := range tt.calls {
					var m struct {
						Result json.RawMessage `json:"result"`
						Error  json.RawMessage `json:"error"`
					}
					_ = json.Unmarshal(tc.request(c.method, c.params), &m)
					if m.Error != nil {
						got = append(got, string(m.Error))
					} else {
						got = append(got, string(m.Result))
					}
				}
				tc.complete("completed", nil)
			}
			sess := sc.session(t, func(c *SessionConfig) {
				if !tt.noApp {
					c.Approver = approver
				}
				c.DynamicTools = tools
			})
			if res := runTurn(t, sess, "go"); res.Err != nil {
				t.Fatalf("turn: %+v", res)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("replies\n got %q\nwant %q", got, tt.want)
			}
		})
	}

	// What the approver was shown for file changes.
	mu.Lock()
	defer mu.Unlock()
	var fcs []ApprovalRequest
	for _, a := range approvals {
		if a.Kind == ApproveFileChange {
			fcs = append(fcs, a)
		}
	}
	if len(fcs) != 2 {
		t.Fatalf("approvals %+v", approvals)
	}
	fc := fcs[0]
	if fc.Kind != ApproveFileChange || fc.Command != "apply_patch: 1 add, 3 update: /w/new.go, /w/a.go, /w/b.go, +1 more" ||
		fc.Description != "once; 1 add, 3 update: /w/new.go, /w/a.go, /w/b.go, +1 more; grants write to /w" || fc.GrantRoot != "/w" || fc.ItemID != "f1" {
		t.Errorf("file change approval %+v", fc)
	}
	if unknown := fcs[1]; unknown.Command != "apply_patch: deny" || unknown.Description != "deny" {
		t.Errorf("file change approval without an item %+v", unknown)
	}
}

func TestCommandApprovalPrompt(t *testing.T) {
	sc := newAppServer(t)
	var got []ApprovalRequest
	sc.onTurn = func(tc *turnCtx) {
		tc.request("item/commandExecution/requestApproval", map[string]any{"itemId": "c1", "command": "/bin/bash -lc 'make'", "cwd": "/w/sub", "reason": "needs network"})
		tc.request("item/commandExecution/requestApproval", map[string]any{"itemId": "c2", "command": "ls"})
		tc.complete("completed", nil)
	}
	sess := sc.session(t, func(c *SessionConfig) {
		c.Approver = ApproverFunc(func(_ context.Context, r ApprovalRequest) (Decision, error) {
			got = append(got, r)
			return DecisionDeny, nil
		})
	})
	runTurn(t, sess, "go")
	if len(got) != 2 {
		t.Fatalf("approvals %+v", got)
	}
	if r := got[0]; r.Kind != ApproveCommand || r.Command != "/bin/bash -lc 'make'" || r.Description != "Codex requests exec in /w/sub — needs network" ||
		r.Cwd != "/w/sub" || r.ThreadID != "thr_1" || r.TurnID != "turn_1" || r.ItemID != "c1" {
		t.Errorf("first %+v", r)
	}
	if r := got[1]; r.Description != "Codex requests exec in /work/space" || r.Cwd != "/work/space" {
		t.Errorf("second (cwd from the session) %+v", r)
	}
}

// Codex withdrawing a request (serverRequest/resolved, e.g. after an
// interrupt) cancels the approver's context.
func TestApprovalWithdrawn(t *testing.T) {
	sc := newAppServer(t)
	cancelled := make(chan struct{})
	sc.onTurn = func(tc *turnCtx) {
		done := make(chan json.RawMessage)
		go func() {
			done <- tc.request("item/commandExecution/requestApproval", map[string]any{"itemId": "c1", "command": "ls"})
		}()
		time.Sleep(100 * time.Millisecond)
		tc.notify("serverRequest/resolved", map[string]any{"threadId": tc.ThreadID, "requestId": 0})
		<-done
		tc.complete("completed", nil)
	}
	sess := sc.session(t, func(c *SessionConfig) {
		c.Approver = ApproverFunc(func(ctx context.Context, _ ApprovalRequest) (Decision, error) {
			select {
			case <-ctx.Done():
				close(cancelled)
				return DecisionDeny, ctx.Err()
			case <-time.After(5 * time.Second):
				return DecisionOnce, nil
			}
		})
	})
	runTurn(t, sess, "go")
	select {
	case <-cancelled:
	default:
		t.Error("approver context not cancelled")
	}
}

func TestUserInputJSON(t *testing.T) {
	b, err := json.Marshal([]UserInput{TextInput("hi"), ImageInput("https://x/y.png"), LocalImageInput("/tmp/a.png")})
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"text":"hi","text_elements":[],"type":"text"},{"type":"image","url":"https://x/y.png"},{"path":"/tmp/a.png","type":"localImage"}]`
	if string(b) != want {
		t.Errorf("got %s", b)
	}
	if _, err := json.Marshal(UserInput{Type: "audio"}); err == nil {
		t.Error("unknown input type marshalled")
	}
}
