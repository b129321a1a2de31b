package todo

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

func TestToolsetDeclaration(t *testing.T) {
	ts := Toolset(Options{Home: t.TempDir()})
	if ts.Name != ToolsetName || ts.Default || !slices.Equal(ts.EnvVars, []string{SessionEnv}) {
		t.Errorf("toolset = %+v", ts)
	}
	if len(ts.Tools) != 1 || ts.Tools[0].Name != ToolName {
		t.Fatalf("tools %+v", ts.Tools)
	}
	for _, tl := range ts.Tools {
		// A write without merge replaces the list, so the tool is
		// destructive; it touches only the local store.
		if tl.Hints != (tooldef.Hints{Destructive: true, Idempotent: true}) {
			t.Errorf("%s hints = %+v", tl.Name, tl.Hints)
		}
	}
}

// The todo tool needs no key, binary or configuration, so it has no
// availability check: it is never hidden.
func TestChecks(t *testing.T) {
	ts := Toolset(Options{Home: t.TempDir()})
	tests := []struct {
		tool      string
		available bool
	}{
		{ToolName, true},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			i := slices.IndexFunc(ts.Tools, func(tl tooldef.Tool) bool { return tl.Name == tt.tool })
			if i < 0 {
				t.Fatalf("no tool %s", tt.tool)
			}
			var err error
			if c := ts.Tools[i].Check; c != nil {
				err = c()
			}
			if got := err == nil; got != tt.available {
				t.Errorf("available = %v (%v), want %v", got, err, tt.available)
			}
		})
	}
}

// The schemas spell the statuses out literally; they must list exactly the
// statuses the implementation normalises to and counts.
func TestSchemasListTheStatuses(t *testing.T) {
	ts := Toolset(Options{Home: t.TempDir()})
	tl := ts.Tools[0]
	var in struct {
		Properties struct {
			Todos struct {
				Items struct {
					Properties struct {
						Status struct {
							Enum []string `json:"enum"`
						} `json:"status"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"todos"`
			SessionID struct {
				Description string `json:"description"`
			} `json:"session_id"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tl.InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Properties struct {
			Todos struct {
				Items struct {
					Properties struct {
						Status struct {
							Enum []string `json:"enum"`
						} `json:"status"`
					} `json:"properties"`
				} `json:"items"`
			} `json:"todos"`
			Summary struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			} `json:"summary"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tl.OutputSchema, &out); err != nil {
		t.Fatal(err)
	}
	want := Statuses()
	if got := in.Properties.Todos.Items.Properties.Status.Enum; !slices.Equal(got, want) {
		t.Errorf("input status enum = %v, want %v", got, want)
	}
	if got := out.Properties.Todos.Items.Properties.Status.Enum; !slices.Equal(got, want) {
		t.Errorf("output status enum = %v, want %v", got, want)
	}
	wantSummary := append([]string{"total"}, want...)
	if got := out.Properties.Summary.Required; !slices.Equal(got, wantSummary) {
		t.Errorf("summary required = %v, want %v", got, wantSummary)
	}
	if len(out.Properties.Summary.Properties) != len(wantSummary) {
		t.Errorf("summary properties = %v, want %v", out.Properties.Summary.Properties, wantSummary)
	}
	for _, s := range want {
		if !strings.Contains(tl.Description, s) {
			t.Errorf("description does not name status %q", s)
		}
	}
	d := in.Properties.SessionID.Description
	if !strings.Contains(d, SessionEnv) || !strings.Contains(d, "connection's own") {
		t.Errorf("session_id description %q does not name %s and the connection's own list", d, SessionEnv)
	}
	if !strings.Contains(tl.Description, "this server process over stdio, this session over HTTP") {
		t.Errorf("description %q does not say whose the unnamed list is", tl.Description)
	}
	// Statuses hands out a fresh slice each time.
	Statuses()[0] = "x"
	if Statuses()[0] != StatusPending {
		t.Error("Statuses shares its slice")
	}
}
