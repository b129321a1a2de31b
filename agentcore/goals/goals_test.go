package goals

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		raw, verdict string
		failed       bool
	}{
		{`{"verdict": "done", "reason": "ok"}`, VerdictDone, false},
		{"```json\n{\"verdict\": \"BLOCKED\", \"reason\": \"x\"}\n```", VerdictBlocked, false},
		{`Sure! {"verdict": "continue", "reason": "more"} hope that helps`, VerdictContinue, false},
		{`{"done": true, "reason": "legacy"}`, VerdictDone, false},
		{`{"done": "no"}`, VerdictContinue, false},
		{`{"verdict": "wait", "wait_for_seconds": 60}`, VerdictContinue, false},
		{`{"verdict": "maybe"}`, VerdictContinue, false},
		{"", VerdictContinue, true},
		{"I think it is done.", VerdictContinue, true},
	}
	for _, tt := range tests {
		v, _, failed := parseVerdict(tt.raw)
		if v != tt.verdict || failed != tt.failed {
			t.Errorf("parseVerdict(%q) = %s, %v; want %s, %v", tt.raw, v, failed, tt.verdict, tt.failed)
		}
	}
}

type memStore map[string]string

func (m memStore) Meta(_ context.Context, k string) (string, bool, error) {
	v, ok := m[k]
	return v, ok, nil
}
func (m memStore) SetMeta(_ context.Context, k, v string) error { m[k] = v; return nil }

func TestPauses(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		maxTurns int
		judge    Judge
		turns    int
		want     string
	}{
		{"budget", 2, func(context.Context, string, string) (string, error) {
			return `{"verdict":"continue","reason":"r"}`, nil
		}, 2, "turn budget exhausted (2/2)"},
		{"unparseable", 20, func(context.Context, string, string) (string, error) { return "nope", nil }, 3, "unparseable output 3 turns"},
		{"unreachable", 20, func(context.Context, string, string) (string, error) { return "", errors.New("401") }, 5, "judge API unreachable 5 turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := memStore{}
			m, _ := Load(ctx, Options{Store: st, SessionID: "s", MaxTurns: tt.maxTurns})
			if _, err := m.Set(ctx, "g"); err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= tt.turns; i++ {
				d, err := m.AfterTurn(ctx, tt.judge, "answer")
				if err != nil {
					t.Fatal(err)
				}
				if d.Continue != (i < tt.turns) {
					t.Fatalf("turn %d: continue %v", i, d.Continue)
				}
			}
			again, err := Load(ctx, Options{Store: st, SessionID: "s"})
			if err != nil || again.State().Status != StatusPaused || !strings.Contains(str(again.State().PausedReason), tt.want) {
				t.Errorf("stored %s (%v), want paused with %q", st[MetaKey("s")], err, tt.want)
			}
		})
	}
}

func TestParseGoalContract(t *testing.T) {
	head, c := ParseGoal("ship the API\nverify: go test ./...\nscope: api/ only")
	if head != "ship the API" || c.Verification != "go test ./..." || c.Boundaries != "api/ only" || c.Outcome != "" {
		t.Errorf("ParseGoal = %q %+v", head, c)
	}
}
