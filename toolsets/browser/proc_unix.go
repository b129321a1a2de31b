//go:build unix && !linux

package browser

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts Chromium in a process group of its own, so closing
// can kill every process it forked. Without Linux's parent-death signal a
// server killed by SIGKILL leaves Chromium running; every other exit closes
// it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills Chromium's whole process group.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// processGone reports false: without /proc, a dead browser is known by its
// lost connection alone.
func processGone(int) bool { return false }
