package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupLinkIsNotFollowed plants a symlink at each client's backup
// path pointing at a file of the user's elsewhere; the run must replace
// the link with the backup and leave that file's bytes alone.
func TestBackupLinkIsNotFollowed(t *testing.T) {
	for _, c := range []struct{ client, rel, content string }{
		{"codex", "", "model = \"gpt-5.5\"\n"},
		{"cursor", ".cursor/mcp.json", "{\n  \"mcpServers\": {}\n}\n"},
	} {
		t.Run(c.client, func(t *testing.T) {
			e := newTestEnv(t)
			path := filepath.Join(e.codexHome, "config.toml")
			if c.rel != "" {
				path = filepath.Join(e.env["HOME"], c.rel)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			e.write(t, path, c.content)
			victim := filepath.Join(t.TempDir(), "precious.txt")
			const precious = "the user's own file, not a backup\n"
			e.write(t, victim, precious)
			if err := os.Symlink(victim, path+".bak"); err != nil {
				t.Fatal(err)
			}
			code, out, stderr := e.run(t, "--client", c.client, "--no-plugins")
			if code != exitOK {
				t.Fatalf("exit %d: %s %s", code, out, stderr)
			}
			if got, _ := os.ReadFile(victim); string(got) != precious {
				t.Errorf("the link's target was overwritten: %q", got)
			}
			fi, err := os.Lstat(path + ".bak")
			if err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("backup is not a regular file: %v %v", fi, err)
			}
			if got, _ := os.ReadFile(path + ".bak"); string(got) != c.content {
				t.Errorf("backup holds %q, want the previous %q", got, c.content)
			}
		})
	}
}

// TestDirectoryConfigLeavesNoLock: a config.toml that is a directory is
// refused with its name, and the refusal leaves no lock file beside it.
func TestDirectoryConfigLeavesNoLock(t *testing.T) {
	e := newTestEnv(t)
	cfg := filepath.Join(e.codexHome, "config.toml")
	if err := os.Mkdir(cfg, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := e.run(t, "--client", "codex", "--no-plugins")
	if code == exitOK {
		t.Fatalf("a directory config was accepted: %s", out)
	}
	if !strings.Contains(out+stderr, "config.toml") {
		t.Errorf("refusal does not name the file: %s %s", out, stderr)
	}
	left, _ := filepath.Glob(filepath.Join(e.codexHome, "*.lock"))
	if len(left) != 0 {
		t.Errorf("lock files left behind: %v", left)
	}
}
