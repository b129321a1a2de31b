package clientsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/atomicfile"
)

const userTOML = "model = \"gpt-5.5\" # mine\n"

// config.toml as dotfile managers leave it: a link, maybe read-only.
func TestCodexJobFileRules(t *testing.T) {
	tests := []struct {
		name      string
		link      bool
		mode      os.FileMode
		force     bool
		wantError bool
	}{
		{"link to dotfiles is written through", true, 0o640, false, false},
		{"read-only file is refused", false, 0o444, false, true},
		{"read-only link target is refused", true, 0o444, false, true},
		{"read-only forced keeps mode", false, 0o444, true, false},
		{"read-only link target forced", true, 0o444, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newJobFixture(t, noFile, "")
			target := f.tomlPath()
			if tt.link {
				target = filepath.Join(f.dir, "dotfiles", "codex", "config.toml")
				os.MkdirAll(filepath.Dir(target), 0o755)
				if err := os.Symlink(filepath.Join("..", "dotfiles", "codex", "config.toml"), f.tomlPath()); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(target, []byte(userTOML), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chmod(target, tt.mode)
			job := f.job(nil, nil)
			job.Force = tt.force
			res, err := job.Run(context.Background())
			got, _ := f.read(t, target)
			if tt.wantError {
				if !errors.Is(err, atomicfile.ErrNotWritable) {
					t.Fatalf("err = %v, want ErrNotWritable", err)
				}
				if got != userTOML {
					t.Errorf("refused file changed:\n%s", got)
				}
				return
			}
			if err != nil || !res.Written {
				t.Fatalf("written %v, err %v", res.Written, err)
			}
			if got == userTOML {
				t.Error("target unchanged")
			}
			if fi, err := os.Lstat(f.tomlPath()); err != nil || (fi.Mode()&os.ModeSymlink != 0) != tt.link {
				t.Errorf("config.toml is %v (%v), link %v", fi.Mode(), err, tt.link)
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tt.mode)
			}
			if bak, _ := f.read(t, f.tomlPath()+configmigrate.BackupSuffix); bak != userTOML {
				t.Errorf("backup %q", bak)
			}
		})
	}
}

// Runs that want different blocks (hermes-migrate and hermes' runtime
// switch, say) race on one config.toml: each must start from the other's
// output, and the backup must stay the user's own file.
func TestCodexJobConcurrentRunsKeepUsersBackup(t *testing.T) {
	f := newJobFixture(t, userTOML, "mcp_servers:\n  gh:\n    command: npx\n")
	for round := range 20 {
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				job := f.job(nil, nil)
				job.DiscoverPlugins = nil
				job.NoPluginDiscovery = true
				profiles := configmigrate.BuiltinPermissions()
				job.DefaultPermissions = profiles[(round+i)%len(profiles)]
				if _, err := job.Run(context.Background()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		if bak, _ := f.read(t, f.tomlPath()+configmigrate.BackupSuffix); bak != userTOML {
			t.Fatalf("round %d: backup holds\n%s\nwant the user's file", round, bak)
		}
	}
	job := f.job(nil, nil)
	job.Remove = true
	if _, err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.read(t, f.tomlPath()); got != userTOML {
		t.Errorf("after --remove:\n%s\nwant the user's file", got)
	}
}
