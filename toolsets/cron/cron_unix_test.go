//go:build unix

package cron

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// While the original holds its flock on cron/.jobs.lock, we wait.
func TestWaitsForTheOriginalsLock(t *testing.T) {
	h := home(t)
	f, err := os.OpenFile(filepath.Join(h, "cron", ".jobs.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		call(t, h, `{"action":"pause","job_id":"a1b2c3d4e5f6"}`)
	}()
	select {
	case <-done:
		t.Fatal("edited while the lock was held")
	case <-time.After(300 * time.Millisecond):
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	<-done
	if readJobs(t, h)[0]["state"] != "paused" {
		t.Error("edit lost after the lock was released")
	}
}

// A hostile store is refused with a clear error, never hangs, never is
// rewritten.
func TestHostileStore(t *testing.T) {
	for name, setup := range map[string]func(path string) error{
		"not json":  func(p string) error { return os.WriteFile(p, []byte("{nope"), 0o600) },
		"jobs text": func(p string) error { return os.WriteFile(p, []byte(`{"jobs": "x"}`), 0o600) },
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"too large": func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(maxJobsFile + 1)
		},
	} {
		h := t.TempDir()
		os.MkdirAll(filepath.Join(h, "cron"), 0o700)
		path := filepath.Join(h, "cron", "jobs.json")
		if err := setup(path); err != nil {
			t.Fatal(err)
		}
		ts := Toolset(Options{Home: h})
		res, err := ts.Tools[0].Handler(context.Background(), json.RawMessage(`{"action":"create","schedule":"every 5m","prompt":"x"}`))
		if err != nil || !res.IsError || !strings.Contains(string(res.Value.(json.RawMessage)), "jobs.json") {
			t.Errorf("%s: create: %v %s", name, err, res.Value)
		}
		res, err = ts.Tools[0].Handler(context.Background(), json.RawMessage(`{"action":"list"}`))
		if err != nil || !res.IsError {
			t.Errorf("%s: list: %v %s", name, err, res.Value)
		}
	}
}
