package skills

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
)

// The listing's description follows the original: the frontmatter's, else
// the first body line that is not a heading; an explicit null with nothing
// to stand in is listed as null, not "".
func TestListingDescriptionForms(t *testing.T) {
	f := newFixture(t)
	for name, md := range map[string]string{
		"null-bare": "---\nname: null-bare\ndescription: null\n---\n# Heading only\n",
		"null-body": "---\nname: null-body\ndescription: ~\n---\n# Title\n\nThe body line stands in.\n",
		"empty":     "---\nname: empty\ndescription: ''\n---\n",
		"absent":    "---\nname: absent\n---\n",
	} {
		writeFile(t, filepath.Join(f.home, "skills", "desc", name, "SKILL.md"), md)
	}
	c := newCaller(t, Toolset(f.options()))
	got := map[string]any{}
	for _, s := range c.mustOK("skills_list", map[string]any{"category": "desc"})["skills"].([]any) {
		e := s.(map[string]any)
		got[e["name"].(string)] = e["description"]
	}
	want := map[string]any{"null-bare": nil, "null-body": "The body line stands in.", "empty": "", "absent": ""}
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			b, _ := json.Marshal(got)
			t.Errorf("%s: description %#v, want %#v (all: %s)", name, g, w, b)
		}
	}
}

// skills.disabled (and skills.platform_disabled.<platform>) may be a list,
// one name as a string, or a list written into a string by `hermes config
// set`. A disabled skill is not listed, and skill_view says so in the
// original's words, naming the skill as its frontmatter does.
func TestDisabledConfigForms(t *testing.T) {
	const msg = "Skill 'disabled-skill' is disabled. Enable it with `hermes skills` or inspect the files directly on disk."
	tests := []struct {
		name, config string
		platform     string
		hidden       []string
	}{
		{name: "one name as a string", config: "skills:\n  disabled: disabled-skill\n", hidden: []string{"disabled-skill"}},
		{name: "a list in a string", config: "skills:\n  disabled: \"['disabled-skill', \\\"bare\\\"]\"\n", hidden: []string{"disabled-skill", "bare"}},
		{name: "a JSON list in a string", config: "skills:\n  disabled: '[\"disabled-skill\", \"bare\"]'\n", hidden: []string{"disabled-skill", "bare"}},
		{name: "names are trimmed", config: "skills:\n  disabled: [' disabled-skill ']\n", hidden: []string{"disabled-skill"}},
		{name: "platform list as a string", config: "skills:\n  platform_disabled:\n    telegram: disabled-skill\n", platform: "telegram", hidden: []string{"disabled-skill"}},
		{name: "another platform's list", config: "skills:\n  platform_disabled:\n    telegram: disabled-skill\n", platform: "discord"},
		{name: "a substring is not a name", config: "skills:\n  disabled: disabled-skill-two\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeFile(t, filepath.Join(f.home, "config.yaml"), tt.config)
			if tt.platform != "" {
				f.env["HERMES_PLATFORM"] = tt.platform
			}
			c := newCaller(t, Toolset(f.options()))
			listed := names(c.mustOK("skills_list", map[string]any{}))
			for _, n := range []string{"disabled-skill", "bare"} {
				if hidden := slices.Contains(tt.hidden, n); slices.Contains(listed, n) == hidden {
					t.Errorf("%s listed = %v, want %v", n, !hidden, !hidden)
				}
			}
			m, isErr := c.call("skill_view", map[string]any{"name": "disabled-skill"})
			if hidden := slices.Contains(tt.hidden, "disabled-skill"); isErr != hidden || (hidden && m["error"] != msg) {
				t.Errorf("skill_view: %v", m)
			}
		})
	}
}

// required_environment_variables must be a mapping or a list: a bare
// string is not read as a variable, as in the original.
func TestRequiredEnvForms(t *testing.T) {
	tests := []struct {
		decl string
		want []string
	}{
		{"required_environment_variables: BARE_TOKEN", []string{}},
		{"required_environment_variables: {name: ONE_TOKEN, prompt: Token}", []string{"ONE_TOKEN"}},
		{"required_environment_variables: [LIST_A, {name: LIST_B}]", []string{"LIST_A", "LIST_B"}},
		{"setup:\n  collect_secrets: SECRET_STRING", []string{}},
		{"setup:\n  collect_secrets: {env_var: SECRET_ONE}", []string{"SECRET_ONE"}},
	}
	for _, tt := range tests {
		f := newFixture(t)
		writeFile(t, filepath.Join(f.home, "skills", "needs", "SKILL.md"), "---\nname: needs\ndescription: Needs.\n"+tt.decl+"\n---\nBody.\n")
		m := newCaller(t, Toolset(f.options())).mustOK("skill_view", map[string]any{"name": "needs"})
		var got []string
		for _, e := range m["required_environment_variables"].([]any) {
			got = append(got, e.(map[string]any)["name"].(string))
		}
		if !slices.Equal(nonNil(got), tt.want) || !slices.Equal(strs(m["missing_required_environment_variables"]), tt.want) {
			t.Errorf("%q: required %q, missing %v; want %q", tt.decl, got, m["missing_required_environment_variables"], tt.want)
		}
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
