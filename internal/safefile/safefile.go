// Package safefile opens files that must stay inside a directory: every
// symbolic link is followed, and the file opened is refused unless it ends
// up inside that directory and is a regular file. It exists for trees that
// other people write into (skills folders), where a name proves nothing
// about what a path leads to: a SKILL.md may be a link to /etc/passwd, a
// FIFO that blocks every open, or a device that never ends.
//
// The check is made on the file itself, not only on its name: the file is
// opened without following a final link and without blocking, fstat-ed,
// and (on Linux) the path the kernel reports for the open descriptor is
// checked again, so a link swapped in between the check and the open is
// caught as well.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Errors for errors.Is. Every error this package returns names the path
// and what is wrong with it.
var (
	// ErrOutside: the path leads, through symbolic links, out of the
	// directory it must stay in.
	ErrOutside = errors.New("resolves outside the allowed directory")
	// ErrNotRegular: the path is a FIFO, device, socket or directory.
	ErrNotRegular = errors.New("not a regular file")
	// ErrLoop: the path's symbolic links never end.
	ErrLoop = errors.New("symbolic link loop")
	// ErrTooLarge: the file is over the size limit; see *TooLargeError.
	ErrTooLarge = errors.New("file too large")
)

// PathError is a refusal: Path is the name asked for, Target where its
// links lead ("" when unknown), Dir the directory it had to stay in.
type PathError struct {
	Path, Target, Dir string
	Err               error // one of the sentinels above
}

func (e *PathError) Error() string {
	switch {
	case errors.Is(e.Err, ErrOutside) && e.Target != "":
		return fmt.Sprintf("%s resolves to %s, outside %s", e.Path, e.Target, e.Dir)
	case errors.Is(e.Err, ErrOutside):
		return fmt.Sprintf("%s resolves outside %s", e.Path, e.Dir)
	case e.Target != "" && e.Target != e.Path:
		return fmt.Sprintf("%s (resolved to %s): %v", e.Path, e.Target, e.Err)
	default:
		return fmt.Sprintf("%s: %v", e.Path, e.Err)
	}
}

func (e *PathError) Unwrap() error { return e.Err }

// TooLargeError says a file is over a size limit. Size is what fstat
// reported, or -1 when the file grew past the limit while being read.
type TooLargeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: larger than the limit of %d bytes", e.Path, e.Limit)
	}
	return fmt.Sprintf("%s: %d bytes, over the limit of %d bytes", e.Path, e.Size, e.Limit)
}

func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// OpenFlags are what a caller adds to os.O_RDONLY to open a file it checks
// itself afterwards (with f.Stat) without hanging on a FIFO or following a
// final symlink swapped in: O_NONBLOCK|O_NOFOLLOW|O_CLOEXEC where the system
// has them.
const OpenFlags = openFlags

// Within reports whether target is base or below it. Both must be clean
// absolute paths.
func Within(base, target string) bool {
	rel, err := filepath.Rel(base, target)
	if err != nil {
		return false
	}
	return rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel))
}

// Resolve follows every symbolic link in name and returns the path it
// leads to, or a *PathError unless that path is inside dir. dir must be
// absolute, clean and free of links itself (filepath.EvalSymlinks of the
// configured directory). A missing path is an fs.ErrNotExist error.
func Resolve(dir, name string) (string, error) {
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		// EvalSymlinks' own loop error is a bare string; the kernel's
		// answer for the same path is classifiable.
		if _, serr := os.Stat(name); errors.Is(serr, syscall.ELOOP) {
			return "", &PathError{Path: name, Dir: dir, Err: ErrLoop}
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return "", fmt.Errorf("resolve %s: %w", name, fs.ErrNotExist)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if strings.Contains(err.Error(), "too many links") {
			return "", &PathError{Path: name, Dir: dir, Err: ErrLoop}
		}
		return "", fmt.Errorf("resolve %s: %w", name, err)
	}
	if !Within(dir, real) {
		return "", &PathError{Path: name, Target: real, Dir: dir, Err: ErrOutside}
	}
	return real, nil
}

// Stat is Resolve followed by a stat of what it resolved to: the way to
// list a file without opening it. Any kind of file is returned; callers
// that will read it must still go through Open.
func Stat(dir, name string) (string, fs.FileInfo, error) {
	real, err := Resolve(dir, name)
	if err != nil {
		return "", nil, err
	}
	fi, err := os.Lstat(real)
	if err != nil {
		return "", nil, fmt.Errorf("stat %s: %w", name, err)
	}
	return real, fi, nil
}

