//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore/chatcli"
	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
)

// watchBuffer is an io.Writer whose text tests can wait on.
type watchBuffer struct {
	mu   sync.Mutex
	b    strings.Builder
	wake chan struct{}
}

func newWatchBuffer() *watchBuffer { return &watchBuffer{wake: make(chan struct{}, 1)} }

func (w *watchBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.b.Write(p)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *watchBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (w *watchBuffer) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for !strings.Contains(w.String(), s) {
		select {
		case <-w.wake:
		case <-deadline:
			t.Fatalf("never saw %q in:\n%s", s, w.String())
		}
	}
}

// codexChat is a Hermes home on the codex runtime and a codex home whose
// model is a fake Responses API, the environment reaching codex through
// proxyURL.
type codexChat struct {
	fake                  *fakeresponses.Server
	codexHome, hermesHome string
	env                   map[string]string
}

func newCodexChat(t *testing.T, proxyURL, extraConfig string) *codexChat {
	t.Helper()
	c := &codexChat{fake: fakeresponses.New(t), hermesHome: t.TempDir(), env: map[string]string{}}
	home := codextest.NewHome(t)
	c.codexHome = home.CodexHome
	if err := os.WriteFile(filepath.Join(home.CodexHome, "config.toml"), []byte(c.fake.ConfigTOML()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := "model:\n  default: " + fakeresponses.DefaultModel + "\n  provider: openai\n  openai_runtime: codex_app_server\n" + extraConfig
	if err := os.WriteFile(filepath.Join(c.hermesHome, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range home.Env(proxyURL) {
		k, v, _ := strings.Cut(kv, "=")
		c.env[k] = v
	}
	return c
}

// `hermes chat` on the codex runtime (the real codex, the fake model): a
// /steer typed during an answer joins that turn, then /undo, /branch,
// /review and /compress each do their app-server call.
func TestChatCodexCommands(t *testing.T) {
	bin := codextest.Binary(t)
	c := newCodexChat(t, codextest.NewProxy(t).URL(), "memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n")
	fake, hermesHome, env := c.fake, c.hermesHome, c.env
	release := make(chan struct{})
	fake.Enqueue(
		fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.Message("Working on it."), fakeresponses.Hold(release)}},
		fakeresponses.Text("Steered: bye."),
		fakeresponses.Text(`{"findings":[],"overall_correctness":"patch is correct","overall_explanation":"Review: all good.","overall_confidence_score":0.7}`),
		fakeresponses.Text("SUMMARY: steering test."),
	)
	pr, pw := io.Pipe()
	out, errb := newWatchBuffer(), newWatchBuffer()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"chat", "--hermes-home", hermesHome, "--no-history", "--codex-bin", bin, "--codex-home", c.codexHome},
			chatcli.IO{In: pr, Out: out, Err: errb}, testDeps(env))
	}()
	say := func(line string) {
		if _, err := io.WriteString(pw, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	say("start working")
	out.waitFor(t, "Working on it.")
	say("/steer also say bye")
	errb.waitFor(t, "steered into the running turn")
	close(release)
	out.waitFor(t, "Steered: bye.")
	say("/undo")
	out.waitFor(t, "codex forgot the turn")
	say("/branch")
	out.waitFor(t, "continuing in codex thread")
	say("/review check the steering")
	out.waitFor(t, "Review: all good.")
	say("/compress")
	out.waitFor(t, "codex compacted the conversation's context.")
	// Codex takes its model when a thread starts: --global saves it for
	// the next conversation.
	say("/model next-model --global")
	out.waitFor(t, "Saved next-model as model.default in config.yaml")
	if saved, _ := os.ReadFile(filepath.Join(hermesHome, "config.yaml")); !strings.Contains(string(saved), "  default: next-model\n  provider: openai\n  openai_runtime: codex_app_server\n") {
		t.Errorf("config.yaml after /model --global:\n%s", saved)
	}
	say("/quit")
	pw.Close()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d", code)
		}
	case <-ctx.Done():
		t.Fatal("chat did not exit")
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", out, errb)
	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if users := reqs[1].UserTexts(); !slices.ContainsFunc(users, func(s string) bool { return strings.Contains(s, "also say bye") }) {
		t.Errorf("the steered text did not reach the model: %q", users)
	}
	if users := strings.Join(reqs[2].UserTexts(), "|"); !strings.Contains(users, "check the steering") {
		t.Errorf("review request %q", users)
	}
}

// A kanban worker on the codex runtime exits as one on the native runtime
// does when the model API fails: 75 (requeue, no failure counted) for a
// rate limit, an overload or a server error, 78 (block now) for rejected
// credentials or an unknown model, 1 for anything else. The real codex meets the model API's status and reports
// it in its own terms; the worker reads those.
func TestCodexWorkerProviderFailures(t *testing.T) {
	bin := codextest.Binary(t)
	proxy := codextest.NewProxy(t)
	for _, tt := range []struct {
		status int
		want   int
	}{{429, chatcli.ExitWorkerTransient}, {503, chatcli.ExitWorkerTransient}, {500, chatcli.ExitWorkerTransient}, {402, chatcli.ExitWorkerTransient},
		{401, chatcli.ExitWorkerTerminal}, {404, chatcli.ExitWorkerTerminal}, {400, chatcli.ExitFailure}} {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			c := newCodexChat(t, proxy.URL(), "")
			c.env["HERMES_KANBAN_TASK"] = "t_0001"
			c.fake.Handle(func(*fakeresponses.Request) fakeresponses.Reply {
				return fakeresponses.Reply{Status: tt.status, ErrorMessage: "scripted failure"}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
			defer cancel()
			out, errb := newWatchBuffer(), newWatchBuffer()
			code := run(ctx, []string{"chat", "--hermes-home", c.hermesHome, "--codex-bin", bin, "--codex-home", c.codexHome, "-q", "Write the report."},
				chatcli.IO{In: strings.NewReader(""), Out: out, Err: errb}, testDeps(c.env))
			if code != tt.want || !strings.Contains(errb.String(), fmt.Sprintf("[kanban-worker-exit] rc=%d", tt.want)) {
				t.Errorf("exit %d, want %d with the trailer; stderr:\n%s", code, tt.want, errb)
			}
		})
	}
}
