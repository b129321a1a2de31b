package toolsets_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/hermes-go/hermes/toolsets"
)

// TestEveryArgumentIsBounded: every string an argument can be has a
// maxLength and every array a maxItems, so the server refuses an
// oversized argument before the handler spends any work on it.
func TestEveryArgumentIsBounded(t *testing.T) {
	box, err := toolsets.Builtin(toolsets.Env{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	for _, ts := range box.Toolsets {
		for _, tl := range ts.Tools {
			var doc any
			if err := json.Unmarshal(tl.InputSchema, &doc); err != nil {
				t.Fatalf("%s: %v", tl.Name, err)
			}
			for _, at := range unbounded(doc, "") {
				t.Errorf("%s: argument %s has no bound", tl.Name, at)
			}
		}
	}
}

// unbounded lists the positions in a schema that accept a string without
// maxLength or an array without maxItems.
func unbounded(v any, at string) []string {
	var out []string
	switch x := v.(type) {
	case []any:
		for i, s := range x {
			out = append(out, unbounded(s, at+"#"+strconv.Itoa(i))...)
		}
	case map[string]any:
		var types []string
		switch ty := x["type"].(type) {
		case string:
			types = []string{ty}
		case []any:
			for _, e := range ty {
				if s, ok := e.(string); ok {
					types = append(types, s)
				}
			}
		}
		_, hasEnum := x["enum"]
		_, hasConst := x["const"]
		if slices.Contains(types, "string") && x["maxLength"] == nil && !hasEnum && !hasConst {
			out = append(out, at+" (string)")
		}
		if slices.Contains(types, "array") && x["maxItems"] == nil && !hasConst {
			out = append(out, at+" (array)")
		}
		if props, ok := x["properties"].(map[string]any); ok {
			for name, p := range props {
				out = append(out, unbounded(p, at+"."+name)...)
			}
		}
		for _, k := range []string{"items", "additionalProperties", "anyOf", "oneOf", "allOf"} {
			if sub, ok := x[k]; ok {
				out = append(out, unbounded(sub, at+"/"+k)...)
			}
		}
	}
	return out
}
