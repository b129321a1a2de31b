package codexrt

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/bridge"
)

// fakeSession stands in for codex: it returns scripted turn results.
type fakeSession struct {
	mu     sync.Mutex
	turns  []bridge.TurnResult
	inputs []string
	closes int
	id     int
}

func (f *fakeSession) RunTurn(_ context.Context, in ...bridge.UserInput) bridge.TurnResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inputs = append(f.inputs, in[0].Text)
	r := f.turns[0]
	f.turns = f.turns[1:]
	return r
}
func (f *fakeSession) ThreadID() string { return "" }
func (f *fakeSession) Close() error {
	f.mu.Lock()
	f.closes++
	f.mu.Unlock()
	return nil
}

// newFake returns a runtime whose sessions each serve one scripted turn
// from turns, in order, and the sessions it made.
func newFake(t *testing.T, turns ...bridge.TurnResult) (*Runtime, *[]*fakeSession) {
	t.Helper()
	r, err := New(Config{Binary: "/nonexistent/codex", Model: "gpt-5.5", Provider: "openai", SessionID: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	var made []*fakeSession
	r.newSession = func(string) (session, error) {
		s := &fakeSession{id: len(made), turns: turns}
		made = append(made, s)
		return s, nil
	}
	t.Cleanup(func() { _ = r.Close() })
	return r, &made
}

func echoTurn(text string) bridge.TurnResult {
	return bridge.TurnResult{
		FinalText: "echo: " + text,
		Messages: []bridge.Message{
			{Role: "assistant", ToolCalls: []bridge.ToolCall{{ID: "exec_1", Type: "function", Function: bridge.FunctionCall{Name: "exec_command", Arguments: "{}"}}}},
			{Role: "tool", ToolCallID: "exec_1", Content: "ok"},
			{Role: "assistant", Content: "echo: " + text},
		},
		ToolIterations: 1,
		Status:         "completed",
		TurnID:         "turn-stub-1",
		ThreadID:       "thread-stub-1",
		Usage: &bridge.TokenUsage{Turn: bridge.TokenBreakdown{
			InputTokens: 100, CachedInputTokens: 20, OutputTokens: 7, ReasoningOutputTokens: 3, TotalTokens: 107}},
	}
}

func TestResultShape(t *testing.T) {
	r, made := newFake(t, echoTurn("hello there"))
	res, err := r.RunTurn(context.Background(), "hello there")
	if err != nil {
		t.Fatal(err)
	}
	want := agentcore.Result{
		FinalResponse: "echo: hello there", APICalls: 1, ToolIterations: 1, Completed: true,
		Model: "gpt-5.5", Provider: "openai", SessionID: "s1",
		CodexThreadID: "thread-stub-1", CodexTurnID: "turn-stub-1",
		Usage: agentcore.Usage{InputTokens: 100, OutputTokens: 7, CacheReadTokens: 20, ReasoningTokens: 3, TotalTokens: 107},
	}
	got := res
	got.Messages = nil
	if !reflectEqual(got, want) {
		t.Errorf("result\n got %+v\nwant %+v", got, want)
	}
	b, _ := json.Marshal(res)
	var keys map[string]any
	_ = json.Unmarshal(b, &keys)
	for _, k := range []string{"final_response", "completed", "partial", "api_calls", "messages", "codex_thread_id", "codex_turn_id", "input_tokens", "output_tokens", "total_tokens"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	// The user message once, first, then the projected transcript.
	if len(res.Messages) != 4 || res.Messages[0].Role != "user" || res.Messages[0].Content != "hello there" ||
		res.Messages[3].Content != "echo: hello there" {
		t.Errorf("messages %+v", res.Messages)
	}
	users := 0
	for _, m := range res.Messages {
		if m.Role == "user" && m.Content == "hello there" {
			users++
		}
	}
	if users != 1 {
		t.Errorf("user message appears %d times", users)
	}
	if r.ToolIterations() != 1 || (*made)[0].closes != 0 || r.ThreadID() != "thread-stub-1" {
		t.Errorf("iterations %d, closes %d, thread %q", r.ToolIterations(), (*made)[0].closes, r.ThreadID())
	}
}

func reflectEqual(a, b agentcore.Result) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestTurnOutcomes(t *testing.T) {
	tests := []struct {
		name                string
		turn                bridge.TurnResult
		completed, partial  bool
		interrupted, retire bool
		apiCalls            int
		errHas              []string
		finalHas            string
	}{
		{"completed keeps session", echoTurn("x"), true, false, false, false, 1, nil, "echo: x"},
		{"interrupted is partial", bridge.TurnResult{Interrupted: true, TurnID: "t", ThreadID: "th"},
			false, true, true, false, 1, nil, ""},
		{"startup failure retires", bridge.TurnResult{Err: &bridge.TurnError{Kind: bridge.TurnErrStartup, Message: "codex app-server startup failed: subprocess died"}, ShouldRetire: true},
			false, true, false, true, 0, []string{"subprocess died", "/codex-runtime auto"}, "Codex app-server turn failed: codex app-server startup failed: subprocess died"},
		{"timeout retires", bridge.TurnResult{Interrupted: true, Err: &bridge.TurnError{Kind: bridge.TurnErrTimeout, Message: "turn timed out after 600.0s"}, TurnID: "tu1", ThreadID: "th1", ShouldRetire: true},
			false, true, true, true, 1, []string{"turn timed out after 600.0s", "/codex-runtime auto"}, "codex-runtime auto"},
		{"failed turn keeps the thread", bridge.TurnResult{FinalText: "half", Err: &bridge.TurnError{Kind: bridge.TurnErrFailed, Message: "model error"}, TurnID: "t"},
			false, true, false, false, 1, []string{"model error"}, "half"},
		{"usage limit keeps the thread", bridge.TurnResult{Err: &bridge.TurnError{Kind: bridge.TurnErrLimit, Message: "usage limit reached; resets at 14:05"}, TurnID: "t"},
			false, true, false, false, 1, []string{"resets at 14:05"}, ""},
		{"auth hint not doubled", bridge.TurnResult{Err: &bridge.TurnError{Kind: bridge.TurnErrAuth, Message: bridge.AuthHint}, ShouldRetire: true},
			false, true, false, true, 0, []string{"codex login"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, made := newFake(t, tt.turn, echoTurn("again"))
			res, err := r.RunTurn(context.Background(), "hi")
			if err != nil {
				t.Fatal(err)
			}
			if res.Completed != tt.completed || res.Partial != tt.partial || res.Interrupted != tt.interrupted || res.APICalls != tt.apiCalls {
				t.Errorf("result %+v", res)
			}
			for _, s := range tt.errHas {
				if !strings.Contains(res.Error, s) {
					t.Errorf("error %q lacks %q", res.Error, s)
				}
			}
			if strings.Count(res.Error, "/codex-runtime auto") > 1 {
				t.Errorf("fallback hint repeated: %q", res.Error)
			}
			if !strings.Contains(res.FinalResponse, tt.finalHas) {
				t.Errorf("final response %q lacks %q", res.FinalResponse, tt.finalHas)
			}
			if got := (*made)[0].closes; got != map[bool]int{true: 1, false: 0}[tt.retire] {
				t.Errorf("closed %d times", got)
			}
			// The next turn runs on a new codex after a retirement, on
			// the same one otherwise.
			if _, err := r.RunTurn(context.Background(), "again"); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 2, false: 1}[tt.retire]; len(*made) != want {
				t.Errorf("%d sessions made, want %d", len(*made), want)
			}
		})
	}
}

func TestRunTurnUsageErrors(t *testing.T) {
	r, _ := newFake(t)
	if _, err := r.RunTurn(context.Background(), "  "); err == nil {
		t.Error("empty input accepted")
	}
	_ = r.Close()
	if _, err := r.RunTurn(context.Background(), "hi"); err != ErrClosed {
		t.Errorf("after Close: %v", err)
	}
}

func TestSelected(t *testing.T) {
	tests := []struct {
		m    runtimecfg.Model
		want bool
	}{
		{runtimecfg.Model{Provider: "openai", OpenAIRuntime: "codex_app_server"}, true},
		{runtimecfg.Model{Provider: "openai-codex", OpenAIRuntime: "CODEX_APP_SERVER"}, true},
		{runtimecfg.Model{Provider: "openai", OpenAIRuntime: "auto"}, false},
		{runtimecfg.Model{Provider: "openai"}, false},
		{runtimecfg.Model{Provider: "openrouter", OpenAIRuntime: "codex_app_server"}, false},
		{runtimecfg.Model{Provider: "", OpenAIRuntime: "codex_app_server"}, false},
	}
	for _, tt := range tests {
		if got := Selected(tt.m); got != tt.want {
			t.Errorf("Selected(%+v) = %v", tt.m, got)
		}
	}
}

func TestChildEnv(t *testing.T) {
	env := []string{"HOME=/home/u", "CODEX_HOME=/old", "PATH=/bin"}
	if got := ChildEnv(env, ""); !slices.Equal(got, env) {
		t.Errorf("no overlay: %v", got)
	}
	got := ChildEnv(env, "/new")
	if want := []string{"HOME=/home/u", "PATH=/bin", "CODEX_HOME=/new"}; !slices.Equal(got, want) {
		t.Errorf("overlay: %v", got)
	}
}

func TestDynamicTools(t *testing.T) {
	home := t.TempDir()
	tools, err := DynamicTools(AgentToolsets(home, "sess-1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]bridge.DynamicTool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	for _, n := range []string{"memory", "todo_list", "session_search"} {
		if _, ok := byName[n]; !ok {
			t.Fatalf("tool %s missing; have %v", n, tools)
		}
	}
	ctx := context.Background()
	tests := []struct {
		name, tool, args string
		isErr            bool
		has              string
	}{
		{"memory add", "memory", `{"action":"add","target":"memory","content":"prefers tabs"}`, false, `"success":true`},
		{"invalid args", "memory", `{"action":"explode","target":"memory"}`, true, "invalid arguments for memory"},
		{"todo write", "todo_list", `{"todos":[{"id":"1","content":"ship it","status":"pending"}]}`, false, "ship it"},
		{"todo read", "todo_list", ``, false, "ship it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := byName[tt.tool].Handler(ctx, json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if out.IsError != tt.isErr || len(out.Content) == 0 || !strings.Contains(out.Content[0].Text, tt.has) {
				t.Errorf("output %+v", out)
			}
		})
	}
	mem, err := os.ReadFile(filepath.Join(home, "memories", "MEMORY.md"))
	if err != nil || !strings.Contains(string(mem), "prefers tabs") {
		t.Errorf("MEMORY.md: %q, %v", mem, err)
	}
}
