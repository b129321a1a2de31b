package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hermes-go/hermes/toolsets/tooldef/tooldeftest"
)

func TestToolsetDeclaration(t *testing.T) {
	ts := Toolset(Options{Home: t.TempDir()})
	if ts.Name != "skills" || !ts.Default {
		t.Fatalf("toolset = %q default=%v, want skills/true", ts.Name, ts.Default)
	}
	var got []string
	for _, tool := range ts.Tools {
		got = append(got, tool.Name)
		h := tool.Hints
		if tool.Name == "skill_manage" {
			// It overwrites and deletes skill files.
			if h.ReadOnly || !h.Destructive || h.Idempotent || h.OpenWorld {
				t.Errorf("%s: hints %+v, want writing, destructive, closed-world", tool.Name, h)
			}
		} else if !h.ReadOnly || h.Destructive || !h.Idempotent || h.OpenWorld {
			t.Errorf("%s: hints %+v, want read-only, idempotent, closed-world", tool.Name, h)
		}
		for label, raw := range map[string]json.RawMessage{"input": tool.InputSchema, "output": tool.OutputSchema} {
			var s struct {
				Type                 string `json:"type"`
				AdditionalProperties *bool  `json:"additionalProperties"`
			}
			if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
				t.Errorf("%s %s schema: type %q, err %v", tool.Name, label, s.Type, err)
			}
			if label == "input" && (s.AdditionalProperties == nil || *s.AdditionalProperties) {
				t.Errorf("%s input schema must set additionalProperties:false", tool.Name)
			}
			tooldeftest.CompileSchema(t, tool.Name+"-"+label, raw)
		}
		if strings.TrimSpace(tool.Description) == "" || tool.Handler == nil {
			t.Errorf("%s: missing description or handler", tool.Name)
		}
	}
	if !reflect.DeepEqual(got, []string{"skills_list", "skill_view", "skill_manage"}) {
		t.Fatalf("tools = %v", got)
	}
}

// The output schemas must reject what they are meant to exclude, or the
// schema validation in every other test proves nothing.
func TestOutputSchemasReject(t *testing.T) {
	ts := Toolset(Options{Home: t.TempDir()})
	c := newCaller(t, ts)
	cases := []struct {
		tool, doc string
	}{
		{"skills_list", `{"success": false, "error": "x"}`},
		{"skills_list", `{"success": true, "skills": [{"name": "a"}], "categories": []}`},
		{"skill_view", `{"success": true, "name": "a", "content": "x"}`},
		{"skill_view", `{"success": true, "name": "a", "content": "x", "file": "f"}`},
		{"skill_view", `{"success": true, "name": "a", "content": "x", "file": "f", "file_type": ".md", "is_binary": "yes"}`},
	}
	for _, tc := range cases {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		if c.output[tc.tool].Validate(inst) == nil {
			t.Errorf("%s output schema accepted %s", tc.tool, tc.doc)
		}
	}
}

func TestSkillsList(t *testing.T) {
	f := newFixture(t)
	c := newCaller(t, Toolset(f.options()))

	tests := []struct {
		name       string
		args       map[string]any
		want       []string
		categories []string
	}{
		{"all", map[string]any{}, []string{"bare", "clash", "deploy", "full-featured", "linked", "ext-unique"}, []string{"devops", "research", "tools"}},
		{"category", map[string]any{"category": "devops"}, []string{"deploy", "full-featured"}, []string{"devops"}},
		{"external category", map[string]any{"category": "tools"}, []string{"ext-unique"}, []string{"tools"}},
		{"unknown category", map[string]any{"category": "nope"}, nil, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := c.mustOK("skills_list", tc.args)
			if got := names(m); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("names = %v, want %v", got, tc.want)
			}
			if got := strs(m["categories"]); !reflect.DeepEqual(got, tc.categories) {
				t.Errorf("categories = %v, want %v", got, tc.categories)
			}
			if m["count"] != float64(len(tc.want)) {
				t.Errorf("count = %v, want %d", m["count"], len(tc.want))
			}
			if m["hint"] != listHint {
				t.Errorf("hint = %v", m["hint"])
			}
		})
	}

	t.Run("entries", func(t *testing.T) {
		m := c.mustOK("skills_list", map[string]any{})
		byName := map[string]map[string]any{}
		for _, s := range m["skills"].([]any) {
			e := s.(map[string]any)
			byName[e["name"].(string)] = e
		}
		checks := []struct{ name, description string }{
			{"bare", "Say hello the plain way."},
			{"clash", "The local clash skill."},
			{"full-featured", "Every frontmatter field: tags, prerequisites & platforms <b>."},
		}
		for _, ck := range checks {
			if got := byName[ck.name]["description"]; got != ck.description {
				t.Errorf("%s description = %q, want %q", ck.name, got, ck.description)
			}
		}
		if byName["bare"]["category"] != nil {
			t.Errorf("bare category = %v, want null", byName["bare"]["category"])
		}
		if byName["ext-unique"]["category"] != "tools" {
			t.Errorf("ext-unique category = %v", byName["ext-unique"]["category"])
		}
	})

	t.Run("platform windows", func(t *testing.T) {
		opts := f.options()
		opts.Platform = "windows"
		m := newCaller(t, Toolset(opts)).mustOK("skills_list", map[string]any{})
		if !slices.Contains(names(m), "winonly") {
			t.Errorf("winonly missing on windows: %v", names(m))
		}
	})

	t.Run("platform_disabled", func(t *testing.T) {
		f.env["HERMES_PLATFORM"] = "telegram"
		defer delete(f.env, "HERMES_PLATFORM")
		m := c.mustOK("skills_list", map[string]any{})
		if slices.Contains(names(m), "bare") {
			t.Errorf("bare is platform-disabled for telegram but listed: %v", names(m))
		}
	})
}

