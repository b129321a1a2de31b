//go:build !unix

package skills

import (
	"fmt"
	"io/fs"
	"os"
)

// openNonblock: no FIFOs to wait on here.
const openNonblock = 0

// keepOwner: ownership is not carried over by mode bits here.
func keepOwner(*os.File, fs.FileInfo) {}

// removeEmptyDir removes name under r when it is an empty directory. The
// check and the removal are two steps here, but both stay inside r.
func removeEmptyDir(r *os.Root, name string) error {
	fi, err := r.Lstat(name)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("remove %s: not a directory", name)
	}
	return r.Remove(name)
}
