//go:build unix

package bridge

// The thread commands (steer, undo, fork, review, compact) and the three
// client failures, against the real codex pinned in .ci/npm and the fake
// model, as in session_integration_test.go.

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
)

func hasUserText(req *fakeresponses.Request, text string) bool {
	return slices.ContainsFunc(req.UserTexts(), func(s string) bool { return strings.Contains(s, text) })
}

func okTurn(t *testing.T, res TurnResult, final string) {
	t.Helper()
	if res.Err != nil || res.Interrupted || res.ShouldRetire || res.Status != "completed" || res.FinalText != final {
		t.Fatalf("result %+v, want a completed turn answering %q", res, final)
	}
}

// The oldest codex bridge supports still runs a turn, a tool call included.
func TestRealSessionPreviousCodex(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, func(c *SessionConfig) { c.Codex.Binary = codextest.PreviousBinary(t) })
	v, err := CheckVersion(ctxT(t, 20*time.Second), r.cfg.Codex.Binary)
	if err != nil || v.String() != MinVersion {
		t.Fatalf("previous codex %v: %v", v, err)
	}
	r.fake.Enqueue(fakeresponses.Text("Hello from 0.169."))
	okTurn(t, r.turn(t, ctxT(t, 60*time.Second), "say hello"), "Hello from 0.169.")
	r.fake.Enqueue(fakeresponses.Text("Still here."))
	okTurn(t, r.turn(t, ctxT(t, 60*time.Second), "again"), "Still here.")
	if req := request(t, r.fake, 2); !hasUserText(req, "say hello") {
		t.Errorf("second request lost the first turn: %q", req.UserTexts())
	}
}

// /steer: text sent while a turn runs reaches the model in the same turn.
func TestRealSessionSteer(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	if _, err := r.Steer(ctxT(t, 5*time.Second), TextInput("too early")); err == nil {
		t.Fatal("Steer with no turn running succeeded")
	}
	release := make(chan struct{})
	r.fake.Enqueue(
		fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.Message("Working on it."), fakeresponses.Hold(release)}},
		fakeresponses.Text("Steered: bye."),
	)
	answered := make(chan struct{})
	var once sync.Once
	r.hook(func(n Notification) {
		if n.Method == "item/completed" && strings.Contains(string(n.Params), "Working on it.") {
			once.Do(func() { close(answered) })
		}
	})
	done := make(chan TurnResult, 1)
	go func() { done <- r.turn(t, ctxT(t, 60*time.Second), "start working") }()
	select {
	case <-answered:
	case <-time.After(60 * time.Second):
		t.Fatal("the model's first message never came")
	}
	turnID, err := r.Steer(ctxT(t, 20*time.Second), TextInput("also say bye"))
	close(release)
	if err != nil {
		t.Fatalf("Steer: %v", err)
	}
	res := <-done
	okTurn(t, res, "Steered: bye.")
	if turnID != res.TurnID {
		t.Errorf("steered turn %q, running turn %q", turnID, res.TurnID)
	}
	if req := request(t, r.fake, 2); !hasUserText(req, "also say bye") || !hasUserText(req, "start working") {
		t.Errorf("second model request %q lacks the steered text", req.UserTexts())
	}
	if len(r.fake.Requests()) != 2 {
		t.Errorf("%d model requests, want 2 (one turn)", len(r.fake.Requests()))
	}
}

// /undo: the last turn is gone from what the model sees next.
func TestRealSessionUndo(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	if _, err := r.Undo(ctxT(t, 60*time.Second), 1); err == nil || !strings.Contains(err.Error(), "no turn to undo") {
		t.Errorf("Undo on a new thread: %v", err)
	}
	r.fake.Enqueue(fakeresponses.Text("one"), fakeresponses.Text("two"), fakeresponses.Text("three"))
	first := r.turn(t, ctxT(t, 60*time.Second), "first question")
	okTurn(t, first, "one")
	second := r.turn(t, ctxT(t, 60*time.Second), "second question")
	okTurn(t, second, "two")
	undone, err := r.Undo(ctxT(t, 60*time.Second), 1)
	if err != nil {
		t.Fatal(err)
	}
	if undone != second.TurnID {
		t.Errorf("undid turn %q, want the last one %q", undone, second.TurnID)
	}
	okTurn(t, r.turn(t, ctxT(t, 60*time.Second), "third question"), "three")
	req := request(t, r.fake, 3)
	if !hasUserText(req, "first question") || hasUserText(req, "second question") || !hasUserText(req, "third question") {
		t.Errorf("after undo the model saw %q", req.UserTexts())
	}
}

