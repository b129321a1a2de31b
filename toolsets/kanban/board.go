package kanban

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/hermes-go/hermes/internal/sqlitestore"
)

// Statuses a task can be in (hermes_cli/kanban_db.py VALID_STATUSES).
var Statuses = []string{"triage", "todo", "scheduled", "ready", "running", "blocked", "review", "done", "archived"}

// WorkspaceKinds a task can use.
var WorkspaceKinds = []string{"scratch", "worktree", "dir"}

// DefaultClaimTTL is how long a claim lasts before the dispatcher may
// reclaim the task (Hermes' DEFAULT_CLAIM_TTL_SECONDS).
const DefaultClaimTTL = 15 * time.Minute

// InputError is a refusal the caller can act on: an unknown task, a cycle,
// a missing field. Its text is shown to the model as is.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// BoardOptions says how to open a board.
type BoardOptions struct {
	// ReadOnly opens without write access and never creates the file.
	ReadOnly bool
	// Create makes the file (and its directory) when it is missing.
	Create bool
	// BusyTimeout bounds the wait for another process's lock; zero means
	// sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Board is an open kanban.db. It is safe for use by one goroutine at a
// time per call chain; every mutation is its own IMMEDIATE transaction, so
// several processes may share the file.
type Board struct {
	db    *sqlitestore.DB
	now   func() time.Time
	empty bool // read-only handle on a file without the kanban tables
}

// OpenBoard opens the board at path, creating the schema on a new file and
// refusing a file whose schema it does not know. A missing file, when not
// created, is an error wrapping fs.ErrNotExist.
func OpenBoard(ctx context.Context, path string, opts BoardOptions) (*Board, error) {
	db, err := sqlitestore.Open(ctx, path, sqlitestore.Options{
		ReadOnly:    opts.ReadOnly,
		Create:      opts.Create,
		BusyTimeout: opts.BusyTimeout,
	})
	if err != nil {
		return nil, err
	}
	has, err := ensureSchema(ctx, db, !opts.ReadOnly)
	if err == nil && !opts.ReadOnly {
		// Only a board known to be Hermes' is converted, and Hermes keeps
		// its boards in WAL anyway.
		err = db.EnableWAL(ctx)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Board{db: db, now: now, empty: !has}, nil
}

// Close releases the database.
func (b *Board) Close() error { return b.db.Close() }

// Path is the board's file.
func (b *Board) Path() string { return b.db.Path }

func (b *Board) unix() int64 { return b.now().Unix() }

// execer is a transaction or the database.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
