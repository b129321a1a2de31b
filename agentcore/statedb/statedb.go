// Package statedb persists hermes conversations into <HERMES_HOME>/state.db,
// the SQLite database the Python Hermes keeps its sessions in
// (hermes_state.py, SCHEMA_VERSION 16), so that sessions written here are
// listed, searched (session_search) and resumed by either program.
//
// The file is shared: Hermes may be writing it at the same time. So the
// store uses WAL and a busy timeout, keeps every transaction short (one per
// call, the write lock taken at BEGIN), creates the v16 schema only when the
// file is new, and refuses — without changing a byte — a file whose schema
// is newer, older or not Hermes' at all.
//
// Where things live (see also the SetCodexThread comment):
//   - sessions: id, source, model, title, started_at, billing_provider
//     (SessionMeta.Provider) and the message_count / tool_call_count
//     counters Hermes keeps up to date on every append.
//   - messages: one row per transcript entry as hermes_state.append_message
//     writes it: role, content (NULL on a tool-calling assistant message
//     without text), tool_calls as the OpenAI JSON list, tool_call_id,
//     tool_name (the called function, on tool results), reasoning,
//     timestamp (epoch seconds, REAL). The FTS5 indexes are fed the way the
//     file's schema says: by its triggers, or by explicit inserts when the
//     file has the index tables but no triggers.
//   - state_meta: the key "hermes-go:session:<id>" holds a small JSON
//     record with what v16 has no column for: the runtime and the codex
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
	"math"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/internal/hermesstate"
	"github.com/hermes-go/hermes/internal/sqlitestore"
)

// SchemaVersion is the hermes_state.py schema this store writes.
const SchemaVersion = hermesstate.SchemaVersion

var schemaSQL = hermesstate.SchemaV16

// metaKeyPrefix namespaces our state_meta keys so they can never collide
// with the keys Hermes itself keeps there.
const metaKeyPrefix = "hermes-go:session:"

// ErrNotFound is wrapped when a session id is not in state.db.
var ErrNotFound = errors.New("session not found")

// Options configure Open.
type Options struct {
	// BusyTimeout bounds a wait on another writer's lock (Hermes');
	// zero means sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now stamps sessions and messages; nil means time.Now.
	Now func() time.Time
}

// Store is an open state.db. It is safe for concurrent use; calls are
// serialised on one connection, each in its own short transaction.
type Store struct {
	db  *sqlitestore.DB
	now func() time.Time
	// explicitFTS lists the FTS tables this store must feed itself
	// because the file has no triggers doing it.
	explicitFTS []string
	hasActive   bool
}

var _ agentcore.Store = (*Store)(nil)

// Open opens (creating when missing) hermesHome/state.db and checks that it
// is a Hermes v16 state database before anything is written.
func Open(ctx context.Context, hermesHome string, opts Options) (*Store, error) {
	if strings.TrimSpace(hermesHome) == "" {
		return nil, errors.New("statedb: HERMES_HOME is empty; set HERMES_HOME (default ~/.hermes) so state.db has a place")
	}
	path := filepath.Join(hermesHome, "state.db")
	// WAL stays off until the schema check passed: switching rewrites the
	// file header, and a file we refuse must stay untouched.
	db, err := sqlitestore.Open(ctx, path, sqlitestore.Options{Create: true, BusyTimeout: opts.BusyTimeout, MaxConns: 1})
	if err != nil {
		return nil, fmt.Errorf("statedb: %w", err)
	}
	s := &Store{db: db, now: opts.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("statedb: %w", err)
	}
	if err := db.EnableWAL(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("statedb: %w", err)
	}
	return s, nil
}

// Close releases the database.
func (s *Store) Close() error { return s.db.Close() }

// prepare creates the schema in an empty file or checks an existing one,
// inside one write transaction so a Hermes starting at the same moment
// cannot create its schema between our look and our create.
func (s *Store) prepare(ctx context.Context) error {
	return s.db.Tx(ctx, "prepare state.db", func(tx *sql.Tx) error {
		tables, err := sqlitestore.Tables(ctx, tx)
		if err != nil {
			return s.db.Explain("read the schema", err)
		}
		if len(tables) == 0 {
			if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
				return s.db.Explain("create the v16 schema", err)
			}
			s.hasActive = true
			return nil
		}
		return s.check(ctx, tx, tables)
	})
}