func TestSkillsListEmpty(t *testing.T) {
	t.Run("missing dir is not created", func(t *testing.T) {
		home := filepath.Join(t.TempDir(), "home")
		c := newCaller(t, Toolset(Options{Home: home, Platform: "linux"}))
		m := c.mustOK("skills_list", map[string]any{})
		want := filepath.Join(home, "skills", "<name>", "SKILL.md")
		if msg, _ := m["message"].(string); !strings.Contains(msg, "does not exist") || !strings.Contains(msg, want) {
			t.Errorf("message = %q, want it to say the dir is missing and name %s", msg, want)
		}
		if len(m["skills"].([]any)) != 0 || len(m["categories"].([]any)) != 0 {
			t.Errorf("want empty skills and categories: %v", m)
		}
		if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("skills_list created %s (err %v)", home, err)
		}
	})
	t.Run("empty dir", func(t *testing.T) {
		home := t.TempDir()
		if err := os.Mkdir(filepath.Join(home, "skills"), 0o755); err != nil {
			t.Fatal(err)
		}
		m := newCaller(t, Toolset(Options{Home: home})).mustOK("skills_list", map[string]any{})
		if msg, _ := m["message"].(string); !strings.HasPrefix(msg, "No skills found in ") {
			t.Errorf("message = %q", msg)
		}
	})
}

func TestSkillViewNameForms(t *testing.T) {
	f := newFixture(t)
	c := newCaller(t, Toolset(f.options()))
	tests := []struct {
		arg, wantName, wantPath, wantDir string
	}{
		{"bare", "bare", "bare/SKILL.md", filepath.Join(f.home, "skills", "bare")},
		{" bare ", "bare", "bare/SKILL.md", filepath.Join(f.home, "skills", "bare")},
		{"devops/deploy", "deploy", "devops/deploy/SKILL.md", filepath.Join(f.home, "skills", "devops", "deploy")},
		{"deploy", "deploy", "devops/deploy/SKILL.md", filepath.Join(f.home, "skills", "devops", "deploy")},
		{"full-featured", "full-featured", "devops/full/SKILL.md", filepath.Join(f.home, "skills", "devops", "full")},
		{"full", "full-featured", "devops/full/SKILL.md", filepath.Join(f.home, "skills", "devops", "full")},
		{"devops:deploy", "deploy", "devops/deploy/SKILL.md", filepath.Join(f.home, "skills", "devops", "deploy")},
		{"clash", "clash", "clash/SKILL.md", filepath.Join(f.home, "skills", "clash")},
		{"ext-unique", "ext-unique", "ext-unique/SKILL.md", filepath.Join(f.external, "tools", "ext-unique")},
		{"tools/ext-unique", "ext-unique", "ext-unique/SKILL.md", filepath.Join(f.external, "tools", "ext-unique")},
	}
	for _, tc := range tests {
		t.Run(tc.arg, func(t *testing.T) {
			m := c.mustOK("skill_view", map[string]any{"name": tc.arg})
			if m["name"] != tc.wantName || m["path"] != tc.wantPath || m["skill_dir"] != tc.wantDir {
				t.Errorf("name/path/skill_dir = %v / %v / %v, want %v / %v / %v",
					m["name"], m["path"], m["skill_dir"], tc.wantName, tc.wantPath, tc.wantDir)
			}
			data, err := os.ReadFile(filepath.Join(tc.wantDir, "SKILL.md"))
			if err != nil {
				t.Fatal(err)
			}
			if m["content"] != string(data) {
				t.Errorf("content is not SKILL.md verbatim")
			}
		})
	}
}

