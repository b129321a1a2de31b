//go:build !linux

package skills

// dirWatch is Linux-only; elsewhere the index relies on stat stamps.
type dirWatch struct{}

func newDirWatch() *dirWatch        { return nil }
func (w *dirWatch) add(string) bool { return false }
func (w *dirWatch) changed() bool   { return false }
func (w *dirWatch) close()          {}
