package delegate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/codexrt"
	"github.com/hermes-go/hermes/agentcore/mcpclients"
	"github.com/hermes-go/hermes/agentcore/native"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/mcpserver/argschema"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// call validates args against the tool's schema, as every surface does,
// and runs the handler.
func call(t *testing.T, ctx context.Context, tool tooldef.Tool, args string) tooldef.Result {
	t.Helper()
	schema, err := argschema.Compile(tool.Name, tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate([]byte(args)); err != nil {
		t.Fatalf("arguments %s rejected: %v", args, err)
	}
	res, err := tool.Handler(ctx, json.RawMessage(args))
	if err != nil {
		t.Fatalf("handler error: %v", err)
	}
	return res
}

func output(t *testing.T, res tooldef.Result) Output {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool failed as a whole: %#v", res.Value)
	}
	out, ok := res.Value.(Output)
	if !ok {
		t.Fatalf("result value is %T", res.Value)
	}
	// The wire shape is the original's.
	b, err := tooldef.EncodeJSON(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["total_duration_seconds"]; !ok {
		t.Errorf("no total_duration_seconds in %s", b)
	}
	for _, r := range m["results"].([]any) {
		for _, k := range []string{"task_index", "status", "summary", "api_calls", "duration_seconds", "exit_reason", "tokens"} {
			if _, ok := r.(map[string]any)[k]; !ok {
				t.Errorf("result lacks %q: %s", k, b)
			}
		}
	}
	return out
}

func completed(goal, context string) agentcore.Result {
	return agentcore.Result{
		FinalResponse: "did " + goal + " with " + context, Completed: true, APICalls: 2, Model: "sub-model",
		Usage: agentcore.Usage{InputTokens: 100, OutputTokens: 20, TotalTokens: 120},
	}
}

// barrier releases its waiters once n have arrived; a waiter that is
// alone for too long (sequential execution) gets an error.
type barrier struct {
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, all: make(chan struct{})} }

func (b *barrier) wait(ctx context.Context) error {
	b.mu.Lock()
	b.arrived++
	if b.arrived == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(5 * time.Second):
		return errors.New("barrier: the other sub-agents never started (tasks ran sequentially)")
	}
}

