// Package statedb persists hermes conversations into <HERMES_HOME>/state.db,
// the SQLite database the Python Hermes keeps its sessions in, so that
// sessions written here are listed, searched (session_search) and resumed
// by either program.
//
// The layout followed is Hermes' at SCHEMA_VERSION 30 (FTS storage layout
// 3), from internal/hermesstate:
//   - a missing state.db is created as Hermes creates one: mode 0600, under
//     an exclusive lock on state.db.quarantine.lock, with every table,
//     index, view and trigger and the provenance rows of a fresh store; a
//     failed creation leaves no file behind.
//   - an existing file at schema 16 to 29 is brought to 30 in one
//     transaction the way Hermes' own open does (hermesstate.Upgrade),
//     which also repairs the files earlier releases of this program wrote.
//   - a file at 30 is used as it is; a newer one too (Hermes only adds
//     columns and tables), with a note saying so.
//
// The journal mode of an existing file is never changed, the header's
// application_id never rewritten, and nothing is written to the full-text
// indexes: Hermes' triggers on messages maintain them.
//
// Where things live (see also the SetCodexThread comment):
//   - sessions: id, source and created_source ("cli"), model,
//     billing_provider (SessionMeta.Provider), title with title_source,
//     started_at, profile_name (the Hermes profile owning the file),
//     ended_at/end_reason, last_activity_at and the message_count /
//     tool_call_count counters Hermes keeps on every append.
//   - messages: one row per transcript entry as Hermes' append_message
//     writes it: role, content (NULL on a tool-calling assistant message
//     without text), tool_calls as the OpenAI JSON list, tool_call_id,
//     tool_name (the called function, on tool results), reasoning,
//     timestamp (epoch seconds, REAL), active = 1.
//   - state_meta: the key "hermes-go:session:<id>" holds a small JSON
//     record with what Hermes has no column for: the runtime and the codex
//     thread id.
package statedb

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/hermesstate"
	"github.com/hermes-go/hermes/internal/sqlitestore"
)

// SchemaVersion is the Hermes schema this store creates and brings older
// files to.
const SchemaVersion = hermesstate.SchemaVersion

// metaKeyPrefix namespaces our state_meta keys so they can never collide
// with the keys Hermes itself keeps there.
const metaKeyPrefix = "hermes-go:session:"

// EndReason is the end_reason of a conversation that ended here, the one
// Hermes' own CLI records when it closes.
const EndReason = "cli_close"

var (
	// ErrNotFound is wrapped when a session id is not in state.db.
	ErrNotFound = errors.New("session not found")
	// ErrCompressed is wrapped when a write targets a session Hermes
	// closed by compressing it: the conversation goes on in its
	// continuation, which LoadSession returns.
	ErrCompressed = errors.New("session was closed by context compression")
)

// Options configure Open.
type Options struct {
	// BusyTimeout bounds a wait on another writer's lock (Hermes'), and on
	// the lock Hermes holds while it creates state.db; zero means
	// sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now stamps sessions and messages; nil means time.Now.
	Now func() time.Time
	// ReadOnly opens an existing state.db for listing only: nothing is
	// created, upgraded or written.
	ReadOnly bool
	// NativeHome is the platform's default Hermes home (~/.hermes), which
	// decides the profile new sessions belong to; empty means
	// $HOME/.hermes.
	NativeHome string
}

// Store is an open state.db. It is safe for concurrent use; calls are
// serialised on one connection, each in its own short transaction.
type Store struct {
	db      *sqlitestore.DB
	now     func() time.Time
	profile string
	// has lists the optional columns the file has: Hermes builds of
	// schema 30 differ in a few, and only those present are written.
	has   map[string]bool
	notes []string
}

var _ agentcore.Store = (*Store)(nil)

// Open opens (creating when missing) hermesHome/state.db, bringing an older
// Hermes schema forward, before anything is written.
func Open(ctx context.Context, hermesHome string, opts Options) (*Store, error) {
	if strings.TrimSpace(hermesHome) == "" {
		return nil, errors.New("statedb: HERMES_HOME is empty; set HERMES_HOME (default ~/.hermes) so state.db has a place")
	}
	path := filepath.Join(hermesHome, "state.db")
	busy := opts.BusyTimeout
	if busy <= 0 {
		busy = sqlitestore.DefaultBusyTimeout
	}
	s := &Store{now: opts.Now, has: map[string]bool{}}
	if s.now == nil {
		s.now = time.Now
	}
	native := opts.NativeHome
	if native == "" {
		if home, err := os.UserHomeDir(); err == nil {
			native = filepath.Join(home, ".hermes")
		}
	}
	s.profile = hermesstate.OwnProfile(hermesHome, native)

	if !opts.ReadOnly {
		if err := createIfMissing(ctx, path, busy, s.now); err != nil {
			return nil, fmt.Errorf("statedb: %w", err)
		}
	}
	db, err := sqlitestore.Open(ctx, path, sqlitestore.Options{ReadOnly: opts.ReadOnly, BusyTimeout: busy, MaxConns: 1})
	if err != nil {
		return nil, fmt.Errorf("statedb: %w", err)
	}
	// An idle connection is closed: while any process holds state.db
	// open, Hermes defers repairing a damaged full-text index.
	db.SetConnMaxIdleTime(5 * time.Second)
	s.db = db
	if err := s.prepare(ctx, hermesHome, busy, opts.ReadOnly); err != nil {
		db.Close()
		return nil, fmt.Errorf("statedb: %w", err)
	}
	return s, nil
}

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// Notes are one-line remarks about the file for the user: a schema newer
// than this build's, an upgrade or repair done while opening.
func (s *Store) Notes() []string { return append([]string(nil), s.notes...) }

