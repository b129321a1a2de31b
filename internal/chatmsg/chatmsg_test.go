package chatmsg

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The encoding is the one state.db rows and the Python Hermes share: content
// is null only on an assistant message that calls tools, empty fields are
// left out except content.
func TestTranscriptJSON(t *testing.T) {
	msgs := []Message{
		{Role: "user", Content: "hi"},
		{Role: "assistant", Reasoning: "r", ToolCalls: []ToolCall{{ID: "a", Type: "function", Function: FunctionCall{Name: "f", Arguments: "{}"}}}},
		{Role: "tool", ToolCallID: "a"},
		{Role: "assistant"},
	}
	const want = `[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":null,"reasoning":"r","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","content":"","tool_call_id":"a"},` +
		`{"role":"assistant","content":""}]`
	b, err := json.Marshal(msgs)
	if err != nil || string(b) != want {
		t.Fatalf("Marshal = %s, %v\nwant %s", b, err, want)
	}
	var back []Message
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, msgs) {
		t.Errorf("round trip: %+v, %v", back, err)
	}
}
