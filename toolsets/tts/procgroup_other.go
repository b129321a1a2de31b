//go:build !unix

package tts

import "os/exec"

// ownGroup leaves the default: a timeout kills the program itself (no
// process groups to signal here).
func ownGroup(*exec.Cmd) {}

// killGroup kills the program if it is still there.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