func TestSkillViewFullSkill(t *testing.T) {
	f := newFixture(t)
	c := newCaller(t, Toolset(f.options()))
	m := c.mustOK("skill_view", map[string]any{"name": "full-featured"})
	if got := strs(m["tags"]); !reflect.DeepEqual(got, []string{"alpha", "beta"}) {
		t.Errorf("tags = %v", got)
	}
	if got := strs(m["related_skills"]); !reflect.DeepEqual(got, []string{"deploy", "bare"}) {
		t.Errorf("related_skills = %v", got)
	}
	if m["description"] != "Every frontmatter field: tags, prerequisites & platforms <b>." {
		t.Errorf("description = %v", m["description"])
	}
	if m["compatibility"] != "Requires network access" {
		t.Errorf("compatibility = %v", m["compatibility"])
	}
	md, _ := m["metadata"].(map[string]any)
	if md["author"] != "fixture" {
		t.Errorf("metadata = %v", m["metadata"])
	}
	if m["linked_files"] != nil || m["usage_hint"] != nil {
		t.Errorf("a skill without support files must have null linked_files/usage_hint: %v %v", m["linked_files"], m["usage_hint"])
	}
	env, _ := m["required_environment_variables"].([]any)
	var envNames []string
	for _, e := range env {
		envNames = append(envNames, e.(map[string]any)["name"].(string))
	}
	if !reflect.DeepEqual(envNames, []string{"FULL_TOKEN", "FULL_OPTIONAL", "FULL_API_KEY"}) {
		t.Errorf("required env names = %v", envNames)
	}
	first := env[0].(map[string]any)
	if first["prompt"] != "Paste your Full token" || first["help"] != "Get one at https://example.com/tokens" || first["required_for"] != "uploads" {
		t.Errorf("FULL_TOKEN entry = %v", first)
	}
	if env[1].(map[string]any)["optional"] != true {
		t.Errorf("FULL_OPTIONAL entry = %v", env[1])
	}
	if got := strs(m["required_commands"]); !reflect.DeepEqual(got, []string{"fullcmd", "othercmd"}) {
		t.Errorf("required_commands = %v", got)
	}
	// Linked skill: tags from a "[one, two]" string and linked files.
	m = c.mustOK("skill_view", map[string]any{"name": "linked"})
	if got := strs(m["tags"]); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Errorf("linked tags = %v", got)
	}
	lf, _ := m["linked_files"].(map[string]any)
	wantLinked := map[string][]string{
		"references": {"references/api.md"},
		"templates":  {"templates/config.yaml", "templates/sub/nested.py"},
		"assets":     {"assets/data.txt", "assets/icons/dot.png"},
		"scripts":    {"scripts/run.sh"},
	}
	if len(lf) != len(wantLinked) {
		t.Errorf("linked_files = %v", lf)
	}
	for k, want := range wantLinked {
		if got := strs(lf[k]); !reflect.DeepEqual(got, want) {
			t.Errorf("linked_files[%s] = %v, want %v", k, got, want)
		}
	}
	if m["usage_hint"] != usageHint {
		t.Errorf("usage_hint = %v", m["usage_hint"])
	}
}

func TestSkillViewReadiness(t *testing.T) {
	tests := []struct {
		name        string
		skill       string
		env         map[string]string
		commands    []string
		removeCreds bool
		wantEnv     []string
		wantCmds    []string
		wantCreds   []string
		wantStatus  string
	}{
		{
			name: "nothing set", skill: "full-featured",
			wantEnv: []string{"FULL_TOKEN", "FULL_API_KEY"}, wantCmds: []string{"fullcmd", "othercmd"},
			wantCreds: []string{}, wantStatus: statusSetupNeeded,
		},
		{
			name: "all present", skill: "full-featured",
			env: map[string]string{"FULL_TOKEN": "t", "FULL_API_KEY": "k"}, commands: []string{"fullcmd", "othercmd"},
			wantEnv: []string{}, wantCmds: []string{}, wantCreds: []string{}, wantStatus: statusAvailable,
		},
		{
			name: "empty value counts as unset", skill: "full-featured",
			env: map[string]string{"FULL_TOKEN": "", "FULL_API_KEY": "k"}, commands: []string{"fullcmd", "othercmd"},
			wantEnv: []string{"FULL_TOKEN"}, wantCmds: []string{}, wantCreds: []string{}, wantStatus: statusSetupNeeded,
		},
		{
			name: "one command missing", skill: "full-featured",
			env: map[string]string{"FULL_TOKEN": "t", "FULL_API_KEY": "k"}, commands: []string{"fullcmd"},
			wantEnv: []string{}, wantCmds: []string{"othercmd"}, wantCreds: []string{}, wantStatus: statusSetupNeeded,
		},
		{
			name: "credential file missing", skill: "full-featured", removeCreds: true,
			env: map[string]string{"FULL_TOKEN": "t", "FULL_API_KEY": "k"}, commands: []string{"fullcmd", "othercmd"},
			wantEnv: []string{}, wantCmds: []string{}, wantCreds: []string{"creds/full.json"}, wantStatus: statusSetupNeeded,
		},
		{
			name: "satisfied from .env", skill: "deploy",
			wantEnv: []string{}, wantCmds: []string{}, wantCreds: []string{}, wantStatus: statusAvailable,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			maps.Copy(f.env, tc.env)
			for _, cmd := range tc.commands {
				f.commands[cmd] = true
			}
			if tc.removeCreds {
				if err := os.Remove(filepath.Join(f.home, "creds", "full.json")); err != nil {
					t.Fatal(err)
				}
			}
			m := newCaller(t, Toolset(f.options())).mustOK("skill_view", map[string]any{"name": tc.skill})
			if got := strs(m["missing_required_environment_variables"]); !reflect.DeepEqual(got, tc.wantEnv) {
				t.Errorf("missing env = %v, want %v", got, tc.wantEnv)
			}
			if got := strs(m["missing_required_commands"]); !reflect.DeepEqual(got, tc.wantCmds) {
				t.Errorf("missing commands = %v, want %v", got, tc.wantCmds)
			}
			if got := strs(m["missing_credential_files"]); !reflect.DeepEqual(got, tc.wantCreds) {
				t.Errorf("missing credential files = %v, want %v", got, tc.wantCreds)
			}
			if m["readiness_status"] != tc.wantStatus || m["setup_needed"] != (tc.wantStatus == statusSetupNeeded) {
				t.Errorf("readiness = %v setup_needed=%v, want %v", m["readiness_status"], m["setup_needed"], tc.wantStatus)
			}
			note, hasNote := m["setup_note"].(string)
			if hasNote != (tc.wantStatus == statusSetupNeeded) {
				t.Errorf("setup_note = %q, present=%v", note, hasNote)
			}
			for _, v := range tc.wantEnv {
				if !strings.Contains(note, "env $"+v) {
					t.Errorf("setup_note %q does not name %s", note, v)
				}
			}
			if m["setup_skipped"] != false {
				t.Errorf("setup_skipped = %v", m["setup_skipped"])
			}
		})
	}
}

