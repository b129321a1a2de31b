package kanban_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/mcpserver/kanban"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

const envTask = "HERMES_KANBAN_TASK"

var workerTools = []string{"kanban_show", "kanban_complete", "kanban_block", "kanban_heartbeat", "kanban_comment",
	"kanban_create", "kanban_link", "kanban_request_review", "kanban_request_changes"}

func TestToolset(t *testing.T) {
	ts := kanban.Toolset(kanban.Options{Home: t.TempDir()})
	if ts.Name != kanban.ToolsetName || !ts.Default || !slices.Equal(ts.EnvVars, kanban.EnvVars()) || len(ts.Tools) != 11 {
		t.Errorf("toolset = %q default=%v env=%v tools=%d", ts.Name, ts.Default, ts.EnvVars, len(ts.Tools))
	}
	for _, tl := range ts.Tools {
		if tl.Handler == nil {
			t.Errorf("%s has no handler", tl.Name)
		}
		if tl.Check == nil {
			t.Errorf("%s has no Check; every kanban tool is gated", tl.Name)
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
		{"EnvVars", kanban.EnvVars},
		{"Toolset.EnvVars", func() []string { return kanban.Toolset(kanban.Options{}).EnvVars }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.list()[0] = "CHANGED"
			if got := kanban.EnvVars()[0]; got != envTask {
				t.Errorf("EnvVars()[0] = %q after a caller changed %s", got, tt.name)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	all := append(slices.Clone(workerTools), "kanban_list", "kanban_unblock")
	tests := []struct {
		name   string
		config string
		env    map[string]string
		want   []string
		reason map[string]string // hidden tool -> part of the reason
	}{
		{name: "plain session", want: nil, reason: map[string]string{
			"kanban_show": "HERMES_KANBAN_TASK", "kanban_list": `add "kanban" to toolsets`}},
		{name: "toolsets without kanban", config: "toolsets: [hermes-cli]\n", want: nil},
		{name: "dispatcher worker", env: map[string]string{envTask: "t_1"}, want: workerTools,
			reason: map[string]string{"kanban_unblock": "hidden from dispatcher workers", "kanban_list": "HERMES_KANBAN_TASK is set"}},
		{name: "blank task id is no worker", env: map[string]string{envTask: "  "}, want: nil},
		{name: "orchestrator profile", config: "toolsets: [hermes-cli, kanban]\n", want: all},
		{name: "worker in an orchestrator profile", config: "toolsets: [kanban]\n", env: map[string]string{envTask: "t_1"}, want: workerTools},
		{name: "kanban disabled", config: "toolsets: [kanban]\nagent:\n  disabled_toolsets: [kanban]\n", want: nil},
		{name: "broken config", config: "toolsets: [kanban\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				writeFile(t, filepath.Join(home, "config.yaml"), tt.config)
			}
			ts := kanban.Toolset(kanban.Options{Home: home, Getenv: func(k string) string { return tt.env[k] }})
			var got []string
			for _, tool := range ts.Tools {
				err := tool.Check()
				if err == nil {
					got = append(got, tool.Name)
					continue
				}
				if want, ok := tt.reason[tool.Name]; ok && !strings.Contains(err.Error(), want) {
					t.Errorf("%s hidden with reason %q, want it to mention %q", tool.Name, err, want)
				}
			}
			slices.Sort(got)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("visible tools = %v, want %v", got, want)
			}
		})
	}
}

func TestChecksReadLiveState(t *testing.T) {
	home := t.TempDir()
	other := filepath.Join(t.TempDir(), "profile", "config.yaml")
	env := map[string]string{}
	ts := kanban.Toolset(kanban.Options{Home: home, ConfigPath: other, Getenv: func(k string) string { return env[k] }})
	var list tooldef.Tool
	for _, tl := range ts.Tools {
		if tl.Name == "kanban_list" {
			list = tl
		}
	}
	// ConfigPath wins over Home/config.yaml, and the reason names it.
	writeFile(t, filepath.Join(home, "config.yaml"), "toolsets: [kanban]\n")
	if err := list.Check(); err == nil || !strings.Contains(err.Error(), other) {
		t.Fatalf("Check = %v, want a reason naming %s", err, other)
	}
	// The file and the environment are read on every check, not once.
	writeFile(t, other, "toolsets: [kanban]\n")
	if err := list.Check(); err != nil {
		t.Fatalf("Check = %v after enabling kanban in %s", err, other)
	}
	env[envTask] = "t_1"
	if err := list.Check(); err == nil {
		t.Fatal("kanban_list still shown to a dispatcher worker")
	}
}

func TestNilGetenvReadsTheEnvironment(t *testing.T) {
	t.Setenv(envTask, "")
	ts := kanban.Toolset(kanban.Options{Home: t.TempDir()})
	check := ts.Tools[0].Check
	if err := check(); err == nil {
		t.Fatal("kanban_show shown with no task and no config")
	}
	t.Setenv(envTask, "t_1")
	if err := check(); err != nil {
		t.Errorf("Check = %v with %s set", err, envTask)
	}
}
