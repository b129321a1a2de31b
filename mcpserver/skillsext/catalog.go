package skillsext

import (
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hermes-go/hermes/toolsets/skills"
)

// Agent Skills rules the extension requires of every served skill.
const (
	maxNameLen        = 64
	maxDescriptionLen = 1024
)

// nameRE is the Agent Skills name rule: lowercase letters, digits and
// single hyphens, not at either end.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`) })

// skillFile is the file that makes a directory a skill.
const skillFile = "SKILL.md"

// entry is one skill the Library lists that can be served under the
// extension. Everything in it comes from a single read of SKILL.md, so the
// frontmatter, digest and size published for SKILL.md describe the same
// bytes.
type entry struct {
	skill       skills.Skill
	segs        []string // the skill path: RelDir's segments
	key         string   // join(segs)
	uri         string   // of SKILL.md
	root        int      // index of the skill's root in Library.Roots
	md          []byte   // SKILL.md as read
	frontmatter map[string]any
	name        string
	description string
}

// catalog is the request's view of which skills are served and where.
type catalog struct {
	entries []*entry          // by URI
	byKey   map[string]*entry // by join(segs)
}

// catalog builds the view from the Library's visible skills, the listing
// skills_list shows (platform filter, disabled and shadowed skills already
// applied), keeping those the extension can serve faithfully.
func (x *Extension) catalog(ctx context.Context) (*catalog, error) {
	visible, err := x.lib.Skills(ctx)
	if err != nil {
		return nil, fmt.Errorf("list skills: %w", err)
	}
	roots := x.lib.Roots()
	var candidates []*entry
	for _, s := range visible {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, reason, err := x.admit(s, roots)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			x.skip(s.Dir, reason)
			continue
		}
		candidates = append(candidates, e)
	}
	// Roots in precedence order, so on a clash the local skills directory
	// wins over external ones, as it does for skills_list.
	slices.SortStableFunc(candidates, func(a, b *entry) int { return a.root - b.root })
	c := &catalog{byKey: map[string]*entry{}}
	below := map[string]map[int]bool{} // path -> roots with a skill strictly below it
	for _, e := range candidates {
		if other := c.clash(e, below); other != nil {
			x.skip(e.skill.Dir, fmt.Sprintf("its URI space overlaps %s from another skills directory", other.uri))
			continue
		}
		c.byKey[e.key] = e
		c.entries = append(c.entries, e)
		for i := 1; i < len(e.segs); i++ {
			k := join(e.segs[:i])
			if below[k] == nil {
				below[k] = map[int]bool{}
			}
			below[k][e.root] = true
		}
	}
	slices.SortFunc(c.entries, func(a, b *entry) int { return strings.Compare(a.uri, b.uri) })
	return c, nil
}

// clash finds an admitted skill from another root whose directory encloses
// e's, equals it, or lies inside it. Within one root, nesting mirrors the
// disk and each URI names one file; across roots it would let one URI name
// two files.
func (c *catalog) clash(e *entry, below map[string]map[int]bool) *entry {
	for i := 1; i <= len(e.segs); i++ {
		if o := c.byKey[join(e.segs[:i])]; o != nil && o.root != e.root {
			return o
		}
	}
	for r := range below[e.key] {
		if r != e.root {
			for _, o := range c.entries {
				if o.root == r && strings.HasPrefix(o.key, e.key+"/") {
					return o
				}
			}
		}
	}
	return nil
}

// admit reads a skill's SKILL.md and checks what the extension requires:
// frontmatter that hosts can parse to the same fields, a valid Agent Skills
// name equal to the directory name (the last URI segment), and a
// description. reason says why a skill is left out.
func (x *Extension) admit(s skills.Skill, roots []string) (e *entry, reason string, err error) {
	segs := strings.Split(s.RelDir, "/")
	for _, seg := range segs {
		if seg == "" || seg == "." || seg == ".." {
			return nil, "it is not inside a directory of its own", nil
		}
	}
	// Read under the Library's rule (inside the skills directory, a regular
	// file, within the size limit), as every file served here is.
	md, err := x.lib.ReadSkillFile(s)
	if err != nil {
		if isUserError(err) {
			return nil, err.Error(), nil
		}
		// Gone since the Library listed it; the next call will not list it.
		return nil, fmt.Sprintf("SKILL.md cannot be read: %v", err), nil
	}
	fields, err := skills.ParseFrontmatter(md)
	if err != nil {
		return nil, err.Error(), nil
	}
	name, _ := fields["name"].(string)
	description, _ := fields["description"].(string)
	dir := segs[len(segs)-1]
	switch {
	case name == "":
		return nil, "its frontmatter has no name", nil
	case utf8.RuneCountInString(name) > maxNameLen || !nameRE().MatchString(name):
		return nil, fmt.Sprintf("its name %q breaks the Agent Skills rule (at most %d lowercase letters, digits and single hyphens)", name, maxNameLen), nil
	case name != dir:
		return nil, fmt.Sprintf("its name %q differs from its directory name %q", name, dir), nil
	case strings.TrimSpace(description) == "":
		return nil, "its frontmatter has no description", nil
	case utf8.RuneCountInString(description) > maxDescriptionLen:
		return nil, fmt.Sprintf("its description is longer than %d characters", maxDescriptionLen), nil
	}
	return &entry{
		skill:       s,
		segs:        segs,
		key:         join(segs),
		uri:         buildURI(append(slices.Clone(segs), skillFile)...),
		root:        max(slices.Index(roots, s.Root), 0),
		md:          md,
		frontmatter: fields,
		name:        name,
		description: description,
	}, "", nil
}