func TestRun(t *testing.T) {
	type tc struct {
		name string
		opts Options
		args string
		// cancelAfter cancels the parent context once this many Runs
		// have started.
		cancelAfter int
		want        []string // statuses in task order
		check       func(t *testing.T, out Output)
	}
	var started atomic.Int32
	bar := newBarrier(3)
	cases := []tc{
		{
			name: "single task",
			opts: Options{Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
				task, ok := TaskFromContext(ctx)
				if !ok || task.Goal != goal || task.Context != c || task.Role != "leaf" || task.Index != 0 {
					return agentcore.Result{}, fmt.Errorf("task in context: %+v %v", task, ok)
				}
				return completed(goal, c), nil
			}},
			args: `{"goal":"count files","context":"in /srv"}`,
			want: []string{StatusCompleted},
			check: func(t *testing.T, out Output) {
				r := out.Results[0]
				if r.Summary != "did count files with in /srv" || r.APICalls != 2 || r.Model != "sub-model" ||
					r.Tokens != (Tokens{Input: 100, Output: 20}) || r.ExitReason != "completed" || r.Error != "" {
					t.Errorf("result %+v", r)
				}
			},
		},
		{
			name: "batch of 3 runs concurrently",
			opts: Options{MaxConcurrent: 3, Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
				if err := bar.wait(ctx); err != nil {
					return agentcore.Result{}, err
				}
				return completed(goal, c), nil
			}},
			args: `{"tasks":[{"goal":"a"},{"goal":"b","context":"cb"},{"goal":"c"}]}`,
			want: []string{StatusCompleted, StatusCompleted, StatusCompleted},
			check: func(t *testing.T, out Output) {
				for i, g := range []string{"a", "b", "c"} {
					if r := out.Results[i]; r.TaskIndex != i || !strings.HasPrefix(r.Summary, "did "+g+" ") {
						t.Errorf("result %d out of order: %+v", i, r)
					}
				}
			},
		},
		{
			name: "one task fails, the others complete",
			opts: Options{Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
				switch goal {
				case "boom":
					return agentcore.Result{}, errors.New("model API rejected the credentials")
				case "budget":
					return agentcore.Result{FinalResponse: "half", Partial: true, APICalls: 90, Error: "stopped after 90 model calls"}, nil
				case "panic":
					panic("bug")
				}
				return completed(goal, c), nil
			}},
			args: `{"tasks":[{"goal":"ok"},{"goal":"boom"},{"goal":"budget"},{"goal":"panic"}]}`,
			want: []string{StatusCompleted, StatusFailed, StatusFailed, StatusFailed},
			check: func(t *testing.T, out Output) {
				if r := out.Results[1]; r.Error != "model API rejected the credentials" || r.ExitReason != "error" {
					t.Errorf("error task: %+v", r)
				}
				if r := out.Results[2]; r.Error != "stopped after 90 model calls" || r.Summary != "half" || r.APICalls != 90 {
					t.Errorf("partial task: %+v", r)
				}
				if r := out.Results[3]; !strings.Contains(r.Error, "crashed") {
					t.Errorf("panicking task: %+v", r)
				}
			},
		},
		{
			name: "timeout hits the slow task only",
			opts: Options{Timeout: 100 * time.Millisecond, Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
				if goal == "slow" {
					<-ctx.Done()
					return agentcore.Result{Interrupted: true, Partial: true, APICalls: 1}, nil
				}
				return completed(goal, c), nil
			}},
			args: `{"tasks":[{"goal":"slow"},{"goal":"fast"}]}`,
			want: []string{StatusTimeout, StatusCompleted},
			check: func(t *testing.T, out Output) {
				if r := out.Results[0]; !strings.Contains(r.Error, "100ms") || r.APICalls != 1 || r.DurationSeconds < 0.1 {
					t.Errorf("timed-out task: %+v", r)
				}
			},
		},
		{
			name: "parent cancel interrupts every task",
			opts: Options{Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
				started.Add(1)
				<-ctx.Done()
				return agentcore.Result{}, ctx.Err()
			}},
			args:        `{"tasks":[{"goal":"a"},{"goal":"b"}]}`,
			cancelAfter: 2,
			want:        []string{StatusInterrupted, StatusInterrupted},
		},
		{
			name: "interrupted sub-agent result",
			opts: Options{Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
				return agentcore.Result{Interrupted: true, Partial: true}, nil
			}},
			args: `{"goal":"x"}`,
			want: []string{StatusInterrupted},
		},
		{
			name: "tasks win over goal and inherit role",
			opts: Options{Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
				if goal == "top" {
					return agentcore.Result{}, errors.New("top-level goal ran")
				}
				return completed(goal, c), nil
			}},
			args: `{"goal":"top","role":"leaf","tasks":[{"goal":"t"}]}`,
			want: []string{StatusCompleted},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			started.Store(0)
			if c.cancelAfter > 0 {
				go func() {
					for started.Load() < int32(c.cancelAfter) {
						time.Sleep(time.Millisecond)
					}
					cancel()
				}()
			}
			out := output(t, call(t, ctx, Tool(c.opts), c.args))
			var got []string
			for _, r := range out.Results {
				got = append(got, r.Status)
				if r.Status != StatusCompleted && r.Error == "" {
					t.Errorf("task %d is %s without an error", r.TaskIndex, r.Status)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("statuses %v, want %v (results %+v)", got, c.want, out.Results)
			}
			if c.check != nil {
				c.check(t, out)
			}
		})
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	var inFlight, peak atomic.Int32
	tool := Tool(Options{MaxConcurrent: 2, Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		return completed(goal, c), nil
	}})
	out := output(t, call(t, context.Background(), tool, `{"tasks":[{"goal":"1"},{"goal":"2"},{"goal":"3"},{"goal":"4"},{"goal":"5"}]}`))
	if len(out.Results) != 5 || peak.Load() != 2 {
		t.Fatalf("peak concurrency %d over %d results, want 2", peak.Load(), len(out.Results))
	}
}

