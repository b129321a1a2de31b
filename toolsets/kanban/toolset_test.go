package kanban_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/kanban"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

const envTask = "HERMES_KANBAN_TASK"

var workerTools = []string{"kanban_show", "kanban_complete", "kanban_block", "kanban_heartbeat", "kanban_comment",
	"kanban_create", "kanban_link", "kanban_request_review", "kanban_request_changes",
	"kanban_attach", "kanban_attach_url", "kanban_attachments"}

func TestToolset(t *testing.T) {
	ts := kanban.Toolset(kanban.Options{Home: t.TempDir()})
	if ts.Name != kanban.ToolsetName || !ts.Default || !slices.Equal(ts.EnvVars, kanban.EnvVars()) || len(ts.Tools) != 14 {
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

// visibleTools runs every tool's check and returns the names shown.
func visibleTools(t *testing.T, ts tooldef.Toolset, reason map[string]string) []string {
	t.Helper()
	var got []string
	for _, tool := range ts.Tools {
		err := tool.Check()
		if err == nil {
			got = append(got, tool.Name)
			continue
		}
		if want, ok := reason[tool.Name]; ok && !strings.Contains(err.Error(), want) {
			t.Errorf("%s hidden with reason %q, want it to mention %q", tool.Name, err, want)
		}
	}
	slices.Sort(got)
	return got
}

// TestGateConfigs is Hermes' profile check (_profile_has_kanban_toolset,
// newest) over config.yaml files in testdata/gate: orchestrator means every
// tool shown, none means every tool hidden.
func TestGateConfigs(t *testing.T) {
	all := append(slices.Clone(workerTools), "kanban_list", "kanban_unblock")
	slices.Sort(all)
	tests := []struct {
		file         string
		orchestrator bool
	}{
		{"toplevel-list", true},
		{"toplevel-disabled", true},
		{"toplevel-without-kanban", false},
		{"toplevel-string", true},
		{"toplevel-mapping", true},
		{"toplevel-number", false},
		{"toplevel-kanban-with-space", false},
		{"platform-cli", true},
		{"platform-telegram", true},
		{"platform-composite-only", false},
		{"platform-disabled-list", false},
		{"platform-disabled-string-literal", false},
		{"platform-disabled-string-name", false},
		{"platform-disabled-other", true},
		{"platform-disabled-bare-literal", true},
		{"platform-disabled-padded-entry", false},
		{"platform-string-value", false},
		{"platform-empty-list-wins", false},
		{"platform-numeric-key", true},
		{"platform-agent-not-mapping", false},
		{"platform-not-mapping", false},
		{"broken", false},
		{"not-a-mapping", false},
		{"empty", false},
	}
	entries, _ := os.ReadDir(filepath.Join("testdata", "gate"))
	if len(entries) != len(tests) {
		t.Errorf("testdata/gate holds %d files, the table %d: every file needs a row", len(entries), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "gate", tt.file+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			writeFile(t, filepath.Join(home, "config.yaml"), string(data))
			ts := kanban.Toolset(kanban.Options{Home: home, Getenv: func(string) string { return "" }})
			var want []string
			if tt.orchestrator {
				want = all
			}
			if got := visibleTools(t, ts, nil); !slices.Equal(got, want) {
				t.Errorf("visible tools = %v, want %v", got, want)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	all := append(slices.Clone(workerTools), "kanban_list", "kanban_unblock")
	const orchestrator = "toolsets: [hermes-cli, kanban]\n"
	tests := []struct {
		name   string
		config string
		env    map[string]string
		want   []string
		reason map[string]string // hidden tool -> part of the reason
	}{
		{name: "plain session", want: nil, reason: map[string]string{
			"kanban_show": "HERMES_KANBAN_TASK", "kanban_list": `add "kanban" to toolsets`}},
		{name: "dispatcher worker", env: map[string]string{envTask: "t_1"}, want: workerTools,
			reason: map[string]string{"kanban_unblock": "hidden from dispatcher workers", "kanban_list": "HERMES_KANBAN_TASK is set"}},
		// Hermes tests the raw variable: blanks make a worker, one that
		// owns no task.
		{name: "blank task id is a worker", env: map[string]string{envTask: "  "}, want: workerTools},
		{name: "orchestrator profile", config: orchestrator, want: all},
		{name: "worker in an orchestrator profile", config: orchestrator, env: map[string]string{envTask: "t_1"}, want: workerTools},
		// A delegate_task descendant inherits the worker's task but is no
		// worker: the profile decides.
		{name: "delegate of a worker", env: map[string]string{envTask: "t_1", "HERMES_DELEGATED_CHILD_CONTEXT": "/home/u/.hermes"}, want: nil},
		{name: "delegate in an orchestrator profile", config: orchestrator,
			env: map[string]string{envTask: "t_1", "HERMES_DELEGATED_CHILD_CONTEXT": "1"}, want: all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				writeFile(t, filepath.Join(home, "config.yaml"), tt.config)
			}
			ts := kanban.Toolset(kanban.Options{Home: home, Getenv: func(k string) string { return tt.env[k] }})
			got := visibleTools(t, ts, tt.reason)
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
