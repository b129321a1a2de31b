//go:build !unix

package kanban_test

import "testing"

// mkfifo stands in a regular file where FIFOs do not exist: the name is
// taken either way.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	writeFile(t, path, "")
}
