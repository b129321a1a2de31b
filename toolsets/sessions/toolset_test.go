package sessions_test

import (
	"slices"
	"testing"

	"github.com/hermes-go/hermes/toolsets/sessions"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

func TestToolset(t *testing.T) {
	ts := sessions.Toolset(sessions.Options{Home: t.TempDir()})
	if ts.Name != sessions.ToolsetName || !ts.Default || !slices.Equal(ts.EnvVars, []string{"HERMES_SESSION_ID"}) {
		t.Errorf("toolset = %q default=%v env=%v", ts.Name, ts.Default, ts.EnvVars)
	}
	if len(ts.Tools) != 1 || ts.Tools[0].Name != "session_search" {
		t.Fatalf("tools %+v", ts.Tools)
	}
	for _, tl := range ts.Tools {
		if tl.Handler == nil {
			t.Errorf("%s has no handler", tl.Name)
		}
		if want := (tooldef.Hints{ReadOnly: true, Idempotent: true}); tl.Hints != want {
			t.Errorf("%s hints = %+v, want %+v", tl.Name, tl.Hints, want)
		}
	}
}

// TestEnvVarsIsACopy: a caller changing the list must not change what the
// next toolset declares.
func TestEnvVarsIsACopy(t *testing.T) {
	tests := []struct {
		name string
		list func() []string
	}{
		{"EnvVars", sessions.EnvVars},
		{"Toolset.EnvVars", func() []string { return sessions.Toolset(sessions.Options{}).EnvVars }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.list()[0] = "CHANGED"
			if got := sessions.EnvVars(); !slices.Equal(got, []string{"HERMES_SESSION_ID"}) {
				t.Errorf("EnvVars() = %v after a caller changed %s", got, tt.name)
			}
		})
	}
}

// TestChecks pins which tools are always listed. session_search has no
// check: whether state.db exists, and which schema it has, is found out at
// call time, when the database is opened.
func TestChecks(t *testing.T) {
	tests := []struct {
		tool      string
		wantCheck bool
	}{
		{"session_search", false},
	}
	ts := sessions.Toolset(sessions.Options{Home: t.TempDir()})
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
