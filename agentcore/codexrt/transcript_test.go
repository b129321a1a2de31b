package codexrt

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/bridge"
)

// The bridge's transcript and the agent's are two copies of one shape; a
// field added to one and not the other would be dropped by transcript or
// change what state.db stores.
func TestTranscriptEncodesLikeBridge(t *testing.T) {
	for _, pair := range [][2]reflect.Type{
		{reflect.TypeFor[bridge.Message](), reflect.TypeFor[agentcore.Message]()},
		{reflect.TypeFor[bridge.ToolCall](), reflect.TypeFor[agentcore.ToolCall]()},
		{reflect.TypeFor[bridge.FunctionCall](), reflect.TypeFor[agentcore.FunctionCall]()},
	} {
		if got, want := fieldsOf(pair[1]), fieldsOf(pair[0]); !reflect.DeepEqual(got, want) {
			t.Errorf("%v has fields %v, %v has %v", pair[1], got, pair[0], want)
		}
	}

	in := []bridge.Message{
		{Role: "user", Content: "list the files"},
		{Role: "assistant", Reasoning: "r", ToolCalls: []bridge.ToolCall{
			{ID: "codex_exec_c1", Type: "function", Function: bridge.FunctionCall{Name: "exec_command", Arguments: `{"command": "ls"}`}},
			{ID: "codex_dyn_d1", Type: "function", Function: bridge.FunctionCall{Name: "lookup", Arguments: "{}"}},
		}},
		{Role: "tool", ToolCallID: "codex_exec_c1", Content: ""},
		{Role: "assistant", Content: "", ToolCalls: []bridge.ToolCall{}},
		{Role: "assistant", Content: "done"},
	}
	want, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(transcript(in))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("converted transcript encodes as\n%s\nthe bridge's as\n%s", got, want)
	}
	if transcript(nil) != nil {
		t.Error("a nil transcript converts to non-nil")
	}
}

// fieldsOf lists a struct's fields as name, tag and kind; the element types
// of the two copies differ by package and are compared pair by pair above.
func fieldsOf(typ reflect.Type) []string {
	var out []string
	for f := range typ.Fields() {
		out = append(out, f.Name+" `"+string(f.Tag)+"` "+f.Type.Kind().String())
	}
	return out
}
