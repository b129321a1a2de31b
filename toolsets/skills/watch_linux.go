//go:build linux

package skills

import (
	"errors"
	"sync"
	"syscall"
	"unsafe"
)

// dirWatch tells whether any watched directory changed since the index was
// built, for the price of one non-blocking read. Stat-ing every directory
// and SKILL.md instead costs a syscall each, which on a VM is most of a
// skills_list call. The kernel queues an event before the write that caused
// it returns, so a change made before a call is always seen by that call.
type dirWatch struct {
	mu     sync.Mutex
	fd     int
	closed bool
	dirty  bool
	buf    []byte
}

// watchMask is every event that can add, remove or alter a skill.
// IN_DONT_FOLLOW: the walk hands over resolved paths, so a directory
// swapped for a link since is watched as the link, never followed out of
// the root (and IN_ONLYDIR then refuses it, so it is stamped instead).
const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE |
	syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF | syscall.IN_ONLYDIR |
	syscall.IN_DONT_FOLLOW

// newDirWatch returns nil when inotify is unavailable (e.g. the per-user
// instance limit is reached); the index then falls back to stat stamps.
func newDirWatch() *dirWatch {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &dirWatch{fd: fd, buf: make([]byte, 16<<10)}
}

// add watches dir. It reports false when the directory cannot be watched
// (the watch limit, say), so the caller stamps it instead.
func (w *dirWatch) add(dir string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return false
	}
	_, err := syscall.InotifyAddWatch(w.fd, dir, watchMask)
	return err == nil
}

// changed drains pending events and reports whether any could matter. It
// stays true once true: the events are consumed.
func (w *dirWatch) changed() bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return true
	}
	for !w.dirty {
		n, err := syscall.Read(w.fd, w.buf)
		if errors.Is(err, syscall.EAGAIN) {
			break
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			w.dirty = true // an unreadable watch proves nothing
			break
		}
		w.dirty = relevant(w.buf[:n])
	}
	return w.dirty
}

// relevant reports whether a batch of events can change the index. Content
// changes to files other than SKILL.md cannot; everything that adds,
// removes or renames an entry can (it may be a symlink to a skill).
func relevant(b []byte) bool {
	const header = int(unsafe.Sizeof(syscall.InotifyEvent{}))
	for off := 0; off+header <= len(b); {
		ev := (*syscall.InotifyEvent)(unsafe.Pointer(&b[off]))
		end := off + header + int(ev.Len)
		if end > len(b) {
			return true
		}
		name := b[off+header : end]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		off = end
		const contentOnly = syscall.IN_MODIFY | syscall.IN_ATTRIB | syscall.IN_CLOSE_WRITE
		if ev.Mask&^uint32(contentOnly|syscall.IN_ISDIR) != 0 {
			return true // create, delete, move, overflow, watch gone
		}
		if ev.Mask&syscall.IN_ISDIR != 0 || string(name) == skillFile {
			return true
		}
	}
	return false
}

// close releases the inotify instance; later calls report a change.
func (w *dirWatch) close() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		syscall.Close(w.fd)
	}
}
