package skills

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/internal/safefile"
)

// skillFile marks a directory as a skill.
const skillFile = "SKILL.md"

// excludedDirs are never searched for skills: VCS, hub metadata, archives,
// virtualenvs and caches. The list is the original's, so both agree on what
// is a skill; other dot-directories are searched, as there.
var excludedDirs = map[string]bool{
	".git": true, ".github": true, ".hub": true, ".archive": true,
	".venv": true, "venv": true, "node_modules": true, "site-packages": true,
	"__pycache__": true, ".tox": true, ".nox": true, ".pytest_cache": true,
	".mypy_cache": true, ".ruff_cache": true,
}

// supportDirs hold a skill's linked files. Directly inside a skill they are
// data, not places to look for more skills: an archived SKILL.md under
// references/ must not become a live skill.
var supportDirs = map[string]bool{"references": true, "templates": true, "assets": true, "scripts": true}

// Organisation mirrors live in <skills>/_org/<org_id>/. Only the org named in
// the marker the Hermes sync client writes is searched, so leaving an org
// retires its skills without cleanup.
const (
	orgDir    = "_org"
	orgMarker = ".active_org"
)

// maxWalkDepth bounds the walk in case a symlink cycle slips past the
// visited set (e.g. through a bind mount).
const maxWalkDepth = 32

// Errors from Lookup and ResolveFile, for errors.Is. The error's text is a
// sentence meant for the model: it says what was wrong and what to pass.
var (
	ErrInvalidName  = errors.New("invalid skill name")
	ErrNotFound     = errors.New("skill not found")
	ErrInvalidPath  = errors.New("invalid file path")
	ErrOutsideSkill = errors.New("file resolves outside the skill directory")
	ErrFileNotFound = errors.New("file not found in skill")
)

// userError carries a model-facing message and a sentinel kind.
type userError struct {
	kind error
	msg  string
}

func (e *userError) Error() string { return e.msg }
func (e *userError) Unwrap() error { return e.kind }

