package browser

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestProcessGone: a running process is not gone; one that exited is, and
// so is a zombie nobody reaped yet.
func TestProcessGone(t *testing.T) {
	if processGone(os.Getpid()) {
		t.Fatal("the test process itself is reported gone")
	}
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep: %v", err)
	}
	if processGone(cmd.Process.Pid) {
		t.Error("a running child is reported gone")
	}
	_ = cmd.Process.Kill()
	// Killed but not yet reaped: a zombie, which is gone as far as a
	// browser is concerned.
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			t.Fatal("a killed, unreaped child is not reported gone")
		}
		time.Sleep(5 * time.Millisecond)
	}
	_ = cmd.Wait()
	if !processGone(cmd.Process.Pid) {
		t.Error("a reaped child is not reported gone")
	}
}
