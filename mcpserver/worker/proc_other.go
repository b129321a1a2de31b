//go:build !linux

package worker

import "syscall"

// sysProcAttr has no parent-death signal outside Linux; the worker exits
// when its stdin closes, which happens when the front process exits.
func sysProcAttr() *syscall.SysProcAttr { return nil }
