// Package atomicfile replaces a file so that readers see either the old or
// the new content, never a half-written file, and the previous version is
// kept as a backup. Config files this project edits belong to the user;
// losing them to a crash or a full disk is not an option.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options tune Write.
type Options struct {
	// Backup, when non-empty, is the suffix of a copy of the previous
	// content kept next to the file (e.g. ".bak"). Nothing is backed up
	// when the file did not exist.
	Backup string
	// Mode is used when the file is new; an existing file keeps its mode.
	// Zero means 0o644.
	Mode fs.FileMode
}

// Write replaces path with data: a temporary file in the same directory is
// written, synced and renamed over path, then the directory is synced. The
// directory is created (0o755) when missing.
func Write(path string, data []byte, opts Options) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	mode := opts.Mode
	if mode == 0 {
		mode = 0o644
	}
	old, statErr := os.Stat(path)
	switch {
	case statErr == nil:
		if !old.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file; refusing to replace it", path)
		}
		mode = old.Mode().Perm()
	case !errors.Is(statErr, fs.ErrNotExist):
		return fmt.Errorf("stat %s: %w", path, statErr)
	}

	if statErr == nil && opts.Backup != "" {
		if err := copyFile(path, path+opts.Backup, mode); err != nil {
			return fmt.Errorf("back up %s: %w", path, err)
		}
	}

	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file next to %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// copyFile writes a durable copy of src at dst (itself atomically, so a
// crash never leaves a torn backup).
func copyFile(src, dst string, mode fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return Write(dst, data, Options{Mode: mode})
}

// syncDir makes the rename durable. Not every platform can sync a
// directory; the rename itself is still atomic there.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
