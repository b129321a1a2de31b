package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/mcpclients"
	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// toolsBin is the real hermes-tools-mcp.
var toolsBin string

func TestMain(m *testing.M) { os.Exit(toolsbuild.Main(m, toolsbuild.Server, &toolsBin)) }

func testConfig(fc *fakechat.Server) Config {
	return Config{Model: "test-model", Provider: "custom", BaseURL: fc.BaseURL(), APIKey: "sk-test", MaxTurns: 10}
}

func newRuntime(t *testing.T, opts Options) *Runtime {
	t.Helper()
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestPlainStreamedAnswer(t *testing.T) {
	fc := fakechat.New(fakechat.Reply{Text: "Hello there, world!", Usage: &fakechat.Usage{PromptTokens: 12, CompletionTokens: 5, CachedTokens: 2, ReasoningTokens: 1}})
	defer fc.Close()
	var deltas []string
	r := newRuntime(t, Options{Config: testConfig(fc), SystemPrompt: "be brief", OnText: func(d string) { deltas = append(deltas, d) }})
	history := []agentcore.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hello"}}
	res, err := r.RunTurn(context.Background(), history, "greet me")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.Partial || res.Error != "" || res.FinalResponse != "Hello there, world!" || res.APICalls != 1 {
		t.Fatalf("result = %+v", res)
	}
	if len(deltas) < 2 || strings.Join(deltas, "") != res.FinalResponse {
		t.Errorf("deltas = %q; want the answer in several pieces", deltas)
	}
	want := agentcore.Usage{InputTokens: 12, OutputTokens: 5, CacheReadTokens: 2, ReasoningTokens: 1, TotalTokens: 17}
	if res.Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
	if len(res.Messages) != 4 || res.Messages[2].Content != "greet me" || res.Messages[3].Role != "assistant" {
		t.Errorf("messages = %+v", res.Messages)
	}
	req := fc.Requests()[0]
	if req.Body["model"] != "test-model" || req.Body["stream"] != true || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("request body/header wrong: %s", req.Raw)
	}
	msgs := req.Messages()
	if len(msgs) != 4 || msgs[0]["role"] != "system" || fakechat.TextOf(msgs[0]) != "be brief" || fakechat.TextOf(msgs[3]) != "greet me" {
		t.Errorf("request messages = %v", msgs)
	}
}

// TestToolsOverMCP runs a turn whose first response calls hermes-tools'
// skills_list and a user server's (another hermes-tools-mcp named docs)
// tool in one response, while a third configured server fails to start.
func TestToolsOverMCP(t *testing.T) {
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS("../../cmd/hermes-tools-mcp/testdata/home")); err != nil {
		t.Fatal(err)
	}
	mgr, err := mcpclients.Start(context.Background(), mcpclients.Options{
		HermesHome:  home,
		ToolsBinary: toolsBin,
		Servers: []configmigrate.Server{
			{Name: "docs", Command: toolsBin, Args: []string{"--hermes-home", home}},
			{Name: "broken", Command: filepath.Join(home, "missing-server")},
		},
		ConnectTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Close()

	fc := fakechat.New(
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{
			{ID: "call_a", Name: "skills_list", Arguments: `{}`},
			{ID: "call_b", Name: "mcp_docs_skills_list", Arguments: `{}`},
		}, Usage: &fakechat.Usage{PromptTokens: 100, CompletionTokens: 10}},
		fakechat.Reply{Text: "You have interop-deploy.", Usage: &fakechat.Usage{PromptTokens: 300, CompletionTokens: 7}},
	)
	defer fc.Close()
	var called []string
	r := newRuntime(t, Options{Config: testConfig(fc), Tools: mgr, Notes: []string{mgr.FailureNote()},
		OnToolCall: func(c agentcore.ToolCall) { called = append(called, c.Function.Name) }})
	res, err := r.RunTurn(context.Background(), nil, "which skills do I have?")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.APICalls != 2 || res.FinalResponse != "You have interop-deploy." || res.InputTokens != 400 || res.OutputTokens != 17 {
		t.Fatalf("result = %+v", res)
	}
	if strings.Join(called, ",") != "skills_list,mcp_docs_skills_list" {
		t.Errorf("OnToolCall saw %v", called)
	}
	// user, assistant(tool calls), tool, tool, assistant
	if len(res.Messages) != 5 {
		t.Fatalf("messages = %+v", res.Messages)
	}
	for i, id := range []string{"call_a", "call_b"} {
		m := res.Messages[2+i]
		if m.Role != "tool" || m.ToolCallID != id || !strings.Contains(m.Content, "interop-deploy") {
			t.Errorf("tool message %d = %+v", i, m)
		}
	}
	if tc := res.Messages[1].ToolCalls; len(tc) != 2 || tc[1].Function.Arguments != "{}" {
		t.Errorf("assistant tool calls = %+v", tc)
	}
	reqs := fc.Requests()
	tools := strings.Join(reqs[0].ToolNames(), ",")
	if !strings.Contains(tools, "skills_list") || !strings.Contains(tools, "mcp_docs_skills_list") || strings.Contains(tools, "broken") {
		t.Errorf("offered tools = %s", tools)
	}
	sys := fakechat.TextOf(reqs[0].Messages()[0])
	if !strings.Contains(sys, "broken") || !strings.Contains(sys, "unavailable") {
		t.Errorf("the model was not told about the failed server; system message: %q", sys)
	}
	second := reqs[1].Messages()
	// system, user, assistant (no text), tool, tool
	if len(second) != 5 || second[3]["role"] != "tool" || second[3]["tool_call_id"] != "call_a" || second[2]["content"] != nil {
		t.Errorf("second request messages = %v", second)
	}
}

