//go:build unix

package skills

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// openNonblock keeps the open of a FIFO from waiting for a writer; the
// fstat after it then refuses the FIFO.
const openNonblock = syscall.O_NONBLOCK

// removeEmptyDir removes name under r when it is an empty directory, in
// one call: rmdir refuses a link (ENOTDIR) and a directory with anything
// in it, so a link swapped in at name, even one inside r, is left alone.
func removeEmptyDir(r *os.Root, name string) error {
	d, err := r.Open(filepath.Dir(name))
	if err != nil {
		return err
	}
	defer d.Close()
	rc, err := d.SyscallConn()
	if err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	var rmErr error
	if err := rc.Control(func(fd uintptr) {
		rmErr = unix.Unlinkat(int(fd), filepath.Base(name), unix.AT_REMOVEDIR)
	}); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	if rmErr != nil {
		return &fs.PathError{Op: "rmdir", Path: name, Err: rmErr}
	}
	return nil
}
