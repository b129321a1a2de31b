package stdio

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

func TestToolListFastPathMatchesGeneric(t *testing.T) {
	ttl := int64(60000)
	plain := mcp.Tool{
		Name: "search", Title: "Search <the> web & more", Description: "Finds things: \"quoted\", <b>, &amp;, \u2028 and ünïcode.",
		RawInputSchema:  json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"a <query> & more"}}}`),
		RawOutputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations:     mcp.ToolAnnotation{Title: "Search", ReadOnlyHint: mcp.ToBoolPtr(true), OpenWorldHint: mcp.ToBoolPtr(true)},
	}
	bare := mcp.Tool{Name: "bare", RawInputSchema: json.RawMessage(`{"type":"object"}`)}
	withIcon := plain
	withIcon.Icons = []mcp.Icon{{Src: "https://example.com/i.png"}}
	indented := bare
	indented.RawInputSchema = json.RawMessage("{\n  \"type\": \"object\"\n}")
	broken := bare
	broken.RawInputSchema = json.RawMessage(`{"type":`)

	paged := &mcp.ListToolsResult{Tools: []mcp.Tool{plain, bare}}
	paged.NextCursor = "next-page"
	paged.TTLMs = &ttl
	paged.Meta = &mcp.Meta{AdditionalFields: map[string]any{"k": "v"}}

	tests := []struct {
		name     string
		result   *mcp.ListToolsResult
		wantFast bool
	}{
		{"plain tools", &mcp.ListToolsResult{Tools: []mcp.Tool{plain, bare}}, true},
		{"no tools", &mcp.ListToolsResult{Tools: []mcp.Tool{}}, true},
		{"pagination, cache hints and _meta", paged, true},
		{"a tool with icons", &mcp.ListToolsResult{Tools: []mcp.Tool{plain, withIcon}}, false},
		{"an indented schema", &mcp.ListToolsResult{Tools: []mcp.Tool{indented}}, false},
		{"an invalid schema", &mcp.ListToolsResult{Tools: []mcp.Tool{broken}}, false},
	}
	for _, tt := range tests {
		resp := mcp.JSONRPCResponse{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(7)), Result: tt.result}
		fast, ok, err := marshalToolList(resp.ID, tt.result)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if ok != tt.wantFast {
			t.Errorf("%s: fast path taken = %v, want %v", tt.name, ok, tt.wantFast)
		}
		if !ok {
			continue
		}
		// The loop's encoder takes the fast path for the result as mcp-go
		// sends it (by value).
		if line, err := marshalLine(mcp.JSONRPCResponse{JSONRPC: "2.0", ID: resp.ID, Result: *tt.result}); err != nil || !bytes.Equal(line, fast) {
			t.Errorf("%s: marshalLine did not take the fast path: %s, %v", tt.name, line, err)
		}
		if bytes.Count(fast, []byte("\n")) != 1 || fast[len(fast)-1] != '\n' {
			t.Errorf("%s: not one line: %q", tt.name, fast)
		}
		generic, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(fast, &a); err != nil {
			t.Fatalf("%s: fast path wrote invalid JSON: %v\n%s", tt.name, err, fast)
		}
		if err := json.Unmarshal(generic, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: fast path differs from mcp-go's encoding\nfast:    %s\ngeneric: %s", tt.name, fast, generic)
		}
	}
}
