//go:build unix

package memory_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/memory"
)

// TestKilledWriter: a writer killed mid-stream leaves a complete file and
// no stale lock.
func TestKilledWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "memories")
	exe, _ := os.Executable()
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = []string{writerEnv + "=victim", "MEMORY_TEST_COUNT=0", "MEMORY_TEST_DIR=" + dir}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st := &memory.Store{Dir: dir, Limits: map[string]int{memory.TargetMemory: 1 << 20}}
	deadline := time.Now().Add(20 * time.Second)
	for {
		got, _ := st.Read(memory.TargetMemory)
		if len(got) >= 20 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("writer made no progress")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	got, err := st.Read(memory.TargetMemory)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range got {
		if e != fmt.Sprintf("victim entry %d", i) {
			t.Fatalf("entry %d = %q: the file was torn", i, e)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out, err := st.Add(ctx, memory.TargetMemory, "after the crash"); err != nil || !out.OK {
		t.Fatalf("add after a killed writer: %v %s", err, out.Message)
	}
	// No temporary files are left behind by completed writes.
	var stray []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if strings.Contains(d.Name(), ".tmp-") {
			stray = append(stray, d.Name())
		}
		return nil
	})
	if len(stray) > 1 {
		t.Errorf("temporary files left: %v", stray)
	}
}

func TestLockWaitHonoursContext(t *testing.T) {
	dir := t.TempDir()
	st := &memory.Store{Dir: dir}
	lock, err := os.OpenFile(filepath.Join(dir, "MEMORY.md.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = st.Add(ctx, memory.TargetMemory, "x")
	if err == nil || !strings.Contains(err.Error(), "held by another process writing memory") {
		t.Fatalf("err = %v", err)
	}
}

// The drift backup is written through the memories directory: a link
// planted at the backup's name is replaced by the backup, never followed
// onto the file it points at; anything else in the way makes the backup
// fail (said in the reply) and leaves no partial file. The memory file is
// untouched either way.
func TestDriftBackupIsNotSteered(t *testing.T) {
	home, path, data := layoutHome(t, "padded-entry.md")
	bak := path + ".bak.1700000000"
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("do not touch"), 0o644)
	if err := os.Symlink(victim, bak); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, home)
	args := map[string]any{"action": "remove", "target": "memory", "old_text": "a"}
	if got, isErr := h.callJSON(args); !isErr || string(got) != driftReply(bak) {
		t.Fatalf("reply %s", got)
	}
	if b, _ := os.ReadFile(victim); string(b) != "do not touch" {
		t.Fatalf("the backup followed the link: victim = %q", b)
	}
	fi, err := os.Lstat(bak)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(bak); string(b) != "a \n§\nb" {
		t.Errorf("backup = %q", b)
	}

	// A directory in the backup's place: the backup fails, says so, and
	// leaves nothing behind.
	os.Remove(bak)
	os.Mkdir(bak, 0o755)
	failed := bak + " (BACKUP FAILED — file unchanged on disk)"
	if got, isErr := h.callJSON(args); !isErr || string(got) != driftReply(failed) {
		t.Fatalf("reply %s", got)
	}
	if names := dirNames(t, filepath.Dir(path)); strings.Join(names, " ") != "MEMORY.md MEMORY.md.bak.1700000000 MEMORY.md.lock" {
		t.Errorf("memories holds %q", names)
	}
	if after, _ := os.ReadFile(path); string(after) != string(data) {
		t.Errorf("MEMORY.md changed: %q", after)
	}
}

// A FIFO in place of MEMORY.md is an unreadable store: refused at once,
// never waited on.
func TestFIFOIsRefusedWithoutBlocking(t *testing.T) {
	_, path := batchHome(t, nil)
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip(err)
	}
	type result struct {
		out memory.Reply
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := (&memory.Store{Dir: filepath.Dir(path)}).Add(context.Background(), memory.TargetMemory, "x")
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || r.out.OK || !strings.HasPrefix(r.out.Message, "Refusing to write MEMORY.md: the file exists on disk but could not be read") {
			t.Errorf("reply %+v, %v", r.out, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a FIFO at MEMORY.md blocked the call")
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}
