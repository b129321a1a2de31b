// Package filelock serialises processes that edit the same file with an
// advisory lock on a lock file. Advisory means only cooperating programs
// (hermes-migrate, hermes' runtime switch, the memory tool and Hermes
// itself) wait for each other; an editor the user runs meanwhile is not
// stopped, which is why writers still replace files atomically.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Suffix names the lock file kept beside the file it guards (see
// atomicfile.LockPath for which side of a symlink). Lock files
// are never deleted: removing one while another process waits on it would
// let a third process lock a new file of the same name at the same time.
const Suffix = ".hermes-migrate.lock"

// Options tune Acquire.
type Options struct {
	// Waiting, when set, is called once when the lock is still held by
	// another process after WaitNotice, so the caller can say what it is
	// waiting for. Library code does not print.
	Waiting func(lockPath string)
	// WaitNotice defaults to 500ms: long enough that an uncontended run
	// stays silent, short enough that a stuck wait is explained.
	WaitNotice time.Duration
	// Poll is how often a busy lock is retried; zero means 20ms. Polling
	// rather than a blocking flock is what lets ctx cancel the wait.
	Poll time.Duration
	// Holder says who else takes this lock, for the error when the wait
	// ends; zero means "another hermes-migrate or hermes run".
	Holder string
}

// Lock is a held lock; Release frees it.
type Lock struct {
	f    *os.File
	path string
}

// errBusy is tryLock's "someone else holds it"; Acquire then waits.
var errBusy = errors.New("lock is held by another process")

// Acquire takes the exclusive lock on lockPath, creating the file (and its
// directory) when missing. It waits while another process holds it, until
// ctx is done.
func Acquire(ctx context.Context, lockPath string, opts Options) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o755); err != nil {
		return nil, fmt.Errorf("create directory for lock %s: %w", lockPath, err)
	}
	notice, poll := opts.WaitNotice, opts.Poll
	if notice <= 0 {
		notice = 500 * time.Millisecond
	}
	if poll <= 0 {
		poll = 20 * time.Millisecond
	}
	holder := opts.Holder
	if holder == "" {
		holder = "another hermes-migrate or hermes run"
	}
	start, told := time.Now(), false
	for {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open lock %s: %w", lockPath, err)
		}
		err = tryLock(f)
		if err == nil {
			if current(f, lockPath) {
				return &Lock{f: f, path: lockPath}, nil
			}
			// The holder removed the lock file (Remove) after we opened
			// it: this lock guards nothing; lock the file now there.
			f.Close()
			continue
		}
		f.Close()
		if !errors.Is(err, errBusy) {
			return nil, fmt.Errorf("lock %s: %w", lockPath, err)
		}
		if !told && opts.Waiting != nil && time.Since(start) >= notice {
			told = true
			opts.Waiting(lockPath)
		}
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("waiting for %s, held by %s: %w", lockPath, holder, context.Cause(ctx))
		case <-t.C:
		}
	}
}

// current says whether f is still the file at path.
func current(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Path is the lock file's path.
func (l *Lock) Path() string { return l.path }

// Note reads the small note kept in the lock file. Writers use it to
// remember something about the guarded file between runs (atomicfile keeps
// the hash of what it last wrote there), so no second file is left beside
// the user's. Only meaningful while the lock is held.
func (l *Lock) Note() ([]byte, error) {
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read lock %s: %w", l.path, err)
	}
	b, err := io.ReadAll(io.LimitReader(l.f, 4096))
	if err != nil {
		return nil, fmt.Errorf("read lock %s: %w", l.path, err)
	}
	return b, nil
}

// SetNote replaces the note and syncs it.
func (l *Lock) SetNote(note []byte) error {
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write lock %s: %w", l.path, err)
	}
	if _, err := l.f.WriteAt(note, 0); err != nil {
		return fmt.Errorf("write lock %s: %w", l.path, err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync lock %s: %w", l.path, err)
	}
	return nil
}

// Remove deletes the lock file and frees the lock, for when the guarded
// file is the user's alone again (hermes-migrate --remove). Waiters that
// opened the old file notice it is gone and lock a new one. Where an open
// file cannot be deleted (Windows) the lock file stays.
func (l *Lock) Remove() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if rerr := l.Release(); err == nil {
		err = rerr
	}
	return err
}

// Release frees the lock. Closing the descriptor is what releases it, so a
// crashed process never leaves a stale lock behind.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