func TestSkillViewFile(t *testing.T) {
	f := newFixture(t)
	c := newCaller(t, Toolset(f.options()))

	t.Run("text", func(t *testing.T) {
		m := c.mustOK("skill_view", map[string]any{"name": "linked", "file_path": "references/api.md"})
		want := map[string]any{"success": true, "name": "linked", "file": "references/api.md", "content": "# API\n\nCall it.\n", "file_type": ".md"}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("got %v, want %v", m, want)
		}
	})
	t.Run("binary", func(t *testing.T) {
		m := c.mustOK("skill_view", map[string]any{"name": "research/linked", "file_path": "assets/icons/dot.png"})
		fi, err := os.Stat(filepath.Join(f.home, "skills", "research", "linked", "assets", "icons", "dot.png"))
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("[Binary file: dot.png, size: %d bytes]", fi.Size())
		if m["content"] != want || m["is_binary"] != true || m["name"] != "research/linked" {
			t.Errorf("got %v, want content %q and is_binary", m, want)
		}
	})
	t.Run("invalid utf-8 is binary", func(t *testing.T) {
		writeFile(t, filepath.Join(f.home, "skills", "research", "linked", "assets", "latin1.txt"), "caf\xe9\n")
		m := c.mustOK("skill_view", map[string]any{"name": "linked", "file_path": "assets/latin1.txt"})
		if m["is_binary"] != true {
			t.Errorf("got %v", m)
		}
	})
	t.Run("missing lists available files", func(t *testing.T) {
		m := c.mustFail("skill_view", map[string]any{"name": "linked", "file_path": "references/nope.md"})
		if m["error"] != "File 'references/nope.md' not found in skill 'linked'." {
			t.Errorf("error = %v", m["error"])
		}
		af, _ := m["available_files"].(map[string]any)
		want := map[string][]string{
			"references": {"references/api.md", "references/notes.txt"},
			"templates":  {"templates/config.yaml", "templates/sub/nested.py"},
			"assets":     {"assets/data.txt", "assets/icons/dot.png", "assets/latin1.txt"},
			"scripts":    {"scripts/readme.txt", "scripts/run.sh"},
			"other":      {"helper.md"},
		}
		for k, w := range want {
			if got := strs(af[k]); !reflect.DeepEqual(got, w) {
				t.Errorf("available_files[%s] = %v, want %v", k, got, w)
			}
		}
	})
	t.Run("directory is not a file", func(t *testing.T) {
		m := c.mustFail("skill_view", map[string]any{"name": "linked", "file_path": "references"})
		if _, ok := m["available_files"]; !ok {
			t.Errorf("got %v", m)
		}
	})
}

