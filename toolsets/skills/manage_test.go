package skills

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// skillMD is a valid SKILL.md for name.
func skillMD(name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n%s\n", name, desc, body)
}

// outside is a directory beside the Hermes home, with a file in it, that
// no skill_manage call may change.
func outside(t *testing.T, f *fixture) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(f.home), "outside")
	writeFile(t, filepath.Join(dir, "secret.md"), "outside data\n")
	writeFile(t, filepath.Join(dir, skillFile), skillMD("evil", "Planted.", "Body."))
	return dir
}

// treeSum digests every path, mode, link target and content under dir.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "err %s\n", p)
			return nil
		}
		fi, _ := os.Lstat(p)
		fmt.Fprintf(h, "%s %v\n", p, fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(h, "-> %s\n", target)
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestManageRefusals checks every rule: each call is an isError result
// with the original's message, and neither the Hermes home nor anything
// outside it changes.
func TestManageRefusals(t *testing.T) {
	long := strings.Repeat("a", 65)
	bigMD := skillMD("big", "Too big.", strings.Repeat("x", MaxSkillChars))
	tests := []struct {
		name  string
		setup func(t *testing.T, f *fixture, out string)
		args  map[string]any
		want  string
	}{
		// names
		{"empty name", nil, map[string]any{"action": "create", "name": "", "content": skillMD("x", "d", "b")}, "Skill name is required."},
		{"name too long", nil, map[string]any{"action": "create", "name": long, "content": skillMD("x", "d", "b")}, "Skill name exceeds 64 characters."},
		{"uppercase name", nil, map[string]any{"action": "create", "name": "Bad", "content": skillMD("x", "d", "b")}, "Invalid skill name 'Bad'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit."},
		{"leading hyphen", nil, map[string]any{"action": "create", "name": "-x", "content": skillMD("x", "d", "b")}, "Invalid skill name '-x'"},
		{"leading dot", nil, map[string]any{"action": "create", "name": ".hidden", "content": skillMD("x", "d", "b")}, "Invalid skill name '.hidden'"},
		{"dot dot name", nil, map[string]any{"action": "delete", "name": ".."}, "Invalid skill name '..'"},
		{"slash in name", nil, map[string]any{"action": "edit", "name": "a/b", "content": skillMD("x", "d", "b")}, "Invalid skill name 'a/b'"},
		{"space in name", nil, map[string]any{"action": "create", "name": "a b", "content": skillMD("x", "d", "b")}, "Invalid skill name 'a b'"},
		// categories
		{"category with slash", nil, map[string]any{"action": "create", "name": "ok", "category": "a/b", "content": skillMD("ok", "d", "b")}, "Invalid category 'a/b'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name."},
		{"category dot dot", nil, map[string]any{"action": "create", "name": "ok", "category": "..", "content": skillMD("ok", "d", "b")}, "Invalid category '..'"},
		{"category too long", nil, map[string]any{"action": "create", "name": "ok", "category": long, "content": skillMD("ok", "d", "b")}, "Category exceeds 64 characters."},
		// required fields
		{"create without content", nil, map[string]any{"action": "create", "name": "ok"}, "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body)."},
		{"edit without content", nil, map[string]any{"action": "edit", "name": "bare"}, "content is required for 'edit'. Provide the full updated SKILL.md text."},
		{"patch without old_string", nil, map[string]any{"action": "patch", "name": "bare", "new_string": "x"}, "old_string is required for 'patch'. Provide the text to find."},
		{"patch without new_string", nil, map[string]any{"action": "patch", "name": "bare", "old_string": "x"}, "new_string is required for 'patch'. Use empty string to delete matched text."},
		{"write_file without file_path", nil, map[string]any{"action": "write_file", "name": "bare", "file_content": "x"}, "file_path is required for 'write_file'. Example: 'references/api-guide.md'"},
		{"write_file without file_content", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "references/a.md"}, "file_content is required for 'write_file'."},
		{"remove_file without file_path", nil, map[string]any{"action": "remove_file", "name": "bare"}, "file_path is required for 'remove_file'."},
		// frontmatter
		{"no frontmatter", nil, map[string]any{"action": "create", "name": "ok", "content": "# Title\n\nBody\n"}, "SKILL.md must start with YAML frontmatter (---). See existing skills for format."},
		{"blank content", nil, map[string]any{"action": "create", "name": "ok", "content": "  \n"}, "Content cannot be empty."},
		{"unclosed frontmatter", nil, map[string]any{"action": "create", "name": "ok", "content": "---\nname: ok\ndescription: d\nbody\n"}, "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line."},
		{"yaml error", nil, map[string]any{"action": "create", "name": "ok", "content": "---\nname: [ok\n---\nbody\n"}, "YAML frontmatter parse error:"},
		{"frontmatter not a mapping", nil, map[string]any{"action": "create", "name": "ok", "content": "---\n- a\n- b\n---\nbody\n"}, "Frontmatter must be a YAML mapping (key: value pairs)."},
		{"frontmatter without name", nil, map[string]any{"action": "create", "name": "ok", "content": "---\ndescription: d\n---\nbody\n"}, "Frontmatter must include 'name' field."},
		{"frontmatter without description", nil, map[string]any{"action": "create", "name": "ok", "content": "---\nname: ok\n---\nbody\n"}, "Frontmatter must include 'description' field."},
		{"description too long", nil, map[string]any{"action": "create", "name": "ok", "content": skillMD("ok", strings.Repeat("d", 1025), "body")}, "Description exceeds 1024 characters."},
		{"empty body", nil, map[string]any{"action": "create", "name": "ok", "content": "---\nname: ok\ndescription: d\n---\n\n"}, "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."},
		{"edit with bad frontmatter", nil, map[string]any{"action": "edit", "name": "bare", "content": "no fence\n"}, "SKILL.md must start with YAML frontmatter"},
		// limits
		{"oversize SKILL.md", nil, map[string]any{"action": "create", "name": "big", "content": bigMD}, fmt.Sprintf("SKILL.md content is %s characters (limit: 100,000).", commas(len([]rune(bigMD))))},
		{"oversize edit", nil, map[string]any{"action": "edit", "name": "bare", "content": bigMD}, "SKILL.md content is"},
		{"oversize file", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "references/big.md", "file_content": strings.Repeat("x", MaxFileBytes+1)}, "File content is 1,048,577 bytes (limit: 1,048,576 bytes / 1 MiB). Consider splitting into smaller files."},
		{"patch past the limit", func(t *testing.T, f *fixture, _ string) {
			writeFile(t, filepath.Join(f.home, "skills", "fm", skillFile), skillMD("fm", "d", "grow here"))
		}, map[string]any{"action": "patch", "name": "fm", "old_string": "grow here", "new_string": strings.Repeat("y", MaxSkillChars)}, "SKILL.md content is"},
		// file paths
		{"file outside the support dirs", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "notes.md", "file_content": "x"}, "File must be under one of: assets, references, scripts, templates. Got: 'notes.md'"},
		{"file in another dir", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "docs/a.md", "file_content": "x"}, "File must be under one of: assets, references, scripts, templates. Got: 'docs/a.md'"},
		{"SKILL.md through write_file", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "SKILL.md", "file_content": "x"}, "File must be under one of"},
		{"directory only", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "references", "file_content": "x"}, "Provide a file path, not just a directory. Example: 'references/myfile.md'"},
		{"dot dot in file_path", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "references/../../x.md", "file_content": "x"}, "Path traversal ('..') is not allowed."},
		{"leading dot dot", nil, map[string]any{"action": "remove_file", "name": "bare", "file_path": "../clash/SKILL.md"}, "Path traversal ('..') is not allowed."},
		{"absolute file_path", nil, map[string]any{"action": "write_file", "name": "bare", "file_path": "/etc/passwd", "file_content": "x"}, "file_path must be relative to the skill directory"},
		{"patch SKILL.md of another name", nil, map[string]any{"action": "patch", "name": "bare", "file_path": "other/SKILL.md", "old_string": "a", "new_string": "b"}, "File must be under one of"},
		{"patch past the file limit", func(t *testing.T, f *fixture, _ string) {
			writeFile(t, filepath.Join(f.home, "skills", "bare", "references", "r.md"), "grow here")
		}, map[string]any{"action": "patch", "name": "bare", "file_path": "references/r.md", "old_string": "grow here", "new_string": strings.Repeat("y", MaxFileBytes+1)}, "File content is 1,048,577 bytes"},
		{"patch outside support dirs", nil, map[string]any{"action": "patch", "name": "bare", "file_path": "other.md", "old_string": "a", "new_string": "b"}, "File must be under one of"},
		// lookups
		{"write_file to missing skill", nil, map[string]any{"action": "write_file", "name": "nope", "file_path": "references/a.md", "file_content": "x"}, "Skill 'nope' not found. Use skills_list() to see available skills. Create it first with action='create'."},
		{"edit missing skill", nil, map[string]any{"action": "edit", "name": "nope", "content": skillMD("nope", "d", "b")}, "Skill 'nope' not found."},
		{"create over a local skill", nil, map[string]any{"action": "create", "name": "bare", "content": skillMD("bare", "d", "b")}, "A skill named 'bare' already exists at "},
		{"create over an external skill", nil, map[string]any{"action": "create", "name": "ext-unique", "content": skillMD("ext-unique", "d", "b")}, "A skill named 'ext-unique' already exists at "},
		{"create over a directory without SKILL.md", func(t *testing.T, f *fixture, _ string) {
			writeFile(t, filepath.Join(f.home, "skills", "half", "notes.txt"), "x")
		}, map[string]any{"action": "create", "name": "half", "content": skillMD("half", "d", "b")}, "A skill named 'half' already exists at "},
		{"delete an external skill", nil, map[string]any{"action": "delete", "name": "ext-unique"}, "Skill 'ext-unique' lives in "},
		{"edit an external skill", nil, map[string]any{"action": "edit", "name": "ext-unique", "content": skillMD("ext-unique", "d", "b")}, "which skill_manage does not change"},
		{"write_file to an external skill", nil, map[string]any{"action": "write_file", "name": "ext-unique", "file_path": "references/a.md", "file_content": "x"}, "which skill_manage does not change"},
		{"absorbed into itself", nil, map[string]any{"action": "delete", "name": "bare", "absorbed_into": "bare"}, "absorbed_into='bare' cannot equal the skill being deleted."},
		{"absorbed into nothing", nil, map[string]any{"action": "delete", "name": "bare", "absorbed_into": "ghost"}, "absorbed_into='ghost' does not exist. Create or patch the umbrella skill first, then retry the delete."},
		// patch matching
		{"patch text not found", func(t *testing.T, f *fixture, _ string) {
			writeFile(t, filepath.Join(f.home, "skills", "fm", skillFile), skillMD("fm", "d", "one two"))
		}, map[string]any{"action": "patch", "name": "fm", "old_string": "three", "new_string": "x"}, "Could not find a match for old_string in the file"},
		{"patch ambiguous", func(t *testing.T, f *fixture, _ string) {
			writeFile(t, filepath.Join(f.home, "skills", "fm", skillFile), skillMD("fm", "d", "step\nstep"))
		}, map[string]any{"action": "patch", "name": "fm", "old_string": "step", "new_string": "x"}, "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True."},
		{"patch breaking the frontmatter", func(t *testing.T, f *fixture, _ string) {
			writeFile(t, filepath.Join(f.home, "skills", "fm", skillFile), skillMD("fm", "d", "body"))
		}, map[string]any{"action": "patch", "name": "fm", "old_string": "description: d\n", "new_string": ""}, "Patch would break SKILL.md structure: Frontmatter must include 'description' field."},
		{"patch missing file", nil, map[string]any{"action": "patch", "name": "bare", "file_path": "references/none.md", "old_string": "a", "new_string": "b"}, "File not found: references/none.md"},
		{"remove missing file", nil, map[string]any{"action": "remove_file", "name": "bare", "file_path": "references/none.md"}, "File 'references/none.md' not found in skill 'bare'."},
		// links out of the skills directory
		{"skill dir linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "evil"))
		}, map[string]any{"action": "write_file", "name": "evil", "file_path": "references/x.md", "file_content": "pwned"}, "Skill 'evil' not found."},
		{"edit of a skill dir linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "evil"))
		}, map[string]any{"action": "edit", "name": "evil", "content": skillMD("evil", "d", "pwned")}, "Skill 'evil' not found."},
		{"create over a skill dir linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "evil"))
		}, map[string]any{"action": "create", "name": "evil", "content": skillMD("evil", "d", "pwned")}, "A skill named 'evil' already exists"},
		{"delete of a skill dir linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "evil"))
		}, map[string]any{"action": "delete", "name": "evil"}, "Skill 'evil' not found."},
		{"category linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "evilcat"))
		}, map[string]any{"action": "create", "name": "newskill", "category": "evilcat", "content": skillMD("newskill", "d", "b")}, "outside the skills directory"},
		{"dangling category link", func(t *testing.T, f *fixture, out string) {
			symlink(t, filepath.Join(out, "missing"), filepath.Join(f.home, "skills", "ghostcat"))
		}, map[string]any{"action": "create", "name": "newskill", "category": "ghostcat", "content": skillMD("newskill", "d", "b")}, "which does not exist"},
		{"references linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "bare", "references"))
		}, map[string]any{"action": "write_file", "name": "bare", "file_path": "references/x.md", "file_content": "pwned"}, "outside the skills directory"},
		{"overwrite through references linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "bare", "references"))
		}, map[string]any{"action": "write_file", "name": "bare", "file_path": "references/secret.md", "file_content": "pwned"}, "outside the skills directory"},
		{"remove through references linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "bare", "references"))
		}, map[string]any{"action": "remove_file", "name": "bare", "file_path": "references/secret.md"}, "outside the skills directory"},
		{"patch through references linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, out, filepath.Join(f.home, "skills", "bare", "references"))
		}, map[string]any{"action": "patch", "name": "bare", "file_path": "references/secret.md", "old_string": "outside", "new_string": "pwned"}, "outside the skill directory"},
		{"file linked out", func(t *testing.T, f *fixture, out string) {
			symlink(t, filepath.Join(out, "secret.md"), filepath.Join(f.home, "skills", "bare", "references", "leak.md"))
		}, map[string]any{"action": "write_file", "name": "bare", "file_path": "references/leak.md", "file_content": "pwned"}, "outside the skills directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			out := outside(t, f)
			if tt.setup != nil {
				tt.setup(t, f, out)
			}
			lib := NewLibrary(f.options())
			c := newCaller(t, lib.Toolset())
			before, outBefore := treeSum(t, f.home), treeSum(t, out)
			calls := 0
			lib.OnChange(func(context.Context) { calls++ })
			m := c.mustFail("skill_manage", tt.args)
			if got, _ := m["error"].(string); !strings.Contains(got, tt.want) {
				t.Errorf("error = %q\nwant it to contain %q", got, tt.want)
			}
			if treeSum(t, f.home) != before {
				t.Error("a refused call changed the Hermes home")
			}
			if treeSum(t, out) != outBefore {
				t.Error("a refused call changed a directory outside the skills directory")
			}
			if calls != 0 {
				t.Errorf("change listeners ran %d times for a refused call", calls)
			}
		})
	}
}