// Path is the state.db path.
func (s *Store) Path() string { return s.db.Path }

// createIfMissing creates state.db as Hermes does when there is none (or
// only an empty file): under Hermes' creation lock, the file made
// exclusively with mode 0600, the whole layout in one transaction, and the
// file removed again if any of it fails.
func createIfMissing(ctx context.Context, path string, busy time.Duration, now func() time.Time) error {
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check %s: %w", path, err)
	}
	lctx, cancel := context.WithTimeout(ctx, busy)
	defer cancel()
	lock, err := filelock.Acquire(lctx, path+".quarantine.lock", filelock.Options{Holder: "a Hermes process creating state.db"})
	if err != nil {
		return err
	}
	defer lock.Release()
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.Size() > 0:
		return nil // created while we waited
	case err == nil:
		// An empty state.db nobody is creating (we hold the lock): Hermes
		// moves it aside with its journals and starts afresh.
		stamp := fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405Z"), os.Getpid())
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if err := os.Rename(path+suffix, path+".zeroed-"+stamp+".bak"+suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("move the empty %s aside: %w", path+suffix, err)
			}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("check %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	f.Close()
	if err := layOut(ctx, path, busy, now()); err != nil {
		// Only what the failed creation made goes: the file and any
		// journal SQLite left (regular files; anything else is not ours).
		os.Remove(path)
		for _, suffix := range []string{"-journal", "-wal", "-shm"} {
			if fi, err := os.Lstat(path + suffix); err == nil && fi.Mode().IsRegular() {
				os.Remove(path + suffix)
			}
		}
		return err
	}
	return nil
}

