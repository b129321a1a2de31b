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

	"github.com/hermes-go/hermes/mcpserver/memory"
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
