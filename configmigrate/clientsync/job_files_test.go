package clientsync

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/atomicfile"
)

func TestJobFileRules(t *testing.T) {
	tests := []struct {
		name      string
		link      bool
		mode      os.FileMode
		force     bool
		wantError bool
	}{
		{"linked mcp.json is written through", true, 0o644, false, false},
		{"read-only mcp.json is refused", false, 0o444, false, true},
		{"read-only link target is refused", true, 0o444, false, true},
		{"read-only forced keeps mode", true, 0o444, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newJobDirs(t)
			target := d.cursor()
			if tt.link {
				target = filepath.Join(d.home, "dotfiles", "cursor.json")
				os.MkdirAll(filepath.Dir(target), 0o755)
				if err := os.Symlink(target, d.cursor()); err != nil {
					t.Fatal(err)
				}
			}
			writeTestFile(t, target, userCursor)
			os.Chmod(target, tt.mode)
			job := d.job()
			job.Force = tt.force
			_, err := job.Run(context.Background())
			got := readTestFile(t, target)
			if tt.wantError {
				if !errors.Is(err, atomicfile.ErrNotWritable) || got != userCursor {
					t.Fatalf("err = %v, file:\n%s", err, got)
				}
				return
			}
			if err != nil || got == userCursor {
				t.Fatalf("err = %v, file:\n%s", err, got)
			}
			if fi, _ := os.Lstat(d.cursor()); (fi.Mode()&os.ModeSymlink != 0) != tt.link {
				t.Errorf("link state changed: %v", fi.Mode())
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tt.mode)
			}
		})
	}
}

// A run without --user-servers must not forget the servers an earlier
// run with it wrote: they are still in the file, and --remove must find
// them.
func TestJobRemembersEveryEntryUntilRemove(t *testing.T) {
	d := newJobDirs(t)
	writeTestFile(t, d.cursor(), userCursor)
	writeTestFile(t, d.yaml(), ghYAML)
	job := d.job()
	job.UserServers = true
	if _, err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	job.UserServers = false
	if _, err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := ownedIn(t, d, d.cursor()); !slices.Equal(got, []string{"gh"}) {
		t.Fatalf("owned after a run without user servers: %v, want [gh]", got)
	}
	job.Remove = true
	if _, err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := readTestFile(t, d.cursor()); got != userCursor {
		t.Errorf("after remove:\n%s\nwant the user's file", got)
	}
	if got := ownedIn(t, d, d.cursor()); got != nil {
		t.Errorf("state still owns %v", got)
	}
}

// Every client migrated at once, twenty times: the state must remember
// all of them, each backup must be the user's file, and removing leaves
// exactly the user's files.
func TestJobConcurrentClientsKeepState(t *testing.T) {
	d := newJobDirs(t)
	writeTestFile(t, d.yaml(), ghYAML)
	paths, user := map[Client]string{}, map[Client]string{}
	for _, c := range entryClients() {
		user[c] = userDoc(c, "mine", "my-server")
		p, err := ConfigPath(c, Env{GOOS: "linux", Home: d.home})
		if err != nil {
			t.Fatal(err)
		}
		paths[c] = p
		os.MkdirAll(filepath.Dir(p), 0o755)
		writeTestFile(t, p, user[c])
	}
	run := func(remove bool) {
		var wg sync.WaitGroup
		for _, c := range entryClients() {
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					job := d.job()
					job.Client, job.GOOS, job.UserServers, job.Remove = c, "linux", true, remove
					if _, err := job.Run(context.Background()); err != nil {
						t.Error(c, err)
					}
				}()
			}
		}
		wg.Wait()
	}
	for round := range 20 {
		run(false)
		for c, p := range paths {
			if got := ownedIn(t, d, p); !slices.Equal(got, []string{"gh"}) {
				t.Fatalf("round %d: state owns %v in %s's file, want [gh]", round, got, c)
			}
			if bak := readTestFile(t, p+".bak"); bak != user[c] {
				t.Fatalf("round %d: %s backup is\n%s", round, c, bak)
			}
		}
	}
	run(true)
	for c, p := range paths {
		if got := readTestFile(t, p); got != user[c] {
			t.Errorf("%s after remove:\n%s", c, got)
		}
	}
}

func ownedIn(t *testing.T, d jobDirs, path string) []string {
	t.Helper()
	var o ownership
	if data := readTestFile(t, d.state()); data != "" {
		if err := json.Unmarshal([]byte(data), &o); err != nil {
			t.Fatal(err)
		}
	}
	return o[path].Servers
}
