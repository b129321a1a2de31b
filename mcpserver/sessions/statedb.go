package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/hermes-go/hermes/internal/sqlitestore"
)

// SchemaVersion is the state.db schema this reader knows
// (hermes_state.py SCHEMA_VERSION).
const SchemaVersion = 16

// hiddenSources are sessions that are not the user's conversations: tool
// integrations, delegated subagents and kanban workers.
var hiddenSources = []string{"kanban", "subagent", "tool"}

// needed are the columns the reader uses; a state.db without them predates
// what this reader understands.
var needed = map[string][]string{
	"sessions": {"id", "source", "model", "title", "started_at", "ended_at", "end_reason", "parent_session_id", "message_count"},
	"messages": {"id", "session_id", "role", "content", "tool_calls", "tool_name", "timestamp"},
}

// DB is a state.db opened read-only. Hermes may be writing it at the same
// time; under WAL a reader sees the last committed state and never blocks
// the writer.
type DB struct {
	db       *sqlitestore.DB
	trigram  bool
	active   bool // messages has the active column (rewound messages are 0)
	archived bool
}

// Open opens path read-only and checks its schema. It never creates or
// changes the file; a missing file is an error wrapping fs.ErrNotExist.
func Open(ctx context.Context, path string, busy time.Duration) (*DB, error) {
	if busy <= 0 {
		busy = 5 * time.Second
	}
	db, err := sqlitestore.Open(ctx, path, sqlitestore.Options{ReadOnly: true, BusyTimeout: busy})
	if err != nil {
		return nil, err
	}
	s := &DB{db: db}
	if err := s.check(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the database.
func (s *DB) Close() error { return s.db.Close() }

func (s *DB) check(ctx context.Context) error {
	tables, err := sqlitestore.Tables(ctx, s.db)
	if err != nil {
		return s.db.Explain("read the schema", err)
	}
	if !tables["schema_version"] || !tables["sessions"] || !tables["messages"] {
		return sqlitestore.SchemaError(s.db.Path, "not a Hermes state database (it lacks schema_version, sessions or messages)",
			"check HERMES_HOME or the profile name; session_search only reads the state.db Hermes writes")
	}
	var version sql.NullInt64
	if err := s.db.QueryRowContext(ctx, "SELECT MAX(version) FROM schema_version").Scan(&version); err != nil {
		return s.db.Explain("read the schema version", err)
	}
	if version.Int64 > SchemaVersion {
		return sqlitestore.SchemaError(s.db.Path,
			fmt.Sprintf("state.db is at schema version %d, newer than the version %d this build reads", version.Int64, SchemaVersion),
			"update hermes-tools-mcp to a release that knows this Hermes version")
	}
	for table, cols := range needed {
		have, err := sqlitestore.Columns(ctx, s.db, table)
		if err != nil {
			return s.db.Explain("read the columns of "+table, err)
		}
		var missing []string
		for _, c := range cols {
			if _, ok := have[c]; !ok {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			return sqlitestore.SchemaError(s.db.Path,
				fmt.Sprintf("table %s lacks column(s) %s (schema version %d)", table, strings.Join(missing, ", "), version.Int64),
				"start Hermes once so it upgrades state.db; this reader never changes it")
		}
		if table == "messages" {
			_, s.active = have["active"]
		} else {
			_, s.archived = have["archived"]
		}
	}
	if !tables["messages_fts"] {
		return sqlitestore.SchemaError(s.db.Path, "state.db has no full-text index (messages_fts)",
			"start Hermes once so it builds the index")
	}
	s.trigram = tables["messages_fts_trigram"]
	return nil
}

// Session is a sessions row, as much as the reader shows.
type Session struct {
	ID           string
	Source       string
	Model        string
	Title        string
	StartedAt    float64
	EndedAt      *float64
	EndReason    string
	Parent       string
	MessageCount int64
}

// Message is a messages row, as much as the reader shows.
type Message struct {
	ID        int64
	SessionID string
	Role      string
	Content   string
	ToolName  string
	ToolCalls []string
	Timestamp *float64
}

const sessionCols = "id, COALESCE(source, ''), COALESCE(model, ''), COALESCE(title, ''), COALESCE(started_at, 0), ended_at, COALESCE(end_reason, ''), COALESCE(parent_session_id, ''), COALESCE(message_count, 0)"

func scanSession(r interface{ Scan(...any) error }) (*Session, error) {
	var se Session
	var ended sql.NullFloat64
	if err := r.Scan(&se.ID, &se.Source, &se.Model, &se.Title, &se.StartedAt, &ended, &se.EndReason, &se.Parent, &se.MessageCount); err != nil {
		return nil, err
	}
	if ended.Valid {
		se.EndedAt = &ended.Float64
	}
	return &se, nil
}

// Session returns one session, or nil.
func (s *DB) Session(ctx context.Context, id string) (*Session, error) {
	se, err := scanSession(s.db.QueryRowContext(ctx, "SELECT "+sessionCols+" FROM sessions WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.db.Explain("read session "+id, err)
	}
	return se, nil
}

// lineageRoot follows parent_session_id to the first session of a
// conversation: compression and resets continue a conversation in a child
// session, and results are grouped per conversation.
func (s *DB) lineageRoot(ctx context.Context, id string, cache map[string]string) (string, error) {
	if root, ok := cache[id]; ok {
		return root, nil
	}
	seen := map[string]bool{}
	cur := id
	for cur != "" && !seen[cur] {
		seen[cur] = true
		var parent sql.NullString
		err := s.db.QueryRowContext(ctx, "SELECT parent_session_id FROM sessions WHERE id = ?", cur).Scan(&parent)
		if errors.Is(err, sql.ErrNoRows) {
			break
		}
		if err != nil {
			return "", s.db.Explain("follow the lineage of "+id, err)
		}
		if !parent.Valid || parent.String == "" {
			break
		}
		cur = parent.String
	}
	cache[id] = cur
	return cur, nil
}

const messageCols = "id, session_id, role, COALESCE(content, ''), COALESCE(tool_name, ''), tool_calls, timestamp"

func scanMessage(r interface{ Scan(...any) error }) (Message, error) {
	var m Message
	var calls sql.NullString
	var ts sql.NullFloat64
	if err := r.Scan(&m.ID, &m.SessionID, &m.Role, &m.Content, &m.ToolName, &calls, &ts); err != nil {
		return m, err
	}
	if ts.Valid {
		m.Timestamp = &ts.Float64
	}
	m.ToolCalls = toolCallNames(calls.String)
	return m, nil
}

// toolCallNames pulls the function names out of an OpenAI-style tool_calls
// column, which is all a reader of old conversations needs from it.
func toolCallNames(raw string) []string {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	var calls []struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal([]byte(raw), &calls) != nil {
		return nil
	}
	var out []string
	for _, c := range calls {
		if c.Function.Name != "" {
			out = append(out, c.Function.Name)
		} else if c.Name != "" {
			out = append(out, c.Name)
		}
	}
	return out
}

func (s *DB) activeClause(alias string) string {
	if !s.active {
		return ""
	}
	return " AND COALESCE(" + alias + "active, 1) = 1"
}

func (s *DB) messages(ctx context.Context, q string, args ...any) ([]Message, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.db.Explain("read messages", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, s.db.Explain("read messages", err)
		}
		out = append(out, m)
	}
	return out, s.db.Explain("read messages", rows.Err())
}

func (s *DB) count(ctx context.Context, q string, args ...any) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, s.db.Explain("count messages", err)
	}
	return n, nil
}

// Window is the messages around an anchor in one session.
type Window struct {
	Messages []Message
	Before   int // messages earlier than the first shown
	After    int // messages later than the last shown
	Found    bool
}

// Around returns up to n messages on each side of anchor, in order.
func (s *DB) Around(ctx context.Context, session string, anchor int64, n int) (Window, error) {
	var w Window
	act := s.activeClause("")
	self, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND id = ?"+act, session, anchor)
	if err != nil || len(self) == 0 {
		return w, err
	}
	w.Found = true
	before, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND id < ?"+act+" ORDER BY id DESC LIMIT ?", session, anchor, n)
	if err != nil {
		return w, err
	}
	after, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND id > ?"+act+" ORDER BY id ASC LIMIT ?", session, anchor, n)
	if err != nil {
		return w, err
	}
	for i := len(before) - 1; i >= 0; i-- {
		w.Messages = append(w.Messages, before[i])
	}
	w.Messages = append(w.Messages, self[0])
	w.Messages = append(w.Messages, after...)
	first, last := w.Messages[0].ID, w.Messages[len(w.Messages)-1].ID
	if w.Before, err = s.count(ctx, "SELECT count(*) FROM messages WHERE session_id = ? AND id < ?"+act, session, first); err != nil {
		return w, err
	}
	w.After, err = s.count(ctx, "SELECT count(*) FROM messages WHERE session_id = ? AND id > ?"+act, session, last)
	return w, err
}

// Ends returns the first and last n messages of a session, leaving out
// those in skip.
func (s *DB) Ends(ctx context.Context, session string, n int, skip map[int64]bool) (head, tail []Message, err error) {
	act := s.activeClause("")
	first, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND role IN ('user', 'assistant')"+act+" ORDER BY id ASC LIMIT ?", session, n)
	if err != nil {
		return nil, nil, err
	}
	last, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND role IN ('user', 'assistant')"+act+" ORDER BY id DESC LIMIT ?", session, n)
	if err != nil {
		return nil, nil, err
	}
	taken := map[int64]bool{}
	for _, m := range first {
		if !skip[m.ID] {
			head = append(head, m)
			taken[m.ID] = true
		}
	}
	for i := len(last) - 1; i >= 0; i-- {
		if m := last[i]; !skip[m.ID] && !taken[m.ID] {
			tail = append(tail, m)
		}
	}
	return head, tail, nil
}

// SessionMessages returns a whole session's messages: all of them when
// there are at most head+tail, else the first head and the last tail, with
// the number left out.
func (s *DB) SessionMessages(ctx context.Context, session string, head, tail int) (msgs []Message, omitted int, total int, err error) {
	act := s.activeClause("")
	if total, err = s.count(ctx, "SELECT count(*) FROM messages WHERE session_id = ?"+act, session); err != nil {
		return nil, 0, 0, err
	}
	if total <= head+tail {
		msgs, err = s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ?"+act+" ORDER BY id ASC", session)
		return msgs, 0, total, err
	}
	first, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ?"+act+" ORDER BY id ASC LIMIT ?", session, head)
	if err != nil {
		return nil, 0, 0, err
	}
	last, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ?"+act+" ORDER BY id DESC LIMIT ?", session, tail)
	if err != nil {
		return nil, 0, 0, err
	}
	msgs = first
	for i := len(last) - 1; i >= 0; i-- {
		msgs = append(msgs, last[i])
	}
	return msgs, total - head - tail, total, nil
}

// rankLimit is the most matches a query may have and still be ranked by
// relevance.
const rankLimit = 10000

// Hit is one full-text match.
type Hit struct {
	Message
	Session Session
}

// Search runs a full-text query over user-visible messages of the given
// roles and returns up to max hits, best first (or by time when sort is
// "newest" or "oldest").
func (s *DB) Search(ctx context.Context, query string, roles []string, sortBy string, max int) ([]Hit, error) {
	match := ftsQuery(query)
	if match == "" {
		return nil, nil
	}
	hits, err := s.search(ctx, "messages_fts", match, roles, sortBy, max)
	if err != nil {
		return nil, err
	}
	// Words the default tokenizer cannot split (Chinese, Japanese, code
	// fragments) still match inside the trigram index.
	if len(hits) == 0 && s.trigram && len([]rune(strings.TrimSpace(query))) >= 3 {
		return s.search(ctx, "messages_fts_trigram", match, roles, sortBy, max)
	}
	return hits, nil
}

func (s *DB) search(ctx context.Context, table, match string, roles []string, sortBy string, max int) ([]Hit, error) {
	// The index alone picks the candidates: FTS5 keeps only the best
	// `candidates` rows by rank (or by rowid, which follows insertion time)
	// without joining every match, which is what keeps a query for a common
	// word fast on a large history. The filters below drop some, hence the
	// margin over max.
	inner, order := "rank", "f.rank"
	if sortBy == "" {
		// bm25 is computed for every match before the best are kept, which
		// costs ~100 ms per 50,000 matches; a word that common carries
		// almost no relevance signal anyway, so such queries rank by
		// recency instead. Counting is cheap: no scores are computed.
		n, err := s.count(ctx, "SELECT count(*) FROM (SELECT rowid FROM "+table+" WHERE "+table+" MATCH ? LIMIT ?)", match, rankLimit+1)
		if err != nil {
			return nil, err
		}
		if n > rankLimit {
			sortBy = "newest"
		}
	}
	switch sortBy {
	case "newest":
		inner, order = "rowid DESC", "m.timestamp DESC, m.id DESC"
	case "oldest":
		inner, order = "rowid ASC", "m.timestamp ASC, m.id ASC"
	}
	candidates := max * 8
	var args []any
	args = append(args, match, candidates)
	rolePH := make([]string, len(roles))
	for i, r := range roles {
		rolePH[i] = "?"
		args = append(args, r)
	}
	hidden := make([]string, len(hiddenSources))
	for i, h := range hiddenSources {
		hidden[i] = "?"
		args = append(args, h)
	}
	archived := ""
	if s.archived {
		archived = " AND COALESCE(se.archived, 0) = 0"
	}
	args = append(args, max)
	q := "WITH f AS (SELECT rowid, rank FROM " + table + " WHERE " + table + " MATCH ? ORDER BY " + inner + " LIMIT ?) " +
		"SELECT m.id, m.session_id, m.role, COALESCE(m.content, ''), COALESCE(m.tool_name, ''), m.tool_calls, m.timestamp, " +
		"se.id, COALESCE(se.source, ''), COALESCE(se.model, ''), COALESCE(se.title, ''), COALESCE(se.started_at, 0), se.ended_at, " +
		"COALESCE(se.end_reason, ''), COALESCE(se.parent_session_id, ''), COALESCE(se.message_count, 0) " +
		"FROM f JOIN messages m ON m.id = f.rowid JOIN sessions se ON se.id = m.session_id " +
		"WHERE m.role IN (" + strings.Join(rolePH, ",") + ") " +
		"AND COALESCE(se.source, '') NOT IN (" + strings.Join(hidden, ",") + ")" + archived + s.activeClause("m.") +
		" ORDER BY " + order + " LIMIT ?"
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.db.Explain("search messages", err)
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		var calls sql.NullString
		var ts, ended sql.NullFloat64
		if err := rows.Scan(&h.ID, &h.SessionID, &h.Role, &h.Content, &h.ToolName, &calls, &ts,
			&h.Session.ID, &h.Session.Source, &h.Session.Model, &h.Session.Title, &h.Session.StartedAt, &ended,
			&h.Session.EndReason, &h.Session.Parent, &h.Session.MessageCount); err != nil {
			return nil, s.db.Explain("search messages", err)
		}
		if ts.Valid {
			h.Timestamp = &ts.Float64
		}
		if ended.Valid {
			h.Session.EndedAt = &ended.Float64
		}
		h.ToolCalls = toolCallNames(calls.String)
		out = append(out, h)
	}
	return out, s.db.Explain("search messages", rows.Err())
}

