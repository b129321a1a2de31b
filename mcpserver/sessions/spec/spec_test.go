package spec

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

func TestToolsetBindsEveryTool(t *testing.T) {
	var bound []string
	ts := Toolset(Options{}, func(name string) tooldef.Handler {
		bound = append(bound, name)
		return func(context.Context, json.RawMessage) (tooldef.Result, error) {
			return tooldef.OK(name), nil
		}
	})
	if ts.Name != ToolsetName || !ts.Default || len(ts.EnvVars) != 1 || ts.EnvVars[0] != SessionIDEnv {
		t.Errorf("toolset = %+v", ts)
	}
	if len(ts.Tools) != 1 || len(bound) != 1 {
		t.Fatalf("tools %d, bound %v", len(ts.Tools), bound)
	}
	for i, tl := range ts.Tools {
		if tl.Name != SearchTool || bound[i] != tl.Name {
			t.Errorf("tool %s bound as %q", tl.Name, bound[i])
		}
		if res, err := tl.Handler(context.Background(), nil); err != nil || res.Value != tl.Name {
			t.Errorf("%s handler is not bind's: %v, %v", tl.Name, res, err)
		}
		for _, s := range []json.RawMessage{tl.InputSchema, tl.OutputSchema} {
			if !json.Valid(s) {
				t.Errorf("%s has an invalid schema: %s", tl.Name, s)
			}
		}
		if want := (tooldef.Hints{ReadOnly: true, Idempotent: true}); tl.Hints != want {
			t.Errorf("%s hints = %+v, want %+v", tl.Name, tl.Hints, want)
		}
	}
}

// TestChecks pins which tools are always listed. session_search has no
// check: whether state.db exists, and which schema it has, is found out at
// call time by the implementation, which opens the database.
func TestChecks(t *testing.T) {
	tests := []struct {
		tool      string
		wantCheck bool
	}{
		{SearchTool, false},
	}
	ts := Toolset(Options{}, func(string) tooldef.Handler { return nil })
	if len(ts.Tools) != len(tests) {
		t.Fatalf("%d tools, the table covers %d", len(ts.Tools), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			for _, tl := range ts.Tools {
				if tl.Name != tt.tool {
					continue
				}
				if (tl.Check != nil) != tt.wantCheck {
					t.Errorf("Check set = %v, want %v", tl.Check != nil, tt.wantCheck)
				}
				return
			}
			t.Errorf("no tool %s", tt.tool)
		})
	}
}