func isUserError(err error) bool {
	return errors.Is(err, skills.ErrInvalidPath) || errors.Is(err, skills.ErrOutsideSkill) || errors.Is(err, skills.ErrFileNotFound) ||
		errors.Is(err, skills.ErrNotServed) || errors.Is(err, skills.ErrTooLarge) || errors.Is(err, skills.ErrNotFound)
}

// skip logs, once per skill and reason, why a skill the Library lists is
// not served under the extension (skills_list and skill_view still show
// it).
func (x *Extension) skip(dir, reason string) {
	if _, seen := x.warned.LoadOrStore(dir+"\x00"+reason, true); !seen {
		x.log.Warn("skill not served through the MCP skills extension", "dir", dir, "reason", reason)
	}
}

// tree is a served skill's files and directories, relative to its root.
type tree struct {
	files []skills.File
	dirs  map[string]bool
	sizes map[string]int64
}

// file reports whether rel is a file of the tree, and its size; a nil tree
// has no files.
func (t *tree) file(rel string) (int64, bool) {
	if t == nil {
		return 0, false
	}
	size, ok := t.sizes[rel]
	return size, ok
}

// tree lists e's directory. ok is false when the skill exceeds the
// extension's per-skill limits, which servers should not serve beyond.
func (x *Extension) tree(e *entry) (t *tree, ok bool, err error) {
	files, dirs, err := x.lib.Tree(e.skill)
	if err != nil {
		return nil, false, fmt.Errorf("skill %s: %w", e.skill.Name, err)
	}
	var total int64
	t = &tree{files: files, dirs: map[string]bool{}, sizes: map[string]int64{}}
	var oversize *skills.File
	for i, f := range files {
		total += f.Size
		t.sizes[f.Path] = f.Size
		if f.Path != skillFile && f.Size > skills.MaxFileBytes && oversize == nil {
			oversize = &files[i]
		}
	}
	for _, d := range dirs {
		t.dirs[d] = true
	}
	if _, has := t.sizes[skillFile]; !has {
		// SKILL.md vanished between the catalog and the walk.
		return nil, false, nil
	}
	switch {
	case len(files) > MaxResourcesPerSkill:
		x.skip(e.skill.Dir, fmt.Sprintf("it has %d files, more than the extension's limit of %d", len(files), MaxResourcesPerSkill))
		return nil, false, nil
	case total > MaxBytesPerSkill:
		x.skip(e.skill.Dir, fmt.Sprintf("its files total %d bytes, more than the extension's limit of %d", total, MaxBytesPerSkill))
		return nil, false, nil
	case oversize != nil:
		// A manifest must list every file, and this one would never be read.
		x.skip(e.skill.Dir, fmt.Sprintf("its file %s is %d bytes, over the limit of %d bytes for a skill's supporting files; split it into smaller files", oversize.Path, oversize.Size, skills.MaxFileBytes))
		return nil, false, nil
	}
	return t, true, nil
}

// served memoises tree per entry for one request.
type served struct {
	x     *Extension
	trees map[*entry]*tree
	bad   map[*entry]bool
}

func (x *Extension) newServed() *served {
	return &served{x: x, trees: map[*entry]*tree{}, bad: map[*entry]bool{}}
}

// tree returns e's tree, or nil when e is not served.
func (s *served) tree(e *entry) (*tree, error) {
	if t := s.trees[e]; t != nil || s.bad[e] {
		return t, nil
	}
	t, ok, err := s.x.tree(e)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.bad[e] = true
		return nil, nil
	}
	s.trees[e] = t
	return t, nil
}

// enclosing returns the outermost served skill whose directory is segs or
// contains it, with segs relative to that skill. The outermost one, because
// an enclosing skill's tree includes its nested skills' files.
func (s *served) enclosing(c *catalog, segs []string) (*entry, *tree, string, error) {
	for i := 1; i <= len(segs); i++ {
		e := c.byKey[join(segs[:i])]
		if e == nil {
			continue
		}
		t, err := s.tree(e)
		if err != nil {
			return nil, nil, "", err
		}
		if t != nil {
			return e, t, path.Join(segs[i:]...), nil
		}
	}
	return nil, nil, "", nil
}
