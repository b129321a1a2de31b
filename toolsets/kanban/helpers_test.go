package kanban_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hermes-go/hermes/toolsets/kanban"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/tooldef/tooldeftest"
)

// harness calls the kanban tools the way the server does: arguments checked
// against the input schema, results encoded to JSON, every success checked
// against the output schema.
type harness struct {
	t      testing.TB
	home   string
	env    map[string]string
	ts     tooldef.Toolset
	tools  map[string]tooldef.Tool
	input  map[string]*jsonschema.Schema
	output map[string]*jsonschema.Schema
}

func newHarness(t testing.TB, home string, env map[string]string) *harness {
	t.Helper()
	return newHarnessWith(t, home, env, nil)
}

// newHarnessWith is newHarness with options set by tune.
func newHarnessWith(t testing.TB, home string, env map[string]string, tune func(*kanban.Options)) *harness {
	t.Helper()
	h := &harness{t: t, home: home, env: env, tools: map[string]tooldef.Tool{},
		input: map[string]*jsonschema.Schema{}, output: map[string]*jsonschema.Schema{}}
	opts := kanban.Options{
		Home:        home,
		Getenv:      func(k string) string { return h.env[k] },
		BusyTimeout: 5 * time.Second,
	}
	if tune != nil {
		tune(&opts)
	}
	h.ts = kanban.Toolset(opts)
	for _, tool := range h.ts.Tools {
		h.tools[tool.Name] = tool
		h.input[tool.Name] = tooldeftest.CompileSchema(t, tool.Name+"-input", tool.InputSchema)
		h.output[tool.Name] = tooldeftest.CompileSchema(t, tool.Name+"-output", tool.OutputSchema)
	}
	return h
}

// call returns the decoded result, whether it was an error result, and a
// Go error from the handler (infrastructure failures).
func (h *harness) callErr(tool string, args any) (map[string]any, bool, error) {
	h.t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		h.t.Fatal(err)
	}
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err := h.input[tool].Validate(inst); err != nil {
		h.t.Fatalf("%s%s: arguments rejected by input schema: %v", tool, raw, err)
	}
	res, err := h.tools[tool].Handler(context.Background(), raw)
	if err != nil {
		return nil, false, err
	}
	out, err := json.Marshal(res.Value)
	if err != nil {
		h.t.Fatalf("%s%s: result does not encode: %v", tool, raw, err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		h.t.Fatalf("%s%s: result is not an object: %s", tool, raw, out)
	}
	if !res.IsError {
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err := h.output[tool].Validate(inst); err != nil {
			h.t.Fatalf("%s%s: result violates output schema: %v\n%s", tool, raw, err, out)
		}
	} else if s, _ := m["error"].(string); s == "" || len(m) != 1 {
		h.t.Fatalf("%s%s: error result not shaped {\"error\": ...}: %s", tool, raw, out)
	}
	return m, res.IsError, nil
}

func (h *harness) call(tool string, args any) (map[string]any, bool) {
	h.t.Helper()
	m, isErr, err := h.callErr(tool, args)
	if err != nil {
		h.t.Fatalf("%s %v: handler error: %v", tool, args, err)
	}
	return m, isErr
}

func (h *harness) ok(tool string, args any) map[string]any {
	h.t.Helper()
	m, isErr := h.call(tool, args)
	if isErr {
		h.t.Fatalf("%s %v: unexpected error result: %v", tool, args, m)
	}
	return m
}

// fail returns the error text of a call that must be refused.
func (h *harness) fail(tool string, args any) string {
	h.t.Helper()
	m, isErr := h.call(tool, args)
	if !isErr {
		h.t.Fatalf("%s %v: expected an error result, got %v", tool, args, m)
	}
	return m["error"].(string)
}

type obj = map[string]any

func openBoard(t testing.TB, path string) *kanban.Board {
	t.Helper()
	b, err := kanban.OpenBoard(context.Background(), path, kanban.BoardOptions{Create: true, BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func mustTask(t testing.TB, b *kanban.Board, id string) *kanban.Task {
	t.Helper()
	task, err := b.Task(context.Background(), id)
	if err != nil || task == nil {
		t.Fatalf("task %s: %v, %v", id, task, err)
	}
	return task
}

func eventKinds(t testing.TB, b *kanban.Board, id string) []string {
	t.Helper()
	evs, err := b.Events(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
