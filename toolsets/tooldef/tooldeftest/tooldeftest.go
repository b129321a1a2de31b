// Package tooldeftest holds what toolset tests share for checking
// declarations: a general JSON Schema compiler for advertised schemas.
package tooldeftest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

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