func userErrorf(kind error, format string, args ...any) error {
	return &userError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// Skill is one skill as the index sees it. Values are snapshots: the
// Library may rescan at any call, and Skill never changes afterwards.
// Slices and maps inside are shared with the index and must not be modified.
type Skill struct {
	// Name is the frontmatter name, else the directory name, at most 64
	// characters.
	Name string
	// Description is the frontmatter description, else the first body line
	// that is not a heading, at most 1024 characters.
	Description string
	// NullDescription is true when the frontmatter says `description: null`
	// and no body line stands in: listed as null, as the original lists it.
	NullDescription bool
	// Category is the first directory under the root for skills nested two
	// or more levels deep; "" otherwise.
	Category string
	// RelDir is the skill directory relative to Root, slash-separated
	// ("mlops/axolotl").
	RelDir string
	// Dir is the skill directory, absolute, as reached from Root (symlinks
	// not resolved).
	Dir string
	// Root is the skills directory the skill was found under.
	Root string
	// Local is true for skills under <home>/skills, false for external dirs.
	Local bool
	// Frontmatter is the YAML between the fences, verbatim. Like the
	// original's listing, only the first 4000 characters of SKILL.md are
	// read for the index, so it is "" when the frontmatter runs past them.
	Frontmatter string
	// Fields is the parsed Frontmatter, converted to JSON-safe values.
	Fields map[string]any
	// Supported is false when `platforms` excludes this platform.
	Supported bool
	// Relevant is false when `environments` names only environments
	// (kanban, docker, s6) that are not active here. Such a skill is not
	// listed and claims no name, but Lookup still finds it: an explicit
	// load always works.
	Relevant bool
	// Disabled is true when config.yaml lists the name under skills.disabled
	// (or skills.platform_disabled for the current HERMES_PLATFORM).
	Disabled bool
	// Shadowed is true when an earlier root (local before external) has a
	// visible skill of the same name.
	Shadowed bool
}

// Visible reports whether the skill is listed: supported here, enabled,
// relevant here, and not shadowed.
func (s Skill) Visible() bool { return s.Supported && !s.Disabled && s.Relevant && !s.Shadowed }

// SkillFile is the absolute path of the skill's SKILL.md.
func (s Skill) SkillFile() string { return filepath.Join(s.Dir, skillFile) }

// File is one file of a skill.
type File struct {
	// Path is relative to the skill directory, slash-separated.
	Path string
	Size int64
}

// Library is the one source of truth for which skills exist and what they
// contain. It keeps a parsed index and revalidates it on every call by
// stat-ing the directories and SKILL.md files it was built from, which
// costs a fraction of re-reading them; any change rebuilds the index.
// A Library is safe for concurrent use.
type Library struct {
	home      string
	local     string   // <home>/skills
	roots     []string // local first, then external dirs, deduplicated
	platform  string   // sys.platform-style name
	lookupEnv func(string) (string, bool)
	lookPath  func(string) (string, error)
	log       *slog.Logger
	// containers reports the docker and s6 markers, detected once.
	containers func() (docker, s6 bool)

	current atomic.Pointer[snapshot]
	rescan  sync.Mutex // one rebuild at a time; readers never wait on it

	manageMu sync.Mutex // one skill_manage write at a time

	listenMu  sync.Mutex
	listeners map[*listener]struct{}
}

// listener is one OnChange registration; its address is its identity.
type listener struct{ fn func(context.Context) }

// OnChange registers fn to run after every write through skill_manage,
// once the index has been invalidated, with the context of the call that
// wrote (an MCP server finds its session there). It returns a function
// that removes the registration. Changes made outside skill_manage are
// found by the next call, not announced.
func (l *Library) OnChange(fn func(ctx context.Context)) (remove func()) {
	ln := &listener{fn: fn}
	l.listenMu.Lock()
	if l.listeners == nil {
		l.listeners = map[*listener]struct{}{}
	}
	l.listeners[ln] = struct{}{}
	l.listenMu.Unlock()
	return func() {
		l.listenMu.Lock()
		delete(l.listeners, ln)
		l.listenMu.Unlock()
	}
}

// changed runs the OnChange listeners.
func (l *Library) changed(ctx context.Context) {
	l.listenMu.Lock()
	fns := make([]func(context.Context), 0, len(l.listeners))
	for ln := range l.listeners {
		fns = append(fns, ln.fn)
	}
	l.listenMu.Unlock()
	for _, fn := range fns {
		fn(ctx)
	}
}

// invalidate makes the next call rescan. The watch would notice the write
// too, but a stamp-only snapshot (no inotify, or the watch bound reached)
// can miss a rewrite within one mtime tick, and a write by this process is
// known for certain, so no evidence is waited for.
func (l *Library) invalidate() {
	if s := l.current.Load(); s != nil {
		s.stale.Store(true)
	}
}

// NewLibrary returns a Library over opts. It touches no files until the
// first call.
func NewLibrary(opts Options) *Library {
	l := &Library{
		home:      opts.Home,
		local:     filepath.Join(opts.Home, "skills"),
		platform:  sysPlatform(opts.Platform),
		lookupEnv: opts.LookupEnv,
		lookPath:  opts.LookPath,
		log:       opts.Logger,
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.lookupEnv == nil {
		// The environment as the Python Hermes sees it: the home's .env
		// over the process's.
		l.lookupEnv = hermesenv.Load(opts.Home, os.Environ()).LookupEnv
	}
	if l.lookPath == nil {
		l.lookPath = exec.LookPath
	}
	root := opts.SystemRoot
	if root == "" {
		root = string(filepath.Separator)
	}
	l.containers = sync.OnceValues(func() (bool, bool) { return containerMarkers(root) })
	l.roots = []string{filepath.Clean(l.local)}
	for _, d := range opts.ExternalDirs {
		if d == "" {
			continue
		}
		if d = filepath.Clean(d); !slices.Contains(l.roots, d) {
			l.roots = append(l.roots, d)
		}
	}
	return l
}

// sysPlatform maps Options.Platform (or the build's GOOS) to the
// sys.platform-style name that `platforms` entries are matched against.
func sysPlatform(p string) string {
	if p == "" {
		switch runtime.GOOS {
		case "darwin", "ios":
			return "darwin"
		case "windows":
			return "win32"
		case "android":
			// Termux is a Linux userland; the original treats linux-tagged
			// skills as compatible there.
			return "linux"
		default:
			return runtime.GOOS
		}
	}
	p = strings.ToLower(strings.TrimSpace(p))
	if alias, ok := platformAliases[p]; ok {
		return alias
	}
	return p
}

// SkillsDir is <home>/skills, where new skills belong.
func (l *Library) SkillsDir() string { return l.local }

// Roots are the directories searched, in precedence order.
func (l *Library) Roots() []string { return slices.Clone(l.roots) }

// Skills returns the visible skills sorted by (category, name).
func (l *Library) Skills(ctx context.Context) ([]Skill, error) {
	snap, err := l.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Clone(snap.visible), nil
}

// Lookup finds a skill by name, by its path under a root ("mlops/axolotl"),
// or by directory name, preferring visible skills and then roots in
// precedence order. A "plugin:skill" name is looked up as "plugin/skill",
// which is where the original falls back to when no plugin provides it.
// Lookup also returns skills hidden from Skills (unsupported platform,
// disabled, shadowed), so callers can say why; check Skill.Visible.
func (l *Library) Lookup(ctx context.Context, name string) (Skill, error) {
	rel, err := normalizeName(name)
	if err != nil {
		return Skill{}, err
	}
	snap, err := l.snapshot(ctx)
	if err != nil {
		return Skill{}, err
	}
	name = strings.TrimSpace(name)
	matchers := []func(Skill) bool{
		func(s Skill) bool { return s.RelDir == rel },
		func(s Skill) bool { return s.Name == name },
		func(s Skill) bool { return path.Base(s.RelDir) == rel },
	}
	for _, wantVisible := range []bool{true, false} {
		for _, match := range matchers {
			for _, s := range snap.all {
				if s.Visible() == wantVisible && match(s) {
					return s, nil
				}
			}
		}
	}
	return Skill{}, userErrorf(ErrNotFound, "Skill '%s' not found.", name)
}

// namespaceRE is what the original accepts before the ':' of "plugin:skill".
var namespaceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]+$`) })

// normalizeName validates a lookup name and returns it as a clean
// slash-separated relative path. Names are joined onto skill roots, so
// anything that could climb out of one is refused.
func normalizeName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", userErrorf(ErrInvalidName, "Skill name is empty. Pass a name from skills_list, e.g. 'my-skill' or 'category/my-skill'.")
	}
	if isAbsolute(name) {
		return "", userErrorf(ErrInvalidName, "Skill name must be a relative path within the skills directory, not an absolute path. Pass a name from skills_list, e.g. 'my-skill' or 'category/my-skill'.")
	}
	if hasDotDot(name) {
		return "", userErrorf(ErrInvalidName, "Skill name cannot contain '..' path traversal components. Pass a name from skills_list, e.g. 'my-skill' or 'category/my-skill'.")
	}
	if ns, bare, ok := strings.Cut(name, ":"); ok {
		if !namespaceRE().MatchString(ns) {
			return "", userErrorf(ErrInvalidName, "Invalid namespace '%s' in '%s'. Namespaces must match [a-zA-Z0-9_-]+.", ns, name)
		}
		name = ns + "/" + bare
	}
	rel := path.Clean(strings.ReplaceAll(name, `\`, "/"))
	return strings.Trim(rel, "/"), nil
}

// isAbsolute recognises absolute paths of every platform, because a name
// written on Windows may arrive at a Unix server and vice versa.
func isAbsolute(p string) bool {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return true
	}
	return len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z')
}

// hasDotDot reports a ".." component under either separator.
func hasDotDot(p string) bool {
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == ".." {
			return true
		}
	}
	return false
}

// ResolveFile returns the absolute, symlink-resolved path of relPath inside
// the skill's directory. relPath must be relative and free of "..", and
// what it resolves to must be a regular file inside the skill directory,
// which must itself resolve inside its skills directory, so a link planted
// in a skill cannot expose the rest of the disk. Callers that read the file
// open it with OpenFile, which checks the same again on the file opened.
func (l *Library) ResolveFile(s Skill, relPath string) (string, error) {
	if err := checkRelPath(relPath); err != nil {
		return "", err
	}
	base, err := skillBase(s)
	if err != nil {
		return "", err
	}
	target, fi, err := safefile.Stat(base, filepath.Join(s.Dir, filepath.FromSlash(relPath)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", userErrorf(ErrFileNotFound, "File '%s' not found in skill '%s'.", relPath, s.Name)
		}
		return "", fileRefusal(relPath, err)
	}
	if fi.IsDir() {
		return "", userErrorf(ErrFileNotFound, "File '%s' not found in skill '%s'.", relPath, s.Name)
	}
	if !fi.Mode().IsRegular() {
		return "", fileRefusal(relPath, &safefile.PathError{Path: relPath, Target: target, Dir: base, Err: safefile.ErrNotRegular})
	}
	return target, nil
}

// checkRelPath refuses a file path that is not relative to the skill
// directory.
func checkRelPath(relPath string) error {
	if relPath == "" {
		return userErrorf(ErrInvalidPath, "File path is empty. Pass a path relative to the skill directory, e.g. 'references/api.md'.")
	}
	if hasDotDot(relPath) {
		return userErrorf(ErrInvalidPath, "Path traversal ('..') is not allowed. Pass a path relative to the skill directory, e.g. 'references/api.md'.")
	}
	if isAbsolute(relPath) {
		return userErrorf(ErrInvalidPath, "Absolute paths are not allowed. Pass a path relative to the skill directory, e.g. 'references/api.md'.")
	}
	return nil
}

// Files lists the skill's files with their sizes, SKILL.md included, sorted
// by path. Hidden files and directories, excluded directories and nested
// skills (subdirectories with their own SKILL.md) are left out; symlinks
// count only when they resolve to a regular file inside the skill.
func (l *Library) Files(s Skill) ([]File, error) {
	files, _, err := l.walkFiles(s, false)
	return files, err
}

// Tree lists the skill directory for serving it file by file: the files
// Files lists plus the files of nested skills, which to a reader of the
// enclosing skill are ordinary content, and every directory on the way
// (slash-separated, relative, empty ones included), both in walk order. The
// rules for hidden, excluded and symlinked entries are those of Files.
func (l *Library) Tree(s Skill) (files []File, dirs []string, err error) {
	return l.walkFiles(s, true)
}

// walkFiles is Files, and with nested set Tree.
func (l *Library) walkFiles(s Skill, nested bool) (files []File, dirs []string, err error) {
	base, err := skillBase(s)
	if err != nil {
		return nil, nil, fmt.Errorf("list files of skill %s: %w", s.Name, err)
	}
	// Walk the resolved directory: WalkDir does not enter a root that is a
	// symlink, and skills symlinked into the skills directory are common.
	err = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == base {
				return err
			}
			return nil // an unreadable corner must not hide the rest
		}
		if p == base {
			return nil
		}
		name := d.Name()
		rel, err := filepath.Rel(base, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(name, ".") || excludedDirs[name] {
				return filepath.SkipDir
			}
			// A SKILL.md below makes a separate skill, except inside support
			// directories, where the walk does not look for skills either.
			top, _, _ := strings.Cut(rel, "/")
			if !nested && !supportDirs[top] {
				if _, err := os.Lstat(filepath.Join(p, skillFile)); err == nil {
					return filepath.SkipDir
				}
			}
			dirs = append(dirs, rel)
			return nil
		}
		if strings.HasPrefix(name, ".") {
			return nil
		}
		var size int64
		switch {
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return nil
			}
			size = info.Size()
		case d.Type()&fs.ModeSymlink != 0:
			_, info, err := safefile.Stat(base, p)
			if err != nil || !info.Mode().IsRegular() {
				return nil // links out, loops and FIFOs are no files of the skill
			}
			size = info.Size()
		default:
			return nil
		}
		files = append(files, File{Path: rel, Size: size})
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list files of skill %s: %w", s.Name, err)
	}
	return files, dirs, nil
}

// snapshot returns an index that is current as of this call.
func (l *Library) snapshot(ctx context.Context) (*snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := scanKey{platform: l.platformEnv(), kanbanEnv: l.kanbanFromEnv()}
	snap := l.current.Load()
	if snap != nil && snap.fresh(key) {
		return snap, nil
	}
	l.rescan.Lock()
	defer l.rescan.Unlock()
	// Another caller may have rebuilt while this one waited.
	if cur := l.current.Load(); cur != snap && cur.fresh(key) {
		return cur, nil
	}
	next, err := l.scan(ctx, key)
	if err != nil {
		return nil, err
	}
	l.report(l.current.Load(), next)
	l.current.Swap(next).release()
	return next, nil
}

// report logs what a rescan newly refused, and the watch bound when it is
// first reached, so an unchanged library logs nothing however often it is
// rescanned. prev is nil on the first scan.
func (l *Library) report(prev, next *snapshot) {
	seen := map[Problem]bool{}
	wasPolling := false
	if prev != nil {
		for _, p := range prev.problems {
			seen[p] = true
		}
		wasPolling = prev.polled > 0
	}
	for _, p := range next.problems {
		if !seen[p] {
			l.log.Warn("skill not served", "path", p.Path, "reason", p.Reason)
		}
	}
	if next.polled > 0 && !wasPolling {
		l.log.Warn("skills watcher: watch bound reached; the remaining directories are polled by modification time on each call",
			"watches", next.watched, "bound", maxWatches, "polled_dirs", next.polled)
	}
}

// Problems returns the skills and directories the library refuses to
// serve, with the reason for each: links out of the skills directory,
// link loops, files that are not regular files, SKILL.md over its size
// limit. It is for diagnostics (doctor); the tools leave these out.
func (l *Library) Problems(ctx context.Context) ([]Problem, error) {
	snap, err := l.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return slices.Clone(snap.problems), nil
}

// platformEnv is the messaging platform the original keys
// skills.platform_disabled on; empty outside a gateway.
func (l *Library) platformEnv() string {
	if v, ok := l.lookupEnv("HERMES_PLATFORM"); ok && v != "" {
		return v
	}
	v, _ := l.lookupEnv("HERMES_SESSION_PLATFORM")
	return v
}

// scan builds a fresh index. Every stat is taken before the read it
// guards, so a write racing the scan leaves a stale stamp and the next call
// rescans rather than trusting a torn result.
func (l *Library) scan(ctx context.Context, key scanKey) (*snapshot, error) {
	snap := newSnapshot(key)
	cfg := l.readConfig(snap, key.platform)
	env := environment{kanban: key.kanbanEnv || cfg.kanbanProfile}
	env.docker, env.s6 = l.containers()

	w := &walker{ctx: ctx, snap: snap, visited: map[string]bool{}}
	seen := map[string]bool{}
	for i, root := range l.roots {
		found, err := w.root(root)
		if err != nil {
			snap.release()
			return nil, err
		}
		if i == 0 {
			snap.localMissing = !w.rootExisted
		}
		for _, md := range found {
			s, err := readSkill(root, w.rootReal, i == 0, md, l.platform)
			if err != nil {
				if errors.Is(err, ErrNotServed) || errors.Is(err, ErrTooLarge) {
					snap.problem(root, filepath.Dir(md), err.Error())
				}
				continue
			}
			s.Disabled = cfg.disabled[s.Name]
			s.Relevant = matchesEnvironment(s.Fields, env)
			if s.Supported && !s.Disabled && s.Relevant {
				s.Shadowed = seen[s.Name]
				seen[s.Name] = true
			}
			snap.all = append(snap.all, s)
		}
	}
	for _, s := range snap.all {
		if s.Visible() {
			snap.visible = append(snap.visible, s)
		}
	}
	slices.SortStableFunc(snap.visible, func(a, b Skill) int {
		if c := strings.Compare(a.Category, b.Category); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return snap, nil
}

// readSkill parses the head of one SKILL.md into a Skill. Unreadable files
// are skipped, as in the original: one broken skill must not hide the rest.
// A SKILL.md the rule refuses (see confine.go) is an ErrNotServed or
// ErrTooLarge error, which the scan reports as a Problem.
func readSkill(root, rootReal string, local bool, md, platform string) (Skill, error) {
	head, err := readHead(rootReal, md)
	if err != nil {
		return Skill{}, err
	}
	doc := parseDocument(head)
	dir := filepath.Dir(md)
	relDir, err := filepath.Rel(root, dir)
	if err != nil {
		return Skill{}, err
	}
	relDir = filepath.ToSlash(relDir)
	s := Skill{
		Name:        truncateRunes(skillName(doc.fields, filepath.Base(dir)), maxNameLen),
		RelDir:      relDir,
		Dir:         dir,
		Root:        root,
		Local:       local,
		Frontmatter: doc.raw,
		Fields:      doc.fields,
		Supported:   matchesPlatform(doc.fields, platform),
	}
	s.Description, s.NullDescription = listingDescription(doc)
	if parts := strings.Split(relDir, "/"); len(parts) >= 2 {
		s.Category = parts[0]
	}
	return s, nil
}

// readHead reads the first listingPrefixChars characters of a SKILL.md
// under the rule, and refuses one over MaxSkillChars, so a skill is listed
// only when skill_view can serve it.
func readHead(rootReal, md string) (string, error) {
	f, fi, err := safefile.Open(rootReal, md)
	if err != nil {
		return "", skillRefusal(md, err)
	}
	defer f.Close()
	// A character is at most 4 bytes; the BOM adds 3.
	buf := make([]byte, listingPrefixChars*4+3)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	if fi.Size() > MaxSkillChars {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return "", err
		}
		if err := checkSkillSize(md, f, fi); err != nil {
			return "", err
		}
	}
	return truncateRunes(decodeText(buf[:n]), listingPrefixChars), nil
}

// walker finds SKILL.md files under the roots, recording a stamp for every
// directory it lists.
type walker struct {
	ctx         context.Context
	snap        *snapshot
	visited     map[string]bool // resolved directories, against symlink loops
	rootExisted bool
	rootDir     string // the current root, as configured
	rootReal    string // the current root, resolved: nothing outside it is walked
}

// root returns the SKILL.md paths under one root, sorted, which is the
// order the original resolves name clashes in.
func (w *walker) root(root string) ([]string, error) {
	w.rootExisted = false
	w.rootDir = root
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		w.snap.stamp(root) // a missing root must still be noticed when it appears
		return nil, nil
	}
	w.rootExisted = true
	w.rootReal = real
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// Nothing watches the root's parent, so re-pointing the link is
		// caught by stamping the root itself.
		w.snap.stamp(root)
	}
	var found []string
	if err := w.dir(root, real, root, "", &found, 0); err != nil {
		return nil, err
	}
	slices.Sort(found)
	return found, nil
}

// dir lists one directory. activeOrg is non-empty while inside <root>/_org,
// where only that org's subdirectory is searched.
func (w *walker) dir(dir, real, root, activeOrg string, found *[]string, depth int) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	if depth > maxWalkDepth || w.visited[real] {
		return nil
	}
	w.visited[real] = true
	// The resolved path is watched and listed: it is inside the root, and a
	// link swapped in later is an event in its parent, not a path followed.
	watched := w.snap.watchDir(real)
	entries, err := os.ReadDir(real)
	if err != nil {
		return nil // unreadable directories hold no skills we can serve
	}
	type sub struct {
		name string
		real string
	}
	var subs []sub
	hasSkill, skillLinked := false, false
	for _, e := range entries {
		name := e.Name()
		isDir := e.IsDir()
		childReal := filepath.Join(real, name)
		symlink := e.Type()&fs.ModeSymlink != 0
		if symlink {
			target, fi, err := safefile.Stat(w.rootReal, filepath.Join(real, name))
			if err != nil {
				w.refuse(dir, name, err)
				continue
			}
			isDir, childReal = fi.IsDir(), target
		}
		switch {
		case isDir:
			subs = append(subs, sub{name, childReal})
		case name == skillFile:
			// Whatever it is (a FIFO, say), readSkill opens it under the
			// rule and reports it if refused.
			hasSkill, skillLinked = true, symlink
		}
	}
	if hasSkill {
		md := filepath.Join(dir, skillFile)
		*found = append(*found, md)
		// The directory's watch sees edits to SKILL.md itself, not to the
		// target of a SKILL.md symlink.
		if !watched || skillLinked {
			w.snap.stamp(md)
		}
	}
	for _, sd := range subs {
		if excludedDirs[sd.name] || (hasSkill && supportDirs[sd.name]) {
			continue
		}
		childOrg := ""
		switch {
		case dir == root && sd.name == orgDir:
			childOrg = w.activeOrg(filepath.Join(dir, orgDir))
			if childOrg == "" {
				continue
			}
		case activeOrg != "" && sd.name != activeOrg:
			continue
		}
		child := filepath.Join(dir, sd.name)
		if err := w.dir(child, sd.real, root, childOrg, found, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// refuse records a link the walk does not follow, when it matters: a
// SKILL.md, or a directory that could hold skills. A dangling link is no
// problem (the original skips them too), and links to files are the
// business of whoever reads them.
func (w *walker) refuse(dir, name string, err error) {
	p := filepath.Join(dir, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return
	case name == skillFile:
		w.snap.problem(w.rootDir, dir, skillRefusal(p, err).Error())
	case errors.Is(err, safefile.ErrLoop):
		w.snap.problem(w.rootDir, p, skillRefusal(p, err).Error())
	default:
		// Stat, not open: whether the target is a directory decides if
		// skills were left out, and a stat reads no content.
		if fi, serr := os.Stat(p); serr == nil && fi.IsDir() {
			w.snap.problem(w.rootDir, p, skillRefusal(p, err).Error())
		}
	}
}

// activeOrg reads the org marker; "" means no org skills load.
func (w *walker) activeOrg(org string) string {
	marker := filepath.Join(org, orgMarker)
	w.snap.stamp(marker)
	b, err := safefile.ReadFile(w.rootReal, marker, 4096)
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if id == "" || hasDotDot(id) || strings.ContainsAny(id, `/\`) {
		return ""
	}
	return id
}
