package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// envSkills are skills tagged with `environments:` in the forms real
// skills use, and what the original makes of each tag list.
var envSkills = map[string]string{
	"env-kanban":  "environments: [kanban]",
	"env-docker":  "environments: docker",   // a scalar is one tag
	"env-s6":      "environments: [' S6 ']", // trimmed, lowercased
	"env-mixed":   "environments: [kanban, docker]",
	"env-unknown": "environments: [lambda]",   // unknown tags fail open
	"env-null":    "environments: [null]",     // Python reads the tag "None": unknown
	"env-blank":   "environments: ['', '  ']", // only blank tags: relevant nowhere
	"env-empty":   "environments: []",         // no tags: relevant everywhere
	"env-none":    "environments:",            // null: relevant everywhere
}

func writeEnvSkills(t *testing.T, f *fixture) {
	t.Helper()
	for name, line := range envSkills {
		writeFile(t, filepath.Join(f.home, "skills", "envs", name, "SKILL.md"),
			"---\nname: "+name+"\ndescription: Tagged "+name+".\n"+line+"\n---\n\n# "+name+"\n")
	}
}

// TestEnvironmentsTag: a skill tagged for environments that are not active
// here is left out of skills_list and out of the names a failed skill_view
// suggests, and skill_view still loads it by name.
func TestEnvironmentsTag(t *testing.T) {
	always := []string{"env-unknown", "env-null", "env-empty", "env-none"}
	tests := []struct {
		name   string
		env    map[string]string
		config string
		root   map[string]string // files (or dirs, ending in /) under the system root
		listed []string          // of the tagged skills, besides always
	}{
		{name: "nothing active"},
		{name: "kanban worker by task", env: map[string]string{"HERMES_KANBAN_TASK": "t_1"}, listed: []string{"env-kanban", "env-mixed"}},
		{name: "kanban worker by board", env: map[string]string{"HERMES_KANBAN_BOARD": "ops"}, listed: []string{"env-kanban", "env-mixed"}},
		{name: "empty kanban variables", env: map[string]string{"HERMES_KANBAN_TASK": "", "HERMES_KANBAN_BOARD": ""}},
		{name: "a delegate child of a worker", env: map[string]string{"HERMES_KANBAN_TASK": "t_1", "HERMES_DELEGATED_CHILD_CONTEXT": "1"}},
		{name: "kanban profile", config: "toolsets: [hermes-cli, kanban]\n", listed: []string{"env-kanban", "env-mixed"}},
		{name: "kanban profile counts in a delegate child too", config: "toolsets: [kanban]\n",
			env: map[string]string{"HERMES_KANBAN_TASK": "t_1", "HERMES_DELEGATED_CHILD_CONTEXT": "1"}, listed: []string{"env-kanban", "env-mixed"}},
		{name: "toolsets as a string", config: "toolsets: hermes-cli,kanban\n", listed: []string{"env-kanban", "env-mixed"}},
		{name: "no kanban in toolsets", config: "toolsets: [hermes-cli]\nagent:\n  disabled_toolsets: []\n"},
		// `hermes tools` writes per-platform lists; the kanban tools' gate
		// counts them, and so does this, as the original's one predicate.
		{name: "kanban in a platform list", config: "platform_toolsets:\n  cli: [hermes-cli, kanban]\n", listed: []string{"env-kanban", "env-mixed"}},
		{name: "platform list, disabled", config: "platform_toolsets:\n  cli: [kanban]\nagent:\n  disabled_toolsets: \"['kanban']\"\n"},
		{name: "docker by .dockerenv", root: map[string]string{".dockerenv": ""}, listed: []string{"env-docker", "env-mixed"}},
		{name: "podman by .containerenv", root: map[string]string{"run/.containerenv": ""}, listed: []string{"env-docker", "env-mixed"}},
		{name: "container by PID 1's cgroup", root: map[string]string{"proc/1/cgroup": "0::/system.slice/docker-4f1c.scope\n"}, listed: []string{"env-docker", "env-mixed"}},
		{name: "lxc by PID 1's cgroup", root: map[string]string{"proc/1/cgroup": "12:cpu:/lxc/box\n"}, listed: []string{"env-docker", "env-mixed"}},
		{name: "a host's cgroup", root: map[string]string{"proc/1/cgroup": "0::/init.scope\n"}},
		{name: "s6 runtime", root: map[string]string{"run/s6/": ""}, listed: []string{"env-s6"}},
		{name: "s6-overlay admin tree", root: map[string]string{"package/admin/s6-overlay/": ""}, listed: []string{"env-s6"}},
		{name: "s6 marker that is not a directory", root: map[string]string{"run/s6": "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeEnvSkills(t, f)
			for k, v := range tt.env {
				f.env[k] = v
			}
			if tt.config != "" {
				writeFile(t, filepath.Join(f.home, "config.yaml"), tt.config)
			}
			for p, content := range tt.root {
				if strings.HasSuffix(p, "/") {
					os.MkdirAll(filepath.Join(f.sysRoot, p), 0o755)
				} else {
					writeFile(t, filepath.Join(f.sysRoot, p), content)
				}
			}
			c := newCaller(t, Toolset(f.options()))
			want := append(slices.Clone(always), tt.listed...)
			slices.Sort(want)
			if got := envListed(names(c.mustOK("skills_list", map[string]any{}))); !slices.Equal(got, want) {
				t.Errorf("listed %q, want %q", got, want)
			}
			if got := envListed(strs(c.mustFail("skill_view", map[string]any{"name": "no-such-skill"})["available_skills"])); !subset(got, want) {
				t.Errorf("not-found suggests %q, which are not all listed (%q)", got, want)
			}
			for name := range envSkills {
				m := c.mustOK("skill_view", map[string]any{"name": name})
				if m["name"] != name || !strings.Contains(m["content"].(string), "# "+name) {
					t.Errorf("skill_view %s: %v", name, m)
				}
			}
		})
	}
}