func layOut(ctx context.Context, path string, busy time.Duration, now time.Time) error {
	db, err := sqlitestore.Open(ctx, path, sqlitestore.Options{BusyTimeout: busy, MaxConns: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Tx(ctx, "create state.db", func(tx *sql.Tx) error {
		if err := hermesstate.Create(ctx, tx, hermesstate.CreateOptions{Now: now, SetApplicationID: true}); err != nil {
			return db.Explain("create the Hermes schema", err)
		}
		return nil
	})
}

// prepare checks the file is Hermes' and brings it forward when it is
// older; an unfinished store (schema_version without its row: a Hermes
// creating it, or one that died doing so) is waited for under Hermes'
// creation lock and finished as Hermes would finish it.
func (s *Store) prepare(ctx context.Context, home string, busy time.Duration, readOnly bool) error {
	p := s.db.Path
	st, err := hermesstate.Inspect(ctx, s.db)
	if err != nil {
		return s.db.Explain("read the schema", err)
	}
	if !st.HasVersion && (st.Empty() || st.IsHermes()) && !readOnly {
		if err := s.finish(ctx, busy); err != nil {
			return err
		}
		if st, err = hermesstate.Inspect(ctx, s.db); err != nil {
			return s.db.Explain("read the schema", err)
		}
	}
	switch {
	case !st.IsHermes() || !st.IsTable("schema_version") || !st.IsTable("state_meta"):
		return sqlitestore.SchemaError(p, "not a Hermes state database (it lacks schema_version, sessions, messages or state_meta); it was left untouched",
			"check HERMES_HOME: hermes only writes the state.db Hermes keeps there; move the foreign file aside to start a fresh one")
	case !st.HasVersion:
		return sqlitestore.SchemaError(p, "state.db is still being created (schema_version has no row); it was left untouched",
			"retry in a moment; if it stays so, start the Python Hermes once so it finishes the file")
	case st.Version < hermesstate.OldestVersion:
		return sqlitestore.SchemaError(p,
			fmt.Sprintf("state.db is at schema version %d, older than %d, the oldest this build opens; it was left untouched", st.Version, hermesstate.OldestVersion),
			"start the Python Hermes once so it upgrades state.db")
	}
	if st.NeedsUpgrade() && !readOnly {
		var out hermesstate.Outcome
		err := s.db.Tx(ctx, "upgrade state.db", func(tx *sql.Tx) error {
			var err error
			out, err = hermesstate.Upgrade(ctx, tx, hermesstate.UpgradeOptions{Home: home})
			if err != nil {
				return s.db.Explain("bring state.db forward", err)
			}
			return nil
		})
		if err != nil {
			return err
		}
		s.noteUpgrade(out)
		if st, err = hermesstate.Inspect(ctx, s.db); err != nil {
			return s.db.Explain("read the schema", err)
		}
	}
	if st.Version > SchemaVersion {
		s.notes = append(s.notes, fmt.Sprintf("state.db is at Hermes schema version %d, newer than %d, the one this build follows; it is used as it is (Hermes only adds columns and tables)", st.Version, SchemaVersion))
	}
	return s.checkColumns(ctx, readOnly)
}

// finish completes a store that has no schema_version row, once whoever
// creates it (holding Hermes' creation lock) is done.
func (s *Store) finish(ctx context.Context, busy time.Duration) error {
	lctx, cancel := context.WithTimeout(ctx, busy)
	defer cancel()
	lock, err := filelock.Acquire(lctx, s.db.Path+".quarantine.lock", filelock.Options{Holder: "a Hermes process creating state.db"})
	if err != nil {
		return err
	}
	defer lock.Release()
	return s.db.Tx(ctx, "finish state.db", func(tx *sql.Tx) error {
		st, err := hermesstate.Inspect(ctx, tx)
		if err != nil {
			return s.db.Explain("read the schema", err)
		}
		if st.HasVersion || !(st.Empty() || st.IsHermes()) {
			return nil
		}
		// Another process may hold the file open: its application_id is
		// left for Hermes to set.
		if err := hermesstate.Create(ctx, tx, hermesstate.CreateOptions{Now: s.now()}); err != nil {
			return s.db.Explain("finish the Hermes schema", err)
		}
		s.notes = append(s.notes, "state.db had an unfinished schema (no schema_version row); it was finished as Hermes finishes it")
		return nil
	})
}

func (s *Store) noteUpgrade(out hermesstate.Outcome) {
	if !out.Changed() {
		return
	}
	var what []string
	if out.To != out.From {
		what = append(what, fmt.Sprintf("brought from Hermes schema %d to %d as Hermes does", out.From, out.To))
	}
	what = append(what, out.Repaired...)
	if out.HeldBack != "" {
		what = append(what, "kept at schema "+fmt.Sprint(out.To)+": "+out.HeldBack)
	}
	for _, step := range out.Steps {
		if strings.HasPrefix(step, "detached the CJK index") {
			what = append(what, step)
		}
	}
	if len(what) > 0 {
		s.notes = append(s.notes, "state.db "+strings.Join(what, "; "))
	}
	for _, w := range out.Warnings {
		s.notes = append(s.notes, "state.db: "+w)
	}
}

// Columns this store writes or reads. required ones must exist; optional
// ones are written only where the file has them.
var (
	required = map[string][]string{
		"sessions":   {"id", "source", "model", "model_config", "billing_provider", "title", "started_at", "ended_at", "end_reason", "parent_session_id", "message_count", "tool_call_count"},
		"messages":   {"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "reasoning", "timestamp", "active"},
		"state_meta": {"key", "value"},
	}
	optional = map[string][]string{
		"sessions": {"profile_name", "created_source", "title_source", "last_activity_at", "archived", "session_key", "rewind_count"},
		"messages": {"compacted"},
	}
)

func (s *Store) checkColumns(ctx context.Context, readOnly bool) error {
	p := s.db.Path
	for _, table := range []string{"sessions", "messages", "state_meta"} {
		cols, err := sqlitestore.Columns(ctx, s.db, table)
		if err != nil {
			return s.db.Explain("read the columns of "+table, err)
		}
		filled := map[string]bool{}
		var missing []string
		for _, c := range required[table] {
			filled[c] = true
			if _, ok := cols[c]; !ok {
				missing = append(missing, c)
			}
		}
		for _, c := range optional[table] {
			filled[c] = true
			_, s.has[c] = cols[c]
		}
		// A NOT NULL column without a default that we do not fill would
		// make every insert fail: that is a layout we do not know.
		var unknown []string
		if !readOnly {
			for name, c := range cols {
				if c.NotNull && !c.HasDefault && !c.PrimaryKey && !filled[name] {
					unknown = append(unknown, name)
				}
			}
		}
		if len(missing)+len(unknown) > 0 {
			sort.Strings(missing)
			sort.Strings(unknown)
			return sqlitestore.SchemaError(p,
				fmt.Sprintf("table %s cannot hold what hermes writes (missing: %s; required columns unknown here: %s)",
					table, strings.Join(missing, ", "), strings.Join(unknown, ", ")),
				"start the Python Hermes once so it repairs state.db, or update hermes")
		}
	}
	return nil
}

// NewSessionID returns an id in Hermes' format, YYYYMMDD_HHMMSS_<6 hex>,
// so sessions sort by start time like Hermes' own.
func NewSessionID(t time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return t.Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
}

func epoch(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func fromEpoch(f float64) time.Time {
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(math.Round(frac*1e9)))
}

// sideRecord is what state_meta keeps for a session: the facts Hermes has
// no column for.
type sideRecord struct {
	Runtime       string `json:"runtime,omitempty"`
	CodexThreadID string `json:"codex_thread_id,omitempty"`
}

func nullIfEmpty(v string) any {
	if v == "" {
		return nil
	}
	return v
}

// maxTitle is the longest title Hermes keeps, in characters.
const maxTitle = 100

// cleanTitle is a title as Hermes stores one: control, zero-width and
// direction-changing characters removed, whitespace runs collapsed, at
// most maxTitle characters.
func cleanTitle(t string) string {
	t = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case unicode.IsControl(r), unicode.Is(unicode.Cf, r):
			return -1
		}
		return r
	}, t)
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > maxTitle {
		t = strings.TrimSpace(string(r[:maxTitle]))
	}
	return t
}