func TestRunThatIgnoresCancellationIsLeftBehind(t *testing.T) {
	old := abandonAfter
	abandonAfter = 50 * time.Millisecond
	defer func() { abandonAfter = old }()
	release := make(chan struct{})
	defer close(release)
	tool := Tool(Options{Timeout: 20 * time.Millisecond, Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
		<-release
		return agentcore.Result{}, nil
	}})
	start := time.Now()
	out := output(t, call(t, context.Background(), tool, `{"goal":"stuck"}`))
	if r := out.Results[0]; r.Status != StatusTimeout || !strings.Contains(r.Error, "left behind") {
		t.Fatalf("result %+v", r)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("handler waited %s for a stuck sub-agent", d)
	}
}

func TestSubagentCannotDelegate(t *testing.T) {
	var ran atomic.Bool
	tool := Tool(Options{Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
		ran.Store(true)
		return completed(goal, c), nil
	}})
	// A sub-agent's tool calls carry its Run context; a leaked
	// delegate_task must refuse.
	ctx := context.WithValue(context.Background(), taskKey{}, Task{Goal: "parent"})
	res := call(t, ctx, tool, `{"goal":"recurse"}`)
	if !res.IsError || ran.Load() || !strings.Contains(fmt.Sprint(res.Value), "not available to sub-agents") {
		t.Fatalf("nested call: %#v (ran %v)", res, ran.Load())
	}
}

func TestDeclaration(t *testing.T) {
	tool := Tool(Options{})
	if tool.Name != "delegate_task" || tool.Hints.ReadOnly || !tool.Hints.OpenWorld || tool.Hints.Idempotent {
		t.Errorf("declaration %+v", tool.Hints)
	}
	if tool.Check() == nil {
		t.Error("a tool without a runner must not be offered")
	}
	if err := Tool(Options{Run: NativeRunner(native.Options{})}).Check(); err != nil {
		t.Errorf("check with a runner: %v", err)
	}
	for _, s := range []string{"acp", "leaf", "fresh conversation", "10 per call", "3 at a time"} {
		if !strings.Contains(tool.Description, s) {
			t.Errorf("description lacks %q: %s", s, tool.Description)
		}
	}
	if ts := Toolset(Options{}); ts.Name != "delegation" || len(ts.Tools) != 1 || ts.Tools[0].Name != Name {
		t.Errorf("toolset %+v", ts)
	}
}

func TestSchema(t *testing.T) {
	plain := Tool(Options{MaxTasks: 3})
	withToolsets := Tool(Options{MaxTasks: 3, Toolsets: []string{"web", "terminal"}})
	cases := []struct {
		tool  tooldef.Tool
		args  string
		valid bool
	}{
		{plain, `{"goal":"x"}`, true},
		{plain, `{"goal":"x","context":"y","role":"leaf"}`, true},
		{plain, `{"tasks":[{"goal":"a"},{"goal":"b","context":"c","role":"leaf"}]}`, true},
		{plain, `{}`, false},
		{plain, `{"goal":""}`, false},
		{plain, `{"context":"only"}`, false},
		{plain, `{"tasks":[]}`, false},
		{plain, `{"tasks":[{"context":"no goal"}]}`, false},
		{plain, `{"tasks":[{"goal":""}]}`, false},
		{plain, `{"tasks":[{"goal":"1"},{"goal":"2"},{"goal":"3"},{"goal":"4"}]}`, false},
		{plain, `{"goal":"x","role":"orchestrator"}`, false},
		{plain, `{"goal":"x","acp_command":"claude"}`, false},
		{plain, `{"goal":"x","toolsets":["web"]}`, false},
		{withToolsets, `{"goal":"x","toolsets":["web"]}`, true},
		{withToolsets, `{"tasks":[{"goal":"x","toolsets":["terminal","web"]}]}`, true},
		{withToolsets, `{"goal":"x","toolsets":["nope"]}`, false},
	}
	for _, c := range cases {
		schema, err := argschema.Compile(c.tool.Name, c.tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if err := schema.Validate([]byte(c.args)); (err == nil) != c.valid {
			t.Errorf("%s: valid=%v, got error %v", c.args, c.valid, err)
		}
	}
}

func TestToolsetsReachRun(t *testing.T) {
	var mu sync.Mutex
	got := map[string][]string{}
	tool := Tool(Options{Toolsets: []string{"web", "terminal"}, Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
		task, _ := TaskFromContext(ctx)
		mu.Lock()
		got[goal] = task.Toolsets
		mu.Unlock()
		return completed(goal, c), nil
	}})
	output(t, call(t, context.Background(), tool, `{"toolsets":["web"],"tasks":[{"goal":"a"},{"goal":"b","toolsets":["terminal"]}]}`))
	if fmt.Sprint(got["a"]) != "[web]" || fmt.Sprint(got["b"]) != "[terminal]" {
		t.Fatalf("toolsets %v", got)
	}
}

