package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/codexrt"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// memStore is an in-memory agentcore.Store.
type memStore struct {
	mu       sync.Mutex
	sessions map[string]agentcore.SessionMeta
	msgs     map[string][]agentcore.Message
	ended    map[string]string
	failAdd  error
}

func newMemStore() *memStore {
	return &memStore{sessions: map[string]agentcore.SessionMeta{}, msgs: map[string][]agentcore.Message{}, ended: map[string]string{}}
}

func (s *memStore) CreateSession(_ context.Context, m agentcore.SessionMeta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[m.ID] = m
	return nil
}

func (s *memStore) AppendMessages(_ context.Context, id string, msgs []agentcore.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failAdd != nil {
		return s.failAdd
	}
	s.msgs[id] = append(s.msgs[id], msgs...)
	return nil
}

func (s *memStore) SetCodexThread(_ context.Context, id, thread string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.sessions[id]
	m.CodexThreadID = thread
	s.sessions[id] = m
	return nil
}

func (s *memStore) LoadSession(_ context.Context, id string) (agentcore.SessionMeta, []agentcore.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.sessions[id]
	if !ok {
		return m, nil, errors.New("no such session")
	}
	return m, append([]agentcore.Message(nil), s.msgs[id]...), nil
}

func (s *memStore) ReopenSession(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended[id] = ""
	return nil
}

func (s *memStore) EndSession(_ context.Context, id, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended[id] == "" {
		s.ended[id] = reason
	}
	return nil
}

func (s *memStore) Close() error { return nil }

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

func nativeHome(t *testing.T, fake *fakechat.Server) string {
	return writeConfig(t, "model:\n  default: m1\n  provider: openai\n  base_url: "+fake.BaseURL()+"\n  api_key: k\n")
}

func noEnv(string) string { return "" }

