//go:build unix

package sqlitestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNonRegularFilesRefused opens real FIFOs, devices, directories and
// symlinks to them. Opening a FIFO with SQLite blocks forever, so every
// open runs under a generous deadline that only detects a hang.
func TestNonRegularFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	linkToFIFO := filepath.Join(dir, "link-to-fifo.db")
	linkToDir := filepath.Join(dir, "link-to-dir.db")
	linkToDev := filepath.Join(dir, "link-to-null.db")
	for link, target := range map[string]string{linkToFIFO: fifo, linkToDir: dir, linkToDev: os.DevNull} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	// A database whose -wal is a FIFO hangs SQLite as surely as the file.
	walFIFO := filepath.Join(dir, "walfifo.db")
	if err := os.WriteFile(walFIFO, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(walFIFO+"-wal", 0o600); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, path, named, what string
	}{
		{"fifo", fifo, fifo, "is a FIFO (named pipe)"},
		{"symlink to fifo", linkToFIFO, linkToFIFO, "is a FIFO (named pipe)"},
		{"device", os.DevNull, os.DevNull, "is a character device"},
		{"symlink to device", linkToDev, linkToDev, "is a character device"},
		{"directory", dir, dir, "is a directory"},
		{"symlink to directory", linkToDir, linkToDir, "is a directory"},
		{"wal is a fifo", walFIFO, walFIFO + "-wal", "is a FIFO (named pipe)"},
	}
	for _, tt := range tests {
		for _, opts := range []Options{{ReadOnly: true}, {}, {Create: true}} {
			t.Run(tt.name, func(t *testing.T) {
				err := openWithin(t, tt.path, opts)
				if !IsKind(err, NotRegular) {
					t.Fatalf("Open(%s, %+v) = %v, want a NotRegular refusal", tt.path, opts, err)
				}
				msg := err.Error()
				for _, want := range []string{tt.named + " " + tt.what, "not a regular file", "move " + tt.named + " aside"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error %q lacks %q", msg, want)
					}
				}
			})
		}
	}
}

// TestSymlinkToRegularFileOpens keeps the ordinary case working: a home
// whose database is a symlink to a real file.
func TestSymlinkToRegularFileOpens(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.db")
	db, err := Open(context.Background(), real, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	link := filepath.Join(dir, "kanban.db")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := openWithin(t, link, Options{ReadOnly: true}); err != nil {
		t.Fatalf("symlink to a regular database: %v", err)
	}
}

// openWithin opens and closes path, failing the test if the open has not
// returned after a minute (a hang, not a slow open).
func openWithin(t *testing.T, path string, opts Options) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		db, err := Open(context.Background(), path, opts)
		if err == nil {
			db.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("Open(%s) still blocked after a minute", path)
		return errors.New("unreachable")
	}
}
