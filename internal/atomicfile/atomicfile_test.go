package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "config.toml")

	if err := Write(path, []byte("one\n"), Options{Backup: ".bak", Mode: 0o600}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".bak"); !os.IsNotExist(err) {
		t.Errorf("a new file must not get a backup (stat err %v)", err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("new file mode %v, want 0600", fi.Mode().Perm())
	}

	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two\n"), Options{Backup: ".bak"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	bak, _ := os.ReadFile(path + ".bak")
	if string(got) != "two\n" || string(bak) != "one\n" {
		t.Errorf("content %q backup %q", got, bak)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v not kept, want 0640", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, []byte("x"), Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteFailureLeavesOriginal(t *testing.T) {
	if os.Geteuid() == 0 {
		// root ignores directory permissions; simulate a failure by making
		// the target's directory a file instead.
		dir := t.TempDir()
		blocker := filepath.Join(dir, "file")
		os.WriteFile(blocker, []byte("keep"), 0o644)
		if err := Write(filepath.Join(blocker, "child.toml"), []byte("x"), Options{}); err == nil {
			t.Fatal("expected an error writing under a file")
		}
		if b, _ := os.ReadFile(blocker); string(b) != "keep" {
			t.Fatalf("blocker changed: %q", b)
		}
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.toml")
	os.WriteFile(path, []byte("orig"), 0o644)
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	if err := Write(path, []byte("new"), Options{}); err == nil {
		t.Fatal("expected an error in a read-only directory")
	}
	if b, _ := os.ReadFile(path); string(b) != "orig" {
		t.Fatalf("original changed: %q", b)
	}
}
