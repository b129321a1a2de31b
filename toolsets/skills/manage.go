package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/safefile"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// skill_manage: the original's agent-facing writer of skills
// (tools/skill_manager_tool.py), with one deliberate narrowing: it changes
// only <home>/skills. The original edits a skill wherever it lives; here
// skills.external_dirs are shared trees the user placed (often another
// checkout or a team repository), and a model rewriting or deleting them
// through an MCP call is not something the user asked for when listing
// them.

// The original's name rules, shared by skill names and categories.
const maxNameLength = 64

// maxDescriptionLength bounds the frontmatter description, as there.
const maxDescriptionLength = 1024

var (
	validNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`) })
	// fenceEndRE finds the closing fence the way the original does
	// (searched after the opening "---"; \s also spans newlines there).
	fenceEndRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n---\s*\n`) })
)

// manageArgs are skill_manage's arguments. Pointers tell an omitted field
// from an empty one where the original does (new_string may be "").
type manageArgs struct {
	Action       string  `json:"action"`
	Name         string  `json:"name"`
	Content      *string `json:"content"`
	OldString    *string `json:"old_string"`
	NewString    *string `json:"new_string"`
	ReplaceAll   bool    `json:"replace_all"`
	Category     *string `json:"category"`
	FilePath     *string `json:"file_path"`
	FileContent  *string `json:"file_content"`
	AbsorbedInto *string `json:"absorbed_into"`
}

// refusal is a failure the model can act on: it becomes an isError result
// with the original's {"success": false, "error": ...} shape, plus extra
// keys where the original adds them.
type refusal struct {
	msg   string
	extra map[string]any
}

func (r *refusal) Error() string { return r.msg }

func refusef(format string, args ...any) error {
	return &refusal{msg: fmt.Sprintf(format, args...)}
}

func (l *Library) handleManage(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[manageArgs](raw)
	if err != nil {
		return tooldef.Errorf("Invalid arguments: %v", err), nil
	}
	res, err := l.manage(ctx, args)
	var r *refusal
	if errors.As(err, &r) {
		out := map[string]any{"success": false, "error": r.msg}
		maps.Copy(out, r.extra)
		return tooldef.Failure(out), nil
	}
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("skill_manage %s %q: %w", args.Action, args.Name, err)
	}
	return tooldef.OK(res), nil
}

