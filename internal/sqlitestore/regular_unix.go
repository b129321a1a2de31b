//go:build unix

package sqlitestore

import (
	"fmt"
	"os"
	"syscall"

	"github.com/hermes-go/hermes/internal/safefile"
)

// checkOpened opens path without blocking (O_NONBLOCK returns at once even
// for a FIFO with no writer) and checks what was actually opened.
func checkOpened(path string) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		fi, err := os.Stat(path)
		what := "not a regular file"
		if err == nil {
			what = safefile.Describe(fi.Mode())
		}
		return notRegularError(path, what)
	}
	return nil
}