// CreateSession records a new session. Creating one that already exists
// leaves it as it is, as Hermes' create_session does with what an earlier
// writer set; resume a session with LoadSession.
//
// A title is Hermes-unique: when another session has it, this one is
// titled "<title> #2" (#3, ...), the numbering Hermes gives a lineage. It
// is recorded as typed by the user (title_source "user"), so Hermes'
// automatic titler never replaces it.
func (s *Store) CreateSession(ctx context.Context, m agentcore.SessionMeta) error {
	if strings.TrimSpace(m.ID) == "" {
		return errors.New("statedb: create session: empty session id; generate one with statedb.NewSessionID")
	}
	started := m.StartedAt
	if started.IsZero() {
		started = s.now()
	}
	source := m.Source
	if source == "" {
		source = "cli"
	}
	return s.db.Tx(ctx, "create session "+m.ID, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE id = ?", m.ID).Scan(&one)
		if err == nil {
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return s.db.Explain("look up session "+m.ID, err)
		}
		title, err := s.freeTitle(ctx, tx, cleanTitle(m.Title))
		if err != nil {
			return err
		}
		cols := []string{"id", "source", "model", "billing_provider", "title", "started_at"}
		args := []any{m.ID, source, nullIfEmpty(m.Model), nullIfEmpty(m.Provider), nullIfEmpty(title), epoch(started)}
		for _, c := range []struct {
			col string
			val any
		}{{"created_source", source}, {"profile_name", nullIfEmpty(s.profile)}, {"title_source", titleSource(title)}} {
			if s.has[c.col] {
				cols = append(cols, c.col)
				args = append(args, c.val)
			}
		}
		q := "INSERT INTO sessions (" + strings.Join(cols, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(cols)-1) + ")"
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return s.db.Explain("create session "+m.ID, err)
		}
		if m.Runtime == "" && m.CodexThreadID == "" {
			return nil
		}
		return s.putSide(ctx, tx, m.ID, sideRecord{Runtime: m.Runtime, CodexThreadID: m.CodexThreadID})
	})
}

func titleSource(title string) any {
	if title == "" {
		return nil
	}
	return "user"
}

// freeTitle is title, or the first "<title> #N" no session has.
func (s *Store) freeTitle(ctx context.Context, tx *sql.Tx, title string) (string, error) {
	if title == "" {
		return "", nil
	}
	for n := 1; n < 10000; n++ {
		cand := title
		if n > 1 {
			suffix := fmt.Sprintf(" #%d", n)
			r := []rune(title)
			if len(r)+len([]rune(suffix)) > maxTitle {
				r = r[:maxTitle-len([]rune(suffix))]
			}
			cand = strings.TrimSpace(string(r)) + suffix
		}
		var one int
		err := tx.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE title = ?", cand).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return cand, nil
		}
		if err != nil {
			return "", s.db.Explain("look up the title "+cand, err)
		}
	}
	return "", nil
}

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) getSide(ctx context.Context, tx querier, id string) (sideRecord, error) {
	var rec sideRecord
	var raw sql.NullString
	err := tx.QueryRowContext(ctx, "SELECT value FROM state_meta WHERE key = ?", metaKeyPrefix+id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !raw.Valid) {
		return rec, nil
	}
	if err != nil {
		return rec, s.db.Explain("read the runtime of session "+id, err)
	}
	// A damaged record only loses the thread id (a new codex thread
	// starts); it must not make the conversation unresumable.
	_ = json.Unmarshal([]byte(raw.String), &rec)
	return rec, nil
}

func (s *Store) putSide(ctx context.Context, tx *sql.Tx, id string, rec sideRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO state_meta (key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, metaKeyPrefix+id, string(raw)); err != nil {
		return s.db.Explain("record the runtime of session "+id, err)
	}
	return nil
}

func (s *Store) notFound(id string) error {
	return fmt.Errorf("no session %s in %s (%w); pick an id from `hermes sessions list`", id, s.db.Path, ErrNotFound)
}

// writable looks a session up for a write: it must exist and must not be a
// session Hermes closed by compressing it, whose conversation goes on in a
// continuation (Hermes refuses such writes too).
func (s *Store) writable(ctx context.Context, tx querier, id string) error {
	var reason sql.NullString
	err := tx.QueryRowContext(ctx, "SELECT end_reason FROM sessions WHERE id = ?", id).Scan(&reason)
	if errors.Is(err, sql.ErrNoRows) {
		return s.notFound(id)
	}
	if err != nil {
		return s.db.Explain("look up session "+id, err)
	}
	if reason.String == "compression" {
		return fmt.Errorf("session %s in %s was closed by Hermes' context compression (%w); resume it to continue in its continuation", id, s.db.Path, ErrCompressed)
	}
	return nil
}

// SetCodexThread stores the codex thread backing a session, so a resumed
// conversation continues it with thread/resume.
//
// Hermes' schema has no column for it: the original keeps its
// CodexAppServerSession (and so the thread id) in memory only, for the
// life of the agent, and starts a new thread after a restart. Rather than
// alter Hermes' tables, the id goes into state_meta — Hermes' own key/value
// table — under a key namespaced to this program. Hermes ignores it and
// keeps it, and nothing of Hermes' changes shape. An empty threadID
// forgets the thread.
func (s *Store) SetCodexThread(ctx context.Context, sessionID, threadID string) error {
	return s.db.Tx(ctx, "set the codex thread of "+sessionID, func(tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE id = ?", sessionID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
			return s.notFound(sessionID)
		} else if err != nil {
			return s.db.Explain("look up session "+sessionID, err)
		}
		rec, err := s.getSide(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		rec.CodexThreadID = threadID
		if rec.Runtime == "" && threadID != "" {
			rec.Runtime = "codex_app_server"
		}
		return s.putSide(ctx, tx, sessionID, rec)
	})
}

