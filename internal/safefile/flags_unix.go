//go:build unix

package safefile

import "syscall"

// openFlags: O_NONBLOCK so a FIFO's open returns at once (the fstat then
// refuses it); O_NOFOLLOW so a final link swapped in after Resolve fails.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW | syscall.O_CLOEXEC

// appendFlags: O_NONBLOCK so opening a FIFO for writing returns at once
// (the fstat then refuses it); links are followed, as for ReadUserFile.
const appendFlags = syscall.O_NONBLOCK | syscall.O_CLOEXEC