func TestSkillViewErrors(t *testing.T) {
	f := newFixture(t)
	outside := filepath.Join(filepath.Dir(f.home), "secret.txt")
	writeFile(t, outside, "top secret\n")
	linked := filepath.Join(f.home, "skills", "research", "linked")
	if err := os.Symlink(outside, filepath.Join(linked, "references", "leak.md")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Dir(f.home), filepath.Join(linked, "assets", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("api.md", filepath.Join(linked, "references", "alias.md")); err != nil {
		t.Fatal(err)
	}
	c := newCaller(t, Toolset(f.options()))

	tests := []struct {
		name    string
		args    map[string]any
		errHas  string
		extra   string // a key the error must carry
		noLeaks bool
	}{
		{"unknown skill", map[string]any{"name": "nope"}, "Skill 'nope' not found.", "available_skills", false},
		{"unknown plugin skill", map[string]any{"name": "someplugin:thing"}, "Skill 'someplugin:thing' not found.", "available_skills", false},
		{"bad namespace", map[string]any{"name": "bad ns:thing"}, "Invalid namespace", "hint", false},
		{"name traversal", map[string]any{"name": "../x"}, "'..'", "hint", false},
		{"name traversal inside", map[string]any{"name": "devops/../../x"}, "'..'", "hint", false},
		{"absolute name", map[string]any{"name": "/etc/passwd"}, "relative path", "hint", false},
		{"windows absolute name", map[string]any{"name": `C:\skills\foo`}, "relative path", "hint", false},
		{"empty name", map[string]any{"name": "  "}, "empty", "hint", false},
		{"file traversal", map[string]any{"name": "linked", "file_path": "../deploy/SKILL.md"}, "Path traversal ('..') is not allowed.", "hint", true},
		{"file traversal backslash", map[string]any{"name": "linked", "file_path": `references\..\..\x`}, "Path traversal", "hint", true},
		{"absolute file", map[string]any{"name": "linked", "file_path": outside}, "Absolute paths are not allowed", "hint", true},
		{"escaping symlink", map[string]any{"name": "linked", "file_path": "references/leak.md"}, "outside the skill directory", "hint", true},
		{"escaping dir symlink", map[string]any{"name": "linked", "file_path": "assets/escape/secret.txt"}, "outside the skill directory", "hint", true},
		{"platform mismatch", map[string]any{"name": "winonly"}, "Skill 'winonly' is not supported on this platform.", "readiness_status", false},
		{"disabled", map[string]any{"name": "disabled-skill"}, "is disabled", "", false},
		{"excluded dir", map[string]any{"name": "hubbed"}, "not found", "", false},
		{"archived in references", map[string]any{"name": "archived-old"}, "not found", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := c.mustFail("skill_view", tc.args)
			msg, _ := m["error"].(string)
			if !strings.Contains(msg, tc.errHas) {
				t.Errorf("error = %q, want it to contain %q", msg, tc.errHas)
			}
			if tc.extra != "" {
				if _, ok := m[tc.extra]; !ok {
					t.Errorf("error result lacks %q: %v", tc.extra, m)
				}
			}
			if tc.noLeaks && strings.Contains(fmt.Sprint(m), "top secret") {
				t.Errorf("leaked outside content: %v", m)
			}
		})
	}

	t.Run("not found suggests sorted visible names", func(t *testing.T) {
		m := c.mustFail("skill_view", map[string]any{"name": "nope"})
		want := []string{"bare", "clash", "deploy", "full-featured", "linked", "ext-unique"}
		if got := strs(m["available_skills"]); !reflect.DeepEqual(got, want) {
			t.Errorf("available_skills = %v, want %v", got, want)
		}
	})
	t.Run("platform mismatch status", func(t *testing.T) {
		m := c.mustFail("skill_view", map[string]any{"name": "winonly"})
		if m["readiness_status"] != statusUnsupported {
			t.Errorf("readiness_status = %v", m["readiness_status"])
		}
	})
	t.Run("symlink inside the skill is fine", func(t *testing.T) {
		m := c.mustOK("skill_view", map[string]any{"name": "linked", "file_path": "references/alias.md"})
		if m["content"] != "# API\n\nCall it.\n" {
			t.Errorf("got %v", m)
		}
	})
	t.Run("unreadable file", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root reads everything")
		}
		p := filepath.Join(linked, "references", "locked.md")
		writeFile(t, p, "x")
		if err := os.Chmod(p, 0); err != nil {
			t.Fatal(err)
		}
		m := c.mustFail("skill_view", map[string]any{"name": "linked", "file_path": "references/locked.md"})
		if msg, _ := m["error"].(string); !strings.Contains(msg, "Failed to read 'references/locked.md'") {
			t.Errorf("error = %q", msg)
		}
	})
}

