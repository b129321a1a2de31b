//go:build !unix

package bridge

import (
	"os"
	"os/exec"
	"syscall"
)

func setProcessGroup(*exec.Cmd) {}

// signalGroup can only reach codex itself here; without process groups its
// children are on their own, and there is no polite signal to send, so both
// steps of the escalation kill.
func signalGroup(p *os.Process, _ syscall.Signal) { _ = p.Kill() }

const (
	sigTerm = syscall.Signal(15)
	sigKill = syscall.Signal(9)
)

func killOrphans(int) bool { return false }
