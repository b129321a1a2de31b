package worker

import "syscall"

// sysProcAttr makes the kernel kill the worker when the front process dies,
// however it dies (SIGKILL included), so no worker (or the Chromium it
// owns, which has the same guard) is orphaned.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
