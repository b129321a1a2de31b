// Package tooldeftest checks toolset declarations built with a bind
// function (the spec packages of the toolsets hermes-tools-worker runs):
// every tool bound to its own name, in order, and declared completely.
package tooldeftest

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Binder is a bind function that records the names it is asked for and
// returns handlers answering with their name, so a test can tell that a
// tool's Handler is the one bind returned for it.
type Binder struct {
	Asked []string
}

// Bind is the bind function.
func (b *Binder) Bind(name string) tooldef.Handler {
	b.Asked = append(b.Asked, name)
	return func(context.Context, json.RawMessage) (tooldef.Result, error) { return tooldef.OK(name), nil }
}

// CheckBound fails t unless the toolsets' tools are exactly the names b
// was asked for (once each), each with the handler bind returned for it, a
// title, a description, and schemas that are JSON objects.
func CheckBound(t testing.TB, b *Binder, toolsets ...tooldef.Toolset) {
	t.Helper()
	var names []string
	for _, ts := range toolsets {
		if ts.Name == "" || ts.Description == "" {
			t.Errorf("toolset %q has no name or description", ts.Name)
		}
		for _, tl := range ts.Tools {
			names = append(names, tl.Name)
			if res, err := tl.Handler(context.Background(), nil); err != nil || res.Value != tl.Name {
				t.Errorf("%s: its handler is not bind(%q): %v, %v", tl.Name, tl.Name, res.Value, err)
			}
			if tl.Title == "" || tl.Description == "" {
				t.Errorf("%s has no title or description", tl.Name)
			}
			for _, s := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
				var obj map[string]any
				if s != nil && json.Unmarshal(s, &obj) != nil {
					t.Errorf("%s has a schema that is not a JSON object: %s", tl.Name, s)
				}
			}
		}
	}
	// Each tool bound once; the order bind is called in does not matter.
	if !slices.Equal(slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(b.Asked))) {
		t.Errorf("tools %v, but bind was asked for %v", names, b.Asked)
	}
}

// CompileSchema compiles a tool's JSON Schema with a general validator
// (santhosh-tekuri/jsonschema, draft 2020-12), for tests that check
// arguments and results against what a tool advertises.
func CompileSchema(t testing.TB, name string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + name + ".json"
	if err := comp.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := comp.Compile(url)
	if err != nil {
		t.Fatalf("%s: does not compile: %v", name, err)
	}
	return s
}
