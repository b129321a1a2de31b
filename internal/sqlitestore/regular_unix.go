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
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return notRegularError(path, safefile.Describe(fi.Mode()))
	}
	return nil
}
