package skills

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func skillDoc(name string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: The %s skill.\n---\n# %s\n", name, name, name)
}

func mustSymlink(t testing.TB, target, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatalf("symlink %s -> %s: %v", p, target, err)
	}
}

func mustFifo(t testing.TB, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatalf("mkfifo %s: %v", p, err)
	}
}

// syncBuffer is a log sink the Library may write to from any goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// within runs fn, failing the test if it has not returned in time: a FIFO
// opened for reading blocks forever, and that is the bug to catch.
func within(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked for 10s (a FIFO or device opened?)")
	}
}

// The rule, over every kind of path: what is listed, served and reported
// depends on what the files are after following links, never on names.
// Real files, real links and real FIFOs in a temporary directory.
func TestConfinementRule(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs POSIX symlinks and FIFOs (syscall.Mkfifo), which Windows does not have")
	}
	type want struct {
		listed   bool   // "probe" in skills_list
		viewErr  string // skill_view error substring; "" for success
		problem  string // Problems reason substring; "" for none
		file     string // a file_path to view as well
		fileErr  string // its error substring; "" for success
		problems int    // expected len(Problems) when problem is set (0: 1)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, root, outside string)
		want  want
	}{
		{"plain skill", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			writeFile(t, filepath.Join(root, "probe", "references", "a.md"), "A\n")
		}, want{listed: true, file: "references/a.md"}},
		{"SKILL.md symlink out", func(t *testing.T, root, outside string) {
			writeFile(t, filepath.Join(outside, "passwd"), skillDoc("probe"))
			mustSymlink(t, filepath.Join(outside, "passwd"), filepath.Join(root, "probe", "SKILL.md"))
		}, want{viewErr: "outside the skills directory", problem: "outside the skills directory"}},
		{"skill dir symlink out", func(t *testing.T, root, outside string) {
			writeFile(t, filepath.Join(outside, "probe", "SKILL.md"), skillDoc("probe"))
			mustSymlink(t, filepath.Join(outside, "probe"), filepath.Join(root, "probe"))
		}, want{viewErr: "external_dirs", problem: "outside the skills directory"}},
		{"category dir symlink out", func(t *testing.T, root, outside string) {
			writeFile(t, filepath.Join(outside, "cat", "probe", "SKILL.md"), skillDoc("probe"))
			mustSymlink(t, filepath.Join(outside, "cat"), filepath.Join(root, "cat"))
		}, want{viewErr: "not found", problem: "outside the skills directory"}},
		{"linked file symlink out", func(t *testing.T, root, outside string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			writeFile(t, filepath.Join(outside, ".env"), "SECRET=1\n")
			mustSymlink(t, filepath.Join(outside, ".env"), filepath.Join(root, "probe", "references", "env.md"))
		}, want{listed: true, file: "references/env.md", fileErr: "outside the skill directory"}},
		{"linked dir symlink out", func(t *testing.T, root, outside string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			writeFile(t, filepath.Join(outside, "etc", "passwd"), "root:x:0:0\n")
			mustSymlink(t, filepath.Join(outside, "etc"), filepath.Join(root, "probe", "assets", "etc"))
		}, want{listed: true, file: "assets/etc/passwd", fileErr: "outside the skill directory"}},
		{"symlink chain inside", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, ".hub", "store", "probe.md"), skillDoc("probe"))
			mustSymlink(t, "../.hub/store/probe.md", filepath.Join(root, "links", "a"))
			mustSymlink(t, filepath.Join(root, "links", "a"), filepath.Join(root, "links", "b"))
			mustSymlink(t, "../links/b", filepath.Join(root, "probe", "SKILL.md"))
		}, want{listed: true}},
		{"symlink chain out", func(t *testing.T, root, outside string) {
			writeFile(t, filepath.Join(outside, "probe.md"), skillDoc("probe"))
			mustSymlink(t, filepath.Join(outside, "probe.md"), filepath.Join(root, ".hub", "a"))
			mustSymlink(t, "../.hub/a", filepath.Join(root, "links", "b"))
			mustSymlink(t, "../links/b", filepath.Join(root, "probe", "SKILL.md"))
		}, want{viewErr: "outside the skills directory", problem: "outside the skills directory"}},
		{"FIFO SKILL.md", func(t *testing.T, root, _ string) {
			mustFifo(t, filepath.Join(root, "probe", "SKILL.md"))
		}, want{viewErr: "not a regular file", problem: "FIFO"}},
		{"SKILL.md symlink to a FIFO", func(t *testing.T, root, _ string) {
			mustFifo(t, filepath.Join(root, ".hub", "pipe"))
			mustSymlink(t, "../.hub/pipe", filepath.Join(root, "probe", "SKILL.md"))
		}, want{viewErr: "not a regular file", problem: "FIFO"}},
		{"linked file FIFO", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			mustFifo(t, filepath.Join(root, "probe", "references", "pipe.md"))
		}, want{listed: true, file: "references/pipe.md", fileErr: "not a regular file"}},
		{"linked file symlink to a FIFO", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			mustFifo(t, filepath.Join(root, "probe", "pipe"))
			mustSymlink(t, "../pipe", filepath.Join(root, "probe", "references", "pipe.md"))
		}, want{listed: true, file: "references/pipe.md", fileErr: "not a regular file"}},
		{"SKILL.md linked to /dev/zero", func(t *testing.T, root, _ string) {
			mustSymlink(t, "/dev/zero", filepath.Join(root, "probe", "SKILL.md"))
		}, want{viewErr: "outside the skills directory", problem: "/dev/zero"}},
		{"linked file to /dev/zero", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			mustSymlink(t, "/dev/zero", filepath.Join(root, "probe", "assets", "zero.bin"))
		}, want{listed: true, file: "assets/zero.bin", fileErr: "outside the skill directory"}},
		{"SKILL.md at the character limit", func(t *testing.T, root, _ string) {
			doc := skillDoc("probe")
			// Two bytes a character: over the limit in bytes, at it in characters.
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), doc+strings.Repeat("é", MaxSkillChars-len(doc)))
		}, want{listed: true}},
		{"oversize SKILL.md", func(t *testing.T, root, _ string) {
			doc := skillDoc("probe")
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), doc+strings.Repeat("é", MaxSkillChars-len(doc)+1))
		}, want{viewErr: "100000 characters", problem: "over the limit of 100000 characters"}},
		{"huge SKILL.md", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe")+strings.Repeat("a", 8<<20))
		}, want{viewErr: "100000 characters", problem: "references/"}},
		{"linked file at the limit", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			writeFile(t, filepath.Join(root, "probe", "references", "big.md"), strings.Repeat("a", MaxFileBytes))
		}, want{listed: true, file: "references/big.md"}},
		{"oversize linked file", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			writeFile(t, filepath.Join(root, "probe", "references", "big.md"), strings.Repeat("a", MaxFileBytes+1))
		}, want{listed: true, file: "references/big.md", fileErr: "over the limit of 1048576 bytes (1 MiB)"}},
		{"oversize binary linked file", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			writeFile(t, filepath.Join(root, "probe", "assets", "big.bin"), strings.Repeat("\x00", MaxFileBytes+1))
		}, want{listed: true, file: "assets/big.bin", fileErr: "Split it"}},
		{"SKILL.md symlink loop", func(t *testing.T, root, _ string) {
			mustSymlink(t, "loop-b", filepath.Join(root, "probe", "loop-a"))
			mustSymlink(t, "loop-a", filepath.Join(root, "probe", "loop-b"))
			mustSymlink(t, "loop-a", filepath.Join(root, "probe", "SKILL.md"))
		}, want{viewErr: "loop", problem: "loop", problems: 3}},
		{"linked file symlink loop", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			mustSymlink(t, "l2.md", filepath.Join(root, "probe", "references", "l1.md"))
			mustSymlink(t, "l1.md", filepath.Join(root, "probe", "references", "l2.md"))
		}, want{listed: true, file: "references/l1.md", fileErr: "loop"}},
		{"directory symlink loop", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			mustSymlink(t, "..", filepath.Join(root, "probe", "up"))
		}, want{listed: true}},
		{"skill dir symlink inside", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, ".hub", "probe", "SKILL.md"), skillDoc("probe"))
			writeFile(t, filepath.Join(root, ".hub", "probe", "references", "a.md"), "A\n")
			mustSymlink(t, filepath.Join(root, ".hub", "probe"), filepath.Join(root, "probe"))
		}, want{listed: true, file: "references/a.md"}},
		{"skill dir symlink to /usr", func(t *testing.T, root, _ string) {
			writeFile(t, filepath.Join(root, "probe", "SKILL.md"), skillDoc("probe"))
			mustSymlink(t, "/usr", filepath.Join(root, "probe", "sysroot"))
		}, want{listed: true, problem: "/usr"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			home, outside := filepath.Join(base, "home"), filepath.Join(base, "outside")
			root := filepath.Join(home, "skills")
			writeFile(t, filepath.Join(root, "anchor", "SKILL.md"), skillDoc("anchor"))
			tt.setup(t, root, outside)
			logs := &syncBuffer{}
			opts := Options{Home: home, Platform: "linux", Logger: slog.New(slog.NewTextHandler(logs, nil))}
			lib := NewLibrary(opts)
			c := newCaller(t, lib.Toolset())
			within(t, func() {
				list := c.mustOK("skills_list", map[string]any{})
				if got := slices.Contains(names(list), "probe"); got != tt.want.listed {
					t.Errorf("listed = %v, want %v (skills %v)", got, tt.want.listed, names(list))
				}
				if !slices.Contains(names(list), "anchor") {
					t.Errorf("one refused skill hid the others: %v", names(list))
				}
				m, isErr := c.call("skill_view", map[string]any{"name": "probe"})
				msg, _ := m["error"].(string)
				switch {
				case tt.want.viewErr == "" && isErr:
					t.Errorf("skill_view: unexpected error %q", msg)
				case tt.want.viewErr != "" && (!isErr || !strings.Contains(msg, tt.want.viewErr)):
					t.Errorf("skill_view = %v, want an error containing %q", m, tt.want.viewErr)
				}
				if tt.want.file != "" {
					m, isErr := c.call("skill_view", map[string]any{"name": "probe", "file_path": tt.want.file})
					msg, _ := m["error"].(string)
					switch {
					case tt.want.fileErr == "" && isErr:
						t.Errorf("skill_view file: unexpected error %q", msg)
					case tt.want.fileErr != "" && (!isErr || !strings.Contains(msg, tt.want.fileErr)):
						t.Errorf("skill_view file = %.300v, want an error containing %q", m, tt.want.fileErr)
					}
					files, _ := lib.Files(mustLookup(t, lib, "probe"))
					listedFile := slices.ContainsFunc(files, func(f File) bool { return f.Path == tt.want.file })
					// An oversize file is listed (so asking for it says why);
					// a refused one is not a file of the skill at all.
					if wantListed := tt.want.fileErr == "" || strings.Contains(tt.want.fileErr, "limit") || strings.Contains(tt.want.fileErr, "Split"); listedFile != wantListed {
						t.Errorf("%s in Files = %v, want %v", tt.want.file, listedFile, wantListed)
					}
				}
			})
			problems, err := lib.Problems(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.want.problem == "" && len(problems) > 0:
				t.Errorf("Problems = %+v, want none", problems)
			case tt.want.problem != "":
				n := max(tt.want.problems, 1)
				if len(problems) != n || !slices.ContainsFunc(problems, func(p Problem) bool { return strings.Contains(p.Reason, tt.want.problem) }) {
					t.Errorf("Problems = %+v, want %d saying %q", problems, n, tt.want.problem)
				}
				if !strings.Contains(logs.String(), "skill not served") {
					t.Errorf("refusal not logged; log:\n%s", logs)
				}
			}
			// Nothing outside the root is watched or stamped.
			snap := lib.current.Load()
			if snap.watched > 20 {
				t.Errorf("%d directories watched for a handful of skills", snap.watched)
			}
			realOutside, _ := filepath.EvalSymlinks(base)
			for _, st := range snap.stamps {
				if p, err := filepath.EvalSymlinks(st.path); err == nil && !strings.HasPrefix(p, realOutside+string(filepath.Separator)) {
					t.Errorf("stamped %s, which leads out to %s", st.path, p)
				}
			}
		})
	}
}