// SetTitle names a session as the user asked (/title): cleaned as Hermes
// cleans titles, title_source "user", and refused when another session
// already has the title, since Hermes' unique index would refuse it too.
// An empty title after cleaning is an error, not a cleared title.
func (s *Store) SetTitle(ctx context.Context, sessionID, title string) (string, error) {
	t := cleanTitle(title)
	if t == "" {
		return "", errors.New("the title is empty after removing control characters; give a name such as `/title Release plan`")
	}
	err := s.db.Tx(ctx, "set the title of "+sessionID, func(tx *sql.Tx) error {
		if err := s.writable(ctx, tx, sessionID); err != nil {
			return err
		}
		var other string
		err := tx.QueryRowContext(ctx, "SELECT id FROM sessions WHERE title = ? AND id <> ?", t, sessionID).Scan(&other)
		if err == nil {
			return fmt.Errorf("title %q is already used by session %s; pick another", t, other)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return s.db.Explain("look up the title "+t, err)
		}
		q, args := "UPDATE sessions SET title = ? WHERE id = ?", []any{t, sessionID}
		if s.has["title_source"] {
			q, args = "UPDATE sessions SET title = ?, title_source = ? WHERE id = ?", []any{t, titleSource(t), sessionID}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return s.db.Explain("set the title of "+sessionID, err)
		}
		return nil
	})
	return t, err
}

// toolNames maps the tool-call ids of assistant messages to the functions
// they call.
func toolNames(into map[string]string, calls []agentcore.ToolCall) {
	for _, c := range calls {
		if c.ID != "" {
			into[c.ID] = c.Function.Name
		}
	}
}

// AppendMessages appends msgs, in order, after what the session already
// holds; pass each turn's new messages once. One transaction per call: the
// rows, the counters and last_activity_at, as Hermes keeps them.
func (s *Store) AppendMessages(ctx context.Context, sessionID string, msgs []agentcore.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	now := epoch(s.now())
	return s.db.Tx(ctx, "append messages to "+sessionID, func(tx *sql.Tx) error {
		return s.appendTx(ctx, tx, sessionID, msgs, now)
	})
}

// appendTx is AppendMessages inside the caller's transaction.
func (s *Store) appendTx(ctx context.Context, tx *sql.Tx, sessionID string, msgs []agentcore.Message, now float64) error {
	{
		if err := s.writable(ctx, tx, sessionID); err != nil {
			return err
		}
		names := map[string]string{}
		looked := false
		calls := 0
		last := now
		for i, m := range msgs {
			if m.Role == "" {
				return fmt.Errorf("statedb: append to %s: message %d has no role; set Role to user, assistant or tool", sessionID, i)
			}
			toolNames(names, m.ToolCalls)
			var callsJSON any
			if len(m.ToolCalls) > 0 {
				raw, err := json.Marshal(m.ToolCalls)
				if err != nil {
					return fmt.Errorf("statedb: encode the tool calls of message %d: %w", i, err)
				}
				callsJSON = string(raw)
				calls += len(m.ToolCalls)
			}
			var toolName any
			if m.Role == "tool" && m.ToolCallID != "" {
				if _, ok := names[m.ToolCallID]; !ok && !looked {
					// The call was stored by an earlier append (a turn
					// split across calls, or a resumed session).
					looked = true
					if err := s.recentToolNames(ctx, tx, sessionID, names); err != nil {
						return err
					}
				}
				toolName = nullIfEmpty(names[m.ToolCallID])
			}
			var content any = m.Content
			if m.Content == "" && len(m.ToolCalls) > 0 {
				content = nil // what Hermes stores for a call without text
			}
			// Messages of one batch share a clock reading; a microsecond
			// apart keeps ORDER BY timestamp the insertion order.
			last = now + float64(i)*1e-6
			// active = 1 explicitly, as Hermes writes it: a column its
			// reconciliation added may lack the default.
			if _, err := tx.ExecContext(ctx, `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, reasoning, timestamp, active)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)`,
				sessionID, m.Role, content, nullIfEmpty(m.ToolCallID), callsJSON, toolName, nullIfEmpty(m.Reasoning), last); err != nil {
				return s.db.Explain("append a message to "+sessionID, err)
			}
		}
		q := "UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?, tool_call_count = COALESCE(tool_call_count, 0) + ?"
		args := []any{len(msgs), calls}
		if s.has["last_activity_at"] {
			// Hermes' recent lists order by it: a long conversation stays
			// recent while it goes on.
			q += ", last_activity_at = MAX(COALESCE(last_activity_at, 0), ?)"
			args = append(args, last)
		}
		if _, err := tx.ExecContext(ctx, q+" WHERE id = ?", append(args, sessionID)...); err != nil {
			return s.db.Explain("count the messages of "+sessionID, err)
		}
		return nil
	}
}

// recentToolNames reads the tool calls of the session's latest assistant
// messages, enough to name the results that follow them.
func (s *Store) recentToolNames(ctx context.Context, tx *sql.Tx, sessionID string, into map[string]string) error {
	rows, err := tx.QueryContext(ctx, `SELECT tool_calls FROM messages WHERE session_id = ? AND tool_calls IS NOT NULL
		ORDER BY id DESC LIMIT 20`, sessionID)
	if err != nil {
		return s.db.Explain("read the tool calls of "+sessionID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return s.db.Explain("read the tool calls of "+sessionID, err)
		}
		var calls []agentcore.ToolCall
		if json.Unmarshal([]byte(raw), &calls) == nil {
			for _, c := range calls {
				if _, ok := into[c.ID]; !ok && c.ID != "" {
					into[c.ID] = c.Function.Name
				}
			}
		}
	}
	return s.db.Explain("read the tool calls of "+sessionID, rows.Err())
}

