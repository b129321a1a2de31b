//go:build unix

package bridge

import (
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup puts codex in its own process group so that the shutdown
// escalation reaches the MCP servers and sandboxed commands it started, and
// so that a terminal's Ctrl+C, meant for us, does not kill codex before we
// have shut it down in order.
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends sig to codex's whole process group. It is only called
// while the child has not been reaped, so the group id cannot have been
// reused; a failure (the group is already gone) is not interesting.
func signalGroup(p *os.Process, sig syscall.Signal) {
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		_ = p.Signal(sig)
	}
}

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// killOrphans kills whatever is left in codex's process group once codex
// itself has been reaped: processes it started and did not stop (after a
// crash or a SIGKILL, nothing else will). It runs immediately after Wait:
// while any member is alive the group id stays reserved, and an empty group's
// id being recycled for a new group leader within microseconds is not a
// practical concern. It reports whether anything was there.
func killOrphans(pid int) bool {
	return syscall.Kill(-pid, syscall.SIGKILL) == nil
}
