//go:build unix

package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/atomicfile"
)

// The writes made through the held-open skills directory keep what
// atomicfile.Write gave them: modes, the read-only refusal, no temporary
// file left over; the patch read refuses a FIFO without waiting on it and
// follows a link that stays inside the skill; a create onto any existing
// name, even a dangling link, is refused.
func TestManageWriteSemantics(t *testing.T) {
	f := newFixture(t)
	lib := NewLibrary(f.options())
	c := newCaller(t, lib.Toolset())
	ctx := context.Background()
	bare := filepath.Join(f.home, "skills", "bare")
	refs := filepath.Join(bare, "references")
	str := func(s string) *string { return &s }
	mode := func(p string) os.FileMode {
		t.Helper()
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode()
	}

	c.mustOK("skill_manage", map[string]any{"action": "write_file", "name": "bare", "file_path": "references/new.md", "file_content": "new\n"})
	if m := mode(filepath.Join(refs, "new.md")); m != 0o644 {
		t.Errorf("new file mode %v, want -rw-r--r--", m)
	}

	private := filepath.Join(refs, "private.md")
	writeFile(t, private, "old\n")
	if err := os.Chmod(private, 0o600); err != nil {
		t.Fatal(err)
	}
	c.mustOK("skill_manage", map[string]any{"action": "write_file", "name": "bare", "file_path": "references/private.md", "file_content": "new\n"})
	if m := mode(private); m != 0o600 {
		t.Errorf("replaced file mode %v, want its old -rw-------", m)
	}

	locked := filepath.Join(refs, "locked.md")
	writeFile(t, locked, "keep\n")
	if err := os.Chmod(locked, 0o444); err != nil {
		t.Fatal(err)
	}
	_, err := lib.manage(ctx, manageArgs{Action: "write_file", Name: "bare", FilePath: str("references/locked.md"), FileContent: str("overwritten\n")})
	if !errors.Is(err, atomicfile.ErrNotWritable) {
		t.Errorf("write over a read-only file: %v, want ErrNotWritable", err)
	}
	if b, _ := os.ReadFile(locked); string(b) != "keep\n" {
		t.Errorf("read-only file now holds %q", b)
	}

	// A link to a file of the same skill, named by absolute path: the
	// patch reads through it and, as every write, replaces the link.
	writeFile(t, filepath.Join(refs, "target.md"), "alpha\n")
	symlink(t, filepath.Join(refs, "target.md"), filepath.Join(refs, "alias.md"))
	c.mustOK("skill_manage", map[string]any{"action": "patch", "name": "bare", "file_path": "references/alias.md", "old_string": "alpha", "new_string": "beta"})
	if b, _ := os.ReadFile(filepath.Join(refs, "alias.md")); string(b) != "beta\n" {
		t.Errorf("alias.md after patch = %q", b)
	}
	if m := mode(filepath.Join(refs, "alias.md")); !m.IsRegular() {
		t.Errorf("alias.md is %v after patch, want a regular file", m)
	}
	if b, _ := os.ReadFile(filepath.Join(refs, "target.md")); string(b) != "alpha\n" {
		t.Errorf("patch wrote through the link: target.md = %q", b)
	}

	mustFifo(t, filepath.Join(refs, "pipe.md"))
	within(t, func() {
		m := c.mustFail("skill_manage", map[string]any{"action": "patch", "name": "bare", "file_path": "references/pipe.md", "old_string": "a", "new_string": "b"})
		if msg, _ := m["error"].(string); !strings.Contains(msg, "not a regular file") {
			t.Errorf("patch of a FIFO: %q", msg)
		}
	})

	ents, err := os.ReadDir(refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}

	symlink(t, filepath.Join(f.home, "nowhere"), filepath.Join(f.home, "skills", "dangling"))
	m := c.mustFail("skill_manage", map[string]any{"action": "create", "name": "dangling", "content": skillMD("dangling", "d", "b")})
	if msg, _ := m["error"].(string); !strings.Contains(msg, "already exists") {
		t.Errorf("create onto a dangling link: %q", msg)
	}
	if _, err := os.Lstat(filepath.Join(f.home, "nowhere")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("create went through the dangling link: %v", err)
	}
}