func envListed(all []string) []string {
	var out []string
	for _, n := range all {
		if strings.HasPrefix(n, "env-") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// A skill hidden here does not claim its name: a same-named skill further
// down the roots is listed instead, until the hidden one becomes relevant.
func TestIrrelevantSkillClaimsNoName(t *testing.T) {
	f := newFixture(t)
	writeFile(t, filepath.Join(f.home, "skills", "clash", "SKILL.md"), "---\nname: clash\ndescription: Local, for kanban work.\nenvironments: [kanban]\n---\n")
	c := newCaller(t, Toolset(f.options()))
	desc := func() string {
		for _, s := range c.mustOK("skills_list", map[string]any{})["skills"].([]any) {
			if e := s.(map[string]any); e["name"] == "clash" {
				return e["description"].(string)
			}
		}
		return ""
	}
	if d := desc(); !strings.HasPrefix(d, "The external") {
		t.Errorf("kanban off: clash is %q, want the external one", d)
	}
	f.env["HERMES_KANBAN_TASK"] = "t_1"
	if d := desc(); d != "Local, for kanban work." {
		t.Errorf("kanban on: clash is %q, want the local one", d)
	}
}

// The index is not served for another environment: the kanban variables
// and the profile's toolsets are read on every call, as the original
// reads them (it caches the container checks, never the kanban one).
func TestEnvironmentsFollowChanges(t *testing.T) { withWatch(t, testEnvironmentsFollowChanges) }

func testEnvironmentsFollowChanges(t *testing.T) {
	f := newFixture(t)
	writeEnvSkills(t, f)
	lib := NewLibrary(f.options())
	c := newCaller(t, lib.Toolset())
	listed := func() bool {
		t.Helper()
		return slices.Contains(names(c.mustOK("skills_list", map[string]any{})), "env-kanban")
	}
	steps := []struct {
		name   string
		change func()
		want   bool
	}{
		{"worker task set", func() { f.env["HERMES_KANBAN_TASK"] = "t_1" }, true},
		{"delegate child marker set", func() { f.env["HERMES_DELEGATED_CHILD_CONTEXT"] = "1" }, false},
		{"variables cleared", func() { clear(f.env) }, false},
		{"board set", func() { f.env["HERMES_KANBAN_BOARD"] = "ops" }, true},
		{"board cleared", func() { delete(f.env, "HERMES_KANBAN_BOARD") }, false},
		{"profile gains kanban", func() { writeFile(t, filepath.Join(f.home, "config.yaml"), "toolsets: [kanban]\n") }, true},
		{"profile loses kanban", func() { writeFile(t, filepath.Join(f.home, "config.yaml"), "toolsets: [hermes-cli]\n") }, false},
	}
	if listed() {
		t.Fatal("env-kanban listed with nothing active")
	}
	for _, st := range steps {
		time.Sleep(racyWindow + 10*time.Millisecond) // past the racy window: the key must decide
		listed()
		st.change()
		if got := listed(); got != st.want {
			t.Errorf("%s: env-kanban listed = %v, want %v", st.name, got, st.want)
		}
	}
	// Library.Skills, which the skills extension's catalog is built
	// from, follows too.
	f.env["HERMES_KANBAN_TASK"] = "t_2"
	skills, err := lib.Skills(t.Context())
	if err != nil || !slices.ContainsFunc(skills, func(s Skill) bool { return s.Name == "env-kanban" }) {
		t.Errorf("Skills() after the worker variable: %v", err)
	}
}

func TestEnvVarsDeclared(t *testing.T) {
	for _, v := range []string{"HERMES_KANBAN_TASK", "HERMES_KANBAN_BOARD", "HERMES_DELEGATED_CHILD_CONTEXT", "HERMES_PLATFORM"} {
		if !slices.Contains(Toolset(Options{Home: t.TempDir()}).EnvVars, v) {
			t.Errorf("EnvVars lacks %s", v)
		}
	}
}