// barrierTools answers only once both calls are in flight, so a serial
// executor would time out.
type barrierTools struct {
	wg sync.WaitGroup
}

func (b *barrierTools) Tools() []mcpclients.Tool {
	return []mcpclients.Tool{{Name: "wait", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}
}

func (b *barrierTools) Call(ctx context.Context, name, args string) string {
	b.wg.Done()
	done := make(chan struct{})
	go func() { b.wg.Wait(); close(done) }()
	select {
	case <-done:
		return `{"ok":` + args + `}`
	case <-time.After(5 * time.Second):
		return `{"error":"ran serially"}`
	}
}

func TestParallelToolCalls(t *testing.T) {
	fc := fakechat.New(
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "wait", Arguments: `1`}, {ID: "c2", Name: "wait", Arguments: `2`}}},
		fakechat.Reply{Text: "both done"},
	)
	defer fc.Close()
	bt := &barrierTools{}
	bt.wg.Add(2)
	r := newRuntime(t, Options{Config: testConfig(fc), Tools: bt})
	res, err := r.RunTurn(context.Background(), nil, "go")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.Messages[2].Content != `{"ok":1}` || res.Messages[3].Content != `{"ok":2}` {
		t.Fatalf("result = %+v", res)
	}
}

func TestAPIErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		want   []string
	}{
		{"server error", 500, []string{"HTTP 500", "upstream exploded", "retry later"}},
		{"unauthorized", 401, []string{"HTTP 401", "bad key", "OPENAI_API_KEY"}},
		{"not found", 404, []string{"HTTP 404", "model.default"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := map[int]string{500: "upstream exploded", 401: "bad key", 404: "no such model"}[tc.status]
			fc := fakechat.New(fakechat.Reply{Status: tc.status, ErrorMessage: msg})
			defer fc.Close()
			cfg := testConfig(fc)
			cfg.MaxRetries = 0
			res, err := newRuntime(t, Options{Config: cfg}).RunTurn(context.Background(), nil, "hi")
			if err != nil {
				t.Fatal(err)
			}
			if res.Completed || res.Error == "" || res.APICalls != 1 {
				t.Fatalf("result = %+v", res)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Error, w) {
					t.Errorf("error %q lacks %q", res.Error, w)
				}
			}
		})
	}
}

func TestMaxTurns(t *testing.T) {
	fc := fakechat.New()
	defer fc.Close()
	fc.SetHandler(func(fakechat.Request) fakechat.Reply {
		return fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "c", Name: "wait", Arguments: `{}`}}}
	})
	cfg := testConfig(fc)
	cfg.MaxTurns = 3
	r := newRuntime(t, Options{Config: cfg, Tools: noTools{}})
	res, err := r.RunTurn(context.Background(), nil, "loop")
	if err != nil {
		t.Fatal(err)
	}
	if res.Completed || !res.Partial || res.APICalls != 3 || len(fc.Requests()) != 3 || !strings.Contains(res.Error, "agent.max_turns = 3") {
		t.Fatalf("result = %+v", res)
	}
}

type noTools struct{}

func (noTools) Tools() []mcpclients.Tool                    { return nil }
func (noTools) Call(context.Context, string, string) string { return `{"error":"none"}` }

func TestInterrupt(t *testing.T) {
	fc := fakechat.New(fakechat.Reply{Text: "thinking about it", Hang: true})
	defer fc.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var seen strings.Builder
	r := newRuntime(t, Options{Config: testConfig(fc), OnText: func(d string) {
		seen.WriteString(d)
		if seen.String() == "thinking about it" {
			cancel()
		}
	}})
	start := time.Now()
	res, err := r.RunTurn(ctx, nil, "take your time")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || !res.Partial || res.Completed || res.Error != "" || time.Since(start) > 5*time.Second {
		t.Fatalf("result = %+v after %s", res, time.Since(start))
	}
	if last := res.Messages[len(res.Messages)-1]; last.Role != "assistant" || last.Content != "thinking about it" {
		t.Errorf("partial text not kept: %+v", res.Messages)
	}
}

func TestLoadConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		yaml    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{"mapping", "model:\n  default: m1\n  provider: custom\n  base_url: http://127.0.0.1:1/v1\n  api_key: k\nagent:\n  max_turns: 7\n", nil,
			Config{Model: "m1", Provider: "custom", BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", MaxTurns: 7, MaxRetries: 2, KeyHint: "OPENAI_API_KEY"}, ""},
		{"string model and env", "model: m2\n", map[string]string{"OPENAI_API_KEY": "ek", "OPENAI_BASE_URL": "http://127.0.0.1:2/v1"},
			Config{Model: "m2", BaseURL: "http://127.0.0.1:2/v1", APIKey: "ek", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENAI_API_KEY"}, ""},
		{"openai default endpoint", "model:\n  model: m3\n  provider: openai\n  api_key: ${MY_KEY}\n", map[string]string{"MY_KEY": "x"},
			Config{Model: "m3", Provider: "openai", BaseURL: DefaultBaseURL, APIKey: "x", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENAI_API_KEY"}, ""},
		{"no model", "agent:\n  max_turns: 3\n", nil, Config{}, "set model.default"},
		{"unknown provider without url", "model:\n  default: m\n  provider: together\n", nil, Config{}, "set model.base_url"},
		{"openrouter without key", "model:\n  default: m\n  provider: openrouter\n", map[string]string{"OPENAI_API_KEY": "oa"}, Config{}, "provider openrouter needs OPENROUTER_API_KEY (or model.api_key in "},
		{"auto without any key", "model: m\n", nil, Config{}, "provider openai needs OPENAI_API_KEY"},
		{"custom without url", "model:\n  default: m\n  provider: custom\n", nil, Config{}, "set model.base_url"},
		{"unknown provider with url is custom", "model:\n  default: m\n  provider: together\n  base_url: http://127.0.0.1:3/v1\n", map[string]string{"OPENAI_API_KEY": "ok"},
			Config{Model: "m", Provider: "together", BaseURL: "http://127.0.0.1:3/v1", APIKey: "ok", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENAI_API_KEY"}, ""},
		// The usual Hermes setup: the key never falls back to OpenAI's.
		{"openrouter", "model:\n  default: anthropic/claude-sonnet-4\n  provider: openrouter\n", map[string]string{"OPENROUTER_API_KEY": "or", "OPENAI_API_KEY": "oa", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
			Config{Model: "anthropic/claude-sonnet-4", Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1/", APIKey: "or", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENROUTER_API_KEY"}, ""},
		{"nous", "model:\n  default: Hermes-4-405B\n  provider: Nous\n", map[string]string{"NOUS_API_KEY": "nk"},
			Config{Model: "Hermes-4-405B", Provider: "nous", BaseURL: "https://inference-api.nousresearch.com/v1/", APIKey: "nk", MaxTurns: 90, MaxRetries: 2, KeyHint: "NOUS_API_KEY"}, ""},
		{"ollama needs no key", "model:\n  default: qwen3\n  provider: ollama\n", map[string]string{"OPENAI_API_KEY": "oa"},
			Config{Model: "qwen3", Provider: "ollama", BaseURL: "http://127.0.0.1:11434/v1/", MaxTurns: 90, MaxRetries: 2}, ""},
		{"llama.cpp alias", "model:\n  default: local\n  provider: llama.cpp\n", nil,
			Config{Model: "local", Provider: "llama.cpp", BaseURL: "http://127.0.0.1:8080/v1/", MaxTurns: 90, MaxRetries: 2}, ""},
		{"auto picks the provider whose key is set", "model: some/model\n", map[string]string{"OPENROUTER_API_KEY": "or"},
			Config{Model: "some/model", BaseURL: "https://openrouter.ai/api/v1/", APIKey: "or", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENROUTER_API_KEY"}, ""},
		{"config base_url wins over the table", "model:\n  default: m\n  provider: openrouter\n  base_url: http://127.0.0.1:4/v1\n", map[string]string{"OPENROUTER_API_KEY": "or"},
			Config{Model: "m", Provider: "openrouter", BaseURL: "http://127.0.0.1:4/v1", APIKey: "or", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENROUTER_API_KEY"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := LoadConfig(home, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestProviderOverride is hermes chat --provider: the override's endpoint
// and key replace the configured provider's, which config.yaml's base_url
// and api_key belong to.
func TestProviderOverride(t *testing.T) {
	home := t.TempDir()
	yaml := "model:\n  default: m\n  provider: custom\n  base_url: http://127.0.0.1:5/v1\n  api_key: local\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENROUTER_API_KEY": "or"}
	for _, tc := range []struct {
		provider string
		want     Config
	}{
		{"", Config{Model: "m", Provider: "custom", BaseURL: "http://127.0.0.1:5/v1", APIKey: "local", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENAI_API_KEY"}},
		{"Custom", Config{Model: "m", Provider: "custom", BaseURL: "http://127.0.0.1:5/v1", APIKey: "local", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENAI_API_KEY"}},
		{"openrouter", Config{Model: "m", Provider: "openrouter", BaseURL: "https://openrouter.ai/api/v1/", APIKey: "or", MaxTurns: 90, MaxRetries: 2, KeyHint: "OPENROUTER_API_KEY"}},
	} {
		got, err := LoadConfigProvider(home, tc.provider, func(k string) string { return env[k] })
		if err != nil || got != tc.want {
			t.Errorf("--provider %q: got %+v, %v; want %+v", tc.provider, got, err, tc.want)
		}
	}
}

// TestProvidersReachTheirEndpoint runs one turn per provider in the table
// against a local fake of its API, the endpoint redirected the way a user
// would (the provider's base-URL variable, else model.base_url), and
// checks the request carries that provider's key and no other.
func TestProvidersReachTheirEndpoint(t *testing.T) {
	keys := map[string]string{}
	for _, p := range Providers() {
		if p.KeyEnv != "" {
			keys[p.KeyEnv] = "key-in-" + p.KeyEnv
		}
	}
	for _, p := range Providers() {
		t.Run(p.Name, func(t *testing.T) {
			fc := fakechat.New(fakechat.Reply{Text: "hi from " + p.Name})
			defer fc.Close()
			env := map[string]string{}
			for k, v := range keys {
				env[k] = v
			}
			yaml := "model:\n  default: m\n  provider: " + p.Name + "\n"
			if p.BaseURLEnv != "" {
				env[p.BaseURLEnv] = fc.BaseURL()
			} else {
				yaml += "  base_url: " + fc.BaseURL() + "\n"
			}
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := LoadConfig(home, func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			res, err := newRuntime(t, Options{Config: cfg}).RunTurn(context.Background(), nil, "hello")
			if err != nil || !res.Completed || res.FinalResponse != "hi from "+p.Name {
				t.Fatalf("turn = %+v, %v", res, err)
			}
			got := fc.Requests()[0].Header.Get("Authorization")
			want := ""
			if p.KeyEnv != "" {
				want = "Bearer key-in-" + p.KeyEnv
			}
			if strings.TrimSpace(got) != want {
				t.Errorf("Authorization = %q, want %q", got, want)
			}
		})
	}
}

// TestMissingKeyFailsBeforeAnyRequest: every hosted provider in the table
// without its key is refused when the config is loaded and when a runtime
// is built, naming the variable and config.yaml, and the (fake) endpoint
// sees no request; local servers and custom run keyless.
func TestMissingKeyFailsBeforeAnyRequest(t *testing.T) {
	for _, p := range Providers() {
		t.Run(p.Name, func(t *testing.T) {
			fc := fakechat.New(fakechat.Reply{Text: "answered"})
			defer fc.Close()
			env := map[string]string{}
			yaml := "model:\n  default: m\n  provider: " + p.Name + "\n"
			if p.BaseURLEnv != "" {
				env[p.BaseURLEnv] = fc.BaseURL()
			} else {
				yaml += "  base_url: " + fc.BaseURL() + "\n"
			}
			home := t.TempDir()
			path := filepath.Join(home, "config.yaml")
			if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, loadErr := LoadConfig(home, func(k string) string { return env[k] })
			_, newErr := New(Options{Config: Config{Model: "m", Provider: p.Name, BaseURL: fc.BaseURL()}})
			if !needsKey(p) {
				if loadErr != nil || newErr != nil {
					t.Fatalf("keyless %s refused: %v / %v", p.Name, loadErr, newErr)
				}
				res, err := newRuntime(t, Options{Config: cfg}).RunTurn(context.Background(), nil, "hi")
				if err != nil || res.FinalResponse != "answered" {
					t.Fatalf("turn = %+v, %v", res, err)
				}
				return
			}
			want := "provider " + p.Name + " needs " + p.KeyEnv + " (or model.api_key in " + path + ")"
			if loadErr == nil || loadErr.Error() != want {
				t.Errorf("LoadConfig error = %v, want %q", loadErr, want)
			}
			if newErr == nil || !strings.Contains(newErr.Error(), "needs "+p.KeyEnv) {
				t.Errorf("New error = %v, want one naming %s", newErr, p.KeyEnv)
			}
			if n := len(fc.Requests()); n != 0 {
				t.Errorf("the endpoint got %d requests; want none", n)
			}
		})
	}
}