// manage runs one skill_manage call. A *refusal error is the model's to
// fix; any other error is the machine's. A successful write is visible to
// the next call of every surface of l, and the change listeners have been
// told before manage returns.
func (l *Library) manage(ctx context.Context, a manageArgs) (map[string]any, error) {
	// Required fields first, with the original's messages, so a call that
	// lacks one is told so before anything about the skill.
	switch a.Action {
	case "create":
		if a.Content == nil || *a.Content == "" {
			return nil, refusef("content is required for 'create'. Provide the full SKILL.md text (frontmatter + body).")
		}
	case "edit":
		if a.Content == nil || *a.Content == "" {
			return nil, refusef("content is required for 'edit'. Provide the full updated SKILL.md text.")
		}
	case "patch":
		if a.OldString == nil || *a.OldString == "" {
			return nil, refusef("old_string is required for 'patch'. Provide the text to find.")
		}
		if a.NewString == nil {
			return nil, refusef("new_string is required for 'patch'. Use empty string to delete matched text.")
		}
	case "write_file":
		if a.FilePath == nil || *a.FilePath == "" {
			return nil, refusef("file_path is required for 'write_file'. Example: 'references/api-guide.md'")
		}
		if a.FileContent == nil {
			return nil, refusef("file_content is required for 'write_file'.")
		}
	case "remove_file":
		if a.FilePath == nil || *a.FilePath == "" {
			return nil, refusef("file_path is required for 'remove_file'.")
		}
	case "delete":
	default:
		return nil, refusef("Unknown action '%s'. Use: create, edit, patch, delete, write_file, remove_file", a.Action)
	}
	// Every action names a skill by its directory; the original checks the
	// name only on create, but a name that could not be created cannot
	// name a skill either, and checking it first keeps separators and ".."
	// out of every path below.
	if msg := validateName(a.Name); msg != "" {
		return nil, refusef("%s", msg)
	}

	// One writer at a time: two calls on one skill must not interleave
	// their read-modify-write.
	l.manageMu.Lock()
	defer l.manageMu.Unlock()

	var res map[string]any
	var err error
	switch a.Action {
	case "create":
		res, err = l.createSkill(ctx, a.Name, *a.Content, deref(a.Category))
	case "edit":
		res, err = l.editSkill(ctx, a.Name, *a.Content)
	case "patch":
		res, err = l.patchSkill(ctx, a.Name, *a.OldString, *a.NewString, deref(a.FilePath), a.ReplaceAll)
	case "delete":
		res, err = l.deleteSkill(ctx, a.Name, a.AbsorbedInto)
	case "write_file":
		res, err = l.writeSkillFile(ctx, a.Name, *a.FilePath, *a.FileContent)
	case "remove_file":
		res, err = l.removeSkillFile(ctx, a.Name, *a.FilePath)
	}
	var r *refusal
	if err != nil && !errors.As(err, &r) {
		// A write may have got half way (a directory made, then the
		// disk full): whatever is on disk now must be what is served.
		l.invalidate()
	}
	if err != nil {
		return nil, err
	}
	// Synchronously, before the result goes out: the model's next call may
	// be skills_list, and a client told of the change will ask at once.
	l.invalidate()
	l.changed(ctx)
	return res, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// validateName is the original's _validate_name.
func validateName(name string) string {
	switch {
	case name == "":
		return "Skill name is required."
	case len(name) > maxNameLength:
		return fmt.Sprintf("Skill name exceeds %d characters.", maxNameLength)
	case !validNameRE().MatchString(name):
		return fmt.Sprintf("Invalid skill name '%s'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit.", name)
	}
	return ""
}

// validateCategory is the original's _validate_category: one directory
// name under the skills directory, by the same rule as a skill name.
func validateCategory(category string) string {
	category = strings.TrimSpace(category)
	switch {
	case category == "":
		return ""
	case strings.ContainsAny(category, `/\`) || (len(category) <= maxNameLength && !validNameRE().MatchString(category)):
		return fmt.Sprintf("Invalid category '%s'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name.", category)
	case len(category) > maxNameLength:
		return fmt.Sprintf("Category exceeds %d characters.", maxNameLength)
	}
	return ""
}

// validateFrontmatter is the original's _validate_frontmatter: the checks
// that make a SKILL.md one the original (and this library) can list.
func validateFrontmatter(content string) string {
	if strings.TrimSpace(content) == "" {
		return "Content cannot be empty."
	}
	content = strings.TrimLeft(content, "\ufeff")
	if !strings.HasPrefix(content, "---") {
		return "SKILL.md must start with YAML frontmatter (---). See existing skills for format."
	}
	loc := fenceEndRE().FindStringIndex(content[3:])
	if loc == nil {
		return "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line."
	}
	var parsed any
	if err := yaml.Unmarshal([]byte(content[3:loc[0]+3]), &parsed); err != nil {
		return fmt.Sprintf("YAML frontmatter parse error: %v", err)
	}
	fields, ok := parsed.(map[string]any)
	if !ok {
		return "Frontmatter must be a YAML mapping (key: value pairs)."
	}
	if _, ok := fields["name"]; !ok {
		return "Frontmatter must include 'name' field."
	}
	desc, ok := fields["description"]
	if !ok {
		return "Frontmatter must include 'description' field."
	}
	if utf8.RuneCountInString(fmt.Sprint(desc)) > maxDescriptionLength {
		return fmt.Sprintf("Description exceeds %d characters.", maxDescriptionLength)
	}
	if strings.TrimSpace(content[loc[1]+3:]) == "" {
		return "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."
	}
	return ""
}

// validateContentSize is the original's _validate_content_size.
func validateContentSize(content, label string) string {
	if n := utf8.RuneCountInString(content); n > MaxSkillChars {
		return fmt.Sprintf("%s content is %s characters (limit: %s). Consider splitting into a smaller SKILL.md with supporting files in references/ or templates/.",
			label, commas(n), commas(MaxSkillChars))
	}
	return ""
}

// validateFileSize is the original's byte limit on a supporting file.
func validateFileSize(content string) string {
	if n := len(content); n > MaxFileBytes {
		return fmt.Sprintf("File content is %s bytes (limit: %s bytes / 1 MiB). Consider splitting into smaller files.", commas(n), commas(MaxFileBytes))
	}
	return ""
}

// validateFilePath is the original's _validate_file_path: a file under
// one of the support directories. When skillName is set (patch only),
// SKILL.md itself is admitted too, spelt "SKILL.md" or
// "<skillName>/SKILL.md" as the original accepts; write_file and
// remove_file would write it unvalidated or remove it, so they get "".
func validateFilePath(p, skillName string) string {
	if p == "" {
		return "file_path is required."
	}
	if hasDotDot(p) {
		return "Path traversal ('..') is not allowed."
	}
	if isAbsolute(p) {
		return fmt.Sprintf("file_path must be relative to the skill directory, e.g. 'references/notes.md'. Got: '%s'", p)
	}
	if skillName != "" && isSkillMD(p, skillName) {
		return ""
	}
	parts := pathParts(p)
	if len(parts) == 0 || !supportDirs[parts[0]] {
		return fmt.Sprintf("File must be under one of: assets, references, scripts, templates. Got: '%s'", p)
	}
	if len(parts) < 2 {
		return fmt.Sprintf("Provide a file path, not just a directory. Example: '%s/myfile.md'", parts[0])
	}
	return ""
}

// pathParts splits a slash- or separator-separated relative path, without
// empty and "." parts.
func pathParts(p string) []string {
	parts := strings.FieldsFunc(filepath.ToSlash(p), func(r rune) bool { return r == '/' })
	return slices.DeleteFunc(parts, func(s string) bool { return s == "." })
}

// isSkillMD reports whether a patch's file_path names the skill's own
// SKILL.md.
func isSkillMD(p, skillName string) bool {
	parts := pathParts(p)
	switch len(parts) {
	case 1:
		return parts[0] == skillFile
	case 2:
		return parts[0] == skillName && parts[1] == skillFile
	}
	return false
}

// cleanFilePath is a validated supporting file's path, clean and relative.
func cleanFilePath(p string) string { return filepath.Join(pathParts(p)...) }

// commas formats n as Python's "{:,}" does.
func commas(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// findSkill is the original's _find_skill: the first skill, local root
// first, whose directory is called name. Skills the library refuses to
// serve are not found, as the original's walk skips them too.
func (l *Library) findSkill(ctx context.Context, name string) (Skill, bool, error) {
	snap, err := l.snapshot(ctx)
	if err != nil {
		return Skill{}, false, err
	}
	for _, s := range snap.all {
		if filepath.Base(s.Dir) == name {
			return s, true, nil
		}
	}
	return Skill{}, false, nil
}

// ownedSkill finds a skill skill_manage may change: one under the local
// skills directory.
func (l *Library) ownedSkill(ctx context.Context, name, suffix string) (Skill, error) {
	s, ok, err := l.findSkill(ctx, name)
	if err != nil {
		return Skill{}, err
	}
	if !ok {
		return Skill{}, refusef("Skill '%s' not found. Use skills_list() to see available skills.%s", name, suffix)
	}
	if !s.Local {
		return Skill{}, refusef("Skill '%s' lives in %s, one of skills.external_dirs, which skill_manage does not change: those directories belong to whoever placed them there. Ask the user to edit it there, or create a skill of another name in %s.",
			name, s.Root, l.local)
	}
	return s, nil
}

// localRoot is the local skills directory with links resolved: the
// boundary every write must stay inside. create makes it when missing.
func (l *Library) localRoot(create bool) (string, error) {
	if create {
		if err := os.MkdirAll(l.local, 0o755); err != nil {
			return "", fmt.Errorf("create skills directory: %w", err)
		}
	}
	return realRoot(l.local)
}

// localTree is the local skills directory held open for one skill_manage
// call. Paths are checked first, by name, so that a refusal can name the
// link at fault; every change is then made through root, whose lookups
// the kernel keeps inside the directory at the moment of the act. A
// component swapped for a link leading out between the check and the act
// makes the act fail; it never lands outside.
type localTree struct {
	real string // the skills directory, links resolved
	root *os.Root
}

// openLocal opens the local skills directory; create makes it when missing.
func (l *Library) openLocal(create bool) (*localTree, error) {
	real, err := l.localRoot(create)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("open skills directory %s: %w", real, err)
	}
	return &localTree{real: real, root: root}, nil
}

func (t *localTree) Close() { t.root.Close() }

// rel names abs, a path under the resolved skills directory, for root.
func (t *localTree) rel(abs string) (string, error) {
	rel, err := filepath.Rel(t.real, abs)
	if err != nil || !safefile.Within(t.real, abs) {
		return "", fmt.Errorf("%s is not inside the skills directory %s", abs, t.real)
	}
	return rel, nil
}

// openDir opens abs, a directory confinedDir returned, as a root of its
// own: what is done in it happens in that directory, wherever its path
// leads afterwards.
func (t *localTree) openDir(abs string) (*os.Root, error) {
	rel, err := t.rel(abs)
	if err != nil {
		return nil, err
	}
	r, err := t.root.OpenRoot(rel)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	return r, nil
}

// confinedDir returns rel (a relative directory under the skills
// directory) resolved, after checking that every component, links
// followed, stays inside it and is a directory. With create, missing
// components are made. A link anywhere on the way that leads out, or
// dangles, is a refusal: whatever is written below it would land where the
// link points.
func confinedDir(t *localTree, rel string, create bool) (string, error) {
	rootReal := t.real
	cur := rootReal
	if rel == "." || rel == "" {
		return cur, nil
	}
	for _, seg := range strings.Split(filepath.Clean(rel), string(filepath.Separator)) {
		next := filepath.Join(cur, seg)
		real, err := safefile.Resolve(rootReal, next)
		if errors.Is(err, fs.ErrNotExist) {
			if fi, lerr := os.Lstat(next); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(next)
				return "", refusef("%s is a symbolic link to %s, which does not exist, so nothing is written through it. Remove the link or point it at a directory inside %s.", next, target, rootReal)
			}
			if !create {
				return "", err
			}
			relNext, rerr := t.rel(next)
			if rerr != nil {
				return "", rerr
			}
			if err := t.root.Mkdir(relNext, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return "", fmt.Errorf("create %s: %w", next, err)
			}
			real, err = safefile.Resolve(rootReal, next)
		}
		if err != nil {
			return "", writeRefusal(next, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return "", fmt.Errorf("stat %s: %w", next, err)
		}
		if !fi.IsDir() {
			return "", refusef("%s is not a directory, so nothing can be written under it. Remove or rename it.", next)
		}
		cur = real
	}
	return cur, nil
}

// writeRefusal words a confinement refusal for a write.
func writeRefusal(p string, err error) error {
	var pe *safefile.PathError
	switch {
	case errors.As(err, &pe) && errors.Is(err, safefile.ErrOutside):
		target := pe.Target
		if target == "" {
			target = "a place"
		}
		return refusef("%s is a symbolic link to %s, outside the skills directory %s, so skill_manage will not write through it. Replace the link with a real directory, or ask the user to edit the files where they live.", p, target, pe.Dir)
	case errors.Is(err, safefile.ErrLoop):
		return refusef("%s is a symbolic link loop, so skill_manage will not write through it. Remove the link.", p)
	}
	return err
}

// skillDir is a local skill's directory, resolved and confined.
func (t *localTree) skillDir(s Skill) (string, error) {
	dir, err := confinedDir(t, filepath.FromSlash(s.RelDir), false)
	if errors.Is(err, fs.ErrNotExist) {
		return "", refusef("Skill '%s' not found. Use skills_list() to see available skills.", filepath.Base(s.Dir))
	}
	return dir, err
}

// writeConfined writes data to rel under dir (a confined, resolved
// directory): its parent directories are made and checked, a final link
// that leads out is refused, and the file is replaced atomically (see
// replaceFile), so a reader never sees half a file and a link at the name
// is replaced, never written through.
func writeConfined(t *localTree, dir, rel string, data []byte) (string, error) {
	relDir, err := filepath.Rel(t.real, filepath.Join(dir, filepath.Dir(rel)))
	if err != nil {
		return "", fmt.Errorf("locate %s: %w", rel, err)
	}
	parent, err := confinedDir(t, relDir, true)
	if err != nil {
		return "", err
	}
	target := filepath.Join(parent, filepath.Base(rel))
	if fi, err := os.Lstat(target); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// Only for the message: the rename below replaces any link, and a
		// link leading out is worth a word rather than a silent replace.
		if _, err := safefile.Resolve(t.real, target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", writeRefusal(target, err)
		}
	}
	pr, err := t.openDir(parent)
	if err != nil {
		return "", err
	}
	defer pr.Close()
	if err := replaceFile(pr, filepath.Base(rel), target, data); err != nil {
		var r *refusal
		if errors.As(err, &r) {
			return "", err
		}
		return "", fmt.Errorf("write skill file: %w", err)
	}
	return target, nil
}

// replaceFile replaces name in dir with data through dir's descriptor
// (atomicfile.WriteIn). A link at name is replaced (rename never follows
// it), an existing file keeps its mode and owner, a read-only one is
// refused, and a new one is 0644. shown is the path named in messages.
func replaceFile(dir *os.Root, name, shown string, data []byte) (err error) {
	mode := fs.FileMode(0o644)
	old, statErr := dir.Lstat(name)
	switch {
	case statErr == nil && old.Mode().IsRegular():
		if err := atomicfile.CheckWritable(shown, shown, old); err != nil {
			return err
		}
		mode = old.Mode().Perm()
	case statErr == nil && old.Mode()&fs.ModeSymlink == 0:
		return refusef("%s is not a regular file, so skill_manage will not replace it. Remove it or pick another file_path.", shown)
	case statErr != nil && !errors.Is(statErr, fs.ErrNotExist):
		return fmt.Errorf("stat %s: %w", shown, statErr)
	}
	if statErr != nil || !old.Mode().IsRegular() {
		old = nil
	}
	return atomicfile.WriteIn(dir, name, data, mode, old)
}

// readConfined reads rel in the skill directory dir as safefile.ReadFile
// would (links followed must stay inside dir, a regular file, at most
// limit bytes), with the open made through dir's own descriptor, and
// returns safefile's errors so that the refusals read the same.
func readConfined(t *localTree, dir, rel string, limit int64) ([]byte, error) {
	p := filepath.Join(dir, rel)
	real, err := safefile.Resolve(dir, p)
	if err != nil {
		return nil, err
	}
	inDir, err := filepath.Rel(dir, real)
	if err != nil {
		return nil, fmt.Errorf("locate %s: %w", p, err)
	}
	sr, err := t.openDir(dir)
	if err != nil {
		return nil, err
	}
	defer sr.Close()
	f, err := sr.OpenFile(inDir, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", p, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &safefile.PathError{Path: p, Target: real, Dir: dir, Err: fmt.Errorf("%w (it is %s)", safefile.ErrNotRegular, safefile.Describe(fi.Mode()))}
	}
	if fi.Size() > limit {
		return nil, &safefile.TooLargeError{Path: p, Size: fi.Size(), Limit: limit}
	}
	data, err := safefile.ReadLimited(f, fi.Size(), limit)
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, &safefile.TooLargeError{Path: p, Size: -1, Limit: limit}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return data, nil
}

func (l *Library) createSkill(ctx context.Context, name, content, category string) (map[string]any, error) {
	if msg := validateCategory(category); msg != "" {
		return nil, refusef("%s", msg)
	}
	category = strings.TrimSpace(category)
	if msg := validateFrontmatter(content); msg != "" {
		return nil, refusef("%s", msg)
	}
	if msg := validateContentSize(content, skillFile); msg != "" {
		return nil, refusef("%s", msg)
	}
	// Across every root, as the original: a local skill of the same name
	// would shadow the external one without the model noticing.
	if s, ok, err := l.findSkill(ctx, name); err != nil {
		return nil, err
	} else if ok {
		return nil, refusef("A skill named '%s' already exists at %s.", name, s.Dir)
	}
	t, err := l.openLocal(true)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	rel := filepath.Join(category, name)
	catDir, err := confinedDir(t, category, true)
	if err != nil {
		return nil, err
	}
	cat, err := t.openDir(catDir)
	if err != nil {
		return nil, err
	}
	defer cat.Close()
	// A directory the library does not list (no SKILL.md, or refused) is
	// still not free: creating into it would adopt whatever it holds. The
	// mkdir itself is the check, so nothing can appear in between.
	if err := cat.Mkdir(name, 0o755); errors.Is(err, fs.ErrExist) {
		return nil, refusef("A skill named '%s' already exists at %s.", name, filepath.Join(l.local, rel))
	} else if err != nil {
		return nil, fmt.Errorf("create %s: %w", rel, err)
	}
	if _, err := writeConfined(t, filepath.Join(catDir, name), skillFile, []byte(content)); err != nil {
		// An empty directory left behind would block the retry as
		// "already exists". Removed through the category's descriptor, it
		// is the one just made even if the path has changed since.
		_ = removeEmptyDir(cat, name)
		return nil, err
	}
	res := map[string]any{
		"success":  true,
		"message":  fmt.Sprintf("Skill '%s' created.", name),
		"path":     filepath.ToSlash(rel),
		"skill_md": filepath.Join(l.local, rel, skillFile),
		"hint":     fmt.Sprintf("To add reference files, templates, or scripts, use skill_manage(action='write_file', name='%s', file_path='references/example.md', file_content='...')", name),
	}
	if category != "" {
		res["category"] = category
	}
	return res, nil
}

func (l *Library) editSkill(ctx context.Context, name, content string) (map[string]any, error) {
	if msg := validateFrontmatter(content); msg != "" {
		return nil, refusef("%s", msg)
	}
	if msg := validateContentSize(content, skillFile); msg != "" {
		return nil, refusef("%s", msg)
	}
	s, err := l.ownedSkill(ctx, name, "")
	if err != nil {
		return nil, err
	}
	t, err := l.openLocal(false)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	dir, err := t.skillDir(s)
	if err != nil {
		return nil, err
	}
	if _, err := writeConfined(t, dir, skillFile, []byte(content)); err != nil {
		return nil, err
	}
	return map[string]any{
		"success": true,
		"message": fmt.Sprintf("Skill '%s' updated (full rewrite).", name),
		"path":    s.Dir,
	}, nil
}

func (l *Library) patchSkill(ctx context.Context, name, oldString, newString, filePath string, replaceAll bool) (map[string]any, error) {
	s, err := l.ownedSkill(ctx, name, "")
	if err != nil {
		return nil, err
	}
	rel, label := skillFile, skillFile
	if filePath != "" {
		if msg := validateFilePath(filePath, name); msg != "" {
			return nil, refusef("%s", msg)
		}
		if !isSkillMD(filePath, name) {
			rel, label = cleanFilePath(filePath), filePath
		}
	}
	t, err := l.openLocal(false)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	dir, err := t.skillDir(s)
	if err != nil {
		return nil, err
	}
	limit := int64(MaxFileBytes)
	if rel == skillFile {
		limit = maxSkillBytes
	}
	data, err := readConfined(t, dir, rel, limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, refusef("File not found: %s", filepath.ToSlash(rel))
	case err != nil && rel == skillFile:
		return nil, asRefusal(skillRefusal(rel, err))
	case err != nil:
		return nil, asRefusal(fileRefusal(filepath.ToSlash(rel), err))
	}
	content := string(data)
	spans := findMatches(content, oldString)
	n := len(spans)
	if n == 0 {
		preview := truncateRunes(content, 500)
		if preview != content {
			preview += "..."
		}
		return nil, &refusal{msg: "Could not find a match for old_string in the file", extra: map[string]any{"file_preview": preview}}
	}
	if n > 1 && !replaceAll {
		return nil, refusef("Found %d matches for old_string. Provide more context to make it unique, or use replace_all=True.", n)
	}
	if !replaceAll {
		spans = spans[:1]
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(content[last:sp[0]])
		b.WriteString(newString)
		last = sp[1]
	}
	b.WriteString(content[last:])
	updated := b.String()
	// The original also holds supporting files to SKILL.md's character
	// limit when patched (not when written); here each file has its own
	// limit, the one the library reads it under.
	if rel == skillFile {
		if msg := validateContentSize(updated, label); msg != "" {
			return nil, refusef("%s", msg)
		}
		if msg := validateFrontmatter(updated); msg != "" {
			return nil, refusef("Patch would break SKILL.md structure: %s", msg)
		}
	} else if msg := validateFileSize(updated); msg != "" {
		return nil, refusef("%s", msg)
	}
	if _, err := writeConfined(t, dir, rel, []byte(updated)); err != nil {
		return nil, err
	}
	plural := ""
	if n > 1 {
		plural = "s"
	}
	return map[string]any{
		"success": true,
		"message": fmt.Sprintf("Patched %s in skill '%s' (%d replacement%s).", label, name, n, plural),
	}, nil
}

// findMatches finds old in content as the original's patch does before its
// fuzzier strategies: the exact text first; failing that, whole lines that
// equal old's lines once leading and trailing whitespace is ignored (a
// model often gets indentation or trailing blanks wrong). It returns the
// byte spans, in order and not overlapping.
func findMatches(content, old string) [][2]int {
	var spans [][2]int
	for i := 0; ; {
		j := strings.Index(content[i:], old)
		if j < 0 || old == "" {
			break
		}
		spans = append(spans, [2]int{i + j, i + j + len(old)})
		i += j + len(old)
	}
	if len(spans) > 0 {
		return spans
	}
	want := strings.Split(strings.TrimRight(old, "\n"), "\n")
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	if strings.Join(want, "") == "" {
		return nil
	}
	// Line starts of content, and the end of the last line.
	starts := []int{0}
	for i := 0; i < len(content); i++ {
		if content[i] == '\n' && i+1 < len(content) {
			starts = append(starts, i+1)
		}
	}
	lineEnd := func(k int) int { // end of line k, without its newline
		if k+1 < len(starts) {
			return starts[k+1] - 1
		}
		return len(content)
	}
	for k := 0; k+len(want) <= len(starts); {
		ok := true
		for m, w := range want {
			if strings.TrimSpace(content[starts[k+m]:lineEnd(k+m)]) != w {
				ok = false
				break
			}
		}
		if !ok {
			k++
			continue
		}
		spans = append(spans, [2]int{starts[k], lineEnd(k + len(want) - 1)})
		k += len(want)
	}
	return spans
}

// asRefusal turns the library's model-facing read errors into refusals.
func asRefusal(err error) error {
	var ue *userError
	if errors.As(err, &ue) {
		return &refusal{msg: ue.msg}
	}
	return err
}

func (l *Library) deleteSkill(ctx context.Context, name string, absorbedInto *string) (map[string]any, error) {
	s, err := l.ownedSkill(ctx, name, "")
	if err != nil {
		return nil, err
	}
	absorbed := strings.TrimSpace(deref(absorbedInto))
	if absorbed != "" {
		if absorbed == name {
			return nil, refusef("absorbed_into='%s' cannot equal the skill being deleted.", absorbed)
		}
		if _, ok, err := l.findSkill(ctx, absorbed); err != nil {
			return nil, err
		} else if !ok {
			return nil, refusef("absorbed_into='%s' does not exist. Create or patch the umbrella skill first, then retry the delete.", absorbed)
		}
	}
	// The original's last-line guard before a recursive delete: never a
	// link (RemoveAll would remove the link, and the skill would seem to
	// survive), never the root, only strictly inside the local root.
	if fi, err := os.Lstat(s.Dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, refusef("Refusing to delete '%s': the skill directory is a symlink/junction. Remove the link target manually if intended.", s.Dir)
	}
	t, err := l.openLocal(false)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	dir, err := t.skillDir(s)
	if err != nil {
		return nil, err
	}
	if dir == t.real || !safefile.Within(t.real, dir) {
		return nil, refusef("Refusing to delete '%s': path does not resolve inside the skills directory %s.", s.Dir, l.local)
	}
	// Through the parent's descriptor: the walk down opens each directory
	// without following links, so a link swapped in anywhere below is
	// removed itself, never followed.
	parent := filepath.Dir(dir)
	pr, err := t.openDir(parent)
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	if err := pr.RemoveAll(filepath.Base(dir)); err != nil {
		return nil, fmt.Errorf("delete skill directory %s: %w", dir, err)
	}
	// An emptied category directory goes too; the root stays.
	if parent != t.real {
		if relParent, err := t.rel(parent); err == nil {
			_ = removeEmptyDir(t.root, relParent) // fails, harmlessly, unless empty
		}
	}
	msg := fmt.Sprintf("Skill '%s' deleted.", name)
	if absorbed != "" {
		msg += fmt.Sprintf(" Content absorbed into '%s'.", absorbed)
	}
	return map[string]any{"success": true, "message": msg}, nil
}

func (l *Library) writeSkillFile(ctx context.Context, name, filePath, content string) (map[string]any, error) {
	if msg := validateFilePath(filePath, ""); msg != "" {
		return nil, refusef("%s", msg)
	}
	if msg := validateFileSize(content); msg != "" {
		return nil, refusef("%s", msg)
	}
	s, err := l.ownedSkill(ctx, name, " Create it first with action='create'.")
	if err != nil {
		return nil, err
	}
	t, err := l.openLocal(false)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	dir, err := t.skillDir(s)
	if err != nil {
		return nil, err
	}
	if _, err := writeConfined(t, dir, cleanFilePath(filePath), []byte(content)); err != nil {
		return nil, err
	}
	return map[string]any{
		"success": true,
		"message": fmt.Sprintf("File '%s' written to skill '%s'.", filePath, name),
		"path":    filepath.Join(s.Dir, cleanFilePath(filePath)),
	}, nil
}

func (l *Library) removeSkillFile(ctx context.Context, name, filePath string) (map[string]any, error) {
	if msg := validateFilePath(filePath, ""); msg != "" {
		return nil, refusef("%s", msg)
	}
	s, err := l.ownedSkill(ctx, name, "")
	if err != nil {
		return nil, err
	}
	t, err := l.openLocal(false)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	dir, err := t.skillDir(s)
	if err != nil {
		return nil, err
	}
	rel := cleanFilePath(filePath)
	notFound := func() error {
		var available []string
		if files, _, err := l.walkFiles(s, true); err == nil {
			for _, f := range files {
				if first, _, _ := strings.Cut(f.Path, "/"); supportDirs[first] {
					available = append(available, f.Path)
				}
			}
		}
		var av any
		if len(available) > 0 {
			av = available
		}
		return &refusal{msg: fmt.Sprintf("File '%s' not found in skill '%s'.", filePath, name), extra: map[string]any{"available_files": av}}
	}
	relDir, err := filepath.Rel(t.real, filepath.Join(dir, filepath.Dir(rel)))
	if err != nil {
		return nil, fmt.Errorf("locate %s: %w", rel, err)
	}
	parent, err := confinedDir(t, relDir, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	target := filepath.Join(parent, filepath.Base(rel))
	pr, err := t.openDir(parent)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound()
	}
	if err != nil {
		return nil, err
	}
	defer pr.Close()
	fi, err := pr.Lstat(filepath.Base(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, notFound()
	}
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", target, err)
	}
	if fi.IsDir() {
		return nil, refusef("'%s' is a directory; remove_file removes one file. Remove the files in it one by one.", filePath)
	}
	// A link is removed itself (unlink never follows it), so its target,
	// wherever it is, is untouched.
	if err := pr.Remove(filepath.Base(rel)); err != nil {
		return nil, fmt.Errorf("remove %s: %w", target, err)
	}
	if parent != dir {
		if relParent, err := t.rel(parent); err == nil {
			_ = removeEmptyDir(t.root, relParent) // only when emptied, as the original
		}
	}
	return map[string]any{
		"success": true,
		"message": fmt.Sprintf("File '%s' removed from skill '%s'.", filePath, name),
	}, nil
}
