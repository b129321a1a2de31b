package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/internal/hermeshome"
)

// Racy windows: a file written within one timestamp tick of our stat can
// change again without changing its mtime (Linux stamps files from a
// coarse clock; some filesystems keep whole seconds). A snapshot that saw
// such a recent mtime is not trusted, and the next call rescans, until the
// tree has been quiet for longer than a tick. Whole-second mtimes get the
// longer window because they suggest a coarse filesystem.
const (
	racyWindow       = 50 * time.Millisecond
	coarseRacyWindow = 2 * time.Second
)

// stamp is what a stat said about one path when the index was built.
type stamp struct {
	path   string
	exists bool
	mtime  int64
	size   int64
	isDir  bool
}

// snapshot is one immutable index of the skills.
type snapshot struct {
	all          []Skill   // every skill found, roots in precedence order
	problems     []Problem // what the walk found and refused, in walk order
	visible      []Skill   // the listing: visible skills sorted by (category, name)
	localMissing bool      // <home>/skills did not exist
	key          scanKey   // the environment the index was built for

	// watch covers the directories walked (and so the SKILL.md files in
	// them); stamps cover everything it does not: config.yaml, missing
	// roots, org markers, symlinked SKILL.md files, and every path when
	// inotify is unavailable.
	watch   *dirWatch
	watched int // directories the watch holds, at most maxWatches
	polled  int // directories stamped because the watch was full
	stamps  []stamp
	racy    bool // some stamp is too recent to prove the next change
	// stale is set when this process changed the skills (invalidate).
	stale atomic.Bool

	// listOnce caches the unfiltered skills_list result, encoded: it is the
	// hot path, and the snapshot is immutable, so it can never go stale.
	listOnce sync.Once
	listJSON json.RawMessage
	listErr  error
}

// watchEnabled lets tests exercise the stat-only fallback on Linux.
var watchEnabled = true

func newSnapshot(key scanKey) *snapshot {
	s := &snapshot{key: key}
	if watchEnabled {
		s.watch = newDirWatch()
	}
	if s.watch != nil {
		// A snapshot dropped without release (its Library garbage
		// collected) must not leak the inotify instance.
		runtime.AddCleanup(s, func(w *dirWatch) { w.close() }, s.watch)
	}
	return s
}

// release frees the snapshot's watch once a newer snapshot replaced it;
// callers still holding it then see it as stale.
func (s *snapshot) release() {
	if s != nil {
		s.watch.close()
	}
}

// maxWatches bounds the inotify watches one snapshot holds. Watches come
// from fs.inotify.max_user_watches, a per-user pool (8192 on many kernels)
// shared with editors, file sync and every other Hermes process of the
// user, so one library must not drain it; and each watch costs the kernel
// about 1 KiB. A library of 300 skills, each with its own directory and a
// few support directories, stays under 1024; a tree larger than that is
// not a skills library but something dropped into one, and its excess
// directories are polled (stat-ed on each call) instead.
const maxWatches = 1024

// watchDir watches dir, or stamps it when it cannot be watched (no inotify,
// or maxWatches reached). It reports whether the directory is watched.
func (s *snapshot) watchDir(dir string) bool {
	if s.watched < maxWatches && s.watch.add(dir) {
		s.watched++
		return true
	}
	if s.watch != nil && s.watched >= maxWatches {
		s.polled++
	}
	s.stamp(dir)
	return false
}

// problem records a skill or directory the walk refused.
func (s *snapshot) problem(root, p, reason string) {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		rel = p
	}
	s.problems = append(s.problems, Problem{Path: p, Root: root, RelDir: filepath.ToSlash(rel), Reason: reason})
}

// stamp records the current state of p. A stamp is racy when the stat came
// within one timestamp tick of the mtime it saw: a later write in that same
// tick could leave mtime unchanged.
func (s *snapshot) stamp(p string) {
	st := statPath(p)
	st.path = p
	s.stamps = append(s.stamps, st)
	if !st.exists {
		return
	}
	window := racyWindow
	if st.mtime%int64(time.Second) == 0 {
		window = coarseRacyWindow
	}
	// A future mtime (clock skew, an unpacked archive) is not racy: any
	// write now would set an earlier one.
	if age := time.Since(time.Unix(0, st.mtime)); age >= 0 && age < window {
		s.racy = true
	}
}

// fresh reports whether nothing the index was built from has changed:
// not the files it stamped, and not the environment variables it read.
func (s *snapshot) fresh(key scanKey) bool {
	if s == nil || s.racy || s.stale.Load() || s.key != key {
		return false
	}
	for i := range s.stamps {
		st := &s.stamps[i]
		now := statPath(st.path)
		if now.exists != st.exists || now.mtime != st.mtime || now.size != st.size || now.isDir != st.isDir {
			return false
		}
	}
	return !s.watch.changed()
}

// statPath stats p, following symlinks, as the walk does.
func statPath(p string) stamp {
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	return stamp{exists: true, mtime: fi.ModTime().UnixNano(), size: fi.Size(), isDir: fi.IsDir()}
}

// listingConfig is what config.yaml says about the listing.
type listingConfig struct {
	// disabled are the skill names disabled here.
	disabled map[string]bool
	// kanbanProfile is "kanban" in the top-level toolsets: the profile
	// routes kanban work, which makes kanban-tagged skills relevant.
	kanbanProfile bool
}

// readConfig reads the listing's settings from config.yaml: the names
// skills.disabled disables, plus skills.platform_disabled.<platform> when a
// messaging platform is set, and whether the profile has the kanban
// toolset. config.yaml is shared with the Python Hermes, which owns these
// keys; a file that does not parse disables nothing and enables nothing,
// as there.
func (l *Library) readConfig(snap *snapshot, platformEnv string) listingConfig {
	cfgPath := filepath.Join(l.home, "config.yaml")
	snap.stamp(cfgPath)
	var cfg struct {
		Skills struct {
			Disabled         any            `yaml:"disabled"`
			PlatformDisabled map[string]any `yaml:"platform_disabled"`
		} `yaml:"skills"`
	}
	var whole map[string]any
	if err := hermeshome.DecodeFile(cfgPath, &cfg); err != nil || hermeshome.DecodeFile(cfgPath, &whole) != nil {
		return listingConfig{}
	}
	out := map[string]bool{}
	add := func(v any) {
		for _, n := range configNames(v) {
			if n = strings.TrimSpace(n); n != "" {
				out[n] = true
			}
		}
	}
	add(cfg.Skills.Disabled)
	if platformEnv != "" {
		add(cfg.Skills.PlatformDisabled[platformEnv])
	}
	return listingConfig{disabled: out, kanbanProfile: hermeshome.KanbanProfile(whole)}
}

// configNames reads a list setting that `hermes config set` may have stored
// as a JSON (or Python) list inside a string; a plain string is one name.
func configNames(v any) []string {
	switch x := v.(type) {
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, str(e))
		}
		return out
	case string:
		t := strings.TrimSpace(x)
		if strings.HasPrefix(t, "[") {
			var list []string
			if json.Unmarshal([]byte(t), &list) == nil {
				return list
			}
			if json.Unmarshal([]byte(strings.ReplaceAll(t, "'", `"`)), &list) == nil {
				return list
			}
		}
		return []string{x}
	default:
		return nil
	}
}
