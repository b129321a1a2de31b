package compress

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agentcore"
)

func msg(role string, n int) agentcore.Message {
	return agentcore.Message{Role: role, Content: strings.Repeat("x", n)}
}

func call() agentcore.Message {
	return agentcore.Message{Role: "assistant", ToolCalls: []agentcore.ToolCall{{ID: "c", Type: "function"}}}
}

func roles(ms []agentcore.Message) string {
	var r []string
	for _, m := range ms {
		r = append(r, m.Role[:1])
	}
	return strings.Join(r, "")
}

func TestPlan(t *testing.T) {
	s := Settings{Threshold: 0.5, TargetRatio: 0.2, ContextLength: 1000, ProtectFirstN: 1, ProtectLastN: 2}
	tests := []struct {
		name            string
		history         []agentcore.Message
		head, mid, tail string
	}{
		{"too short", []agentcore.Message{msg("user", 10), msg("assistant", 10), msg("user", 10)}, "uau", "", ""},
		{"plain", []agentcore.Message{msg("user", 400), msg("assistant", 400), msg("user", 400), msg("assistant", 400), msg("user", 400), msg("assistant", 400)}, "u", "aua", "ua"},
		{"tool results stay with their call", []agentcore.Message{msg("user", 400), msg("assistant", 400), msg("user", 400), call(), msg("tool", 400), msg("assistant", 10)}, "u", "au", "ata"},
		{"head keeps its call's results", []agentcore.Message{call(), msg("tool", 10), msg("user", 400), msg("assistant", 400), msg("user", 400), msg("assistant", 400)}, "at", "ua", "ua"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, m, tl := Plan(tt.history, s)
			if roles(h) != tt.head || roles(m) != tt.mid || roles(tl) != tt.tail {
				t.Errorf("Plan = %s | %s | %s; want %s | %s | %s", roles(h), roles(m), roles(tl), tt.head, tt.mid, tt.tail)
			}
		})
	}
}
