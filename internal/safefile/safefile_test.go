package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// zeros never ends, like /dev/zero.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestReadLimitedStopsOnAnEndlessReader(t *testing.T) {
	_, err := ReadLimited(zeros{}, 0, 1<<20)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	got, err := ReadLimited(io.LimitReader(zeros{}, 10), 3, 10)
	if err != nil || len(got) != 10 {
		t.Fatalf("exactly at the limit: %d bytes, %v", len(got), err)
	}
}

// Every kind of path, opened for reading with the directory as the bound.
func TestOpen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("FIFOs and POSIX symlinks are what this test is about; Windows has neither in this form")
	}
	base := t.TempDir()
	dir := filepath.Join(base, "root")
	outside := filepath.Join(base, "secret")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		t.Helper()
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "secret\n")
	write(filepath.Join(dir, "plain"), "plain\n")
	write(filepath.Join(dir, "big"), "0123456789")
	link(outside, filepath.Join(dir, "out"))
	link("plain", filepath.Join(dir, "in"))
	link(filepath.Join(dir, "plain"), filepath.Join(dir, "in-abs"))
	link("in", filepath.Join(dir, "chain"))
	link("out", filepath.Join(dir, "chain-out"))
	link("loop-b", filepath.Join(dir, "loop-a"))
	link("loop-a", filepath.Join(dir, "loop-b"))
	link("/dev/zero", filepath.Join(dir, "zero"))
	link(base, filepath.Join(dir, "up"))
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("fifo", filepath.Join(dir, "fifo-link"))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want error // nil: readable, "plain\n"
	}{
		{"plain", nil},
		{"in", nil},
		{"in-abs", nil},
		{"chain", nil},
		{"out", ErrOutside},
		{"chain-out", ErrOutside},
		{"up/secret", ErrOutside},
		{"loop-a", ErrLoop},
		{"zero", ErrOutside},
		{"fifo", ErrNotRegular},
		{"fifo-link", ErrNotRegular},
		{"sub", ErrNotRegular},
		{"missing", fs.ErrNotExist},
		{"plain/x", fs.ErrNotExist},
		{"big", ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var data []byte
			var err error
			go func() {
				defer close(done)
				data, err = ReadFile(realDir, filepath.Join(dir, tt.name), 6)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("ReadFile blocked")
			}
			if tt.want == nil {
				if err != nil || string(data) != "plain\n" {
					t.Fatalf("ReadFile = %q, %v", data, err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadUserFile(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	target := filepath.Join(other, "real.env")
	if err := os.WriteFile(target, []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, ".env")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	// A link out of the directory is the user's choice: followed.
	if b, err := ReadUserFile(link, 100); err != nil || string(b) != "A=1\n" {
		t.Fatalf("ReadUserFile through a link = %q, %v", b, err)
	}
	if _, err := ReadUserFile(link, 2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := ReadUserFile(dir, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a directory: %v, want ErrNotRegular", err)
	}
	if _, err := ReadUserFile(filepath.Join(dir, "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want fs.ErrNotExist", err)
	}
}

// A relative path is read from the working directory, and a FIFO there is
// refused at once with the name the caller gave.
func TestReadUserFileRelative(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("config.yaml", []byte("a: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadUserFile("config.yaml", 100); err != nil || string(b) != "a: 1\n" {
		t.Fatalf("relative read = %q, %v", b, err)
	}
	if err := syscall.Mkfifo("pipe.yaml", 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadUserFile("pipe.yaml", 100)
	if !errors.Is(err, ErrNotRegular) || !strings.HasPrefix(err.Error(), "pipe.yaml") || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("FIFO: %v; want a refusal starting with the name given and saying FIFO", err)
	}
}

func TestAppendUserFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "a.log")
	for range 2 {
		f, err := AppendUserFile(log, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("x")
		f.Close()
	}
	if b, _ := os.ReadFile(log); string(b) != "xx" {
		t.Errorf("appended %q", b)
	}
	fifo := filepath.Join(dir, "fifo.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := AppendUserFile(fifo, 0o600)
		if f != nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Unblock the open so the test ends: a reader lets it return.
		if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			r.Close()
		}
		t.Fatal("AppendUserFile blocked on a FIFO")
	}
}
