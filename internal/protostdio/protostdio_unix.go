//go:build unix

package protostdio

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Reserve takes file descriptor 1 for the protocol and points fd 1 at
// stderr. Anything that prints to "stdout" afterwards (a stray fmt.Print, a
// child process inheriting fd 1) lands in the log instead of corrupting the
// JSON-RPC stream.
func Reserve() (*os.File, error) {
	fd, err := unix.Dup(1)
	if err != nil {
		return nil, fmt.Errorf("duplicate stdout: %w", err)
	}
	unix.CloseOnExec(fd)
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("redirect stdout to stderr: %w", err)
	}
	return os.NewFile(uintptr(fd), "mcp-stdout"), nil
}

// Stdin returns standard input, made pollable when it is a pipe or a
// socket (how MCP clients connect): a blocking read of fd 0 keeps its
// thread, and the processor that thread holds, until the runtime notices,
// which at start-up can be most of a millisecond during which a request
// just read waits for a processor. Terminals and files are returned as
// they are: setting O_NONBLOCK on a terminal would change it for the shell
// that shares it, and files cannot be polled.
func Stdin() *os.File {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil {
		return os.Stdin
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK:
	default:
		return os.Stdin
	}
	if err := unix.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	return os.NewFile(0, "/dev/stdin")
}
