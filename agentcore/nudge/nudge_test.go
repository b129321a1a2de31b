package nudge_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/native"
	"github.com/hermes-go/hermes/agentcore/nudge"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// turn is one user turn fed to AfterTurn.
type turn struct {
	iters       int
	called      []string
	final       string // "" means no final response
	interrupted bool
}

func done(iters int, called ...string) turn { return turn{iters: iters, called: called, final: "ok"} }

func TestCounters(t *testing.T) {
	tests := []struct {
		name      string
		cfg       nudge.Config
		prior     int // Rehydrate(prior) when > 0
		turns     []turn
		want      []nudge.Review // one per turn
		wantState [2]int         // counters after the last turn
	}{
		{
			name:      "memory every third user turn",
			cfg:       nudge.Config{MemoryInterval: 3},
			turns:     []turn{done(0), done(0), done(0), done(0), done(0), done(0)},
			want:      []nudge.Review{{}, {}, {Memory: true}, {}, {}, {Memory: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "default intervals: ten turns",
			cfg:       nudge.DefaultConfig(),
			turns:     []turn{done(0), done(0), done(0), done(0), done(0), done(0), done(0), done(0), done(0), done(0)},
			want:      []nudge.Review{{}, {}, {}, {}, {}, {}, {}, {}, {}, {Memory: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "a memory call restarts the turn count",
			cfg:       nudge.Config{MemoryInterval: 3},
			turns:     []turn{done(0), done(1, "memory"), done(0), done(0), done(0)},
			want:      []nudge.Review{{}, {}, {}, {}, {Memory: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "a due turn stays due when it calls memory (decided before the loop)",
			cfg:       nudge.Config{MemoryInterval: 2},
			turns:     []turn{done(0), done(1, "memory"), done(0)},
			want:      []nudge.Review{{}, {Memory: true}, {}},
			wantState: [2]int{1, 0},
		},
		{
			name:      "tool iterations add up across turns",
			cfg:       nudge.Config{SkillInterval: 10},
			turns:     []turn{done(4), done(5), done(1), done(9), done(2)},
			want:      []nudge.Review{{}, {}, {Skills: true}, {}, {Skills: true}},
			wantState: [2]int{0, 0},
		},
		{
			name: "codex tool iterations count the same",
			cfg:  nudge.Config{SkillInterval: 5},
			// A codex turn reports its items' tool calls in ToolIterations.
			turns:     []turn{done(3, "mcp_hermes_tools_web_search", "terminal", "memory"), done(2)},
			want:      []nudge.Review{{}, {Skills: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "skill_manage restarts the iteration count",
			cfg:       nudge.Config{SkillInterval: 5},
			turns:     []turn{done(4), done(3, "skill_manage"), done(4), done(1)},
			want:      []nudge.Review{{}, {}, {}, {Skills: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "both due in one turn",
			cfg:       nudge.Config{MemoryInterval: 2, SkillInterval: 3},
			turns:     []turn{done(1), done(2)},
			want:      []nudge.Review{{}, {Memory: true, Skills: true}},
			wantState: [2]int{0, 0},
		},
		{
			name: "interrupted: no review, counts still restart",
			cfg:  nudge.Config{MemoryInterval: 2, SkillInterval: 2},
			turns: []turn{done(0), {iters: 3, final: "partial text", interrupted: true},
				done(0), done(0)},
			want:      []nudge.Review{{}, {}, {}, {Memory: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "no final response: no review, counts still restart",
			cfg:       nudge.Config{MemoryInterval: 1, SkillInterval: 1},
			turns:     []turn{{iters: 2}, done(0)},
			want:      []nudge.Review{{}, {Memory: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "zero disables",
			cfg:       nudge.Config{},
			turns:     []turn{done(50), done(50), done(50)},
			want:      []nudge.Review{{}, {}, {}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "the review agent's config never nudges",
			cfg:       nudge.ReviewConfig,
			turns:     []turn{done(100, "memory")},
			want:      []nudge.Review{{}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "rehydrated: 23 prior turns with interval 10 leave 3",
			cfg:       nudge.Config{MemoryInterval: 10, SkillInterval: 10},
			prior:     23,
			turns:     []turn{done(0), done(0), done(0), done(0), done(0), done(0), done(0)},
			want:      []nudge.Review{{}, {}, {}, {}, {}, {}, {Memory: true}},
			wantState: [2]int{0, 0},
		},
		{
			name:      "rehydrated on a multiple of the interval starts at zero",
			cfg:       nudge.Config{MemoryInterval: 5},
			prior:     10,
			turns:     []turn{done(0), done(0), done(0), done(0), done(0)},
			want:      []nudge.Review{{}, {}, {}, {}, {Memory: true}},
			wantState: [2]int{0, 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := nudge.New(tt.cfg)
			if tt.prior > 0 {
				c.Rehydrate(tt.prior)
			}
			for i, tn := range tt.turns {
				res := agentcore.Result{FinalResponse: tn.final, ToolIterations: tn.iters, Interrupted: tn.interrupted, Completed: !tn.interrupted && tn.final != ""}
				if got := c.AfterTurn(res, tn.called); got != tt.want[i] {
					t.Fatalf("turn %d: review %+v, want %+v", i+1, got, tt.want[i])
				}
			}
			if m, s := c.State(); [2]int{m, s} != tt.wantState {
				t.Fatalf("state %d/%d, want %v", m, s, tt.wantState)
			}
		})
	}
}

func TestHelpersAndConfig(t *testing.T) {
	msgs := []agentcore.Message{
		{Role: "user", Content: "a"},
		{Role: "assistant", ToolCalls: []agentcore.ToolCall{{ID: "1", Function: agentcore.FunctionCall{Name: "memory"}}, {ID: "2", Function: agentcore.FunctionCall{Name: "terminal"}}}},
		{Role: "tool", ToolCallID: "1"}, {Role: "tool", ToolCallID: "2"},
		{Role: "assistant", Content: "b"}, {Role: "user", Content: "c"},
	}
	if n := nudge.UserTurns(msgs); n != 2 {
		t.Fatalf("UserTurns = %d", n)
	}
	if got := strings.Join(nudge.CalledTools(msgs), ","); got != "memory,terminal" {
		t.Fatalf("CalledTools = %s", got)
	}

	home := t.TempDir()
	if cfg, err := nudge.LoadConfig(home); err != nil || cfg != nudge.DefaultConfig() {
		t.Fatalf("no config.yaml: %+v %v", cfg, err)
	}
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("memory:\n  nudge_interval: 0 # off\n  memory_enabled: true\nskills:\n  external_dirs: []\n")
	if cfg, err := nudge.LoadConfig(home); err != nil || cfg != (nudge.Config{MemoryInterval: 0, SkillInterval: 10}) {
		t.Fatalf("memory off: %+v %v", cfg, err)
	}
	write("skills:\n  creation_nudge_interval: 4\n")
	if cfg, err := nudge.LoadConfig(home); err != nil || cfg != (nudge.Config{MemoryInterval: 10, SkillInterval: 4}) {
		t.Fatalf("skills 4: %+v %v", cfg, err)
	}
	write("memory:\n  nudge_interval: often\n")
	if _, err := nudge.LoadConfig(home); err == nil || !strings.Contains(err.Error(), "must be integers") {
		t.Fatalf("bad value: %v", err)
	}
}

func TestReviewerRunsInBackgroundAndCloseWaits(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []struct {
		history []agentcore.Message
		prompt  string
	}
	run := func(ctx context.Context, history []agentcore.Message, prompt string) (agentcore.Result, error) {
		<-release
		mu.Lock()
		got = append(got, struct {
			history []agentcore.Message
			prompt  string
		}{history, prompt})
		mu.Unlock()
		return agentcore.Result{FinalResponse: "Nothing to save.", Completed: true}, nil
	}
	outcomes := make(chan nudge.Outcome, 4)
	r := nudge.NewReviewer(context.Background(), run, func(o nudge.Outcome) { outcomes <- o })

	transcript := []agentcore.Message{{Role: "user", Content: "I prefer tabs"}, {Role: "assistant", Content: "Noted."}}
	if ok, err := r.Start(transcript, nudge.Review{}); ok || err != nil {
		t.Fatalf("nothing due started a review: %v %v", ok, err)
	}
	if ok, err := r.Start(transcript, nudge.Review{Memory: true}); !ok || err != nil {
		t.Fatalf("Start = %v %v", ok, err)
	}
	transcript[0].Content = "changed after the snapshot"

	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a review was running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-closed
	o := <-outcomes
	if o.Err != nil || !o.Review.Memory || o.Result.FinalResponse != "Nothing to save." {
		t.Fatalf("outcome %+v", o)
	}
	if len(got) != 1 || got[0].prompt != nudge.MemoryReviewPrompt || got[0].history[0].Content != "I prefer tabs" {
		t.Fatalf("run got %+v", got)
	}
	if _, err := r.Start(transcript, nudge.Review{Skills: true}); err != nudge.ErrClosed {
		t.Fatalf("Start after Close: %v", err)
	}
}

func TestReviewerStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	run := func(ctx context.Context, _ []agentcore.Message, _ string) (agentcore.Result, error) {
		<-ctx.Done()
		return agentcore.Result{Interrupted: true}, nil
	}
	var out nudge.Outcome
	r := nudge.NewReviewer(ctx, run, func(o nudge.Outcome) { out = o })
	if _, err := r.Start(nil, nudge.Review{Skills: true}); err != nil {
		t.Fatal(err)
	}
	cancel()
	r.Close()
	if !out.Result.Interrupted || !out.Review.Skills {
		t.Fatalf("outcome %+v", out)
	}
}

// The review turn goes to the model on the native runtime with the
// transcript and the review prompt.
func TestReviewOnNativeRuntime(t *testing.T) {
	fc := fakechat.New(fakechat.Reply{Text: "Nothing to save."})
	defer fc.Close()
	run, err := nudge.NativeRunner(native.Options{
		Config:       native.Config{Model: "review-model", Provider: "custom", BaseURL: fc.BaseURL(), APIKey: "sk-test", MaxTurns: 4},
		SystemPrompt: "You are Hermes.",
	})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := make(chan nudge.Outcome, 1)
	r := nudge.NewReviewer(context.Background(), run, func(o nudge.Outcome) { outcomes <- o })
	transcript := []agentcore.Message{
		{Role: "user", Content: "Call me Sam, and always answer in French."},
		{Role: "assistant", Content: "D'accord, Sam."},
	}
	if _, err := r.Start(transcript, nudge.Review{Memory: true, Skills: true}); err != nil {
		t.Fatal(err)
	}
	r.Close()
	o := <-outcomes
	if o.Err != nil || o.Result.FinalResponse != "Nothing to save." || !o.Result.Completed {
		t.Fatalf("outcome %+v", o)
	}
	reqs := fc.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if reqs[0].Body["model"] != "review-model" {
		t.Fatalf("model %v", reqs[0].Body["model"])
	}
	msgs := reqs[0].Messages()
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,user" {
		t.Fatalf("roles %v", roles)
	}
	if fakechat.TextOf(msgs[1]) != transcript[0].Content || fakechat.TextOf(msgs[2]) != transcript[1].Content {
		t.Fatalf("transcript not sent: %v", msgs)
	}
	if fakechat.TextOf(msgs[3]) != nudge.CombinedReviewPrompt {
		t.Fatalf("last message %q, want the review prompt", fakechat.TextOf(msgs[3]))
	}
}

// A skill_manage call through codex's MCP (named mcp.<server>.<tool> in
// the transcript) restarts the skill count as an in-process one does.
func TestSkillCountRestartsOnMCPSkillManage(t *testing.T) {
	for _, name := range []string{"skill_manage", "mcp.hermes-tools.skill_manage"} {
		c := nudge.New(nudge.Config{SkillInterval: 10})
		c.AfterTurn(agentcore.Result{FinalResponse: "x", ToolIterations: 6}, nil)
		c.AfterTurn(agentcore.Result{FinalResponse: "x", ToolIterations: 2}, []string{name})
		if _, iters := c.State(); iters != 0 {
			t.Errorf("%s: skill count %d after the call, want 0", name, iters)
		}
	}
}
