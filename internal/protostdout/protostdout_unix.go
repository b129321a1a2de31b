//go:build unix

package protostdout

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