// Recent returns the latest (or earliest) sessions the user would
// recognise as conversations.
func (s *DB) Recent(ctx context.Context, sortBy string, limit int) ([]Session, error) {
	order := "started_at DESC"
	if sortBy == "oldest" {
		order = "started_at ASC"
	}
	var args []any
	hidden := make([]string, len(hiddenSources))
	for i, h := range hiddenSources {
		hidden[i] = "?"
		args = append(args, h)
	}
	archived := ""
	if s.archived {
		archived = " AND COALESCE(archived, 0) = 0"
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, "SELECT "+sessionCols+" FROM sessions WHERE COALESCE(source, '') NOT IN ("+
		strings.Join(hidden, ",")+")"+archived+" ORDER BY "+order+" LIMIT ?", args...)
	if err != nil {
		return nil, s.db.Explain("list sessions", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		se, err := scanSession(rows)
		if err != nil {
			return nil, s.db.Explain("list sessions", err)
		}
		out = append(out, *se)
	}
	return out, s.db.Explain("list sessions", rows.Err())
}

// FirstUserMessage previews what a session was about.
func (s *DB) FirstUserMessage(ctx context.Context, session string) (string, error) {
	var content sql.NullString
	err := s.db.QueryRowContext(ctx, "SELECT content FROM messages WHERE session_id = ? AND role = 'user'"+s.activeClause("")+" ORDER BY id LIMIT 1", session).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", s.db.Explain("preview session "+session, err)
	}
	return content.String, nil
}

// ftsQuery turns free text into an FTS5 query that cannot be a syntax
// error: every word is quoted (so punctuation and FTS keywords are plain
// text), words are ANDed, an upper-case OR between words is kept, and a
// trailing * keeps its prefix meaning.
func ftsQuery(text string) string {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"'
	})
	var parts []string
	for _, f := range fields {
		if f == "OR" {
			if len(parts) > 0 && parts[len(parts)-1] != "OR" {
				parts = append(parts, "OR")
			}
			continue
		}
		prefix := strings.HasSuffix(f, "*")
		f = strings.TrimRight(f, "*")
		if strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) == "" {
			continue
		}
		q := `"` + f + `"`
		if prefix {
			q += "*"
		}
		parts = append(parts, q)
	}
	for len(parts) > 0 && parts[len(parts)-1] == "OR" {
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, " ")
}

// queryTerms are the words of a query, lower-cased, for building snippets.
func queryTerms(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		f = strings.ToLower(strings.Trim(f, `"*`))
		if f != "" && f != "or" {
			out = append(out, f)
		}
	}
	return out
}
