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

func TestFindWorker(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, Name)
	worker := filepath.Join(dir, WorkerName)
	if err := os.WriteFile(worker, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	noPath := func(string) (string, error) { return "", errors.New("not on PATH") }
	tests := []struct {
		name     string
		loc      Locator
		override string
		want     string
		wantErr  error
	}{
		{"beside the running program", Locator{Executable: func() (string, error) { return self, nil }, LookPath: noPath}, "", worker, nil},
		{"override wins", Locator{Executable: func() (string, error) { return filepath.Join(empty, Name), nil }}, worker, worker, nil},
		{"nowhere", Locator{Executable: func() (string, error) { return filepath.Join(empty, Name), nil }, LookPath: noPath}, "", "", ErrWorkerNotFound},
	}
	for _, tt := range tests {
		got, err := tt.loc.FindWorker(tt.override)
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: FindWorker = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
	if !strings.Contains(ErrWorkerNotFound.Error(), "go install github.com/hermes-go/hermes/cmd/hermes-tools-worker") {
		t.Errorf("the not-found error does not say how to install: %v", ErrWorkerNotFound)
	}
}