func TestLibraryAPI(t *testing.T) {
	f := newFixture(t)
	lib := NewLibrary(f.options())
	ctx := context.Background()

	all, err := lib.Skills(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Fatalf("Skills = %d, want 6", len(all))
	}
	s, err := lib.Lookup(ctx, "full-featured")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Frontmatter, "name: full-featured") || strings.Contains(s.Frontmatter, "---") {
		t.Errorf("Frontmatter not verbatim between fences: %q", s.Frontmatter)
	}
	if s.Category != "devops" || s.RelDir != "devops/full" || !s.Local || !s.Visible() {
		t.Errorf("skill = %+v", s)
	}

	shadow, err := lib.Lookup(ctx, "clash")
	if err != nil || !shadow.Local {
		t.Fatalf("clash = %+v, %v; want the local one", shadow, err)
	}

	win, err := lib.Lookup(ctx, "winonly")
	if err != nil || win.Supported || win.Visible() {
		t.Errorf("winonly = %+v, %v; want found but unsupported", win, err)
	}
	if _, err := lib.Lookup(ctx, "../etc"); !errors.Is(err, ErrInvalidName) {
		t.Errorf("Lookup(../etc) err = %v, want ErrInvalidName", err)
	}
	if _, err := lib.Lookup(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Lookup(nope) err = %v, want ErrNotFound", err)
	}

	linked, err := lib.Lookup(ctx, "linked")
	if err != nil {
		t.Fatal(err)
	}
	files, err := lib.Files(linked)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	sizes := map[string]int64{}
	for _, fl := range files {
		paths = append(paths, fl.Path)
		sizes[fl.Path] = fl.Size
	}
	wantPaths := []string{"SKILL.md", "assets/data.txt", "assets/icons/dot.png", "helper.md", "references/api.md",
		"references/notes.txt", "scripts/readme.txt", "scripts/run.sh", "templates/config.yaml", "templates/sub/nested.py"}
	if !reflect.DeepEqual(paths, wantPaths) {
		t.Errorf("Files = %v, want %v", paths, wantPaths)
	}
	if sizes["references/api.md"] != int64(len("# API\n\nCall it.\n")) {
		t.Errorf("size of api.md = %d", sizes["references/api.md"])
	}

	abs, err := lib.ResolveFile(linked, "references/api.md")
	if err != nil || !filepath.IsAbs(abs) {
		t.Errorf("ResolveFile = %q, %v", abs, err)
	}
	for rel, want := range map[string]error{
		"../x":            ErrInvalidPath,
		"/etc/passwd":     ErrInvalidPath,
		"references/none": ErrFileNotFound,
		"references":      ErrFileNotFound,
		"SKILL.md/x":      ErrFileNotFound,
	} {
		if _, err := lib.ResolveFile(linked, rel); !errors.Is(err, want) {
			t.Errorf("ResolveFile(%q) err = %v, want %v", rel, err, want)
		}
	}

	// The deploy skill keeps an archived SKILL.md under references/: it is
	// a file of deploy, not a skill of its own.
	deploy, _ := lib.Lookup(ctx, "deploy")
	files, _ = lib.Files(deploy)
	if len(files) != 2 || files[1].Path != "references/old/SKILL.md" {
		t.Errorf("deploy files = %v", files)
	}
	// A nested skill is not a file of its parent.
	writeFile(t, filepath.Join(f.home, "skills", "bare", "inner", "SKILL.md"), "# Inner\n\nnested\n")
	bare, _ := lib.Lookup(ctx, "bare")
	files, _ = lib.Files(bare)
	if len(files) != 1 {
		t.Errorf("bare files = %v, want only SKILL.md", files)
	}
	if inner, err := lib.Lookup(ctx, "inner"); err != nil || inner.Category != "bare" {
		t.Errorf("nested skill = %+v, %v", inner, err)
	}
}

// A skill symlinked into the skills directory from a checkout kept
// elsewhere leads out of the root, so it is neither listed nor served, and
// Problems says why and what to do; adding the checkout to
// skills.external_dirs serves it, files and all.
func TestSymlinkedSkill(t *testing.T) {
	f := newFixture(t)
	checkout := filepath.Join(filepath.Dir(f.home), "checkout")
	real := filepath.Join(checkout, "mine")
	writeFile(t, filepath.Join(real, "SKILL.md"), "---\nname: mine\ndescription: Kept in a checkout.\n---\n")
	writeFile(t, filepath.Join(real, "references", "a.md"), "A\n")
	if err := os.Symlink(real, filepath.Join(f.home, "skills", "mine")); err != nil {
		t.Fatalf("symlink: %v", err)
	}
	c := newCaller(t, Toolset(f.options()))
	if m := c.mustOK("skills_list", map[string]any{}); slices.Contains(names(m), "mine") {
		t.Fatalf("skill linked in from outside the skills directory is listed: %v", names(m))
	}
	m := c.mustFail("skill_view", map[string]any{"name": "mine"})
	if msg, _ := m["error"].(string); !strings.Contains(msg, "outside the skills directory") || !strings.Contains(msg, "external_dirs") {
		t.Errorf("skill_view error = %q, want it to say the link leads out and how to fix it", msg)
	}
	problems, err := NewLibrary(f.options()).Problems(context.Background())
	if err != nil || len(problems) != 1 || problems[0].RelDir != "mine" || !strings.Contains(problems[0].Reason, real) {
		t.Errorf("Problems = %+v, %v; want one for mine naming %s", problems, err, real)
	}

	opts := f.options()
	opts.ExternalDirs = append(opts.ExternalDirs, checkout)
	c = newCaller(t, Toolset(opts))
	if m := c.mustOK("skills_list", map[string]any{}); !slices.Contains(names(m), "mine") {
		t.Fatalf("skill in an external dir not listed: %v", names(m))
	}
	m = c.mustOK("skill_view", map[string]any{"name": "mine"})
	lf, _ := m["linked_files"].(map[string]any)
	if got := strs(lf["references"]); !reflect.DeepEqual(got, []string{"references/a.md"}) {
		t.Errorf("linked_files = %v", m["linked_files"])
	}
	m = c.mustOK("skill_view", map[string]any{"name": "mine", "file_path": "references/a.md"})
	if m["content"] != "A\n" {
		t.Errorf("file = %v", m)
	}
}

