//go:build !linux

package safefile

import "os"

// fdPath has no portable equivalent; Resolve and O_NOFOLLOW stand alone.
func fdPath(*os.File) (string, bool) { return "", false }