func mustLookup(t *testing.T, lib *Library, name string) Skill {
	t.Helper()
	s, err := lib.Lookup(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Past maxWatches the watcher stops adding watches, says so once in the
// log, and the directories left over are polled: a change in one of them
// is still seen by the next call.
func TestWatchBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the watch bound is about inotify, which only Linux has; elsewhere every directory is polled")
	}
	home := t.TempDir()
	root := filepath.Join(home, "skills")
	writeFile(t, filepath.Join(root, "anchor", "SKILL.md"), skillDoc("anchor"))
	// Not support directories, so the walk searches them for nested skills.
	for i := range maxWatches + 100 {
		if err := os.MkdirAll(filepath.Join(root, "anchor", "tree", fmt.Sprintf("d%04d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logs := &syncBuffer{}
	lib := NewLibrary(Options{Home: home, Platform: "linux", Logger: slog.New(slog.NewTextHandler(logs, nil))})
	c := newCaller(t, lib.Toolset())
	c.mustOK("skills_list", map[string]any{})
	snap := lib.current.Load()
	if snap.watch == nil {
		t.Fatal("inotify unavailable on this Linux host; the bound cannot be exercised")
	}
	if snap.watched != maxWatches || snap.polled == 0 {
		t.Fatalf("watched %d, polled %d; want %d watched and the rest polled", snap.watched, snap.polled, maxWatches)
	}
	// The last directories in walk order are the polled ones.
	writeFile(t, filepath.Join(root, "anchor", "tree", fmt.Sprintf("d%04d", maxWatches+99), "late", "SKILL.md"), skillDoc("late"))
	if m := c.mustOK("skills_list", map[string]any{}); !slices.Contains(names(m), "late") {
		t.Errorf("a skill added in a polled directory was not seen: %v", names(m))
	}
	c.mustOK("skills_list", map[string]any{})
	if n := strings.Count(logs.String(), "watch bound reached"); n != 1 {
		t.Errorf("watch bound logged %d times, want once; log:\n%s", n, logs)
	}
}

// Serving over-limit files costs memory bounded by the limits, not by the
// files: a 48 MB SKILL.md and a 48 MB reference (the size planted in issue
// 16, which used to cost 461 MB of RSS) are refused having read at most
// what the limits allow.
func TestOversizeMemory(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "skills")
	big := strings.Repeat("a", 48<<20)
	writeFile(t, filepath.Join(dir, "huge", "SKILL.md"), skillDoc("huge")+big)
	writeFile(t, filepath.Join(dir, "small", "SKILL.md"), skillDoc("small"))
	writeFile(t, filepath.Join(dir, "small", "references", "huge.md"), big)
	big = ""
	c := newCaller(t, Toolset(Options{Home: home, Platform: "linux"}))
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if m := c.mustOK("skills_list", map[string]any{}); slices.Contains(names(m), "huge") {
		t.Errorf("oversize skill listed")
	}
	c.mustFail("skill_view", map[string]any{"name": "huge"})
	c.mustFail("skill_view", map[string]any{"name": "small", "file_path": "references/huge.md"})
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("serving two 48 MB files allocated %d bytes in total (heap in use after: %d bytes)", allocated, after.HeapInuse)
	// The budget: one SKILL.md read at its byte bound, plus the index.
	if budget := uint64(maxSkillBytes + 1<<20); allocated > budget {
		t.Errorf("allocated %d bytes, over the %d budget: something read the file whole", allocated, budget)
	}
}
