// Package sqlitestore opens the SQLite databases the Hermes tools share with
// the Python Hermes (kanban.db, state.db) through a cgo-free driver.
//
// The files belong to the user and are written concurrently by other
// processes, so opening is deliberately conservative: writers get WAL and a
// busy timeout and take the write lock up front (BEGIN IMMEDIATE), readers
// open read-only and never create or convert anything, and every schema is
// checked by the caller before use. Errors name the file and say what to do:
// a damaged file, a file that is not a database, and a lock held too long
// are told apart.
package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DefaultBusyTimeout bounds how long a statement waits for another process's
// lock. Hermes itself waits 120 s; an MCP call that hangs that long is
// abandoned by most clients first, so a shorter wait that ends in a clear
// error serves the model better.
const DefaultBusyTimeout = 30 * time.Second

// Options says how to open a database.
type Options struct {
	// ReadOnly opens the file without write access. Nothing is created: a
	// missing file is an error wrapping fs.ErrNotExist, and the journal mode
	// is left as it is.
	ReadOnly bool
	// Create allows a missing file to be created (with its directory).
	// Ignored when ReadOnly.
	Create bool
	// WAL switches a writable database to write-ahead logging, as Hermes
	// does, so readers never block the writer. The switch rewrites the file
	// header, so callers that must check a file before changing it leave
	// this off and call EnableWAL after the check.
	WAL bool
	// BusyTimeout is how long to wait for a lock; zero means
	// DefaultBusyTimeout.
	BusyTimeout time.Duration
	// MaxConns caps open connections; zero means 1, which serialises use
	// within this process and keeps one transaction per connection obvious.
	MaxConns int
}

// DB is an open database and the path it came from, for error messages.
type DB struct {
	*sql.DB
	Path        string
	busyTimeout time.Duration
}

// Open opens path and verifies it really is a usable SQLite database, so a
// damaged or foreign file is reported here rather than by the first query.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("resolve database path %q: %w", path, err)
	}
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	// Checked before the driver sees the path: SQLite would block forever
	// opening a FIFO, so the refusal must come first.
	statErr := checkRegular(abs)
	if statErr == nil {
		statErr = checkJournals(abs)
	}
	switch {
	case IsKind(statErr, NotRegular):
		return nil, statErr
	case errors.Is(statErr, fs.ErrNotExist):
		if opts.ReadOnly || !opts.Create {
			return nil, fmt.Errorf("open %s: %w", abs, fs.ErrNotExist)
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, fmt.Errorf("create the directory for %s: %w", abs, err)
		}
	case statErr != nil:
		return nil, fmt.Errorf("check %s before opening it: %w", abs, statErr)
	}

	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	if opts.ReadOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	} else {
		if !opts.Create {
			q.Set("mode", "rw")
		}
		// Take the write lock at BEGIN: a deferred transaction that reads
		// first and upgrades later can fail with SQLITE_BUSY without ever
		// waiting, which is exactly what concurrent writers hit.
		q.Set("_txlock", "immediate")
		q.Add("_pragma", "synchronous(NORMAL)")
	}
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: abs, RawQuery: q.Encode()}).String()
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", abs, err)
	}
	max := opts.MaxConns
	if max <= 0 {
		max = 1
	}
	sdb.SetMaxOpenConns(max)
	sdb.SetMaxIdleConns(max)
	db := &DB{DB: sdb, Path: abs, busyTimeout: busy}

	// Reading the schema touches page 1, which is where a file that is not
	// a database, or a damaged one, shows itself.
	if _, err := db.ExecContext(ctx, "SELECT count(*) FROM sqlite_schema"); err != nil {
		sdb.Close()
		return nil, db.Explain("open", err)
	}
	if opts.WAL && !opts.ReadOnly {
		if err := db.EnableWAL(ctx); err != nil {
			sdb.Close()
			return nil, err
		}
	}
	return db, nil
}

// EnableWAL switches the database to write-ahead logging; a no-op when it
// already uses it.
func (db *DB) EnableWAL(ctx context.Context) error {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return db.Explain("read the journal mode", err)
	}
	if strings.EqualFold(mode, "wal") {
		return nil
	}
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return db.Explain("switch to WAL", err)
	}
	return nil
}