// withWatch runs a test with inotify (where available) and with the stat
// fingerprint alone.
func withWatch(t *testing.T, fn func(t *testing.T)) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", on), func(t *testing.T) {
			defer func(old bool) { watchEnabled = old }(watchEnabled)
			watchEnabled = on
			fn(t)
		})
	}
}

func TestCacheInvalidation(t *testing.T) { withWatch(t, testCacheInvalidation) }

func testCacheInvalidation(t *testing.T) {
	f := newFixture(t)
	c := newCaller(t, Toolset(f.options()))
	list := func() map[string]string {
		t.Helper()
		m := c.mustOK("skills_list", map[string]any{})
		out := map[string]string{}
		for _, s := range m["skills"].([]any) {
			e := s.(map[string]any)
			out[e["name"].(string)] = e["description"].(string)
		}
		return out
	}
	skillsDir := filepath.Join(f.home, "skills")
	steps := []struct {
		name   string
		change func()
		check  func(map[string]string) bool
	}{
		{"same-size edit", func() {
			writeFile(t, filepath.Join(skillsDir, "clash", "SKILL.md"), "---\nname: clash\ndescription: The LOCAL clash skill.\n---\n")
		}, func(m map[string]string) bool { return m["clash"] == "The LOCAL clash skill." }},
		{"add to category", func() {
			writeFile(t, filepath.Join(skillsDir, "devops", "newone", "SKILL.md"), "---\nname: newone\ndescription: Fresh.\n---\n")
		}, func(m map[string]string) bool { return m["newone"] == "Fresh." }},
		{"add at top", func() {
			writeFile(t, filepath.Join(skillsDir, "top", "SKILL.md"), "# Top\n\nTop level.\n")
		}, func(m map[string]string) bool { return m["top"] == "Top level." }},
		{"remove", func() {
			if err := os.RemoveAll(filepath.Join(skillsDir, "devops", "deploy")); err != nil {
				t.Fatal(err)
			}
		}, func(m map[string]string) bool { _, ok := m["deploy"]; return !ok }},
		{"remove local reveals external", func() {
			if err := os.RemoveAll(filepath.Join(skillsDir, "clash")); err != nil {
				t.Fatal(err)
			}
		}, func(m map[string]string) bool { return strings.HasPrefix(m["clash"], "The external") }},
		{"disable in config", func() {
			writeFile(t, filepath.Join(f.home, "config.yaml"), "skills:\n  disabled: [disabled-skill, top]\n")
		}, func(m map[string]string) bool { _, ok := m["top"]; return !ok }},
		{"external dir edit", func() {
			writeFile(t, filepath.Join(f.external, "tools", "ext-unique", "SKILL.md"), "---\nname: ext-unique\ndescription: Changed outside.\n---\n")
		}, func(m map[string]string) bool { return m["ext-unique"] == "Changed outside." }},
	}
	list() // warm the cache
	for _, st := range steps {
		// Let the index age past the racy window, so the change must be
		// detected by the stat fingerprint and not by the racy rescan.
		time.Sleep(racyWindow + 10*time.Millisecond)
		list()
		st.change()
		if got := list(); !st.check(got) {
			t.Errorf("%s: change not visible on the next call: %v", st.name, got)
		}
	}
}

// A cache that is trusted must actually be used: a quiet tree is not rescanned.
func TestCacheReuse(t *testing.T) { withWatch(t, testCacheReuse) }

