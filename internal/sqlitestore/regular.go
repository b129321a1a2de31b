package sqlitestore

import (
	"fmt"
	"os"

	"github.com/hermes-go/hermes/internal/safefile"
)

func notRegularError(path, what string) error {
	return &Error{Kind: NotRegular, Path: path, Op: "open",
		Err:  fmt.Errorf("%s, not a regular file", what),
		Hint: fmt.Sprintf("SQLite can only use a regular file (opening anything else can block forever or damage it); move %s aside, or point the tool at a regular database file", path)}
}

// checkRegular refuses a database path (or one of its journal files) that
// exists as anything but a regular file, before SQLite opens it: SQLite's
// open of a FIFO blocks until a writer appears, which hangs the call and
// then the server's exit. A symlink is followed; what it points at must be
// regular. A missing file is not refused here (fs.ErrNotExist comes back
// for the caller to decide).
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		// Never opened: opening a device can have side effects of its own.
		return notRegularError(path, safefile.Describe(fi.Mode()))
	}
	// The path may be swapped between the stat and SQLite's open; opening
	// it non-blocking and asking the open file closes most of that window
	// without ever blocking on a FIFO put there meanwhile.
	return checkOpened(path)
}

// checkJournals refuses a journal file beside path that exists and is not
// regular: SQLite opens these too, and a FIFO among them hangs it just as
// the database itself would. Missing ones are normal.
func checkJournals(path string) error {
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		fi, err := os.Stat(path + s)
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() {
			return notRegularError(path+s, safefile.Describe(fi.Mode()))
		}
	}
	return nil
}