// /branch: the session continues in a fork that has the history, and the
// original thread is left as it was.
func TestRealSessionFork(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	r.fake.Enqueue(fakeresponses.Text("one"), fakeresponses.Text("two"))
	okTurn(t, r.turn(t, ctxT(t, 60*time.Second), "before the fork"), "one")
	orig := r.ThreadID()
	forked, err := r.Fork(ctxT(t, 60*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if forked == "" || forked == orig || r.ThreadID() != forked {
		t.Fatalf("fork %q of %q, session on %q", forked, orig, r.ThreadID())
	}
	res := r.turn(t, ctxT(t, 60*time.Second), "after the fork")
	okTurn(t, res, "two")
	if res.ThreadID != forked {
		t.Errorf("turn ran on %q, want the fork %q", res.ThreadID, forked)
	}
	if req := request(t, r.fake, 2); !hasUserText(req, "before the fork") || !hasUserText(req, "after the fork") {
		t.Errorf("the fork's model request %q lacks the history", req.UserTexts())
	}
}

// /review: codex's reviewer runs as a turn of the thread and its verdict
// is the turn's answer.
func TestRealSessionReview(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	r.fake.Enqueue(fakeresponses.Text(`{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Nothing to fix here.","overall_confidence_score":0.9}`))
	res := r.Review(ctxT(t, 60*time.Second), ReviewTarget{Instructions: "look at main.go for bugs"})
	t.Logf("review result %+v; transcript %s", res, mustMarshal(res.Messages))
	if res.Err != nil || res.Interrupted || res.Status != "completed" || !strings.Contains(res.FinalText, "Nothing to fix here.") {
		t.Fatalf("review result %+v", res)
	}
	if req := request(t, r.fake, 1); !hasUserText(req, "look at main.go for bugs") {
		t.Errorf("review request %q lacks the instructions", req.UserTexts())
	}
	if _, err := (ReviewTarget{Commit: "abc", BaseBranch: "main"}).wire(); err == nil {
		t.Error("two review targets accepted")
	}
}

// /compress: codex summarises the thread, and the next turn starts from the
// summary.
func TestRealSessionCompact(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, nil)
	r.fake.Enqueue(fakeresponses.Text("one"), fakeresponses.Text("SUMMARY: the user asked one thing."), fakeresponses.Text("two"))
	okTurn(t, r.turn(t, ctxT(t, 60*time.Second), "an early question"), "one")
	res := r.Compact(ctxT(t, 60*time.Second))
	t.Logf("compact result %+v; transcript %s", res, mustMarshal(res.Messages))
	if res.Err != nil || res.Interrupted || res.Status != "completed" || res.TurnID == "" {
		t.Fatalf("compact result %+v", res)
	}
	if n := len(r.fake.Requests()); n != 2 {
		t.Fatalf("%d model requests after compacting, want 2", n)
	}
	okTurn(t, r.turn(t, ctxT(t, 60*time.Second), "a later question"), "two")
	req := request(t, r.fake, 3)
	all := strings.Join(req.UserTexts(), "\n")
	if !strings.Contains(all, "SUMMARY: the user asked one thing.") || !hasUserText(req, "a later question") {
		t.Errorf("after compacting the model saw %q", req.UserTexts())
	}
}

// Failure (b): a thread whose first turn never finished has nothing on
// disk, and codex answers thread/resume with "no rollout found". The
// session carries on in a new thread and says so.
func TestRealSessionResumeUnfinishedThread(t *testing.T) {
	t.Parallel()
	first := newRealSession(t, nil)
	id, err := first.Start(ctxT(t, 60*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	r := newRealSession(t, func(c *SessionConfig) {
		c.ResumeThreadID = id
		c.Codex.Env = first.home.Env(codextest.NewProxy(t).URL())
		c.Codex.Dir = first.home.Home
	})
	r.fake.Enqueue(fakeresponses.Text("fresh start"))
	res := r.turn(t, ctxT(t, 60*time.Second), "hello again")
	okTurn(t, res, "fresh start")
	if res.ThreadID == "" || res.ThreadID == id {
		t.Errorf("turn ran on thread %q (the unresumable one is %q)", res.ThreadID, id)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "could not resume thread "+id) || !strings.Contains(res.Notices[0], res.ThreadID) {
		t.Errorf("notices %q", res.Notices)
	}
}

// Failure (c): input for a thread this codex has not loaded (here: the
// session switched to another thread, as /branch does, on a codex that
// never loaded it) is refused by codex with "thread not found"; the session
// loads the thread (thread/resume) and delivers the input instead of
// failing or waiting for something else to load it.
func TestRealSessionUnloadedThread(t *testing.T) {
	t.Parallel()
	first := newRealSession(t, nil)
	first.fake.Enqueue(fakeresponses.Text("one"))
	okTurn(t, first.turn(t, ctxT(t, 60*time.Second), "first"), "one")
	old := first.ThreadID()
	if err := first.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	r := newRealSession(t, func(c *SessionConfig) {
		c.Codex.Env = first.home.Env(codextest.NewProxy(t).URL())
		c.Codex.Dir = first.home.Home
	})
	if _, err := r.Start(ctxT(t, 60*time.Second)); err != nil {
		t.Fatal(err)
	}
	r.Session.mu.Lock()
	r.Session.threadID = old
	r.Session.mu.Unlock()
	r.fake.Enqueue(fakeresponses.Text("two"))
	res := r.turn(t, ctxT(t, 60*time.Second), "second")
	okTurn(t, res, "two")
	if res.ThreadID != old {
		t.Errorf("turn ran on %q, want %q", res.ThreadID, old)
	}
	if req := request(t, r.fake, 1); !hasUserText(req, "first") || !hasUserText(req, "second") {
		t.Errorf("the loaded thread lost its history: %q", req.UserTexts())
	}
}

// Failure (a) on the real codex: after a tool call the model's answer
// arrives but its response never completes (a stalled stream), so codex
// never sends turn/completed. The turn ends with the answer and a notice
// after PostToolQuietTimeout, instead of hanging until the turn deadline;
// the thread goes on.
func TestRealSessionNoTurnCompletedAfterTool(t *testing.T) {
	t.Parallel()
	r := newRealSession(t, func(c *SessionConfig) {
		c.PostToolQuietTimeout = 2 * time.Second
		c.DynamicTools = []DynamicTool{{
			Name:        "lookup_ticket",
			Description: "Look up a support ticket by id.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
			Handler: func(context.Context, json.RawMessage) (ToolOutput, error) {
				return TextOutput("Ticket ABC-123 is open."), nil
			},
		}}
	})
	r.fake.Enqueue(
		fakeresponses.Call("call_dyn", "lookup_ticket", map[string]any{"id": "ABC-123"}),
		fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.Message("It is open."), fakeresponses.Hold(nil)}},
	)
	res := r.turn(t, ctxT(t, 50*time.Second), "status of ABC-123?")
	if res.Err != nil || res.ShouldRetire || res.FinalText != "It is open." || res.ToolIterations != 1 ||
		len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "no turn/completed") {
		t.Fatalf("result %+v", res)
	}
	r.fake.Enqueue(fakeresponses.Text("Still here."))
	okTurn(t, r.turn(t, ctxT(t, 60*time.Second), "and now?"), "Still here.")
}
