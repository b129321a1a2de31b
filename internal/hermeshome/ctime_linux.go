package hermeshome

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is the inode's change time, which, unlike the modification
// time, no tool can set back.
func changeTime(fi fs.FileInfo) (time.Time, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Sec, st.Ctim.Nsec), true
}
