//go:build unix

package bridge

import (
	"errors"
	"syscall"
	"testing"
	"time"
)

// checkReaped fails t if the process or its process group still exists.
func checkReaped(t testing.TB, pid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		errP := syscall.Kill(pid, 0)
		errG := syscall.Kill(-pid, 0)
		if errors.Is(errP, syscall.ESRCH) && errors.Is(errG, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("pid %d still exists (process: %v, group: %v)", pid, errP, errG)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func killChild(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}
