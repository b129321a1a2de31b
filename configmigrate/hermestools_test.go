package configmigrate

import (
	"slices"
	"testing"
)

func TestHermesToolsServerEnvVars(t *testing.T) {
	s := HermesToolsServer(HermesToolsOptions{
		Command: "/bin/hermes-tools-mcp",
		EnvVars: []string{"BROWSER_CDP_URL", "FAL_KEY", "EMPTY", "HERMES_KANBAN_TASK"},
	})
	if want := []string{"BROWSER_CDP_URL", "EMPTY", "FAL_KEY", "HERMES_KANBAN_TASK"}; !slices.Equal(s.EnvVars, want) {
		t.Errorf("EnvVars = %q, want %q", s.EnvVars, want)
	}
}
