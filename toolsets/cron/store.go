package cron

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/safefile"
)

// The jobs store of the original's scheduler (cron/jobs.py): JOBS_FILE is
// CRON_DIR/"jobs.json" under the Hermes home, and every
// load-modify-save holds fcntl.flock(LOCK_EX) on CRON_DIR/".jobs.lock",
// which filelock takes the same way.
const (
	cronDir  = "cron"
	jobsName = "jobs.json"
	lockName = ".jobs.lock"
	// maxJobsFile bounds what we read: far above any real store, small
	// enough that a hostile file cannot exhaust memory.
	maxJobsFile = 32 << 20
	// lockWait bounds how long a call waits for the scheduler to finish
	// its own edit before reporting it.
	lockWait = 30 * time.Second
)

// store is jobs.json as read: the whole document, so a rewrite keeps
// what we do not know, and its jobs.
type store struct {
	doc  *object
	jobs []any
}

// jobObjects returns the jobs that are objects (anything else in the
// list is kept but never touched).
func (s *store) jobObjects() []*object {
	var out []*object
	for _, j := range s.jobs {
		if o, ok := j.(*object); ok {
			out = append(out, o)
		}
	}
	return out
}

// readStore reads Home/cron/jobs.json; a missing file is an empty store.
func readStore(home string) (*store, error) {
	dir := filepath.Join(home, cronDir)
	// The file must stay inside the Hermes home after links are followed.
	base, err := filepath.EvalSymlinks(home)
	if err == nil {
		var data []byte
		data, err = safefile.ReadFile(base, filepath.Join(base, cronDir, jobsName), maxJobsFile)
		return parseStore(dir, data, err)
	}
	return parseStore(dir, nil, err)
}

// parseStore reads the jobs document; a missing file is an empty store.
func parseStore(dir string, data []byte, err error) (*store, error) {
	if errors.Is(err, fs.ErrNotExist) {
		return &store{doc: newObject(), jobs: []any{}}, nil
	}
	var pe *safefile.PathError
	if errors.As(err, &pe) || errors.Is(err, safefile.ErrTooLarge) {
		return nil, &storeError{fmt.Sprintf("cannot read %s: %v; Hermes keeps its scheduled jobs there as a regular JSON file", filepath.Join(dir, jobsName), err)}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, jobsName), err)
	}
	v, err := decodeOrdered(data)
	if err != nil {
		return nil, &storeError{fmt.Sprintf("%s is not valid JSON (%v); fix or move it aside, Hermes' scheduler cannot read it either", filepath.Join(dir, jobsName), err)}
	}
	doc, ok := v.(*object)
	if !ok {
		return nil, &storeError{fmt.Sprintf("%s does not hold a JSON object with a \"jobs\" list; fix or move it aside", filepath.Join(dir, jobsName))}
	}
	s := &store{doc: doc, jobs: []any{}}
	if raw, present := doc.get("jobs"); present && raw != nil {
		list, ok := raw.([]any)
		if !ok {
			return nil, &storeError{fmt.Sprintf("%s: \"jobs\" is not a list; fix or move it aside", filepath.Join(dir, jobsName))}
		}
		s.jobs = list
	}
	return s, nil
}

// storeError is a jobs file the model (or the user) must fix: reported
// as a tool failure, not a server error.
type storeError struct{ msg string }

func (e *storeError) Error() string { return e.msg }

// edit runs change on the current store under the scheduler's lock and,
// when change says so, writes the store back atomically as the
// original's save_jobs does: {"jobs": [...], "updated_at": now}, indent
// 2, mode 0600 for a new file.
func edit(ctx context.Context, home string, now time.Time, change func(*store) (bool, error)) error {
	dir := filepath.Join(home, cronDir)
	ctx, cancel := context.WithTimeout(ctx, lockWait)
	defer cancel()
	lock, err := filelock.Acquire(ctx, filepath.Join(dir, lockName), filelock.Options{Holder: "Hermes' cron scheduler"})
	if err != nil {
		return fmt.Errorf("lock the cron jobs store: %w", err)
	}
	defer lock.Release()
	s, err := readStore(home)
	if err != nil {
		return err
	}
	write, err := change(s)
	if err != nil || !write {
		return err
	}
	s.doc.set("jobs", s.jobs)
	s.doc.set("updated_at", isoformat(now))
	if err := atomicfile.Write(filepath.Join(dir, jobsName), pyDump(s.doc), atomicfile.Options{Mode: 0o600}); err != nil {
		return fmt.Errorf("write the cron jobs store: %w", err)
	}
	return nil
}
