//go:build !unix

package browser

import (
	"os"
	"os/exec"
)

// ownProcessGroup leaves the process attributes alone: without process
// groups, Chromium's helpers end when its main process does, which the
// allocator kills at close.
func ownProcessGroup(*exec.Cmd) {}

// killGroup kills Chromium's main process.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// processGone reports false: without /proc, a dead browser is known by its
// lost connection alone.
func processGone(int) bool { return false }
