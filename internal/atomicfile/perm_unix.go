//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// canWrite asks the kernel, so ACLs and group bits count too.
func canWrite(path string) error {
	const wOK = 2
	return syscall.Access(path, wOK)
}

// keepOwner gives the replacement the old file's owner and group. Only
// root (or the owner, for a group it belongs to) may; otherwise the new
// file is the writer's, as any editor's save would leave it.
func keepOwner(f *os.File, old fs.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}
