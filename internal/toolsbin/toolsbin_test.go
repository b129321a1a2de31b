package toolsbin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, Name)
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(exe); err != nil || got != exe {
		t.Errorf("Find(%q) = %q, %v", exe, got, err)
	}
	if _, err := Find(plain); err == nil || !strings.Contains(err.Error(), "not an executable file") {
		t.Errorf("Find(non-executable) err = %v", err)
	}
	t.Setenv("PATH", dir)
	if got, err := Find(""); err != nil || got != exe {
		t.Errorf("Find on PATH = %q, %v", got, err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := Find(""); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find with nothing installed: %v", err)
	}
}