// EndSession records that a conversation ended: ended_at and end_reason,
// only if it has not ended already (Hermes keeps the first reason).
func (s *Store) EndSession(ctx context.Context, sessionID, reason string) error {
	if reason == "" {
		reason = EndReason
	}
	return s.db.Tx(ctx, "end session "+sessionID, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL", epoch(s.now()), reason, sessionID)
		if err != nil {
			return s.db.Explain("end session "+sessionID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			var one int
			if err := tx.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE id = ?", sessionID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
				return s.notFound(sessionID)
			}
		}
		return nil
	})
}

// ReopenSession clears ended_at and end_reason of a session being resumed,
// as Hermes' reopen_session does: first the children that a reset boundary
// of this session started carry that in a _reset_from marker, so they stay
// separate conversations once the parent is live again. A session closed
// by compression is never reopened (its continuation is the live one).
func (s *Store) ReopenSession(ctx context.Context, sessionID string) error {
	return s.db.Tx(ctx, "reopen session "+sessionID, func(tx *sql.Tx) error {
		if err := s.writable(ctx, tx, sessionID); err != nil {
			return err
		}
		if s.has["session_key"] {
			ph := "?" + strings.Repeat(", ?", len(hermesstate.ResetReasons)-1)
			q := `UPDATE sessions AS child SET model_config = json_set(CASE WHEN json_valid(child.model_config) THEN child.model_config ELSE '{}' END, '$._reset_from', child.parent_session_id)
				WHERE child.parent_session_id = ? AND ` + hermesstate.JSONField("child.model_config", "_reset_from") + ` IS NULL
				AND ` + hermesstate.JSONField("child.model_config", "_branched_from") + ` IS NULL
				AND ` + hermesstate.JSONField("child.model_config", "_delegate_from") + ` IS NULL
				AND COALESCE(child.source, '') != 'tool'
				AND child.started_at >= (SELECT p.started_at FROM sessions p WHERE p.id = child.parent_session_id)
				AND EXISTS (SELECT 1 FROM sessions p WHERE p.id = child.parent_session_id AND p.end_reason IN (` + ph + `)
					AND child.session_key IS NOT NULL AND child.session_key != '' AND child.session_key = p.session_key)`
			if _, err := tx.ExecContext(ctx, q, resetArgs(sessionID)...); err != nil {
				return s.db.Explain("mark the reset children of "+sessionID, err)
			}
		}
		if _, err := tx.ExecContext(ctx, "UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?", sessionID); err != nil {
			return s.db.Explain("reopen session "+sessionID, err)
		}
		return nil
	})
}

// continuation follows Hermes' compression chain from id to the session
// the conversation goes on in: while a session was closed by compression,
// its continuation child (not a branch, delegate, reset or tool child of
// it), preferring one itself compressed, then a live one, then the most
// recently active.
func (s *Store) continuation(ctx context.Context, id string) (string, error) {
	activity := "child.started_at"
	if s.has["last_activity_at"] {
		activity = "COALESCE(child.last_activity_at, child.started_at)"
	}
	q := `SELECT child.id FROM sessions parent JOIN sessions child ON child.parent_session_id = parent.id
		WHERE parent.id = ? AND parent.end_reason = 'compression'
		AND COALESCE(` + hermesstate.JSONField("child.model_config", "_branched_from") + `, '') != ?
		AND COALESCE(` + hermesstate.JSONField("child.model_config", "_delegate_from") + `, '') != ?
		AND COALESCE(` + hermesstate.JSONField("child.model_config", "_reset_from") + `, '') != ?
		AND COALESCE(child.source, '') != 'tool'
		ORDER BY CASE WHEN child.end_reason = 'compression' THEN 0 WHEN child.ended_at IS NULL THEN 1 ELSE 2 END,
			` + activity + ` DESC, child.started_at DESC, child.id DESC
		LIMIT 1`
	cur := id
	seen := map[string]bool{cur: true}
	for range 100 {
		var child string
		err := s.db.QueryRowContext(ctx, q, cur, cur, cur, cur).Scan(&child)
		if errors.Is(err, sql.ErrNoRows) {
			return cur, nil
		}
		if err != nil {
			return "", s.db.Explain("follow the compression chain of "+id, err)
		}
		if seen[child] {
			return cur, nil
		}
		seen[child] = true
		cur = child
	}
	return cur, nil
}

