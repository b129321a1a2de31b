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

func TestLocatorFind(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "hermes-migrate")
	server := filepath.Join(dir, Name)
	if err := os.WriteFile(server, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	noPath := func(string) (string, error) { return "", errors.New("not on PATH") }
	elsewhere := func() (string, error) { return filepath.Join(empty, "hermes"), nil }
	tests := []struct {
		name     string
		loc      Locator
		override string
		want     string
		wantErr  error
	}{
		{"beside the running program", Locator{Executable: func() (string, error) { return self, nil }, LookPath: noPath}, "", server, nil},
		{"override wins", Locator{Executable: elsewhere}, server, server, nil},
		{"nowhere", Locator{Executable: elsewhere, LookPath: noPath}, "", "", ErrNotFound},
	}
	for _, tt := range tests {
		got, err := tt.loc.Find(tt.override)
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: Find = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
	if !strings.Contains(ErrNotFound.Error(), "install it") {
		t.Errorf("the not-found error does not say how to install: %v", ErrNotFound)
	}
}