// TestManageActions runs every action to success, checking the files on
// disk and that skills_list and skill_view see each change on the very
// next call.
func TestManageActions(t *testing.T) {
	for _, watch := range []bool{true, false} {
		t.Run(fmt.Sprintf("watch=%v", watch), func(t *testing.T) {
			defer func(old bool) { watchEnabled = old }(watchEnabled)
			watchEnabled = watch
			f := newFixture(t)
			lib := NewLibrary(f.options())
			c := newCaller(t, lib.Toolset())
			calls := 0
			lib.OnChange(func(context.Context) { calls++ })
			skills := filepath.Join(f.home, "skills")
			listed := func() []string { return names(c.mustOK("skills_list", map[string]any{})) }
			if slices.Contains(listed(), "saved") {
				t.Fatal("fixture already has 'saved'")
			}

			steps := []struct {
				name   string
				args   map[string]any
				want   map[string]any
				check  func(t *testing.T)
				writes bool
			}{
				{"create in a category", map[string]any{"action": "create", "name": "saved", "category": "learned", "content": skillMD("saved", "Saved by the agent.", "Step one.\nStep two.")},
					map[string]any{"message": "Skill 'saved' created.", "path": "learned/saved", "category": "learned", "skill_md": filepath.Join(skills, "learned", "saved", skillFile)},
					func(t *testing.T) {
						if !slices.Contains(listed(), "saved") {
							t.Error("skills_list does not list the new skill")
						}
						v := c.mustOK("skill_view", map[string]any{"name": "saved"})
						if !strings.Contains(v["content"].(string), "Step one.") {
							t.Errorf("skill_view content = %q", v["content"])
						}
					}, true},
				{"write a reference", map[string]any{"action": "write_file", "name": "saved", "file_path": "references/api.md", "file_content": "# API\n"},
					map[string]any{"message": "File 'references/api.md' written to skill 'saved'.", "path": filepath.Join(skills, "learned", "saved", "references", "api.md")},
					func(t *testing.T) {
						v := c.mustOK("skill_view", map[string]any{"name": "saved", "file_path": "references/api.md"})
						if v["content"] != "# API\n" {
							t.Errorf("file content = %q", v["content"])
						}
					}, true},
				{"write a template", map[string]any{"action": "write_file", "name": "saved", "file_path": "templates/deep/t.yaml", "file_content": "k: v\n"},
					map[string]any{"message": "File 'templates/deep/t.yaml' written to skill 'saved'."}, nil, true},
				{"write a script", map[string]any{"action": "write_file", "name": "saved", "file_path": "scripts/run.sh", "file_content": "echo hi\n"},
					map[string]any{"message": "File 'scripts/run.sh' written to skill 'saved'."}, nil, true},
				{"write an asset of exactly 1 MiB", map[string]any{"action": "write_file", "name": "saved", "file_path": "assets/blob.txt", "file_content": strings.Repeat("a", MaxFileBytes)},
					map[string]any{"message": "File 'assets/blob.txt' written to skill 'saved'."}, nil, true},
				{"overwrite a file", map[string]any{"action": "write_file", "name": "saved", "file_path": "references/api.md", "file_content": "# API v2\n"},
					map[string]any{"message": "File 'references/api.md' written to skill 'saved'."}, func(t *testing.T) {
						b, _ := os.ReadFile(filepath.Join(skills, "learned", "saved", "references", "api.md"))
						if string(b) != "# API v2\n" {
							t.Errorf("file = %q", b)
						}
					}, true},
				{"patch SKILL.md", map[string]any{"action": "patch", "name": "saved", "old_string": "Step two.", "new_string": "Step two, verified."},
					map[string]any{"message": "Patched SKILL.md in skill 'saved' (1 replacement)."}, func(t *testing.T) {
						v := c.mustOK("skill_view", map[string]any{"name": "saved"})
						if !strings.Contains(v["content"].(string), "Step two, verified.") {
							t.Errorf("skill_view after patch = %q", v["content"])
						}
					}, true},
				{"patch all", map[string]any{"action": "patch", "name": "saved", "old_string": "Step", "new_string": "Stage", "replace_all": true},
					map[string]any{"message": "Patched SKILL.md in skill 'saved' (2 replacements)."}, nil, true},
				{"patch SKILL.md named with the skill", map[string]any{"action": "patch", "name": "saved", "file_path": "saved/SKILL.md", "old_string": "Stage one.", "new_string": "Stage one!"},
					map[string]any{"message": "Patched SKILL.md in skill 'saved' (1 replacement)."}, nil, true},
				{"patch a supporting file", map[string]any{"action": "patch", "name": "saved", "file_path": "references/api.md", "old_string": "v2", "new_string": "v3"},
					map[string]any{"message": "Patched references/api.md in skill 'saved' (1 replacement)."}, nil, true},
				{"edit with a new description", map[string]any{"action": "edit", "name": "saved", "content": skillMD("saved", "Rewritten by the agent", "All new.")},
					map[string]any{"message": "Skill 'saved' updated (full rewrite).", "path": filepath.Join(skills, "learned", "saved")},
					func(t *testing.T) {
						for _, s := range c.mustOK("skills_list", map[string]any{})["skills"].([]any) {
							if e := s.(map[string]any); e["name"] == "saved" && e["description"] != "Rewritten by the agent" {
								t.Errorf("skills_list description = %q", e["description"])
							}
						}
					}, true},
				{"remove a file", map[string]any{"action": "remove_file", "name": "saved", "file_path": "scripts/run.sh"},
					map[string]any{"message": "File 'scripts/run.sh' removed from skill 'saved'."}, func(t *testing.T) {
						if _, err := os.Stat(filepath.Join(skills, "learned", "saved", "scripts")); !os.IsNotExist(err) {
							t.Errorf("emptied scripts/ left behind: %v", err)
						}
					}, true},
				{"create a 64-character name", map[string]any{"action": "create", "name": strings.Repeat("n", 64), "content": skillMD("long", "d", "b")},
					map[string]any{"path": strings.Repeat("n", 64)}, nil, true},
				{"delete", map[string]any{"action": "delete", "name": "saved", "absorbed_into": "bare"},
					map[string]any{"message": "Skill 'saved' deleted. Content absorbed into 'bare'."}, func(t *testing.T) {
						if slices.Contains(listed(), "saved") {
							t.Error("skills_list still lists the deleted skill")
						}
						if _, err := os.Stat(filepath.Join(skills, "learned")); !os.IsNotExist(err) {
							t.Errorf("emptied category left behind: %v", err)
						}
						if _, err := os.Stat(filepath.Join(skills, "bare", skillFile)); err != nil {
							t.Errorf("delete touched another skill: %v", err)
						}
					}, true},
				{"delete the local one of a clash", map[string]any{"action": "delete", "name": "clash"},
					map[string]any{"message": "Skill 'clash' deleted."}, func(t *testing.T) {
						if _, err := os.Stat(filepath.Join(f.external, "clash", skillFile)); err != nil {
							t.Errorf("the external clash skill was touched: %v", err)
						}
					}, true},
			}
			for _, st := range steps {
				before := calls
				m := c.mustOK("skill_manage", st.args)
				for k, want := range st.want {
					if m[k] != want {
						t.Errorf("%s: %s = %v, want %v", st.name, k, m[k], want)
					}
				}
				if st.writes && calls != before+1 {
					t.Errorf("%s: change listeners ran %d times, want once", st.name, calls-before)
				}
				if st.check != nil {
					t.Run(st.name, st.check)
				}
			}
		})
	}
}

