//go:build linux

package safefile

import (
	"os"
	"strconv"
)

// fdPath is where the kernel says an open file is. ok is false when /proc
// is not mounted (a minimal container), and the earlier checks stand alone.
func fdPath(f *os.File) (string, bool) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || len(p) == 0 || p[0] != '/' {
		return "", false
	}
	return p, true
}
