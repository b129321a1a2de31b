// Package atomicfile replaces a file so that readers see either the old or
// the new content, never a half-written file, and the previous version is
// kept as a backup. Config files this project edits belong to the user;
// losing them to a crash or a full disk is not an option, and neither is
// breaking the symlink a dotfile manager put there or overriding a file
// the user made read-only.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Options tune Write.
type Options struct {
	// Backup, when non-empty, is the suffix of a copy of the previous
	// content kept next to the file (e.g. ".bak"). Nothing is backed up
	// when the file did not exist.
	Backup string
	// Mode is used when the file is new; an existing file keeps its mode
	// (and, where the process may set it, its owner). Zero means 0o644.
	Mode fs.FileMode
	// Force writes a file that is read-only (no owner write bit) or that
	// this process may not write; without it such a file is left alone
	// and the error matches ErrNotWritable. The mode is kept either way.
	Force bool
}

// ErrNotWritable is matched (errors.Is) by the error of a write refused
// because the file is read-only or not writable by this process.
var ErrNotWritable = errors.New("file is read-only or not writable")

// NotWritableError names the refused file.
type NotWritableError struct {
	// Path is the file as the caller named it; Target is where its
	// symlinks lead (equal to Path for a plain file).
	Path, Target string
	Mode         fs.FileMode
	// Reason is "read-only" (no write bit for the owner) or the access
	// check's error.
	Reason string
}

func (e *NotWritableError) Error() string {
	name := e.Path
	if e.Target != e.Path {
		name = fmt.Sprintf("%s (link to %s)", e.Path, e.Target)
	}
	return fmt.Sprintf("%s is %s (mode %v): left unchanged; make it writable (chmod u+w) to let it be edited", name, e.Reason, e.Mode.Perm())
}

func (e *NotWritableError) Is(target error) bool { return target == ErrNotWritable }

// Resolve follows path's symlink chain to the file it finally names, so a
// write lands in the link's target and the link survives. A path that does
// not exist is its own target; a dangling link resolves to where it
// points, so the first write creates the file the link expects.
func Resolve(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("resolve symlinks of %s: %w", path, err)
	}
	// Missing file or dangling link: follow the links by hand as far as
	// they exist.
	p := abs
	for range 255 {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", path, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", fmt.Errorf("resolve %s: too many levels of symbolic links", path)
}

// CheckWritable says whether Write would refuse the existing file at
// target (already resolved) without Force: it is read-only when the owner
// has no write bit, and not writable when this process may not write it.
// The mode bits are checked first because root may write anything, and a
// 0444 file is the user's "leave this alone" even then.
func CheckWritable(path, target string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o200 == 0 {
		return &NotWritableError{Path: path, Target: target, Mode: fi.Mode(), Reason: "read-only"}
	}
	if err := canWrite(target); err != nil {
		return &NotWritableError{Path: path, Target: target, Mode: fi.Mode(), Reason: "not writable by this user (" + err.Error() + ")"}
	}
	return nil
}

// Write replaces path with data: a temporary file in the directory of
// path's final target is written, synced and renamed over the target, then
// the directory is synced. A symlink at path stays a symlink. The
// directory is created (0o755) when missing.
func Write(path string, data []byte, opts Options) (err error) {
	target, err := Resolve(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	mode := opts.Mode
	if mode == 0 {
		mode = 0o644
	}
	old, statErr := os.Stat(target)
	switch {
	case statErr == nil:
		if !old.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file; refusing to replace it", path)
		}
		if !opts.Force {
			if err := CheckWritable(path, target, old); err != nil {
				return err
			}
		}
		mode = old.Mode().Perm()
	case !errors.Is(statErr, fs.ErrNotExist):
		return fmt.Errorf("stat %s: %w", path, statErr)
	}

	if statErr == nil && opts.Backup != "" {
		if err := backUp(target, path+opts.Backup, mode, opts.Force); err != nil {
			return fmt.Errorf("back up %s: %w", path, err)
		}
	}

	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer root.Close()
	if statErr != nil {
		old = nil
	}
	return WriteIn(root, filepath.Base(target), data, mode, old)
}

// WriteIn replaces name, a file directly in dir, with data the way Write
// does (a temporary file beside it, written, synced and renamed over it,
// then the directory synced), every step through dir: whatever becomes of
// dir's path meanwhile (a component swapped for a link), the file lands
// in dir. A link at name is replaced, not followed. mode is the new
// file's permission bits; old, when not nil, is the file replaced, whose
// owner and group the new one keeps where this process may give them.
func WriteIn(dir *os.Root, name string, data []byte, mode fs.FileMode, old fs.FileInfo) (err error) {
	shown := filepath.Join(dir.Name(), name)
	var tmp *os.File
	var tmpName string
	for range 100 {
		tmpName = fmt.Sprintf(".%s.tmp-%d", name, rand.Uint32())
		tmp, err = dir.OpenFile(tmpName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("create temporary file next to %s: %w", shown, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			_ = dir.Remove(tmpName)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if old != nil {
		keepOwner(tmp, old)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err = dir.Rename(tmpName, name); err != nil {
		return fmt.Errorf("replace %s: %w", shown, err)
	}
	// The rename is atomic without this; the sync makes it durable, where
	// the platform can sync a directory.
	if d, err := dir.Open("."); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// backUp writes a durable copy of src at dst (itself atomically, so a
// crash never leaves a torn backup). A symlink at dst is replaced, never
// followed: the backup's name is ours, derived from the file's, and a
// link planted there (by another program or an attacker) must not turn
// a backup into an overwrite of whatever it points at. Replacing the link
// loses nothing (its target is untouched), where refusing would block
// every later write of the file itself.
func backUp(src, dst string, mode fs.FileMode, force bool) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	dir, name := filepath.Dir(dst), filepath.Base(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer root.Close()
	old, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	case err != nil:
		return fmt.Errorf("stat %s: %w", dst, err)
	case old.Mode()&fs.ModeSymlink != 0:
		old = nil
	case !old.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file; move it away so a backup can be kept there", dst)
	case !force:
		if err := CheckWritable(dst, dst, old); err != nil {
			return err
		}
	}
	return WriteIn(root, name, data, mode, old)
}