// writes are the columns this store fills; a v16 file lacking one cannot
// hold what we write.
var writes = map[string][]string{
	"sessions":   {"id", "source", "model", "billing_provider", "title", "started_at", "message_count", "tool_call_count"},
	"messages":   {"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "reasoning", "timestamp"},
	"state_meta": {"key", "value"},
}

func (s *Store) check(ctx context.Context, tx *sql.Tx, tables map[string]bool) error {
	p := s.db.Path
	if !tables["schema_version"] || !tables["sessions"] || !tables["messages"] {
		return sqlitestore.SchemaError(p, "not a Hermes state database (it lacks schema_version, sessions or messages); it was left untouched",
			"check HERMES_HOME: hermes only writes the state.db Hermes keeps there; move the foreign file aside to start a fresh one")
	}
	var version sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_version").Scan(&version); err != nil {
		return s.db.Explain("read the schema version", err)
	}
	switch {
	case version.Int64 > SchemaVersion:
		return sqlitestore.SchemaError(p,
			fmt.Sprintf("state.db is at schema version %d, newer than the version %d this build writes; it was left untouched", version.Int64, SchemaVersion),
			"update hermes to a release that knows this Hermes version (sessions are not saved until then)")
	case version.Int64 < SchemaVersion:
		return sqlitestore.SchemaError(p,
			fmt.Sprintf("state.db is at schema version %d, older than the version %d this build writes; it was left untouched", version.Int64, SchemaVersion),
			"start the Python Hermes once so it upgrades state.db; this program never migrates it")
	}
	for _, table := range []string{"sessions", "messages", "state_meta"} {
		cols, err := sqlitestore.Columns(ctx, tx, table)
		if err != nil {
			return s.db.Explain("read the columns of "+table, err)
		}
		var missing []string
		for _, c := range writes[table] {
			if _, ok := cols[c]; !ok {
				missing = append(missing, c)
			}
		}
		// A NOT NULL column without a default that we do not fill would
		// make every insert fail: that is a schema we do not know.
		filled := map[string]bool{}
		for _, c := range writes[table] {
			filled[c] = true
		}
		var unknown []string
		for name, c := range cols {
			if c.NotNull && !c.HasDefault && !c.PrimaryKey && !filled[name] {
				unknown = append(unknown, name)
			}
		}
		if len(missing)+len(unknown) > 0 {
			sort.Strings(missing)
			sort.Strings(unknown)
			return sqlitestore.SchemaError(p,
				fmt.Sprintf("table %s does not match schema version %d (missing: %s; required columns unknown here: %s); it was left untouched",
					table, SchemaVersion, strings.Join(missing, ", "), strings.Join(unknown, ", ")),
				"start the Python Hermes once so it repairs state.db, or move the file aside")
		}
		if table == "messages" {
			_, s.hasActive = cols["active"]
		}
	}
	if !tables["messages_fts"] {
		return sqlitestore.SchemaError(p, "state.db has no full-text index (messages_fts); it was left untouched",
			"start the Python Hermes once so it builds the index")
	}
	for _, fts := range []string{"messages_fts", "messages_fts_trigram"} {
		if !tables[fts] {
			continue
		}
		var triggers int
		err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'messages'
			AND upper(sql) LIKE '%AFTER INSERT%' AND (upper(sql) LIKE ? OR upper(sql) LIKE ?)`,
			"%INSERT INTO "+strings.ToUpper(fts)+"(%", "%INSERT INTO "+strings.ToUpper(fts)+" (%").Scan(&triggers)
		if err != nil {
			return s.db.Explain("read the triggers", err)
		}
		if triggers > 0 {
			continue
		}
		// No trigger feeds this index, so Hermes inserts explicitly; do
		// the same, which needs the plain one-column layout.
		cols, err := sqlitestore.Columns(ctx, tx, fts)
		if err != nil {
			return s.db.Explain("read the columns of "+fts, err)
		}
		if _, ok := cols["content"]; !ok || len(cols) != 1 {
			return sqlitestore.SchemaError(p, fmt.Sprintf("the full-text index %s has a layout this build does not know; it was left untouched", fts),
				"update hermes to a release that knows this Hermes version")
		}
		s.explicitFTS = append(s.explicitFTS, fts)
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

// sideRecord is what state_meta keeps for a session: the facts v16 has no
// column for.
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

// CreateSession records a new session. Creating one that already exists
// leaves it as it is, as Hermes' create_session (INSERT OR IGNORE) does;
// resume a session with LoadSession.
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
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO sessions (id, source, model, billing_provider, title, started_at)
			VALUES (?, ?, ?, ?, ?, ?)`, m.ID, source, nullIfEmpty(m.Model), nullIfEmpty(m.Provider), nullIfEmpty(m.Title), epoch(started))
		if err != nil {
			return s.db.Explain("create session "+m.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if m.Runtime == "" && m.CodexThreadID == "" {
			return nil
		}
		return s.putSide(ctx, tx, m.ID, sideRecord{Runtime: m.Runtime, CodexThreadID: m.CodexThreadID})
	})
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

func (s *Store) exists(ctx context.Context, tx querier, id string) error {
	var one int
	err := tx.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("no session %s in %s (%w); pick an id from `hermes sessions list`", id, s.db.Path, ErrNotFound)
	}
	if err != nil {
		return s.db.Explain("look up session "+id, err)
	}
	return nil
}

