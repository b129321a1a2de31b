//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// canWrite has no access(2) here; the read-only attribute shows up as a
// missing write bit, which CheckWritable checks first.
func canWrite(string) error { return nil }

func keepOwner(*os.File, fs.FileInfo) {}
