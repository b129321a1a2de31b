package clientsync

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestLocatePrefersExistingAlternate: a client that reads either of two
// names gets the one the user already has.
func TestLocatePrefersExistingAlternate(t *testing.T) {
	home := t.TempDir()
	env := Env{GOOS: "linux", Home: home}
	tests := []struct {
		client   Client
		existing string // relative to home, "" for none
		want     string
	}{
		{KiloCode, "", ".config/kilo/kilo.json"},
		{KiloCode, ".config/kilo/kilo.jsonc", ".config/kilo/kilo.jsonc"},
		{OpenCode, "", ".config/opencode/opencode.jsonc"},
		{OpenCode, ".config/opencode/opencode.json", ".config/opencode/opencode.json"},
		{MCPorter, ".mcporter/mcporter.jsonc", ".mcporter/mcporter.jsonc"},
		{Cursor, "", ".cursor/mcp.json"},
	}
	for _, tt := range tests {
		t.Run(string(tt.client)+"/"+tt.existing, func(t *testing.T) {
			os.RemoveAll(home)
			if tt.existing != "" {
				os.MkdirAll(filepath.Dir(filepath.Join(home, tt.existing)), 0o755)
				writeTestFile(t, filepath.Join(home, tt.existing), "{}")
			}
			got, err := Locate(tt.client, env)
			if err != nil || got != filepath.Join(home, tt.want) {
				t.Errorf("Locate = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestProjectRoot(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "p")
	sub := filepath.Join(proj, "x", "y")
	os.MkdirAll(sub, 0o755)
	// A worktree's .git is a file.
	writeTestFile(t, filepath.Join(proj, ".git"), "gitdir: /elsewhere\n")
	for _, dir := range []string{proj, sub} {
		if got, err := ProjectRoot(dir); err != nil || got != proj {
			t.Errorf("ProjectRoot(%s) = %q, %v; want %q", dir, got, err, proj)
		}
	}
	if _, err := ProjectRoot(root); !errors.Is(err, ErrNoProject) {
		t.Errorf("ProjectRoot outside a project: %v", err)
	}
}

func TestInspect(t *testing.T) {
	src := []byte("{\n  // c\n  \"mcp\": {\n    \"a\": {\"type\": \"local\", \"command\": [\"/bin/a\", \"-x\"]},\n    \"b\": {\"type\": \"remote\", \"url\": \"https://b\"},\n  },\n}\n")
	got, err := Inspect(OpenCode, src)
	if err != nil || len(got) != 2 || got[0] != (Entry{Name: "a", Command: "/bin/a"}) || got[1] != (Entry{Name: "b", URL: "https://b"}) {
		t.Errorf("Inspect = %+v, %v", got, err)
	}
	if _, err := Inspect(OpenCode, []byte("{")); err == nil {
		t.Error("Inspect accepted a broken file")
	}
}