func TestNativeRecordsAndResumes(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "one"}, fakechat.Reply{Text: "two"}, fakechat.Reply{Text: "three"})
	defer fake.Close()
	home := nativeHome(t, fake)
	store := newMemStore()
	ctx := context.Background()

	var streamed strings.Builder
	c, err := Start(ctx, Options{HermesHome: home, Getenv: noEnv, SkipHermesTools: true, Store: store,
		OnText: func(d string) { streamed.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	meta := c.Meta()
	if meta.Runtime != RuntimeNative || meta.Model != "m1" || meta.Source != Source {
		t.Errorf("meta = %+v", meta)
	}
	if !regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{6}$`).MatchString(meta.ID) {
		t.Errorf("session id %q", meta.ID)
	}
	for _, q := range []string{"first", "second"} {
		res, err := c.Turn(ctx, q)
		if err != nil || !res.Completed || res.SessionID != meta.ID {
			t.Fatalf("turn %q: %+v, %v", q, res, err)
		}
	}
	if streamed.String() != "onetwo" {
		t.Errorf("streamed %q", streamed.String())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Turn(ctx, "late"); !errors.Is(err, ErrClosed) {
		t.Errorf("Turn after Close: %v", err)
	}
	_, stored, _ := store.LoadSession(ctx, meta.ID)
	var roles []string
	for _, m := range stored {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,user,assistant" {
		t.Errorf("stored roles %s (the user message must be stored once per turn)", got)
	}

	// Resuming sends the stored history with the next question.
	r, err := Start(ctx, Options{HermesHome: home, Getenv: noEnv, SkipHermesTools: true, Store: store, SessionID: meta.ID, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Turn(ctx, "third"); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	var texts []string
	for _, m := range reqs[len(reqs)-1].Messages()[1:] { // [0] is the system prompt
		texts = append(texts, fakechat.TextOf(m))
	}
	if got := strings.Join(texts, "|"); got != "first|one|second|two|third" {
		t.Errorf("resumed request carried %s", got)
	}
}

func TestStoreFailureIsANotice(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "ok"})
	defer fake.Close()
	store := newMemStore()
	store.failAdd = errors.New("disk full")
	var notices []string
	c, err := Start(context.Background(), Options{HermesHome: nativeHome(t, fake), Getenv: noEnv, SkipHermesTools: true,
		Store: store, OnNotice: func(m string) { notices = append(notices, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Turn(context.Background(), "hi")
	if err != nil || res.FinalResponse != "ok" {
		t.Fatalf("%+v %v", res, err)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "disk full") {
		t.Errorf("notices %q", notices)
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  string
		opts Options
		want string
	}{
		{name: "no model", cfg: "agent: {max_turns: 3}\n", opts: Options{SkipHermesTools: true}, want: "no model configured"},
		{name: "tools binary missing", cfg: "model: {default: m, provider: ollama}\n", opts: Options{ToolsBinary: "/nonexistent/hermes-tools-mcp"}, want: "--hermes-tools-command"},
		{name: "resume without store", cfg: "model: m\n", opts: Options{Resume: true, SessionID: "x"}, want: "needs a Store"},
		{name: "resume unknown", cfg: "model: m\n", opts: Options{Resume: true, SessionID: "x", Store: newMemStore(), SkipHermesTools: true}, want: "no such session"},
		{name: "hosted provider without key", cfg: "model: {default: m, provider: openrouter}\n", opts: Options{SkipHermesTools: true}, want: "provider openrouter needs OPENROUTER_API_KEY (or model.api_key in "},
		{name: "bad yaml", cfg: "model: [\n", opts: Options{SkipHermesTools: true}, want: "config.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.HermesHome = writeConfig(t, tt.cfg)
			tt.opts.Getenv = noEnv
			c, err := Start(context.Background(), tt.opts)
			if err == nil {
				c.Close()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
		})
	}
}

func TestModelOverride(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "ok"})
	defer fake.Close()
	c, err := Start(context.Background(), Options{HermesHome: nativeHome(t, fake), Getenv: noEnv, SkipHermesTools: true, Model: "m2"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Turn(context.Background(), "hi"); err != nil {
		t.Fatal(err)
	}
	if got := fake.Requests()[0].Body["model"]; got != "m2" {
		t.Errorf("model sent %v, want the override m2", got)
	}
}

// The codex runtime is chosen from config.yaml; with codex missing the turn
// fails with the fallback hint instead of the conversation failing to start.
func TestCodexSelected(t *testing.T) {
	home := writeConfig(t, "model:\n  default: gpt-5.5\n  provider: openai\n  openai_runtime: codex_app_server\n")
	store := newMemStore()
	c, err := Start(context.Background(), Options{HermesHome: home, Getenv: noEnv, Store: store,
		CodexBinary: "/nonexistent/codex", Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Meta().Runtime != RuntimeCodex || c.MCPStatuses() != nil {
		t.Errorf("meta %+v", c.Meta())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Turn(ctx, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed || !strings.Contains(res.Error, codexrt.FallbackHint) {
		t.Errorf("result %+v, want a failure naming the fallback", res)
	}
	if s := store.sessions[c.Meta().ID]; s.Runtime != RuntimeCodex {
		t.Errorf("stored session %+v", s)
	}
}

// With memory.nudge_interval 2, the second user turn starts a background
// review: a silent extra model request carrying the transcript and the
// memory-review prompt. Close waits for it.
func TestMemoryNudgeStartsBackgroundReview(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "a1"}, fakechat.Reply{Text: "a2"}, fakechat.Reply{Text: "nothing to save"})
	defer fake.Close()
	home := writeConfig(t, "model: {default: m, provider: openai, base_url: "+fake.BaseURL()+", api_key: k}\nmemory: {nudge_interval: 2}\nskills: {creation_nudge_interval: 0}\n")
	var streamed strings.Builder
	c, err := Start(context.Background(), Options{HermesHome: home, Getenv: noEnv, SkipHermesTools: true,
		OnText: func(s string) { streamed.WriteString(s) }})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"I prefer tabs over spaces.", "Format this file."} {
		if _, err := c.Turn(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil { // waits for the review
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 2 turns + 1 review", len(reqs))
	}
	msgs := reqs[2].Messages()
	var texts []string
	for _, m := range msgs {
		texts = append(texts, fakechat.TextOf(m))
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "I prefer tabs over spaces.") || !strings.Contains(fakechat.TextOf(msgs[len(msgs)-1]), "consider saving to memory") {
		t.Errorf("review request lacks the transcript or the prompt: %q", all)
	}
	if strings.Contains(streamed.String(), "nothing to save") {
		t.Error("the review's answer was streamed to the user")
	}
}

// The native runtime offers delegate_task, and a delegated task runs as a
// sub-agent whose request does not offer delegate_task again.
func TestNativeDelegates(t *testing.T) {
	fake := fakechat.New(
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "delegate_task", Arguments: `{"goal":"Count to three."}`}}},
		fakechat.Reply{Text: "1, 2, 3"},
		fakechat.Reply{Text: "The sub-agent counted: 1, 2, 3."},
	)
	defer fake.Close()
	c, err := Start(context.Background(), Options{HermesHome: nativeHome(t, fake), Getenv: noEnv, SkipHermesTools: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.Turn(context.Background(), "Delegate counting to three.")
	if err != nil || !res.Completed || res.FinalResponse != "The sub-agent counted: 1, 2, 3." {
		t.Fatalf("turn: %+v %v", res, err)
	}
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want parent, sub-agent, parent", len(reqs))
	}
	has := func(names []string, n string) bool {
		for _, x := range names {
			if x == n {
				return true
			}
		}
		return false
	}
	if !has(reqs[0].ToolNames(), "delegate_task") || has(reqs[1].ToolNames(), "delegate_task") {
		t.Errorf("parent tools %v, sub-agent tools %v", reqs[0].ToolNames(), reqs[1].ToolNames())
	}
	if last := reqs[1].Messages(); !strings.Contains(fakechat.TextOf(last[len(last)-1]), "Count to three.") {
		t.Errorf("sub-agent did not get the goal: %v", last)
	}
}

// With a delegation section, sub-agents run on its model and endpoint
// while the parent stays on the main one.
func TestNativeDelegatesToTheDelegationModel(t *testing.T) {
	parent := fakechat.New(
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "delegate_task", Arguments: `{"goal":"Count to three."}`}}},
		fakechat.Reply{Text: "done"},
	)
	defer parent.Close()
	sub := fakechat.New(fakechat.Reply{Text: "1, 2, 3"})
	defer sub.Close()
	home := writeConfig(t, "model:\n  default: m1\n  provider: openai\n  base_url: "+parent.BaseURL()+"\n  api_key: k\n"+
		"delegation:\n  model: cheap-sub\n  base_url: "+sub.BaseURL()+"\n  api_key: k-sub\n")
	c, err := Start(context.Background(), Options{HermesHome: home, Getenv: noEnv, SkipHermesTools: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := c.Turn(context.Background(), "Delegate counting to three."); err != nil || res.FinalResponse != "done" {
		t.Fatalf("turn: %+v %v", res, err)
	}
	if n := len(parent.Requests()); n != 2 {
		t.Errorf("parent model got %d requests, want 2", n)
	}
	reqs := sub.Requests()
	if len(reqs) != 1 || reqs[0].Body["model"] != "cheap-sub" || reqs[0].Header.Get("Authorization") != "Bearer k-sub" {
		t.Errorf("delegation model requests = %+v", reqs)
	}
}