// SetCodexThread stores the codex thread backing a session, so a resumed
// conversation continues it with thread/resume.
//
// Hermes' v16 schema has no column for it: the original keeps its
// CodexAppServerSession (and so the thread id) in memory only, for the
// life of the agent, and starts a new thread after a restart. Rather than
// alter Hermes' tables, the id goes into state_meta — Hermes' own key/value
// table — under a key namespaced to this program. Hermes ignores it, a
// newer Hermes migrating its tables keeps it, and nothing of Hermes'
// changes shape. An empty threadID forgets the thread.
func (s *Store) SetCodexThread(ctx context.Context, sessionID, threadID string) error {
	return s.db.Tx(ctx, "set the codex thread of "+sessionID, func(tx *sql.Tx) error {
		if err := s.exists(ctx, tx, sessionID); err != nil {
			return err
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
// holds; pass each turn's new messages once. One transaction per call.
func (s *Store) AppendMessages(ctx context.Context, sessionID string, msgs []agentcore.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	now := epoch(s.now())
	return s.db.Tx(ctx, "append messages to "+sessionID, func(tx *sql.Tx) error {
		if err := s.exists(ctx, tx, sessionID); err != nil {
			return err
		}
		names := map[string]string{}
		looked := false
		calls := 0
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
			ts := now + float64(i)*1e-6
			res, err := tx.ExecContext(ctx, `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, reasoning, timestamp)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
				sessionID, m.Role, content, nullIfEmpty(m.ToolCallID), callsJSON, toolName, nullIfEmpty(m.Reasoning), ts)
			if err != nil {
				return s.db.Explain("append a message to "+sessionID, err)
			}
			if len(s.explicitFTS) > 0 {
				id, err := res.LastInsertId()
				if err != nil {
					return s.db.Explain("index a message of "+sessionID, err)
				}
				// The same text the v16 triggers index.
				text := m.Content + " " + strOf(toolName) + " " + strOf(callsJSON)
				for _, fts := range s.explicitFTS {
					if _, err := tx.ExecContext(ctx, "INSERT INTO "+fts+" (rowid, content) VALUES (?, ?)", id, text); err != nil {
						return s.db.Explain("index a message of "+sessionID, err)
					}
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?,
			tool_call_count = COALESCE(tool_call_count, 0) + ? WHERE id = ?`, len(msgs), calls, sessionID); err != nil {
			return s.db.Explain("count the messages of "+sessionID, err)
		}
		return nil
	})
}

func strOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
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

// LoadSession returns a session's metadata and its transcript in order,
// for resuming it. Messages Hermes marked inactive (rewound) are left out,
// as are roles a chat transcript cannot carry (system entries: the system
// prompt is rebuilt for every run).
func (s *Store) LoadSession(ctx context.Context, sessionID string) (agentcore.SessionMeta, []agentcore.Message, error) {
	// A plain read, no transaction: under WAL it never waits for Hermes'
	// writer, and a message appended between the two reads is harmless.
	var meta agentcore.SessionMeta
	var source, model, provider, title sql.NullString
	var started sql.NullFloat64
	err := s.db.QueryRowContext(ctx, "SELECT source, model, billing_provider, title, started_at FROM sessions WHERE id = ?", sessionID).
		Scan(&source, &model, &provider, &title, &started)
	if errors.Is(err, sql.ErrNoRows) {
		return meta, nil, s.exists(ctx, s.db, sessionID)
	}
	if err != nil {
		return meta, nil, s.db.Explain("load session "+sessionID, err)
	}
	meta = agentcore.SessionMeta{ID: sessionID, Source: source.String, Model: model.String, Provider: provider.String,
		Title: title.String, StartedAt: fromEpoch(started.Float64)}
	rec, err := s.getSide(ctx, s.db, sessionID)
	if err != nil {
		return agentcore.SessionMeta{}, nil, err
	}
	meta.Runtime, meta.CodexThreadID = rec.Runtime, rec.CodexThreadID

	active := ""
	if s.hasActive {
		active = " AND COALESCE(active, 1) = 1"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, role, content, tool_call_id, tool_calls, reasoning FROM messages
		WHERE session_id = ? AND role IN ('user', 'assistant', 'tool')`+active+" ORDER BY id", sessionID)
	if err != nil {
		return agentcore.SessionMeta{}, nil, s.db.Explain("load the messages of "+sessionID, err)
	}
	defer rows.Close()
	var msgs []agentcore.Message
	for rows.Next() {
		var id int64
		var role string
		var content, callID, calls, reasoning sql.NullString
		if err := rows.Scan(&id, &role, &content, &callID, &calls, &reasoning); err != nil {
			return agentcore.SessionMeta{}, nil, s.db.Explain("load the messages of "+sessionID, err)
		}
		m := agentcore.Message{Role: role, Content: content.String, ToolCallID: callID.String, Reasoning: reasoning.String}
		if strings.TrimSpace(calls.String) != "" {
			if err := json.Unmarshal([]byte(calls.String), &m.ToolCalls); err != nil {
				return agentcore.SessionMeta{}, nil, fmt.Errorf("statedb: message %d of session %s in %s has unreadable tool_calls (%w); the session cannot be resumed as is, start a new one", id, sessionID, s.db.Path, err)
			}
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return agentcore.SessionMeta{}, nil, s.db.Explain("load the messages of "+sessionID, err)
	}
	return meta, msgs, nil
}

// SessionSummary is one line of `hermes sessions list`.
type SessionSummary struct {
	ID, Title, Source, Model string
	// Runtime is "native" or "codex" for sessions this program recorded,
	// empty for the Python Hermes' own.
	Runtime   string
	StartedAt time.Time
	Messages  int
}

// ListSessions returns the most recent sessions first, at most limit
// (0 means all). message_count is Hermes' own counter, kept by both
// programs.
func (s *Store) ListSessions(ctx context.Context, limit int) ([]SessionSummary, error) {
	q := `SELECT s.id, s.title, s.source, s.model, s.started_at, COALESCE(s.message_count, 0), m.value
		FROM sessions s LEFT JOIN state_meta m ON m.key = ? || s.id
		ORDER BY s.started_at DESC, s.id DESC`
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
		var title, source, model, side sql.NullString
		var started sql.NullFloat64
		if err := rows.Scan(&sum.ID, &title, &source, &model, &started, &sum.Messages, &side); err != nil {
			return nil, s.db.Explain("list sessions", err)
		}
		sum.Title, sum.Source, sum.Model, sum.StartedAt = title.String, source.String, model.String, fromEpoch(started.Float64)
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