// LoadSession returns a session's metadata and its transcript in order,
// for resuming it. When Hermes closed the session by compressing it, the
// conversation goes on in its continuation: that session is returned
// (SessionMeta.ID names it), with its transcript, which starts with
// Hermes' summary of what came before. Messages Hermes hid (rewound, or
// archived by an in-place compaction) are left out, as are roles a chat
// transcript cannot carry (system entries: the system prompt is rebuilt
// for every run). Content Hermes stored as a list of parts is loaded as
// its text.
func (s *Store) LoadSession(ctx context.Context, sessionID string) (agentcore.SessionMeta, []agentcore.Message, error) {
	// Plain reads, no transaction: a message appended between them is
	// harmless.
	var meta agentcore.SessionMeta
	var asked sql.NullString
	if err := s.db.QueryRowContext(ctx, "SELECT title FROM sessions WHERE id = ?", sessionID).Scan(&asked); errors.Is(err, sql.ErrNoRows) {
		return meta, nil, s.notFound(sessionID)
	} else if err != nil {
		return meta, nil, s.db.Explain("load session "+sessionID, err)
	}
	id, err := s.continuation(ctx, sessionID)
	if err != nil {
		return meta, nil, err
	}
	var source, model, provider, title sql.NullString
	var started sql.NullFloat64
	if err := s.db.QueryRowContext(ctx, "SELECT source, model, billing_provider, title, started_at FROM sessions WHERE id = ?", id).
		Scan(&source, &model, &provider, &title, &started); err != nil {
		return meta, nil, s.db.Explain("load session "+id, err)
	}
	if !title.Valid || title.String == "" {
		title = asked
	}
	meta = agentcore.SessionMeta{ID: id, Source: source.String, Model: model.String, Provider: provider.String,
		Title: title.String, StartedAt: fromEpoch(started.Float64)}
	rec, err := s.getSide(ctx, s.db, id)
	if err != nil {
		return agentcore.SessionMeta{}, nil, err
	}
	if rec == (sideRecord{}) && id != sessionID {
		if rec, err = s.getSide(ctx, s.db, sessionID); err != nil {
			return agentcore.SessionMeta{}, nil, err
		}
	}
	meta.Runtime, meta.CodexThreadID = rec.Runtime, rec.CodexThreadID

	rows, err := s.db.QueryContext(ctx, `SELECT id, role, content, tool_call_id, tool_calls, reasoning FROM messages
		WHERE session_id = ? AND role IN ('user', 'assistant', 'tool') AND COALESCE(active, 1) = 1 ORDER BY id`, id)
	if err != nil {
		return agentcore.SessionMeta{}, nil, s.db.Explain("load the messages of "+id, err)
	}
	defer rows.Close()
	var msgs []agentcore.Message
	for rows.Next() {
		var mid int64
		var role string
		var content, callID, calls, reasoning sql.NullString
		if err := rows.Scan(&mid, &role, &content, &callID, &calls, &reasoning); err != nil {
			return agentcore.SessionMeta{}, nil, s.db.Explain("load the messages of "+id, err)
		}
		m := agentcore.Message{Role: role, Content: hermesstate.ContentText(content.String), ToolCallID: callID.String, Reasoning: reasoning.String}
		if strings.TrimSpace(calls.String) != "" {
			if err := json.Unmarshal([]byte(calls.String), &m.ToolCalls); err != nil {
				return agentcore.SessionMeta{}, nil, fmt.Errorf("statedb: message %d of session %s in %s has unreadable tool_calls (%w); the session cannot be resumed as is, start a new one", mid, id, s.db.Path, err)
			}
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return agentcore.SessionMeta{}, nil, s.db.Explain("load the messages of "+id, err)
	}
	return meta, msgs, nil
}

// SessionSummary is one line of `hermes sessions list`.
type SessionSummary struct {
	ID, Title, Source, Model string
	// Preview is the start of the session's first user message (at most
	// 200 bytes), what a list shows for a session without a title.
	Preview string
	// Runtime is "native" or "codex" for sessions this program recorded,
	// empty for the Python Hermes' own.
	Runtime   string
	StartedAt time.Time
	Messages  int
}

// ListSessions returns sessions most recently active first (Hermes'
// last_activity_at, else their start), at most limit (0 means all).
// Archived sessions are left out, as Hermes' own lists leave them out.
// message_count is Hermes' own counter, kept by both programs.
func (s *Store) ListSessions(ctx context.Context, limit int) ([]SessionSummary, error) {
	where, recency := "", "s.started_at"
	if s.has["archived"] {
		where = " WHERE COALESCE(s.archived, 0) = 0"
	}
	if s.has["last_activity_at"] {
		recency = "COALESCE(s.last_activity_at, s.started_at)"
	}
	q := `SELECT s.id, s.title, s.source, s.model, s.started_at, COALESCE(s.message_count, 0), m.value,
		(SELECT substr(u.content, 1, 200) FROM messages u WHERE u.session_id = s.id AND u.role = 'user' ORDER BY u.id LIMIT 1)
		FROM sessions s LEFT JOIN state_meta m ON m.key = ? || s.id` + where + `
		ORDER BY ` + recency + ` DESC, s.started_at DESC, s.id DESC`
	args := []any{metaKeyPrefix}
	if limit > 0 {
		q += " LIMIT ?"
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.db.Explain("list sessions", err)
	}
	defer rows.Close()
	var out []SessionSummary
	for rows.Next() {
		var sum SessionSummary
		var title, source, model, side, preview sql.NullString
		var started sql.NullFloat64
		if err := rows.Scan(&sum.ID, &title, &source, &model, &started, &sum.Messages, &side, &preview); err != nil {
			return nil, s.db.Explain("list sessions", err)
		}
		sum.Title, sum.Source, sum.Model, sum.StartedAt = title.String, source.String, model.String, fromEpoch(started.Float64)
		sum.Preview = preview.String
		var rec sideRecord
		if side.Valid {
			_ = json.Unmarshal([]byte(side.String), &rec)
		}
		sum.Runtime = rec.Runtime
		out = append(out, sum)
	}
	if err := rows.Err(); err != nil {
		return nil, s.db.Explain("list sessions", err)
	}
	return out, nil
}

// resetArgs are the query arguments id, then each of Hermes' reset reasons.
func resetArgs(id string) []any {
	args := []any{id}
	for _, r := range hermesstate.ResetReasons {
		args = append(args, r)
	}
	return args
}

// Meta reads one state_meta value; ok is false when the key is absent.
// Hermes keeps small per-session records there under its own keys (a
// session's /goal under "goal:<session id>"), which both programs read.
func (s *Store) Meta(ctx context.Context, key string) (value string, ok bool, err error) {
	var raw sql.NullString
	err = s.db.QueryRowContext(ctx, "SELECT value FROM state_meta WHERE key = ?", key).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !raw.Valid) {
		return "", false, nil
	}
	if err != nil {
		return "", false, s.db.Explain("read "+key+" from state_meta", err)
	}
	return raw.String, true, nil
}

