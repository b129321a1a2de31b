//go:build unix

package codexrt

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

func realRuntime(t *testing.T, fake *fakeresponses.Server) *Runtime {
	t.Helper()
	bin := codextest.Binary(t)
	home := codextest.NewHome(t)
	env := home.Env(codextest.NewProxy(t).URL())
	r, err := New(Config{
		Binary: bin, Args: fake.CodexArgs(), Environ: ChildEnv(env, ""), CodexHome: home.CodexHome,
		HermesHome: t.TempDir(), SessionID: "keep-1", Cwd: t.TempDir(),
		Model: fakeresponses.DefaultModel, Provider: "openai",
		TurnTimeout: 60 * time.Second, StartTimeout: 60 * time.Second,
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// A turn that fails on a transient model error keeps the codex thread:
// the next turn runs on the same thread, and the model sees the
// conversation so far.
func TestRealCodexKeepsThreadAfterModelError(t *testing.T) {
	t.Parallel()
	fake := fakeresponses.New(t)
	r := realRuntime(t, fake)
	fake.Enqueue(
		fakeresponses.Text("First answer."),
		fakeresponses.Reply{Status: 500, ErrorMessage: "upstream hiccup"},
		fakeresponses.Text("Third answer."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	var threads []string
	for i, q := range []string{"first question", "second question", "third question"} {
		res, err := r.RunTurn(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("turn %d: completed=%v error=%q thread=%s", i+1, res.Completed, res.Error, r.ThreadID())
		if i == 1 && res.Completed {
			t.Fatalf("the 500 turn completed: %+v", res)
		}
		threads = append(threads, r.ThreadID())
	}
	if threads[0] == "" || threads[0] != threads[1] || threads[1] != threads[2] {
		t.Errorf("thread ids %v, want one thread throughout", threads)
	}
	reqs := fake.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(last, "first question") || !strings.Contains(last, "First answer.") {
		t.Errorf("the turn after the failure lost the conversation: %.2000s", last)
	}
}

// A usage limit says when it resets.
func TestRealCodexUsageLimitSaysWhenItResets(t *testing.T) {
	t.Parallel()
	fake := fakeresponses.New(t)
	r := realRuntime(t, fake)
	reset := time.Now().Add(90 * time.Minute).Truncate(time.Second)
	fake.Enqueue(fakeresponses.Reply{Status: 429, ErrorType: "usage_limit_reached", ErrorMessage: "The usage limit has been reached", ResetsAt: reset.Unix()})
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	res, err := r.RunTurn(ctx, "hello")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("usage limit result: completed=%v error=%q", res.Completed, res.Error)
	want := "usage limit reached; resets at " + reset.Local().Format("15:04")
	if !strings.Contains(res.Error, want) {
		t.Errorf("error %q, want it to contain %q", res.Error, want)
	}
}

// Under approval_policy "never" a writing hermes-tools tool runs when the
// user chose --tools-approval approve (default_tools_approval_mode), and
// otherwise fails with a note that names that option.
func TestRealCodexWritingToolUnderNever(t *testing.T) {
	t.Parallel()
	toolsBin := toolsbuild.ServerBinary(t)
	for _, approve := range []bool{false, true} {
		fake := fakeresponses.New(t)
		hermesHome := t.TempDir()
		server := `mcp_servers.hermes-tools={command=` + strconv.Quote(toolsBin) +
			`, args=["--hermes-home", ` + strconv.Quote(hermesHome) + `, "--toolsets", "skills"], startup_timeout_sec=30`
		if approve {
			server += `, default_tools_approval_mode="approve"`
		}
		server += "}"
		bin := codextest.Binary(t)
		home := codextest.NewHome(t)
		r, err := New(Config{
			Binary: bin, Args: append(fake.CodexArgs(), "-c", server), Environ: ChildEnv(home.Env(codextest.NewProxy(t).URL()), ""),
			CodexHome: home.CodexHome, HermesHome: hermesHome, SessionID: "never-1", Cwd: t.TempDir(),
			Model: fakeresponses.DefaultModel, Provider: "openai",
			ThreadParams: map[string]any{"approvalPolicy": "never"},
			TurnTimeout:  60 * time.Second, StartTimeout: 60 * time.Second,
		})
		if err != nil {
			t.Fatal(err)
		}
		skill := "---\nname: deploy-check\ndescription: Check a deploy.\n---\nRun the checks.\n"
		fake.Enqueue(
			fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.MCPCall("call_save", "hermes-tools", "skill_manage",
				map[string]any{"action": "create", "name": "deploy-check", "content": skill})}},
			fakeresponses.Text("Done."),
		)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		res, err := r.RunTurn(ctx, "save that as a skill")
		cancel()
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(hermesHome, "skills", "deploy-check", "SKILL.md"))
		note := strings.Join(res.Notes, "\n")
		if approve {
			if statErr != nil || note != "" {
				t.Errorf("approve: skill saved err=%v, notes %q", statErr, note)
			}
		} else if statErr == nil || !strings.Contains(note, "--tools-approval approve") || !strings.Contains(note, "skill_manage") {
			t.Errorf("no approval: skill saved err=%v, notes %q (transcript %+v)", statErr, note, res.Messages)
		}
	}
}
