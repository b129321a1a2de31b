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

// Stdin returns standard input, readable through the poller when it is a
// pipe (how MCP clients connect): a blocking read of fd 0 keeps its thread,
// and the processor that thread holds, until the runtime notices, which at
// start-up can be most of a millisecond during which a request just read
// waits for a processor. The pipe is opened anew, non-blocking, through
// /proc/self/fd/0: fd 0's own description, which a parent shell or wrapper
// may share, keeps its flags. Anything else (a terminal, a file, a socket,
// no /proc) is returned as it is.
func Stdin() *os.File {
	var st unix.Stat_t
	if err := unix.Fstat(0, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		return os.Stdin
	}
	fd, err := unix.Open("/proc/self/fd/0", unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return os.Stdin
	}
	// os.NewFile registers a non-blocking descriptor with the poller.
	return os.NewFile(uintptr(fd), "/dev/stdin")
}