func testCacheReuse(t *testing.T) {
	f := newFixture(t)
	lib := NewLibrary(f.options())
	ctx := context.Background()
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(f.home, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	_ = filepath.Walk(f.external, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	if _, err := lib.Skills(ctx); err != nil {
		t.Fatal(err)
	}
	first := lib.current.Load()
	if first.racy {
		t.Fatal("index of an hour-old tree is racy")
	}
	if _, err := lib.Skills(ctx); err != nil {
		t.Fatal(err)
	}
	if lib.current.Load() != first {
		t.Error("unchanged tree was rescanned")
	}
}

func TestConcurrentCalls(t *testing.T) { withWatch(t, testConcurrentCalls) }

func testConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	ts := Toolset(f.options())
	list, view := ts.Tools[0].Handler, ts.Tools[1].Handler
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				var err error
				if (i+j)%2 == 0 {
					var res any
					r, e := list(ctx, json.RawMessage(`{}`))
					res, err = r.Value, e
					if err == nil {
						_, err = json.Marshal(res)
					}
				} else {
					_, err = view(ctx, json.RawMessage(`{"name":"linked","file_path":"references/api.md"}`))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 30 {
			p := filepath.Join(f.home, "skills", "churn", fmt.Sprintf("s%d", i%5), "SKILL.md")
			if i%2 == 0 {
				_ = os.MkdirAll(filepath.Dir(p), 0o755)
				_ = os.WriteFile(p, []byte(fmt.Sprintf("---\nname: churn%d\ndescription: d\n---\n", i%5)), 0o644)
			} else {
				_ = os.RemoveAll(filepath.Dir(p))
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// After the churn settles, the listing must match the disk.
	m := newCaller(t, ts).mustOK("skills_list", map[string]any{"category": "churn"})
	entries, _ := os.ReadDir(filepath.Join(f.home, "skills", "churn"))
	if len(names(m)) != len(entries) {
		t.Errorf("churn listing %v does not match disk (%d dirs)", names(m), len(entries))
	}
}

func TestParseDocument(t *testing.T) {
	tests := []struct {
		name, in    string
		wantRaw     string
		wantName    any
		wantBody    string
		wantNoField bool
	}{
		{"plain", "---\nname: a\n---\nbody\n", "\nname: a", "a", "body\n", false},
		{"bom", "\uFEFF---\nname: a\n---\nbody", "\nname: a", "a", "body", false},
		{"no closing fence", "---\nname: a\nbody", "", nil, "---\nname: a\nbody", true},
		{"fence at eof", "---\nname: a\n---", "", nil, "---\nname: a\n---", true},
		{"bad yaml falls back", "---\nname: a\ndescription: \"unterminated\n---\n", "\nname: a\ndescription: \"unterminated", "a", "", false},
		{"not a mapping", "---\n- a\n---\nx", "\n- a", nil, "x", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := parseDocument(tc.in)
			if doc.raw != tc.wantRaw || doc.body != tc.wantBody {
				t.Errorf("raw/body = %q / %q, want %q / %q", doc.raw, doc.body, tc.wantRaw, tc.wantBody)
			}
			if got := doc.fields["name"]; got != tc.wantName {
				t.Errorf("name = %v, want %v", got, tc.wantName)
			}
			if tc.wantNoField && len(doc.fields) != 0 {
				t.Errorf("fields = %v, want none", doc.fields)
			}
		})
	}
	// Values JSON cannot carry must not break the result.
	doc := parseDocument("---\nname: a\nweird: .nan\nmetadata:\n  1: one\n---\n")
	if _, err := json.Marshal(doc.fields); err != nil {
		t.Errorf("fields not JSON-safe: %v", err)
	}
}

func TestLooksBinary(t *testing.T) {
	long := strings.Repeat("a", sniffLen-1) + "é" // the cut splits é
	tests := []struct {
		in        []byte
		truncated bool
		want      bool
	}{
		{[]byte("hello\n"), false, false},
		{[]byte("caf\xc3\xa9"), false, false},
		{[]byte("a\x00b"), false, true},
		{[]byte("caf\xe9"), false, true},
		{[]byte(long)[:sniffLen], true, false},
		{[]byte(long)[:sniffLen], false, true},
	}
	for i, tc := range tests {
		if got := looksBinary(tc.in, tc.truncated); got != tc.want {
			t.Errorf("case %d: looksBinary = %v, want %v", i, got, tc.want)
		}
	}
}

func TestPlatformMatching(t *testing.T) {
	tests := []struct {
		platforms any
		current   string
		want      bool
	}{
		{nil, "linux", true},
		{[]any{}, "linux", true},
		{[]any{"macos"}, "darwin", true},
		{[]any{"macos"}, "linux", false},
		{"windows", "win32", true},
		{[]any{" Linux "}, "linux", true},
		{[]any{"linux", "windows"}, "darwin", false},
	}
	for _, tc := range tests {
		fields := map[string]any{}
		if tc.platforms != nil {
			fields["platforms"] = tc.platforms
		}
		if got := matchesPlatform(fields, tc.current); got != tc.want {
			t.Errorf("platforms %v on %s = %v, want %v", tc.platforms, tc.current, got, tc.want)
		}
	}
	if sysPlatform("macos") != "darwin" || sysPlatform("windows") != "win32" || sysPlatform("linux") != "linux" {
		t.Error("sysPlatform aliases wrong")
	}
}
