package toolsets_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

func noop(context.Context, json.RawMessage) (tooldef.Result, error) { return tooldef.OK(nil), nil }

var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

func testTool(name string) tooldef.Tool {
	return tooldef.Tool{Name: name, Description: "d", InputSchema: emptyObject, Handler: noop, Hints: tooldef.Hints{ReadOnly: true}}
}

func testRegistry(t *testing.T) *toolsets.Registry {
	t.Helper()
	hidden := testTool("needs_key")
	hidden.Check = func() error { return errors.New("set EXAMPLE_API_KEY to enable") }
	reg, err := toolsets.NewRegistry(
		tooldef.Toolset{Name: "alpha", Default: true, Tools: []tooldef.Tool{testTool("a1"), testTool("a2")}},
		tooldef.Toolset{Name: "beta", Tools: []tooldef.Tool{testTool("b1"), hidden}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name    string
		sel     toolsets.Selection
		enabled []string
		reasons map[string]string // tool -> substring of the reason
		wantErr string
	}{
		{name: "empty means default", enabled: []string{"a1", "a2"},
			reasons: map[string]string{"b1": `toolset "beta" is not enabled`}},
		{name: "default keyword", sel: toolsets.Selection{Toolsets: []string{"default"}}, enabled: []string{"a1", "a2"}},
		{name: "all hides unconfigured backends", sel: toolsets.Selection{Toolsets: []string{"all"}}, enabled: []string{"a1", "a2", "b1"},
			reasons: map[string]string{"needs_key": "set EXAMPLE_API_KEY"}},
		{name: "explicit list", sel: toolsets.Selection{Toolsets: []string{" beta "}}, enabled: []string{"b1"}},
		{name: "exclude a tool", sel: toolsets.Selection{Toolsets: []string{"alpha", "beta"}, ExcludeTools: []string{"a2"}},
			enabled: []string{"a1", "b1"}, reasons: map[string]string{"a2": "excluded"}},
		{name: "unknown toolset names the known ones", sel: toolsets.Selection{Toolsets: []string{"gamma"}},
			wantErr: `unknown toolset "gamma" (known: alpha, beta`},
		{name: "unknown excluded tool", sel: toolsets.Selection{ExcludeTools: []string{"zz"}},
			wantErr: `unknown tool "zz" (known tools: a1, a2, b1, needs_key)`},
	}
	reg := testRegistry(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := reg.Resolve(tt.sel)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range plan.Enabled() {
				got = append(got, e.Tool.Name)
			}
			if !slices.Equal(got, tt.enabled) {
				t.Errorf("enabled = %v, want %v", got, tt.enabled)
			}
			for _, e := range plan.Entries {
				if e.Enabled != (e.Reason == "") {
					t.Errorf("%s: enabled=%v but reason=%q", e.Tool.Name, e.Enabled, e.Reason)
				}
				if want, ok := tt.reasons[e.Tool.Name]; ok && !strings.Contains(e.Reason, want) {
					t.Errorf("%s: reason %q, want it to contain %q", e.Tool.Name, e.Reason, want)
				}
			}
		})
	}
}

func TestNewRegistryRejectsBadDeclarations(t *testing.T) {
	bad := func(mut func(*tooldef.Tool)) tooldef.Tool {
		tl := testTool("x")
		mut(&tl)
		return tl
	}
	tests := []struct {
		name    string
		sets    []tooldef.Toolset
		wantErr string
	}{
		{"bad name", []tooldef.Toolset{{Name: "s", Tools: []tooldef.Tool{bad(func(t *tooldef.Tool) { t.Name = "has space" })}}}, "name must be"},
		{"empty description", []tooldef.Toolset{{Name: "s", Tools: []tooldef.Tool{bad(func(t *tooldef.Tool) { t.Description = " " })}}}, "description is empty"},
		{"read-only and destructive", []tooldef.Toolset{{Name: "s", Tools: []tooldef.Tool{bad(func(t *tooldef.Tool) { t.Hints.Destructive = true })}}}, "both read-only and destructive"},
		{"schema not an object", []tooldef.Toolset{{Name: "s", Tools: []tooldef.Tool{bad(func(t *tooldef.Tool) { t.InputSchema = json.RawMessage(`{"type":"string"}`) })}}}, `MCP requires "object"`},
		{"no handler", []tooldef.Toolset{{Name: "s", Tools: []tooldef.Tool{bad(func(t *tooldef.Tool) { t.Handler = nil })}}}, "handler is nil"},
		{"duplicate tool", []tooldef.Toolset{{Name: "s", Tools: []tooldef.Tool{testTool("x")}}, {Name: "t", Tools: []tooldef.Tool{testTool("x")}}}, "declared in toolsets"},
		{"reserved toolset", []tooldef.Toolset{{Name: "all"}}, "reserved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := toolsets.NewRegistry(tt.sets...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}
