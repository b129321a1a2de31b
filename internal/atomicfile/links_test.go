package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestWriteThroughSymlinks(t *testing.T) {
	tests := []struct {
		name string
		// setup makes the link at dir/home/config.toml and returns the
		// file it finally points to.
		setup func(t *testing.T, dir string) string
	}{
		{"absolute link to another dir", func(t *testing.T, dir string) string {
			target := filepath.Join(dir, "dotfiles", "codex.toml")
			mustWrite(t, target, "user\n", 0o640)
			mustLink(t, target, filepath.Join(dir, "home", "config.toml"))
			return target
		}},
		{"relative link", func(t *testing.T, dir string) string {
			target := filepath.Join(dir, "dotfiles", "codex.toml")
			mustWrite(t, target, "user\n", 0o640)
			mustLink(t, filepath.Join("..", "dotfiles", "codex.toml"), filepath.Join(dir, "home", "config.toml"))
			return target
		}},
		{"chain of links", func(t *testing.T, dir string) string {
			target := filepath.Join(dir, "store", "real.toml")
			mustWrite(t, target, "user\n", 0o640)
			mustLink(t, filepath.Join("..", "store", "real.toml"), filepath.Join(dir, "dotfiles", "mid.toml"))
			mustLink(t, filepath.Join(dir, "dotfiles", "mid.toml"), filepath.Join(dir, "home", "config.toml"))
			return target
		}},
		{"dangling link creates its target", func(t *testing.T, dir string) string {
			target := filepath.Join(dir, "dotfiles", "new.toml")
			os.MkdirAll(filepath.Dir(target), 0o755)
			mustLink(t, target, filepath.Join(dir, "home", "config.toml"))
			return target
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			link := filepath.Join(dir, "home", "config.toml")
			target := tt.setup(t, dir)
			before, _ := os.ReadFile(target)
			if err := Write(link, []byte("new\n"), Options{Backup: ".bak", Mode: 0o600}); err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("link replaced: %v %v", fi.Mode(), err)
			}
			if got, _ := os.ReadFile(target); string(got) != "new\n" {
				t.Errorf("target holds %q", got)
			}
			wantMode := os.FileMode(0o640)
			if before == nil {
				wantMode = 0o600
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != wantMode {
				t.Errorf("target mode %v, want %v", fi.Mode().Perm(), wantMode)
			}
			if before != nil {
				if bak, _ := os.ReadFile(link + ".bak"); string(bak) != string(before) {
					t.Errorf("backup %q, want %q", bak, before)
				}
			}
			entries, _ := os.ReadDir(filepath.Dir(target))
			for _, e := range entries {
				if filepath.Ext(e.Name()) != ".toml" && e.Name() != "mid.toml" {
					t.Errorf("left behind in target dir: %s", e.Name())
				}
			}
		})
	}
}

func TestWriteReadOnly(t *testing.T) {
	tests := []struct {
		name      string
		mode      os.FileMode
		link      bool
		force     bool
		wantError bool
	}{
		{"0444 refused", 0o444, false, false, true},
		{"0444 behind a link refused", 0o444, true, false, true},
		{"0400 refused", 0o400, false, false, true},
		{"0444 forced keeps mode", 0o444, false, true, false},
		{"0444 behind a link forced", 0o444, true, true, false},
		{"0644 written", 0o644, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "real", "config.toml")
			mustWrite(t, target, "user\n", tt.mode)
			path := target
			if tt.link {
				path = filepath.Join(dir, "config.toml")
				mustLink(t, target, path)
			}
			err := Write(path, []byte("new\n"), Options{Backup: ".bak", Force: tt.force})
			got, _ := os.ReadFile(target)
			if tt.wantError {
				var nw *NotWritableError
				if !errors.Is(err, ErrNotWritable) || !errors.As(err, &nw) || nw.Path != path {
					t.Fatalf("err = %v, want ErrNotWritable naming %s", err, path)
				}
				if string(got) != "user\n" {
					t.Errorf("refused file changed: %q", got)
				}
				if _, err := os.Stat(path + ".bak"); !os.IsNotExist(err) {
					t.Errorf("a refused write must not leave a backup (%v)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != "new\n" {
				t.Errorf("content %q", got)
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, want %v kept", fi.Mode().Perm(), tt.mode)
			}
		})
	}
}

// TestEditBackupKeepsUsersVersion, with the lock beside the file and
// elsewhere (EditOptions.LockPath): the lock's record of what was last
// written is what keeps our own output out of the backup.
func TestEditBackupKeepsUsersVersion(t *testing.T) {
	for _, elsewhere := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "config.toml")
		lockPath := ""
		if elsewhere {
			lockPath = filepath.Join(t.TempDir(), "state", "locks", "config.toml.lock")
		}
		mustWrite(t, path, "user\n", 0o600)
		edit := func(content string) string {
			t.Helper()
			e, err := Begin(context.Background(), path, EditOptions{Options: Options{Backup: ".bak"}, LockPath: lockPath})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			bak, err := e.Commit([]byte(content))
			if err != nil {
				t.Fatal(err)
			}
			return bak
		}
		for _, step := range []struct{ write, wantBak string }{
			{"ours 1\n", "user\n"},
			{"ours 2\n", "user\n"}, // our own output is never backed up
			{"", ""},               // the user edits: see below
			{"ours 3\n", "user 2\n"},
		} {
			if step.write == "" {
				mustWrite(t, path, "user 2\n", 0o600)
				continue
			}
			if bak := edit(step.write); bak != path+".bak" {
				t.Errorf("backup path %q", bak)
			}
			if got, _ := os.ReadFile(path + ".bak"); string(got) != step.wantBak {
				t.Errorf("lock elsewhere %v: after writing %q backup is %q, want %q", elsewhere, step.write, got, step.wantBak)
			}
		}
		beside, _ := LockPath(path)
		if _, err := os.Stat(beside); (err == nil) == elsewhere {
			t.Errorf("lock elsewhere %v: lock file beside the file exists = %v", elsewhere, err == nil)
		}
		if elsewhere {
			if _, err := os.Stat(lockPath); err != nil {
				t.Errorf("lock file not at LockPath: %v", err)
			}
		}
	}
}

func TestEditSerialisesWriters(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "counter")
	mustWrite(t, path, "0", 0o600)
	const n = 16
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e, err := Begin(context.Background(), path, EditOptions{Options: Options{Backup: ".bak"}})
			if err != nil {
				t.Error(err)
				return
			}
			defer e.Close()
			var v int
			fmt.Sscan(string(e.Before), &v)
			if _, err := e.Commit([]byte(fmt.Sprint(v + 1))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got, _ := os.ReadFile(path); string(got) != fmt.Sprint(n) {
		t.Errorf("counter %s after %d locked increments: an update was lost", got, n)
	}
	if got, _ := os.ReadFile(path + ".bak"); string(got) != "0" {
		t.Errorf("backup %q, want the user's %q", got, "0")
	}
}

func mustWrite(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func mustLink(t *testing.T, dest, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dest, link); err != nil {
		t.Fatal(err)
	}
}
