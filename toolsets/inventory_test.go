package toolsets_test

import (
	"slices"
	"testing"

	"github.com/hermes-go/hermes/toolsets"
)

// What the inventory says of a toolset without building it (the variables
// it reads) is what the built toolset declares: hermes-migrate
// writes the variables from the first, the server reads them in the second.
func TestInventoryMatchesTheBuiltToolsets(t *testing.T) {
	box, err := toolsets.Builtin(toolsets.Env{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	var vars []string
	for _, ts := range box.Toolsets {
		vars = append(vars, ts.EnvVars...)
	}
	slices.Sort(vars)
	vars = slices.Compact(vars)
	if got := toolsets.EnvVarNames(); !slices.Equal(got, vars) {
		t.Errorf("inventory variables %v, built toolsets declare %v", got, vars)
	}
	for _, want := range []string{"TAVILY_API_KEY", "CHROME_PATH", "OPENAI_API_KEY", "HERMES_KANBAN_TASK", "HERMES_SESSION_ID"} {
		if !slices.Contains(vars, want) {
			t.Errorf("no toolset declares %s", want)
		}
	}
}