// Open opens name for reading when, links followed, it is a regular file
// inside dir. It never blocks on a FIFO and never reads a byte of a file it
// refuses.
func Open(dir, name string) (*os.File, fs.FileInfo, error) {
	real, err := Resolve(dir, name)
	if err != nil {
		return nil, nil, err
	}
	// No final link is followed (real has none unless one was swapped in,
	// which then fails), and opening a FIFO or a tty does not wait.
	f, err := os.OpenFile(real, os.O_RDONLY|openFlags, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
			return nil, nil, &PathError{Path: name, Target: real, Dir: dir, Err: fmt.Errorf("%w (it changed while being opened)", ErrOutside)}
		}
		return nil, nil, fmt.Errorf("open %s: %w", name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("stat %s: %w", name, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &PathError{Path: name, Target: real, Dir: dir, Err: fmt.Errorf("%w (it is %s)", ErrNotRegular, Describe(fi.Mode()))}
	}
	// A directory on the way may have been swapped for a link between
	// Resolve and the open; the descriptor knows where it really is.
	if opened, ok := fdPath(f); ok && !Within(dir, opened) {
		f.Close()
		return nil, nil, &PathError{Path: name, Target: opened, Dir: dir, Err: ErrOutside}
	}
	return f, fi, nil
}

// ReadFile reads name, as Open opens it, when it holds at most limit
// bytes; a larger file is a *TooLargeError. Memory stays bounded by the
// limit whatever the file claims or does: a file over the limit by fstat
// is not read at all, and the read stops one byte past the limit.
func ReadFile(dir, name string, limit int64) ([]byte, error) {
	f, fi, err := Open(dir, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, &TooLargeError{Path: name, Size: fi.Size(), Limit: limit}
	}
	data, err := ReadLimited(f, fi.Size(), limit)
	if errors.Is(err, ErrTooLarge) {
		return nil, &TooLargeError{Path: name, Size: -1, Limit: limit}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return data, nil
}

// ReadLimited reads r to its end when that is at most limit bytes, and
// returns ErrTooLarge as soon as it is not. sizeHint (what fstat said)
// sizes the buffer; it is not trusted.
func ReadLimited(r io.Reader, sizeHint, limit int64) ([]byte, error) {
	buf := make([]byte, 0, min(max(sizeHint, 0), limit)+1)
	lr := io.LimitReader(r, limit+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// Describe names a file type (usually one that is not a regular file) in
// words a user recognises, with its article: "a FIFO (named pipe)", "a directory".
func Describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	case m.IsRegular():
		return "a file"
	}
	return "not a regular file"
}

// MaxConfigSize bounds the configuration and state files read whole
// (config.yaml, an MCP client's config, the ownership state): far above
// any real one, low enough that a file grown without bound, or a device
// linked in its place, cannot take the memory of the program reading it.
const MaxConfigSize = 32 << 20

// ReadUserFile reads a file the user keeps wherever they like (a .env,
// config.yaml, a client's config, a marker file): links are followed to
// any place, but what they lead to must be a regular file of at most limit
// bytes. It never blocks on a FIFO or a device put at the path, and never
// reads a byte of a file it refuses. A relative path is taken from the
// working directory. Every error names the path (callers need not add
// it); a missing file matches fs.ErrNotExist.
func ReadUserFile(path string, limit int64) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	root := filepath.VolumeName(abs) + string(filepath.Separator)
	data, err := ReadFile(root, abs, limit)
	if err != nil && abs != path {
		// The refusal names the path the user gave, not the absolute one.
		var pe *PathError
		if errors.As(err, &pe) && pe.Path == abs {
			pe.Path = path
		}
		var te *TooLargeError
		if errors.As(err, &te) && te.Path == abs {
			te.Path = path
		}
	}
	return data, err
}

// AppendUserFile opens path (a log the user may look at, links followed)
// for appending, creating it with perm when missing. Like ReadUserFile it
// never waits on a FIFO put at the path: that, or any file that is not a
// regular file, is an error naming the path and what it is.
func AppendUserFile(path string, perm fs.FileMode) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &PathError{Path: path, Err: fmt.Errorf("%w (it is %s)", ErrNotRegular, Describe(fi.Mode()))}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|appendFlags, perm)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	// Checked again on what was opened: the path may have changed since.
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &PathError{Path: path, Err: fmt.Errorf("%w (it is %s)", ErrNotRegular, Describe(fi.Mode()))}
	}
	return f, nil
}
