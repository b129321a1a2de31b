package atomicfile

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/filelock"

	"github.com/hermes-go/hermes/internal/safefile"
)

// EditOptions tune Begin.
type EditOptions struct {
	// Options apply to the write. Backup is kept by the rule on Commit.
	Options
	// Lock tunes waiting for another process's edit.
	Lock filelock.Options
	// NoLock reads without locking, for dry runs: they write nothing, not
	// even a lock file.
	NoLock bool
	// ExistingOnly takes no lock, and so creates neither lock file nor
	// directory, when the file does not exist; Commit then refuses. For
	// removals: a missing file has nothing to remove, and a client the
	// user never installed must not get a directory.
	ExistingOnly bool
	// LockPath, when set, is the lock file instead of LockPath(path):
	// for a file in a directory that is not the user's own to litter (a
	// project checkout, where a lock file would be committed), the
	// caller keeps it in its state directory. Every editor of the file
	// must name the same one.
	LockPath string
}

// Edit is a read-modify-write of one file under the lock beside it, so concurrent editors (two hermes-migrate runs, hermes switching
// runtimes meanwhile) take turns instead of one overwriting the other's
// work or backup.
type Edit struct {
	// Path is the file as named; Target is where its symlinks lead.
	Path, Target string
	// Before is the content when the edit began, nil when missing.
	Before []byte

	opts EditOptions
	lock *filelock.Lock
}

// LockPath is the lock file guarding path: beside path as named, not
// beside a symlink's target. Every writer names a file the same way (the
// codex home's config.toml, a client's config path), and the link's
// directory is the user's home, where a lock file can always be made;
// the target's directory may be a dotfiles repository (where it would
// show up as an untracked file) or a read-only store (home-manager's
// /nix/store), where it cannot.
func LockPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return abs + filelock.Suffix, nil
}

// Begin locks path (LockPath) and reads it. The caller computes the new
// content from Before, then calls Commit, and always Close.
func Begin(ctx context.Context, path string, opts EditOptions) (*Edit, error) {
	target, err := Resolve(path)
	if err != nil {
		return nil, err
	}
	e := &Edit{Path: path, Target: target, opts: opts}
	lock := !opts.NoLock
	// A file that is there but cannot be edited (a directory, a device)
	// is refused before the lock file is made, so the refusal leaves
	// nothing behind.
	fi, statErr := os.Stat(target)
	switch {
	case statErr == nil && !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s); refusing to edit it", path, safefile.Describe(fi.Mode()))
	case errors.Is(statErr, fs.ErrNotExist) && opts.ExistingOnly:
		lock = false
	}
	if lock {
		lock := opts.LockPath
		if lock == "" {
			if lock, err = LockPath(path); err != nil {
				return nil, err
			}
		}
		if e.lock, err = filelock.Acquire(ctx, lock, opts.Lock); err != nil {
			return nil, err
		}
	}
	// Read without blocking: a FIFO at the path is refused by name, not
	// waited on with the lock held.
	data, err := safefile.ReadUserFile(target, safefile.MaxConfigSize)
	switch {
	case err == nil:
		e.Before = data
	case errors.Is(err, fs.ErrNotExist):
	case target == path:
		// The error names the file already.
		e.Close()
		return nil, err
	default:
		e.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return e, nil
}

// Commit writes data (unchanged content is not written). The backup is
// refreshed only when Before is not what an earlier Commit on this file
// wrote: then Before is the user's own version, and our own output never
// replaces it in the backup. backup is the path of a backup that holds the
// user's last own version, "" when there is none.
func (e *Edit) Commit(data []byte) (backup string, err error) {
	if e.lock == nil {
		return "", fmt.Errorf("edit of %s was begun without a lock; refusing to write", e.Path)
	}
	note, err := e.lock.Note()
	if err != nil {
		return "", err
	}
	opts := e.opts.Options
	bak := ""
	if opts.Backup != "" && e.Before != nil {
		bak = e.Path + opts.Backup
		if bytes.Equal(note, digest(e.Before)) {
			// Before is our own output: keep the backup of the user's
			// version that is already there.
			opts.Backup = ""
			if _, err := os.Stat(bak); err != nil {
				bak = ""
			}
		}
	} else {
		opts.Backup = ""
	}
	if bytes.Equal(e.Before, data) && e.Before != nil {
		return bak, nil
	}
	if err := Write(e.Path, data, opts); err != nil {
		return "", err
	}
	// A failure here only costs one extra backup next time.
	_ = e.lock.SetNote(digest(data))
	return bak, nil
}

// Forget deletes the lock file, and with it the record of what Commit
// wrote, then releases the lock: for when the file is the user's alone
// again (a removal), so nothing of Hermes' is left beside it. Close is
// then a no-op.
func (e *Edit) Forget() error {
	if e == nil || e.lock == nil {
		return nil
	}
	err := e.lock.Remove()
	e.lock = nil
	return err
}

// Close releases the lock.
func (e *Edit) Close() error {
	if e == nil || e.lock == nil {
		return nil
	}
	return e.lock.Release()
}

func digest(b []byte) []byte {
	sum := sha256.Sum256(b)
	return []byte("sha256:" + hex.EncodeToString(sum[:]) + "\n")
}
