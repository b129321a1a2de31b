package spec

import (
	"testing"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
	"github.com/hermes-go/hermes/mcpserver/tooldef/tooldeftest"
)

func TestToolsetBindsEveryTool(t *testing.T) {
	var b tooldeftest.Binder
	ts := Toolset(Options{}, b.Bind)
	tooldeftest.CheckBound(t, &b, ts)
	if ts.Name != ToolsetName || !ts.Default || len(ts.EnvVars) != 1 || ts.EnvVars[0] != SessionIDEnv {
		t.Errorf("toolset = %+v", ts)
	}
	if len(ts.Tools) != 1 || ts.Tools[0].Name != SearchTool {
		t.Fatalf("tools %+v", ts.Tools)
	}
	for _, tl := range ts.Tools {
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