// A fresh home has no skills directory: create makes it.
func TestManageCreatesSkillsDir(t *testing.T) {
	home := t.TempDir()
	lib := NewLibrary(Options{Home: home, Platform: "linux"})
	c := newCaller(t, lib.Toolset())
	c.mustOK("skills_list", map[string]any{})
	c.mustOK("skill_manage", map[string]any{"action": "create", "name": "first", "content": skillMD("first", "The first.", "Body.")})
	if got := names(c.mustOK("skills_list", map[string]any{})); !slices.Equal(got, []string{"first"}) {
		t.Errorf("skills_list = %v", got)
	}
	fi, err := os.Stat(filepath.Join(home, "skills", "first", skillFile))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("SKILL.md: %v, %v", fi, err)
	}
	// The temporary file of the atomic write is gone.
	entries, _ := os.ReadDir(filepath.Join(home, "skills", "first"))
	if len(entries) != 1 {
		t.Errorf("skill directory holds %d entries, want SKILL.md alone", len(entries))
	}
}

// A skills directory that is itself a link (skills kept on another disk)
// is the boundary where it leads, as for reading.
func TestManageLinkedSkillsDir(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "disk", "skills")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	symlink(t, real, filepath.Join(home, "skills"))
	lib := NewLibrary(Options{Home: home, Platform: "linux"})
	c := newCaller(t, lib.Toolset())
	c.mustOK("skill_manage", map[string]any{"action": "create", "name": "ondisk", "category": "c", "content": skillMD("ondisk", "d", "b")})
	c.mustOK("skill_manage", map[string]any{"action": "write_file", "name": "ondisk", "file_path": "references/r.md", "file_content": "r"})
	if _, err := os.Stat(filepath.Join(real, "c", "ondisk", "references", "r.md")); err != nil {
		t.Fatal(err)
	}
	c.mustOK("skill_manage", map[string]any{"action": "delete", "name": "ondisk"})
	if _, err := os.Lstat(filepath.Join(home, "skills")); err != nil {
		t.Errorf("delete removed the skills directory link: %v", err)
	}
}

// A link inside the skill to another file inside the skills directory is
// replaced by the written file, never written through: the other skill
// keeps its content.
func TestManageReplacesInsideLink(t *testing.T) {
	f := newFixture(t)
	other := filepath.Join(f.home, "skills", "clash", skillFile)
	before, _ := os.ReadFile(other)
	symlink(t, other, filepath.Join(f.home, "skills", "bare", "references", "alias.md"))
	c := newCaller(t, NewLibrary(f.options()).Toolset())
	c.mustOK("skill_manage", map[string]any{"action": "write_file", "name": "bare", "file_path": "references/alias.md", "file_content": "mine"})
	if after, _ := os.ReadFile(other); string(after) != string(before) {
		t.Errorf("write went through the link into %s", other)
	}
	fi, err := os.Lstat(filepath.Join(f.home, "skills", "bare", "references", "alias.md"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("alias.md is not a regular file now: %v %v", fi, err)
	}
}

func TestValidateFrontmatterBOM(t *testing.T) {
	if msg := validateFrontmatter("\ufeff" + skillMD("x", "d", "b")); msg != "" {
		t.Errorf("BOM before the fence refused: %s", msg)
	}
}

func TestCommas(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1048576: "1,048,576"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}
