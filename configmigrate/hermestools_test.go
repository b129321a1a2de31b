package configmigrate

import (
	"slices"
	"testing"
)

func TestHermesToolsServerEnvVarsSet(t *testing.T) {
	env := map[string]string{"FAL_KEY": "k", "EMPTY": ""}
	s := HermesToolsServer(HermesToolsOptions{
		Command: "/bin/hermes-tools-mcp",
		EnvVars: []string{"BROWSER_CDP_URL", "FAL_KEY", "EMPTY", "HERMES_KANBAN_TASK"},
		Needed:  []string{"HERMES_KANBAN_TASK"},
		Getenv:  func(k string) string { return env[k] },
	})
	if want := []string{"BROWSER_CDP_URL", "EMPTY", "FAL_KEY", "HERMES_KANBAN_TASK"}; !slices.Equal(s.EnvVars, want) {
		t.Errorf("EnvVars = %q, want %q", s.EnvVars, want)
	}
	if want := []string{"FAL_KEY", "HERMES_KANBAN_TASK"}; !slices.Equal(s.EnvVarsSet, want) {
		t.Errorf("EnvVarsSet = %q, want %q", s.EnvVarsSet, want)
	}
}
