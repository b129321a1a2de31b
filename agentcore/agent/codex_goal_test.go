package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore/codexrt"
	"github.com/hermes-go/hermes/agentcore/goals"
	"github.com/hermes-go/hermes/agentcore/native"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
)

// A standing goal on the codex runtime: each continuation is a new codex
// turn on the conversation's thread, the judge answers on its own route,
// and the goal record in state.db ends done after three turns.
func TestCodexGoalLoop(t *testing.T) {
	bin := codextest.Binary(t)
	responses := fakeresponses.New(t)
	responses.Enqueue(fakeresponses.Text("Step one done."), fakeresponses.Text("Step two done."), fakeresponses.Text("Step three done; finished."))
	judge := fakechat.New(fakechat.Reply{Text: `{"verdict": "continue", "reason": "one of three"}`},
		fakechat.Reply{Text: `{"verdict": "continue", "reason": "two of three"}`}, fakechat.Reply{Text: `{"verdict": "done", "reason": "all three"}`})
	defer judge.Close()
	home := codextest.NewHome(t)
	hermesHome := t.TempDir()
	cfg := "model:\n  default: " + fakeresponses.DefaultModel + "\n  provider: openai\n  openai_runtime: codex_app_server\nmemory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n" +
		"auxiliary:\n  title_generation:\n    enabled: false\n  goal_judge:\n    provider: custom\n    base_url: " + judge.BaseURL() + "\n    model: judge-model\n"
	if err := os.WriteFile(filepath.Join(hermesHome, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	store, err := statedb.Open(ctx, hermesHome, statedb.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	env := codexrt.ChildEnv(home.Env(codextest.NewProxy(t).URL()), "")
	c, err := Start(ctx, Options{
		HermesHome: hermesHome, Getenv: noEnv, Environ: env, SkipHermesTools: true, Store: store,
		CodexBinary: bin, CodexHome: home.CodexHome, CodexArgs: responses.CodexArgs(), Cwd: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Meta().Runtime != RuntimeCodex {
		t.Fatalf("runtime %q, want codex", c.Meta().Runtime)
	}
	m, err := goals.Load(ctx, goals.Options{Store: store, SessionID: c.Meta().ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Set(ctx, "finish the three steps"); err != nil {
		t.Fatal(err)
	}
	var threads []string
	turn := func(ctx context.Context, text string) goals.TurnResult {
		res, err := c.Turn(ctx, text)
		threads = append(threads, res.CodexThreadID)
		return goals.TurnResult{Response: res.FinalResponse, OK: err == nil && res.Completed, Interrupted: res.Interrupted}
	}
	judgeFn := func(ctx context.Context, system, user string) (string, error) {
		return c.SideTask(ctx, native.AuxGoalJudge, native.SideRequest{System: system, User: user})
	}
	var messages []string
	err = goals.Drive(ctx, m, judgeFn, turn(ctx, "finish the three steps"), turn, func(d goals.Decision) { messages = append(messages, d.Message) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(messages) != 3 || !strings.HasPrefix(messages[2], "✓ Goal achieved: all three") {
		t.Fatalf("decisions %q", messages)
	}
	reqs := responses.Requests()
	if len(reqs) != 3 {
		t.Fatalf("codex made %d model requests, want 3", len(reqs))
	}
	users := reqs[2].UserTexts()
	if last := users[len(users)-1]; !strings.HasPrefix(last, "[Continuing toward your standing goal]\nGoal: finish the three steps") {
		t.Errorf("third codex turn got %q, want the continuation prompt", last)
	}
	if !strings.Contains(strings.Join(users, "|"), "finish the three steps|") {
		t.Errorf("the continuation turn does not carry the thread's earlier turns: %q", users)
	}
	if threads[0] == "" || threads[1] != threads[0] || threads[2] != threads[0] {
		t.Errorf("turns ran on threads %v, want one thread", threads)
	}
	raw, ok, err := store.Meta(ctx, goals.MetaKey(c.Meta().ID))
	if err != nil || !ok || !strings.Contains(raw, `"status": "done", "turns_used": 3`) {
		t.Errorf("goal record %q (%v)", raw, err)
	}
}

// With only a ChatGPT login and no auxiliary.goal_judge route, the judge
// runs on a throwaway codex thread, never on OpenAI's API without a key.
func TestCodexGoalJudgeOnCodex(t *testing.T) {
	responses := fakeresponses.New(t)
	responses.Enqueue(fakeresponses.Text("The note is written."), fakeresponses.Text(`{"verdict": "done", "reason": "the note exists"}`))
	proxy := codextest.NewProxy(t).URL()
	// Anything that would leave for api.openai.com goes to the black hole.
	t.Setenv("HTTPS_PROXY", proxy)
	t.Setenv("HTTP_PROXY", proxy)
	c, _ := codexOnlyConversation(t, responses, "memory:\n  nudge_interval: 0\nskills:\n  creation_nudge_interval: 0\n", map[string]string{})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	m, _ := goals.Load(ctx, goals.Options{SessionID: c.Meta().ID})
	if _, err := m.Set(ctx, "write the note"); err != nil {
		t.Fatal(err)
	}
	turn := func(ctx context.Context, text string) goals.TurnResult {
		res, err := c.Turn(ctx, text)
		return goals.TurnResult{Response: res.FinalResponse, OK: err == nil && res.Completed}
	}
	judgeFn := func(ctx context.Context, system, user string) (string, error) {
		return c.SideTask(ctx, native.AuxGoalJudge, native.SideRequest{System: system, User: user})
	}
	var messages []string
	if err := goals.Drive(ctx, m, judgeFn, turn(ctx, "write the note"), turn, func(d goals.Decision) { messages = append(messages, d.Message) }, nil); err != nil {
		t.Fatal(err)
	}
	if len(messages) != 1 || messages[0] != "✓ Goal achieved: the note exists" {
		t.Fatalf("decisions %q", messages)
	}
	reqs := responses.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d codex model requests, want the turn and the verdict", len(reqs))
	}
	if u := strings.Join(reqs[1].UserTexts(), "|"); !strings.Contains(u, "Goal:\nwrite the note") || !strings.Contains(u, "Agent's latest response:\nThe note is written.") {
		t.Errorf("the verdict request is not the judge's question: %q", u)
	}
}
