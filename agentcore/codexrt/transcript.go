package codexrt

import (
	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/bridge"
)

// transcript converts the bridge's projection of codex's items into the
// agent's transcript. The bridge keeps its own copy of the shape so that it
// need not import the agent; the two encode identically, which
// TestTranscriptEncodesLikeBridge holds them to.
func transcript(msgs []bridge.Message) []agentcore.Message {
	if msgs == nil {
		return nil
	}
	out := make([]agentcore.Message, len(msgs))
	for i, m := range msgs {
		out[i] = agentcore.Message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning, ToolCallID: m.ToolCallID}
		if m.ToolCalls != nil {
			out[i].ToolCalls = make([]agentcore.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				out[i].ToolCalls[j] = agentcore.ToolCall{ID: c.ID, Type: c.Type, Function: agentcore.FunctionCall(c.Function)}
			}
		}
	}
	return out
}