// Explain wraps a driver error with what it means for this file and how to
// fix it. op names what was being done ("read tasks", "complete t_1234").
func (db *DB) Explain(op string, err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("%s on %s: %w", op, db.Path, err)
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return &Error{Kind: Locked, Path: db.Path, Op: op, Err: err,
			Hint: fmt.Sprintf("another process held the lock for more than %s; retry in a moment, or find the process holding it (e.g. `fuser %s`)", db.busyTimeout, db.Path)}
	case sqlite3.SQLITE_CORRUPT:
		return &Error{Kind: Corrupt, Path: db.Path, Op: op, Err: err,
			Hint: "the database file is damaged; restore it from a backup or move it aside so a fresh one is created"}
	case sqlite3.SQLITE_NOTADB:
		return &Error{Kind: Corrupt, Path: db.Path, Op: op, Err: err,
			Hint: "the file is not a SQLite database (or is encrypted); check the path, or move the file aside"}
	case sqlite3.SQLITE_CANTOPEN:
		return &Error{Kind: Unavailable, Path: db.Path, Op: op, Err: err,
			Hint: "check that the file and its directory exist and are readable (a read-only open of a WAL database also needs its -shm file or a writable directory)"}
	case sqlite3.SQLITE_READONLY:
		return &Error{Kind: Unavailable, Path: db.Path, Op: op, Err: err,
			Hint: "the file or its directory is not writable by this process; fix the permissions"}
	}
	return fmt.Errorf("%s on %s: %w", op, db.Path, err)
}

// Kind classifies a database failure.
type Kind int

const (
	// Locked: another process held a lock past the busy timeout.
	Locked Kind = iota + 1
	// Corrupt: the file is damaged or not a SQLite database.
	Corrupt
	// Unavailable: the file cannot be opened or written (permissions,
	// missing directory).
	Unavailable
	// Schema: the file is a SQLite database whose schema this program does
	// not know how to use safely (foreign, older or newer).
	Schema
	// NotRegular: the path (or a journal file beside it) exists but is not
	// a regular file: a FIFO, device, socket or directory.
	NotRegular
)

func (k Kind) String() string {
	switch k {
	case Locked:
		return "locked"
	case Corrupt:
		return "corrupt"
	case Unavailable:
		return "unavailable"
	case Schema:
		return "schema"
	case NotRegular:
		return "not a regular file"
	}
	return "unknown"
}

// Error is a classified database failure. Its message names the file, what
// was being done and how to fix it.
type Error struct {
	Kind Kind
	Path string
	Op   string
	Hint string
	Err  error
}

func (e *Error) Error() string {
	if e.Kind == NotRegular {
		// Reads as a sentence: "<path> is a FIFO (named pipe), not a regular file; ..."
		return fmt.Sprintf("%s is %v; %s", e.Path, e.Err, e.Hint)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", e.Path, e.Op)
	switch e.Kind {
	case Locked:
		b.WriteString(": database is locked")
	case Corrupt:
		b.WriteString(": database is damaged or not a database")
	}
	if e.Err != nil {
		fmt.Fprintf(&b, " (%v)", e.Err)
	}
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// IsKind reports whether err is a classified failure of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

// SchemaError reports a schema this program refuses to use.
func SchemaError(path, problem, hint string) error {
	return &Error{Kind: Schema, Path: path, Op: "check schema", Err: errors.New(problem), Hint: hint}
}

// Tx runs fn in a transaction and commits it when fn returns nil. On a
// writable database the transaction takes the write lock at once.
func (db *DB) Tx(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return db.Explain(op, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return db.Explain(op, err)
	}
	return nil
}

// Column describes one column of a table.
type Column struct {
	Name       string
	Type       string
	NotNull    bool
	HasDefault bool
	PrimaryKey bool
}

// Querier is what Columns and Tables need: a *sql.DB, *sql.Tx or *sql.Conn.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Tables returns the names of the ordinary tables and virtual tables.
func Tables(ctx context.Context, q Querier) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT name FROM sqlite_schema WHERE type = 'table'")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// Columns returns a table's columns by name; an absent table has none.
func Columns(ctx context.Context, q Querier, table string) (map[string]Column, error) {
	rows, err := q.QueryContext(ctx, "SELECT name, type, \"notnull\", dflt_value IS NOT NULL, pk FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]Column{}
	for rows.Next() {
		var c Column
		var pk int
		if err := rows.Scan(&c.Name, &c.Type, &c.NotNull, &c.HasDefault, &pk); err != nil {
			return nil, err
		}
		c.PrimaryKey = pk > 0
		out[c.Name] = c
	}
	return out, rows.Err()
}
