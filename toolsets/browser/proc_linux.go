package browser

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts Chromium in a process group of its own, so closing
// can kill every process it forked, and has the kernel SIGKILL it when the
// server dies, even by SIGKILL (chromedp starts the process from a locked
// OS thread, which Pdeathsig needs).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills Chromium's whole process group.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
