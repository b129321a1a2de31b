package bridge

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Failure (a): codex finishes the turn's work but never sends
// turn/completed. The turn must end (with its answer and a notice saying
// what happened), not hang until the turn deadline; codex and the thread
// are kept.
func TestSessionNoTurnCompleted(t *testing.T) {
	const quiet = 300 * time.Millisecond
	tests := []struct {
		name   string
		turn   func(tc *turnCtx)
		final  string
		notice string
		kind   TurnErrorKind
	}{{
		name: "answer after tool calls",
		turn: func(tc *turnCtx) {
			tc.both(map[string]any{"type": "dynamicToolCall", "id": "d1", "tool": "x", "status": "completed", "success": true})
			tc.both(map[string]any{"type": "mcpToolCall", "id": "c1", "server": "s", "tool": "t", "status": "completed", "result": map[string]any{"content": []any{}}})
			tc.say("m", "done")
			tc.waitInterrupt(30 * time.Second)
		},
		final:  "done",
		notice: "codex never reported the end of the turn (no turn/completed; codex went quiet for 0.3s after answering); Hermes ended the turn itself.",
	}, {
		name: "commentary after tool calls is not the answer",
		turn: func(tc *turnCtx) {
			tc.both(map[string]any{"type": "dynamicToolCall", "id": "d1", "tool": "x", "status": "completed", "success": true})
			tc.started(map[string]any{"type": "agentMessage", "id": "m0", "text": ""})
			tc.completed(map[string]any{"type": "agentMessage", "id": "m0", "text": "Let me look further.", "phase": "commentary"})
			time.Sleep(3 * quiet) // thinking, silently
			tc.started(map[string]any{"type": "agentMessage", "id": "m", "text": ""})
			tc.completed(map[string]any{"type": "agentMessage", "id": "m", "text": "done", "phase": "final_answer"})
			tc.waitInterrupt(30 * time.Second)
		},
		final:  "done",
		notice: "codex never reported the end of the turn (no turn/completed; codex went quiet for 0.3s after answering); Hermes ended the turn itself.",
	}, {
		name: "thread idle",
		turn: func(tc *turnCtx) {
			tc.say("m", "done")
			tc.notify("thread/status/changed", map[string]any{"threadId": tc.ThreadID, "status": map[string]any{"type": "idle"}})
			tc.waitInterrupt(30 * time.Second)
		},
		final:  "done",
		notice: "codex never reported the end of the turn (no turn/completed; codex reported the thread idle 0.3s ago); Hermes ended the turn itself.",
	}, {
		name: "thread idle with no answer",
		turn: func(tc *turnCtx) {
			tc.both(map[string]any{"type": "dynamicToolCall", "id": "d1", "tool": "x", "status": "completed", "success": true})
			tc.notify("thread/status/changed", map[string]any{"threadId": tc.ThreadID, "status": map[string]any{"type": "idle"}})
			tc.waitInterrupt(30 * time.Second)
		},
		kind: TurnErrSilent,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := newAppServer(t)
			sc.ignoreInterrupt = true
			sc.onTurn = tt.turn
			sess := sc.session(t, func(c *SessionConfig) { c.PostToolQuietTimeout = quiet })
			sess.idleGrace = quiet
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res := sess.RunTurn(ctx, TextInput("go"))
			if res.ShouldRetire || sess.PID() == 0 {
				t.Errorf("codex retired: %+v", res)
			}
			if tt.kind != "" {
				te := turnErr(t, res.Err)
				if te.Kind != tt.kind || !strings.Contains(te.Message, "no turn/completed") || !res.Interrupted {
					t.Errorf("result %+v, message %q", res, te.Message)
				}
				return
			}
			if res.Err != nil || res.Interrupted || res.FinalText != tt.final || len(res.Notices) != 1 || res.Notices[0] != tt.notice {
				t.Errorf("result %+v", res)
			}
		})
	}
}