// SetMeta writes one state_meta value, replacing what the key held.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	return s.db.Tx(ctx, "write "+key+" to state_meta", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO state_meta (key, value) VALUES (?, ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
		if err != nil {
			return s.db.Explain("write "+key+" to state_meta", err)
		}
		return nil
	})
}

// titleRank orders title provenance as Hermes does: derived < llm < user;
// a NULL source, and a branch's, rank as the user's.
func titleRank(source sql.NullString) int {
	switch source.String {
	case "derived":
		return 0
	case "llm":
		return 1
	}
	return 2
}

// SetAutoTitle records a generated title (source "llm" or "derived") the
// way Hermes' automatic titler does: only over no title or one of lower
// provenance, so a name the user typed is never replaced. A title another
// session holds gets Hermes' " #N" numbering. It returns the title the
// session has afterwards.
func (s *Store) SetAutoTitle(ctx context.Context, sessionID, title, source string) (string, error) {
	t := cleanTitle(title)
	if t == "" {
		return "", errors.New("statedb: empty generated title")
	}
	var result string
	err := s.db.Tx(ctx, "set the generated title of "+sessionID, func(tx *sql.Tx) error {
		if err := s.writable(ctx, tx, sessionID); err != nil {
			return err
		}
		var cur, curSource sql.NullString
		q := "SELECT title, NULL FROM sessions WHERE id = ?"
		if s.has["title_source"] {
			q = "SELECT title, title_source FROM sessions WHERE id = ?"
		}
		if err := tx.QueryRowContext(ctx, q, sessionID).Scan(&cur, &curSource); err != nil {
			return s.db.Explain("read the title of "+sessionID, err)
		}
		if cur.Valid && cur.String != "" && titleRank(curSource) >= titleRank(sql.NullString{String: source, Valid: true}) {
			result = cur.String
			return nil
		}
		free, err := s.freeTitle(ctx, tx, t)
		if err != nil || free == "" {
			return err
		}
		q, args := "UPDATE sessions SET title = ? WHERE id = ?", []any{free, sessionID}
		if s.has["title_source"] {
			q, args = "UPDATE sessions SET title = ?, title_source = ? WHERE id = ?", []any{free, source, sessionID}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return s.db.Explain("set the title of "+sessionID, err)
		}
		result = free
		return nil
	})
	return result, err
}

// RewindLastUser takes back the session's last user message and
// everything after it, as Hermes' rewind does (/retry, /undo): the rows
// stay but leave the transcript (active = 0, and compacted = 0 so they
// are not taken for compaction archives), rewind_count goes up by one and
// the counters are recounted from the rows still active. It returns the
// text of the user message taken back; ok is false when there is none.
func (s *Store) RewindLastUser(ctx context.Context, sessionID string) (text string, ok bool, err error) {
	err = s.db.Tx(ctx, "rewind session "+sessionID, func(tx *sql.Tx) error {
		if err := s.writable(ctx, tx, sessionID); err != nil {
			return err
		}
		var id int64
		var content sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT id, content FROM messages WHERE session_id = ? AND role = 'user' AND active = 1
			ORDER BY id DESC LIMIT 1`, sessionID).Scan(&id, &content)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return s.db.Explain("find the last message of "+sessionID, err)
		}
		text, ok = content.String, true
		set := "active = 0"
		if s.has["compacted"] {
			set += ", compacted = 0"
		}
		if _, err := tx.ExecContext(ctx, "UPDATE messages SET "+set+" WHERE session_id = ? AND id >= ? AND active = 1", sessionID, id); err != nil {
			return s.db.Explain("rewind session "+sessionID, err)
		}
		counts := `message_count = (SELECT COUNT(*) FROM messages WHERE session_id = sessions.id AND active = 1),
			tool_call_count = (SELECT COALESCE(SUM(CASE WHEN json_valid(tool_calls) AND json_type(tool_calls) = 'array'
				THEN json_array_length(tool_calls) ELSE 1 END), 0)
				FROM messages WHERE session_id = sessions.id AND active = 1 AND tool_calls IS NOT NULL AND tool_calls <> '')`
		if s.has["rewind_count"] {
			counts += ", rewind_count = COALESCE(rewind_count, 0) + 1"
		}
		if _, err := tx.ExecContext(ctx, "UPDATE sessions SET "+counts+" WHERE id = ?", sessionID); err != nil {
			return s.db.Explain("recount session "+sessionID, err)
		}
		return nil
	})
	return text, ok, err
}
