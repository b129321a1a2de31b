//go:build unix

package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore/codexrt"
	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
)

// A conversation on the codex runtime (real codex, fake Responses model)
// with memory.nudge_interval 1: after the turn, the background review runs
// on the native runtime (fake chat model) with codex's transcript.
func TestCodexConversationReviewRunsNatively(t *testing.T) {
	bin := codextest.Binary(t)
	responses := fakeresponses.New(t)
	responses.Enqueue(fakeresponses.Text("Tabs it is."))
	chat := fakechat.New(fakechat.Reply{Text: "Saved nothing."})
	defer chat.Close()

	home := codextest.NewHome(t)
	hermesHome := t.TempDir()
	cfg := "model:\n  default: " + fakeresponses.DefaultModel + "\n  provider: openai\n  openai_runtime: codex_app_server\n" +
		"  base_url: " + chat.BaseURL() + "\n  api_key: k\nmemory:\n  nudge_interval: 1\nskills:\n  creation_nudge_interval: 0\n"
	if err := os.WriteFile(filepath.Join(hermesHome, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := codexrt.ChildEnv(home.Env(codextest.NewProxy(t).URL()), "")
	getenv := func(k string) string {
		for _, kv := range env {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	c, err := Start(context.Background(), Options{
		HermesHome: hermesHome, Getenv: getenv, Environ: env, SkipHermesTools: true,
		CodexBinary: bin, CodexHome: home.CodexHome, CodexArgs: responses.CodexArgs(), Cwd: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Meta().Runtime != RuntimeCodex {
		t.Fatalf("runtime %q, want codex", c.Meta().Runtime)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := c.Turn(ctx, "I prefer tabs over spaces.")
	if err != nil || !res.Completed || res.FinalResponse != "Tabs it is." {
		t.Fatalf("codex turn: %+v %v", res, err)
	}
	if err := c.Close(); err != nil { // waits for the review
		t.Fatal(err)
	}
	reqs := chat.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d native requests, want the one review (notices %v)", len(reqs), c.Notices())
	}
	var texts []string
	for _, m := range reqs[0].Messages() {
		texts = append(texts, fakechat.TextOf(m))
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "I prefer tabs over spaces.|Tabs it is.") || !strings.Contains(all, "consider saving to memory") {
		t.Errorf("review request: %q", all)
	}
}

// A codex conversation is recorded with its thread id; resuming the session
// in a new process continues the same codex thread (thread/resume), so the
// model sees the earlier exchange.
func TestCodexConversationResumesThread(t *testing.T) {
	bin := codextest.Binary(t)
	responses := fakeresponses.New(t)
	responses.Enqueue(fakeresponses.Text("Noted: the codeword is heron."), fakeresponses.Text("The codeword was heron."))
	home := codextest.NewHome(t)
	hermesHome := t.TempDir()
	cfg := "model:\n  default: " + fakeresponses.DefaultModel + "\n  provider: openai\n  openai_runtime: codex_app_server\nmemory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n"
	if err := os.WriteFile(filepath.Join(hermesHome, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := codexrt.ChildEnv(home.Env(codextest.NewProxy(t).URL()), "")
	store := newMemStore()
	opts := Options{
		HermesHome: hermesHome, Getenv: noEnv, Environ: env, SkipHermesTools: true, Store: store,
		CodexBinary: bin, CodexHome: home.CodexHome, CodexArgs: responses.CodexArgs(), Cwd: t.TempDir(),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	c, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Turn(ctx, "Remember the codeword heron.")
	if err != nil || !res.Completed {
		t.Fatalf("first turn: %+v %v", res, err)
	}
	id := c.Meta().ID
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	meta, _, _ := store.LoadSession(ctx, id)
	if meta.CodexThreadID == "" || meta.CodexThreadID != res.CodexThreadID {
		t.Fatalf("stored thread %q, turn thread %q", meta.CodexThreadID, res.CodexThreadID)
	}

	opts.SessionID, opts.Resume = id, true
	r, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res2, err := r.Turn(ctx, "What was the codeword?")
	if err != nil || !res2.Completed || res2.CodexThreadID != meta.CodexThreadID {
		t.Fatalf("resumed turn: %+v %v (want thread %s)", res2, err, meta.CodexThreadID)
	}
	if len(r.Notices()) != 0 {
		t.Errorf("unexpected notices: %v", r.Notices())
	}
	reqs := responses.Requests()
	users := strings.Join(reqs[len(reqs)-1].UserTexts(), "|")
	if !strings.Contains(users, "Remember the codeword heron.") || !strings.Contains(users, "What was the codeword?") {
		t.Errorf("the resumed thread's request lacks the earlier turn: %q", users)
	}
}

// On the codex runtime the saved memory reaches the model as developer
// instructions of the thread.
func TestCodexMemoryReachesTheModel(t *testing.T) {
	responses := fakeresponses.New(t)
	responses.Enqueue(fakeresponses.Text("Bonjour."))
	c, _ := codexOnlyConversation(t, responses, "memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n",
		map[string]string{"memories/USER.md": "Prefers answers in French.\n"})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if res, err := c.Turn(ctx, "Hello"); err != nil || !res.Completed {
		t.Fatalf("codex turn: %+v %v", res, err)
	}
	reqs := responses.Requests()
	if len(reqs) == 0 {
		t.Fatal("codex sent the model nothing")
	}
	body := string(reqs[0].Body)

	if !strings.Contains(body, "USER PROFILE (who the user is)") || !strings.Contains(body, "Prefers answers in French.") {
		t.Errorf("the model's first request lacks the saved memory:\n%.3000s", body)
	}
}

// With only a ChatGPT login (no OpenAI-compatible model in config.yaml) a
// codex conversation's background review runs on codex itself, in a
// throwaway thread that is given the conversation, and saves through the
// in-process memory tool.
func TestCodexReviewOnCodexWithoutAPIKey(t *testing.T) {
	responses := fakeresponses.New(t)
	responses.Enqueue(
		fakeresponses.Text("Tabs it is."),
		fakeresponses.Call("call_mem", "memory", map[string]any{"action": "add", "target": "user", "content": "Prefers tabs over spaces."}),
		fakeresponses.Text("Saved the preference."),
	)
	c, hermesHome := codexOnlyConversation(t, responses, "memory:\n  nudge_interval: 1\nskills:\n  creation_nudge_interval: 0\n", map[string]string{})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := c.Turn(ctx, "I prefer tabs over spaces.")
	if err != nil || !res.Completed {
		t.Fatalf("codex turn: %+v %v", res, err)
	}
	if err := c.Close(); err != nil { // waits for the review
		t.Fatal(err)
	}
	reqs := responses.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want the turn and a two-step review (notices %v)", len(reqs), c.Notices())
	}
	review := string(reqs[1].Body)
	if !strings.Contains(review, "I prefer tabs over spaces.") || !strings.Contains(review, "Tabs it is.") || !strings.Contains(review, "consider saving to memory") {
		t.Errorf("the review request lacks the conversation or the prompt: %.3000s", review)
	}
	user, err := os.ReadFile(filepath.Join(hermesHome, "memories", "USER.md"))
	if err != nil || !strings.Contains(string(user), "Prefers tabs over spaces.") {
		t.Errorf("USER.md = %q, %v (notices %v)", user, err, c.Notices())
	}
}

// With only a ChatGPT login, delegate_task on the codex runtime runs its
// sub-agent on codex too, in a thread of its own.
func TestCodexSubagentOnCodexWithoutAPIKey(t *testing.T) {
	responses := fakeresponses.New(t)
	responses.Enqueue(
		fakeresponses.Call("call_d", "delegate_task", map[string]any{"goal": "Count the files in the workspace."}),
		fakeresponses.Text("There are 3 files."),
		fakeresponses.Text("The sub-agent counted 3 files."),
	)
	c, _ := codexOnlyConversation(t, responses, "memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n", map[string]string{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := c.Turn(ctx, "How many files are there? Delegate it.")
	if err != nil || !res.Completed || res.FinalResponse != "The sub-agent counted 3 files." {
		t.Fatalf("codex turn: %+v %v (notices %v)", res, err, c.Notices())
	}
	reqs := responses.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	sub := string(reqs[1].Body)
	if !strings.Contains(sub, "Count the files in the workspace.") || strings.Contains(sub, "How many files are there?") {
		t.Errorf("the sub-agent's request: %.2000s", sub)
	}
	if out, ok := reqs[2].ToolOutput("call_d"); !ok || !strings.Contains(out, "There are 3 files.") {
		t.Errorf("delegate_task returned %q (present %v)", out, ok)
	}
}

// codexOnlyConversation starts a conversation on the codex runtime (real
// codex, responses as the model) for a user with a ChatGPT login only: no
// API key anywhere. extra is appended to config.yaml; files are written
// into the Hermes home first.
func codexOnlyConversation(t *testing.T, responses *fakeresponses.Server, extra string, files map[string]string) (*Conversation, string) {
	t.Helper()
	bin := codextest.Binary(t)
	home := codextest.NewHome(t)
	hermesHome := t.TempDir()
	files["config.yaml"] = "model:\n  default: " + fakeresponses.DefaultModel + "\n  provider: openai\n  openai_runtime: codex_app_server\n" + extra
	for name, body := range files {
		path := filepath.Join(hermesHome, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := codexrt.ChildEnv(home.Env(codextest.NewProxy(t).URL()), "")
	c, err := Start(context.Background(), Options{
		HermesHome: hermesHome, Getenv: func(string) string { return "" }, Environ: env, SkipHermesTools: true,
		CodexBinary: bin, CodexHome: home.CodexHome, CodexArgs: responses.CodexArgs(), Cwd: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return c, hermesHome
}
