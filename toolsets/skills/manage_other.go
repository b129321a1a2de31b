//go:build !unix

package skills

import (
	"fmt"
	"os"
)

// openNonblock: no FIFOs to wait on here.
const openNonblock = 0

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
