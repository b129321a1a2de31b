package skills

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sentinelState records, for every entry under dir, what a change would
// alter: kind, mode, size, modification time, link target and content.
func sentinelState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%v size=%d mtime=%d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" sha256=%x", sha256.Sum256(b))
		}
		state[p] = desc
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", dir, err)
	}
	return state
}

func diffStates(before, after map[string]string) []string {
	var out []string
	for p, b := range before {
		switch a, ok := after[p]; {
		case !ok:
			out = append(out, "deleted "+p)
		case a != b:
			out = append(out, fmt.Sprintf("changed %s: %s, was %s", p, a, b))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			out = append(out, "created "+p)
		}
	}
	sort.Strings(out)
	return out
}

// TestManageRacesLinkSwap: another process swaps directories on the way
// (the category, and a skill's references/) for links leading out of the
// skills directory, and back, as fast as it can, while skill_manage
// creates, edits, patches, writes, removes and deletes under them. Whatever the check before each act saw,
// nothing outside the skills directory may be created, changed or deleted.
// The sentinel the link leads to mirrors the skills' layout, so a write or
// removal that followed the link would find its files.
func TestManageRacesLinkSwap(t *testing.T) {
	defer func(old bool) { watchEnabled = old }(watchEnabled)
	// The stat-only mode re-walks on every call, so each call checks the
	// tree afresh and the race has more chances to land.
	watchEnabled = false

	base := t.TempDir()
	home := filepath.Join(base, "home")
	skills := filepath.Join(home, "skills")
	cat := filepath.Join(skills, "cat")
	sentinel := filepath.Join(base, "sentinel")
	names := []string{"s1", "s2", "fresh"}
	for _, n := range names {
		writeFile(t, filepath.Join(sentinel, n, skillFile), skillMD(n, "Sentinel, outside.", "Sentinel body WORD."))
		writeFile(t, filepath.Join(sentinel, n, "references", "r.md"), "sentinel reference WORD\n")
	}
	writeFile(t, filepath.Join(sentinel, "keep.md"), "sentinel\n")
	// Times in the past, so a rewrite with the same bytes still shows.
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(sentinel, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
	for _, n := range names[:2] {
		writeFile(t, filepath.Join(cat, n, skillFile), skillMD(n, "Inside.", "Body WORD."))
		writeFile(t, filepath.Join(cat, n, "references", "r.md"), "reference WORD\n")
	}
	// The swap partners: links out, parked under a dot name the walk
	// skips. RENAME_EXCHANGE trades each with its directory in one step,
	// so the name is always either the real directory or the link. The
	// swaps go by descriptors of the real parents, so the swapper never
	// reaches through its own link into the sentinel.
	type swap struct {
		dir                *os.File
		name, link, target string
	}
	var swaps []swap
	for _, sw := range []struct{ parent, name, target string }{
		{skills, "cat", sentinel},
		{filepath.Join(cat, "s1"), "references", filepath.Join(sentinel, "s1", "references")},
	} {
		if err := os.Symlink(sw.target, filepath.Join(sw.parent, ".parked")); err != nil {
			t.Fatal(err)
		}
		d, err := os.Open(sw.parent)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		swaps = append(swaps, swap{d, sw.name, ".parked", sw.target})
	}
	exchange := func(sw swap) error {
		fd := int(sw.dir.Fd())
		return unix.Renameat2(fd, sw.name, fd, sw.link, unix.RENAME_EXCHANGE)
	}
	before := sentinelState(t, sentinel)
	baseEntries := func() []string {
		ents, _ := os.ReadDir(base)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	wantBase := fmt.Sprint(baseEntries())

	lib := NewLibrary(Options{Home: home, Platform: "linux"})
	ctx := context.Background()

	var stop atomic.Bool
	var swapped, unlinked atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load(); i++ {
			// Both every other time, so each combination of states occurs.
			for j, sw := range swaps {
				if j > 0 && i%2 == 1 {
					break
				}
				err := exchange(sw)
				if errors.Is(err, unix.ENOENT) {
					// Not an escape, but a cleanup of "emptied"
					// directories must not take a link for one: say so,
					// then put things back and go on racing.
					unlinked.Add(1)
					fd := int(sw.dir.Fd())
					if err = unix.Renameat(fd, sw.link, fd, sw.name); err == nil {
						err = unix.Symlinkat(sw.target, fd, sw.link)
					}
				}
				if err != nil {
					t.Errorf("swap %s: %v", sw.name, err)
					return
				}
			}
			swapped.Add(1)
		}
	}()

	str := func(s string) *string { return &s }
	ops := []manageArgs{
		{Action: "edit", Name: "s1", Content: str(skillMD("s1", "Inside.", "Body WORD edited."))},
		{Action: "patch", Name: "s1", OldString: str("WORD"), NewString: str("WORD"), ReplaceAll: true},
		{Action: "patch", Name: "s2", FilePath: str("references/r.md"), OldString: str("WORD"), NewString: str("WORD")},
		{Action: "write_file", Name: "s2", FilePath: str("references/r.md"), FileContent: str("reference WORD\n")},
		{Action: "write_file", Name: "s1", FilePath: str("references/new.md"), FileContent: str("new\n")},
		{Action: "remove_file", Name: "s1", FilePath: str("references/new.md")},
		{Action: "create", Name: "fresh", Category: str("cat"), Content: str(skillMD("fresh", "Made in the race.", "Body WORD."))},
		{Action: "delete", Name: "fresh"},
	}
	succeeded := map[string]int{}
	deadline := time.Now().Add(5 * time.Second)
	rounds := 0
	for ; rounds < 300 && time.Now().Before(deadline); rounds++ {
		for _, a := range ops {
			// Refusals and errors are expected while the tree shifts; only
			// where the bytes went matters.
			if _, err := lib.manage(ctx, a); err == nil {
				succeeded[a.Action]++
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	// Put the directories back for the checks below.
	for _, sw := range swaps {
		var st unix.Stat_t
		if err := unix.Fstatat(int(sw.dir.Fd()), sw.name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			if err := exchange(sw); err != nil {
				t.Fatalf("swap %s back: %v", sw.name, err)
			}
		}
	}
	t.Logf("%d rounds, %d swaps, successes while racing: %v", rounds, swapped.Load(), succeeded)

	if diff := diffStates(before, sentinelState(t, sentinel)); len(diff) > 0 {
		t.Errorf("skill_manage changed the sentinel outside the skills directory (%d changes):", len(diff))
		for i, d := range diff {
			if i == 20 {
				t.Errorf("  ...")
				break
			}
			t.Errorf("  %s", d)
		}
	}
	if got := fmt.Sprint(baseEntries()); got != wantBase {
		t.Errorf("entries beside the Hermes home are %s, were %s", got, wantBase)
	}
	if n := unlinked.Load(); n > 0 {
		t.Errorf("skill_manage removed a swapped-in link %d times, taking it for an emptied directory", n)
	}
	if swapped.Load() < 100 {
		t.Errorf("only %d swaps: the race was not exercised", swapped.Load())
	}

	// Settled, every action works again on the same tree: the race left
	// it usable, and the refusals above were the race's, not a regression.
	lib.invalidate()
	if _, err := lib.manage(ctx, manageArgs{Action: "delete", Name: "fresh"}); err != nil {
		var r *refusal
		if !errors.As(err, &r) {
			t.Fatalf("delete after the race: %v", err)
		}
	}
	for _, a := range ops {
		if _, err := lib.manage(ctx, a); err != nil {
			t.Errorf("%s %s after the race: %v", a.Action, a.Name, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(cat, "s1", skillFile))
	if err != nil || string(b) != skillMD("s1", "Inside.", "Body WORD edited.") {
		t.Errorf("s1/SKILL.md after the race = %q, %v", b, err)
	}
}
