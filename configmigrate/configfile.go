package configmigrate

import (
	"errors"
	"io/fs"

	"github.com/hermes-go/hermes/internal/unidiff"

	"github.com/hermes-go/hermes/internal/safefile"
)

// BackupSuffix names the copy of a config file's previous content kept
// beside it on every write, so the user can always go back.
const BackupSuffix = ".bak"

// ReadConfigFile reads a config file; a missing file is nil, not an error,
// because every migration starts from "nothing configured yet". A FIFO,
// device or directory at path is an error naming it, found without
// waiting on it (safefile.ReadUserFile).
func ReadConfigFile(path string) ([]byte, error) {
	data, err := safefile.ReadUserFile(path, safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// FileChange is what replacing a config file did or, in a dry run, would do.
type FileChange struct {
	Path    string
	Changed bool
	Written bool
	// Backup is where the previous content was kept; empty when the file
	// was new or nothing was written.
	Backup string
	// Diff is the unified diff of a dry run that would change the file.
	Diff string
}

// PlanChange is what replacing path's content (before, nil when the file is
// missing) with after would do, with the diff when it changes anything
// (its new side labelled "path (label)"):
// a dry run's answer, and an unchanged file's. Writes go through
// atomicfile.Edit, under the file's lock.
func PlanChange(path, label string, before, after []byte) FileChange {
	ch := FileChange{Path: path, Changed: string(before) != string(after)}
	if ch.Changed {
		ch.Diff = unidiff.Diff(path, path+" ("+label+")", before, after)
	}
	return ch
}