// fakeTools is a parent tool set that (wrongly) includes delegate_task.
type fakeTools struct{ calls atomic.Int32 }

func (f *fakeTools) Tools() []mcpclients.Tool {
	return []mcpclients.Tool{
		{Name: "read_file", Description: "read", Parameters: map[string]any{"type": "object"}},
		{Name: Name, Description: "delegate", Parameters: map[string]any{"type": "object"}},
	}
}

func (f *fakeTools) Call(ctx context.Context, name, argsJSON string) string {
	f.calls.Add(1)
	return `{"content":"42 lines"}`
}

func TestNativeSubagentEndToEnd(t *testing.T) {
	fc := fakechat.New(
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"/srv/notes.txt"}`}},
			Usage: &fakechat.Usage{PromptTokens: 50, CompletionTokens: 5}},
		fakechat.Reply{Text: "The notes file has 42 lines.", Usage: &fakechat.Usage{PromptTokens: 80, CompletionTokens: 9}},
	)
	defer fc.Close()
	tools := &fakeTools{}
	run := NativeRunner(native.Options{
		Config: native.Config{Model: "sub-model", Provider: "custom", BaseURL: fc.BaseURL(), APIKey: "sk-test", MaxTurns: 5},
		Tools:  tools,
	})
	tool := Tool(Options{Run: run, Timeout: 30 * time.Second})
	out := output(t, call(t, context.Background(), tool, `{"goal":"Count the lines of the notes file","context":"The file is /srv/notes.txt."}`))

	r := out.Results[0]
	if r.Status != StatusCompleted || r.Summary != "The notes file has 42 lines." || r.APICalls != 2 ||
		r.Model != "sub-model" || r.Tokens != (Tokens{Input: 130, Output: 14}) {
		t.Fatalf("result %+v", r)
	}
	if tools.calls.Load() != 1 {
		t.Errorf("sub-agent ran %d tool calls, want 1", tools.calls.Load())
	}
	reqs := fc.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[0].Messages()
	// A fresh conversation: the sub-agent prompt and one user message.
	if len(msgs) != 2 || msgs[0]["role"] != "system" || fakechat.TextOf(msgs[0]) != SubagentPrompt || msgs[1]["role"] != "user" {
		t.Fatalf("first request messages %v", msgs)
	}
	user := fakechat.TextOf(msgs[1])
	if !strings.Contains(user, "Count the lines of the notes file") || !strings.Contains(user, "The file is /srv/notes.txt.") {
		t.Errorf("user message %q lacks the goal or context", user)
	}
	for _, req := range reqs {
		if names := req.ToolNames(); fmt.Sprint(names) != "[read_file]" {
			t.Errorf("sub-agent offered tools %v; delegate_task must be hidden", names)
		}
	}
}

func TestNativeRunnerConfigError(t *testing.T) {
	tool := Tool(Options{Run: NativeRunner(native.Options{Config: native.Config{Model: "m", Provider: "nowhere"}})})
	out := output(t, call(t, context.Background(), tool, `{"goal":"x"}`))
	if r := out.Results[0]; r.Status != StatusFailed || !strings.Contains(r.Error, "base_url") {
		t.Fatalf("result %+v", r)
	}
}

// The declaration plugs into codex's dynamic tools as memory and todo do.
func TestCodexDynamicTool(t *testing.T) {
	dts, err := codexrt.DynamicTools([]tooldef.Toolset{Toolset(Options{Run: func(ctx context.Context, goal, c string) (agentcore.Result, error) {
		return completed(goal, c), nil
	}})}, nil)
	if err != nil || len(dts) != 1 || dts[0].Name != Name {
		t.Fatalf("dynamic tools %v, %v", dts, err)
	}
	res, err := dts[0].Handler(context.Background(), json.RawMessage(`{"goal":"g","context":"c"}`))
	if err != nil || res.IsError || len(res.Content) != 1 {
		t.Fatalf("dynamic call: %+v, %v", res, err)
	}
	var out Output
	if err := json.Unmarshal([]byte(res.Content[0].Text), &out); err != nil || out.Results[0].Status != StatusCompleted || out.Results[0].Summary != "did g with c" {
		t.Fatalf("dynamic result %s (%v)", res.Content[0].Text, err)
	}
	bad, _ := dts[0].Handler(context.Background(), json.RawMessage(`{"goal":"g","role":"orchestrator"}`))
	if !bad.IsError {
		t.Errorf("orchestrator role accepted: %+v", bad)
	}
}

// The parent's native runtime offers delegate_task next to its MCP tools;
// the sub-agent (built from the inner tools) does not get it, and its
// answer comes back to the parent model as summary.
func TestNativeParentDelegates(t *testing.T) {
	fc := fakechat.New()
	defer fc.Close()
	fc.SetHandler(func(req fakechat.Request) fakechat.Reply {
		msgs := req.Messages()
		first := firstUser(msgs)
		switch {
		case first == "parent question" && len(msgs) == 1:
			return fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "d1", Name: Name, Arguments: `{"goal":"sub goal","context":"sub context"}`}}}
		case first == "parent question":
			return fakechat.Reply{Text: "parent saw: " + fakechat.TextOf(msgs[len(msgs)-1])}
		default:
			return fakechat.Reply{Text: "sub answer"}
		}
	})
	inner := &fakeTools{}
	cfg := native.Config{Model: "m", Provider: "custom", BaseURL: fc.BaseURL(), APIKey: "k", MaxTurns: 5}
	// fakeTools wrongly carries delegate_task; ParentTools replaces it
	// with the real one, NativeRunner hides it from the sub-agent.
	tools, err := ParentTools(inner, Tool(Options{Run: NativeRunner(native.Options{Config: cfg, Tools: inner})}))
	if err != nil {
		t.Fatal(err)
	}
	if names := fmt.Sprint(toolNames(tools.Tools())); names != "[read_file delegate_task]" {
		t.Fatalf("parent tools %s", names)
	}
	rt, err := native.New(native.Options{Config: cfg, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rt.RunTurn(context.Background(), nil, "parent question")
	if err != nil || !res.Completed {
		t.Fatalf("parent turn: %+v, %v", res, err)
	}
	if !strings.Contains(res.FinalResponse, `"summary":"sub answer"`) || !strings.Contains(res.FinalResponse, `"status":"completed"`) {
		t.Fatalf("parent final %q", res.FinalResponse)
	}
	for _, req := range fc.Requests() {
		if firstUser(req.Messages()) != "parent question" && fmt.Sprint(req.ToolNames()) != "[read_file]" {
			t.Errorf("sub-agent offered %v", req.ToolNames())
		}
	}
	if bad := tools.Call(context.Background(), Name, `{"goal":"x","bogus":1}`); !strings.Contains(bad, "invalid arguments") {
		t.Errorf("invalid call answered %s", bad)
	}
}

func toolNames(ts []mcpclients.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func firstUser(msgs []map[string]any) string {
	for _, m := range msgs {
		if m["role"] == "user" {
			return fakechat.TextOf(m)
		}
	}
	return ""
}
