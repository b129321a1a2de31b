//go:build unix

package codexrt

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
)

type cmdRuntime struct {
	*Runtime
	fake *fakeresponses.Server
}

func newCmdRuntime(t *testing.T, home codextest.Home, fake *fakeresponses.Server, resume string) cmdRuntime {
	t.Helper()
	env := home.Env(codextest.NewProxy(t).URL())
	r, err := New(Config{
		Binary:         codextest.Binary(t),
		Args:           fake.CodexArgs(),
		Environ:        ChildEnv(env, ""),
		CodexHome:      home.CodexHome,
		Cwd:            t.TempDir(),
		Model:          fakeresponses.DefaultModel,
		Provider:       "openai",
		ResumeThreadID: resume,
		ThreadParams:   map[string]any{"approvalPolicy": "on-request", "sandbox": "workspace-write"},
		TurnTimeout:    60 * time.Second,
		StartTimeout:   60 * time.Second,
		Logger:         slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return cmdRuntime{r, fake}
}

func sawUser(t *testing.T, fake *fakeresponses.Server, n int, text string) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := fake.WaitRequest(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(req.UserTexts(), func(s string) bool { return strings.Contains(s, text) })
}

// The codex-only chat commands on the runtime, in one conversation: /steer
// with no turn running (on a resumed thread no codex has loaded yet: the
// text is delivered as a turn, failure (c)), /branch, /undo, /review and
// /compress.
func TestRealRuntimeCommands(t *testing.T) {
	t.Parallel()
	home := codextest.NewHome(t)
	fake := fakeresponses.New(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	first := newCmdRuntime(t, home, fake, "")
	fake.Enqueue(fakeresponses.Text("one"))
	if res, err := first.RunTurn(ctx, "remember the word apple"); err != nil || !res.Completed {
		t.Fatalf("first turn %+v, %v", res, err)
	}
	thread := first.ThreadID()
	_ = first.Close()

	r := newCmdRuntime(t, home, fake, thread)
	fake.Enqueue(fakeresponses.Text("two"))
	steered, res, err := r.Steer(ctx, "also remember pear")
	if err != nil || steered || !res.Completed || res.FinalResponse != "two" || res.CodexThreadID != thread ||
		len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "no turn was running") {
		t.Fatalf("steer with no turn: steered=%v %+v, %v", steered, res, err)
	}
	if !sawUser(t, fake, 2, "remember the word apple") || !sawUser(t, fake, 2, "also remember pear") {
		t.Error("the steered text did not reach the resumed thread")
	}

	fork, err := r.Branch(ctx)
	if err != nil || fork == thread || r.ThreadID() != fork {
		t.Fatalf("branch %q (from %q, now on %q): %v", fork, thread, r.ThreadID(), err)
	}
	fake.Enqueue(fakeresponses.Text("three"))
	if res, err := r.RunTurn(ctx, "a question in the branch"); err != nil || res.CodexThreadID != fork {
		t.Fatalf("turn in the branch %+v, %v", res, err)
	}
	if err := r.Undo(ctx); err != nil {
		t.Fatal(err)
	}
	fake.Enqueue(fakeresponses.Text("four"))
	if _, err := r.RunTurn(ctx, "after the undo"); err != nil {
		t.Fatal(err)
	}
	if sawUser(t, fake, 4, "a question in the branch") || !sawUser(t, fake, 4, "also remember pear") {
		t.Error("undo did not drop the last turn, or dropped more")
	}

	fake.Enqueue(fakeresponses.Text(`{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Looks fine.","overall_confidence_score":0.8}`))
	res, err = r.Review(ctx, "check the fruit list")
	if err != nil || !res.Completed || !strings.Contains(res.FinalResponse, "Looks fine.") {
		t.Fatalf("review %+v, %v", res, err)
	}
	fake.Enqueue(fakeresponses.Text("SUMMARY: fruit."))
	res, err = r.Compress(ctx)
	if err != nil || !res.Completed || res.Error != "" {
		t.Fatalf("compress %+v, %v", res, err)
	}
	fake.Enqueue(fakeresponses.Text("five"))
	if _, err := r.RunTurn(ctx, "what now"); err != nil {
		t.Fatal(err)
	}
	if !sawUser(t, fake, 7, "SUMMARY: fruit.") {
		t.Error("the turn after /compress does not start from the summary")
	}
}
