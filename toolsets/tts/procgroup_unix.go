//go:build unix

package tts

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the program in a process group of its own, so a timeout
// stops everything it started (a shell script's children too).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
}

// killGroup kills what is left of the program's group.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
