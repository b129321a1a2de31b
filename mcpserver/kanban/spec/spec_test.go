package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
	"github.com/hermes-go/hermes/mcpserver/tooldef/tooldeftest"
)

var workerTools = []string{ToolShow, ToolComplete, ToolBlock, ToolHeartbeat, ToolComment,
	ToolCreate, ToolLink, ToolRequestReview, ToolRequestChanges}

func noHandler(string) tooldef.Handler { return nil }

func writeConfig(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestToolsetBindsEveryTool(t *testing.T) {
	var b tooldeftest.Binder
	ts := Toolset(Options{Home: t.TempDir()}, b.Bind)
	tooldeftest.CheckBound(t, &b, ts)
	if ts.Name != ToolsetName || !ts.Default || !slices.Equal(ts.EnvVars, EnvVars) || len(ts.Tools) != 11 {
		t.Errorf("toolset = %q default=%v env=%v tools=%d", ts.Name, ts.Default, ts.EnvVars, len(ts.Tools))
	}
	for _, tl := range ts.Tools {
		if tl.Check == nil {
			t.Errorf("%s has no Check; every kanban tool is gated", tl.Name)
		}
	}
	// The toolset's EnvVars is a copy: a caller changing it must not
	// change what the next Toolset declares.
	ts.EnvVars[0] = "CHANGED"
	if EnvVars[0] != EnvTask {
		t.Error("Toolset shares its EnvVars with the package")
	}
}

func TestChecks(t *testing.T) {
	all := append(slices.Clone(workerTools), ToolList, ToolUnblock)
	tests := []struct {
		name   string
		config string
		env    map[string]string
		want   []string
		reason map[string]string // hidden tool -> part of the reason
	}{
		{name: "plain session", want: nil, reason: map[string]string{
			ToolShow: "HERMES_KANBAN_TASK", ToolList: `add "kanban" to toolsets`}},
		{name: "toolsets without kanban", config: "toolsets: [hermes-cli]\n", want: nil},
		{name: "dispatcher worker", env: map[string]string{EnvTask: "t_1"}, want: workerTools,
			reason: map[string]string{ToolUnblock: "hidden from dispatcher workers", ToolList: "HERMES_KANBAN_TASK is set"}},
		{name: "blank task id is no worker", env: map[string]string{EnvTask: "  "}, want: nil},
		{name: "orchestrator profile", config: "toolsets: [hermes-cli, kanban]\n", want: all},
		{name: "worker in an orchestrator profile", config: "toolsets: [kanban]\n", env: map[string]string{EnvTask: "t_1"}, want: workerTools},
		{name: "kanban disabled", config: "toolsets: [kanban]\nagent:\n  disabled_toolsets: [kanban]\n", want: nil},
		{name: "broken config", config: "toolsets: [kanban\n", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.config != "" {
				writeConfig(t, filepath.Join(home, "config.yaml"), tt.config)
			}
			ts := Toolset(Options{Home: home, Getenv: func(k string) string { return tt.env[k] }}, noHandler)
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
	ts := Toolset(Options{Home: home, ConfigPath: other, Getenv: func(k string) string { return env[k] }}, noHandler)
	var list tooldef.Tool
	for _, tl := range ts.Tools {
		if tl.Name == ToolList {
			list = tl
		}
	}
	// ConfigPath wins over Home/config.yaml, and the reason names it.
	writeConfig(t, filepath.Join(home, "config.yaml"), "toolsets: [kanban]\n")
	if err := list.Check(); err == nil || !strings.Contains(err.Error(), other) {
		t.Fatalf("Check = %v, want a reason naming %s", err, other)
	}
	// The file and the environment are read on every check, not once.
	writeConfig(t, other, "toolsets: [kanban]\n")
	if err := list.Check(); err != nil {
		t.Fatalf("Check = %v after enabling kanban in %s", err, other)
	}
	env[EnvTask] = "t_1"
	if err := list.Check(); err == nil {
		t.Fatal("kanban_list still shown to a dispatcher worker")
	}
}

func TestNilGetenvReadsTheEnvironment(t *testing.T) {
	t.Setenv(EnvTask, "")
	ts := Toolset(Options{Home: t.TempDir()}, noHandler)
	check := ts.Tools[0].Check
	if err := check(); err == nil {
		t.Fatal("kanban_show shown with no task and no config")
	}
	t.Setenv(EnvTask, "t_1")
	if err := check(); err != nil {
		t.Errorf("Check = %v with %s set", err, EnvTask)
	}
}

// TestListLimitsAdvertised keeps the limits the implementation enforces
// in step with the text that advertises them.
func TestListLimitsAdvertised(t *testing.T) {
	def, max := strconv.Itoa(ListDefaultLimit), strconv.Itoa(ListMaxLimit)
	if want := def + " by default and at most " + max; !strings.Contains(listDescription, want) {
		t.Errorf("kanban_list description does not say %q", want)
	}
	if want := "(default " + def + ", at most " + max + ")"; !strings.Contains(listInput, want) {
		t.Errorf("kanban_list schema does not say %q", want)
	}
}
