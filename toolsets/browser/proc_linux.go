package browser

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// processGone reports whether pid has exited (a zombie not yet reaped
// counts as gone): a browser killed from outside may be found dead this
// way a moment before its connection reports the loss. Without a usable
// /proc nothing is known, and nothing is reported gone: a browser must
// never be replaced on a guess.
func processGone(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		_, err := os.Stat("/proc/self/stat")
		return err == nil
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && stat[i+2] == 'Z'
}
