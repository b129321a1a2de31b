package sessions

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/hermesstate"
	"github.com/hermes-go/hermes/internal/sqlitestore"
)

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
// time; the reader sees the last committed state and never writes.
//
// Any Hermes schema from 16 on is read, a newer one than
// hermesstate.SchemaVersion too (Hermes only adds columns and tables):
// what the file has decides how it is read.
type DB struct {
	db   *sqlitestore.DB
	note string
	// Columns the file may or may not have.
	active, compacted, displayKind, archived, lastActivity, modelConfig, sessionKey bool
	// Full-text state: the word index (absent or detached: search reads
	// messages), the trigram index, and the window of rows a deferred
	// rebuild has not indexed yet.
	fts, trigram   bool
	gapFrom, gapTo int64
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

// Note is a one-line remark about the file (a schema newer than the one
// this build follows), or "".
func (s *DB) Note() string { return s.note }

func (s *DB) check(ctx context.Context) error {
	st, err := hermesstate.Inspect(ctx, s.db)
	if err != nil {
		return s.db.Explain("read the schema", err)
	}
	if !st.IsTable("schema_version") || !st.IsHermes() {
		return sqlitestore.SchemaError(s.db.Path, "not a Hermes state database (it lacks schema_version, sessions or messages)",
			"check HERMES_HOME or the profile name; session_search only reads the state.db Hermes writes")
	}
	if st.HasVersion && st.Version < hermesstate.OldestVersion {
		return sqlitestore.SchemaError(s.db.Path,
			fmt.Sprintf("state.db is at schema version %d, older than %d, the oldest this build reads", st.Version, hermesstate.OldestVersion),
			"start Hermes once so it upgrades state.db; this reader never changes it")
	}
	if st.Version > hermesstate.SchemaVersion {
		s.note = fmt.Sprintf("%s is at Hermes schema version %d, newer than %d, the one this build follows; it is read as it is (Hermes only adds columns and tables)",
			s.db.Path, st.Version, hermesstate.SchemaVersion)
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
				fmt.Sprintf("table %s lacks column(s) %s (schema version %d)", table, strings.Join(missing, ", "), st.Version),
				"start Hermes once so it upgrades state.db; this reader never changes it")
		}
		if table == "messages" {
			_, s.active = have["active"]
			_, s.compacted = have["compacted"]
			_, s.displayKind = have["display_kind"]
		} else {
			_, s.archived = have["archived"]
			_, s.lastActivity = have["last_activity_at"]
			_, s.modelConfig = have["model_config"]
			_, s.sessionKey = have["session_key"]
		}
	}
	// A detached index (fts_stale) misses rows until Hermes rebuilds it;
	// Hermes then searches messages itself, and so does this reader.
	s.fts = st.IsTable("messages_fts") && !st.FTSStale()
	s.trigram = s.fts && st.IsTable("messages_fts_trigram")
	if hw := st.Meta[hermesstate.MetaRebuildHighWater]; hw != "" {
		s.gapTo, _ = strconv.ParseInt(hw, 10, 64)
		s.gapFrom, _ = strconv.ParseInt(st.Meta[hermesstate.MetaRebuildProgress], 10, 64)
	}
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
	m.Content = hermesstate.ContentText(m.Content)
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

// live is the visibility of Hermes' transcript reads (read, scroll): rows
// still in the conversation. Rewound rows and rows an in-place compaction
// archived are out.
func (s *DB) live(alias string) string {
	if !s.active {
		return ""
	}
	return " AND COALESCE(" + alias + "active, 1) = 1"
}

// searchable is the visibility of Hermes' search: live rows and rows a
// compaction archived (out of the model's context, still what was said),
// never rewound rows nor hidden scaffolding the user never saw.
func (s *DB) searchable(alias string) string {
	var b strings.Builder
	switch {
	case s.compacted:
		b.WriteString(" AND (COALESCE(" + alias + "active, 1) = 1 OR " + alias + "compacted = 1)")
	case s.active:
		b.WriteString(" AND COALESCE(" + alias + "active, 1) = 1")
	}
	if s.displayKind {
		b.WriteString(" AND COALESCE(" + alias + "display_kind, '') <> 'hidden'")
	}
	return b.String()
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

// Around returns up to n messages on each side of anchor, in order. The
// anchor may be any row search can return; its neighbours are the live
// rows around it, or, around a row a compaction archived, the rows of that
// archived stretch as well.
func (s *DB) Around(ctx context.Context, session string, anchor int64, n int) (Window, error) {
	var w Window
	self, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND id = ?"+s.searchable(""), session, anchor)
	if err != nil || len(self) == 0 {
		return w, err
	}
	w.Found = true
	vis := s.live("")
	if s.compacted {
		var archived bool
		if err := s.db.QueryRowContext(ctx, "SELECT COALESCE(active, 1) <> 1 AND compacted = 1 FROM messages WHERE id = ?", anchor).Scan(&archived); err != nil {
			return w, s.db.Explain("read message", err)
		}
		if archived {
			vis = s.searchable("")
		}
	}
	before, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND id < ?"+vis+" ORDER BY id DESC LIMIT ?", session, anchor, n)
	if err != nil {
		return w, err
	}
	after, err := s.messages(ctx, "SELECT "+messageCols+" FROM messages WHERE session_id = ? AND id > ?"+vis+" ORDER BY id ASC LIMIT ?", session, anchor, n)
	if err != nil {
		return w, err
	}
	for i := len(before) - 1; i >= 0; i-- {
		w.Messages = append(w.Messages, before[i])
	}
	w.Messages = append(w.Messages, self[0])
	w.Messages = append(w.Messages, after...)
	first, last := w.Messages[0].ID, w.Messages[len(w.Messages)-1].ID
	if w.Before, err = s.count(ctx, "SELECT count(*) FROM messages WHERE session_id = ? AND id < ?"+vis, session, first); err != nil {
		return w, err
	}
	w.After, err = s.count(ctx, "SELECT count(*) FROM messages WHERE session_id = ? AND id > ?"+vis, session, last)
	return w, err
}

// Ends returns the first and last n messages of a session, leaving out
// those in skip.
func (s *DB) Ends(ctx context.Context, session string, n int, skip map[int64]bool) (head, tail []Message, err error) {
	act := s.live("")
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
	act := s.live("")
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

// Search runs a full-text query over the messages Hermes' search shows (of
// the given roles) and returns up to max hits, best first (or by time when
// sort is "newest" or "oldest"). It routes a query as Hermes does:
//   - tool output, a detached index or a file without one: LIKE over
//     messages (the word index holds only the first 8192 characters of a
//     tool result, and a detached one misses rows);
//   - Chinese, Japanese or Korean text: the trigram index when every such
//     word has three characters or more, else LIKE (the word index splits
//     those scripts into single characters);
//   - anything else: the word index; with no hit, the trigram index
//     again, which finds a word glued to other text ("修改youer服务端").
//
// Rows a deferred rebuild has not indexed yet are added by LIKE.
func (s *DB) Search(ctx context.Context, query string, roles []string, sortBy string, max int) ([]Hit, error) {
	q := parseQuery(query)
	if len(q.groups) == 0 {
		return nil, nil
	}
	if slices.Contains(roles, "tool") || !s.fts {
		return s.like(ctx, q.groups, roles, sortBy, max, "")
	}
	var hits []Hit
	var err error
	if containsCJK(query) {
		if s.trigram && trigramCJKRoute(q.words) {
			hits, err = s.match(ctx, "messages_fts_trigram", q.match, roles, sortBy, max)
		} else {
			// Any of the words: one LIKE clause per word, as Hermes does.
			var any [][]string
			for _, w := range q.words {
				any = append(any, []string{w})
			}
			hits, err = s.like(ctx, any, roles, "newest", max, "")
		}
	} else {
		hits, err = s.match(ctx, "messages_fts", q.match, roles, sortBy, max)
		if err == nil && len(hits) == 0 && s.trigram && trigramEligible(q.words) {
			hits, err = s.match(ctx, "messages_fts_trigram", q.match, roles, sortBy, max)
		}
	}
	if err != nil {
		return nil, err
	}
	if s.gapTo > s.gapFrom && len(hits) < max {
		gap, err := s.like(ctx, [][]string{q.words}, roles, "newest", max-len(hits),
			fmt.Sprintf(" AND m.id > %d AND m.id <= %d", s.gapFrom, s.gapTo))
		if err != nil {
			return nil, err
		}
		seen := map[int64]bool{}
		for _, h := range hits {
			seen[h.ID] = true
		}
		for _, h := range gap {
			if !seen[h.ID] {
				hits = append(hits, h)
			}
		}
	}
	return hits, nil
}

// hitCols are the columns of a hit, from messages m and sessions se.
const hitCols = "m.id, m.session_id, m.role, COALESCE(m.content, ''), COALESCE(m.tool_name, ''), m.tool_calls, m.timestamp, " +
	"se.id, COALESCE(se.source, ''), COALESCE(se.model, ''), COALESCE(se.title, ''), COALESCE(se.started_at, 0), se.ended_at, " +
	"COALESCE(se.end_reason, ''), COALESCE(se.parent_session_id, ''), COALESCE(se.message_count, 0)"

// filters are the conditions every route shares: the roles asked for, no
// hidden sources, Hermes' search visibility. Archived sessions are
// searched, as Hermes searches them; only listings leave them out.
func (s *DB) filters(roles []string) (string, []any) {
	var args []any
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
	return " AND m.role IN (" + strings.Join(rolePH, ",") + ") AND COALESCE(se.source, '') NOT IN (" + strings.Join(hidden, ",") + ")" +
		s.searchable("m."), args
}

func (s *DB) match(ctx context.Context, table, match string, roles []string, sortBy string, max int) ([]Hit, error) {
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
	where, fargs := s.filters(roles)
	args := append([]any{match, max * 8}, fargs...)
	args = append(args, max)
	q := "WITH f AS (SELECT rowid, rank FROM " + table + " WHERE " + table + " MATCH ? ORDER BY " + inner + " LIMIT ?) " +
		"SELECT " + hitCols + " FROM f JOIN messages m ON m.id = f.rowid JOIN sessions se ON se.id = m.session_id " +
		"WHERE 1 = 1" + where + " ORDER BY " + order + " LIMIT ?"
	return s.hits(ctx, q, args...)
}

// like finds messages by substring: every word of one of the groups in the
// content, tool name or tool calls (FTS5's implicit AND, OR between
// groups), newest first unless sort is "oldest".
func (s *DB) like(ctx context.Context, groups [][]string, roles []string, sortBy string, max int, extra string) ([]Hit, error) {
	var clauses []string
	var args []any
	for _, g := range groups {
		var terms []string
		for _, w := range g {
			terms = append(terms, `(COALESCE(m.content, '') LIKE ? ESCAPE '\' OR COALESCE(m.tool_name, '') LIKE ? ESCAPE '\' OR COALESCE(m.tool_calls, '') LIKE ? ESCAPE '\')`)
			p := "%" + escapeLike(w) + "%"
			args = append(args, p, p, p)
		}
		if len(terms) > 0 {
			clauses = append(clauses, "("+strings.Join(terms, " AND ")+")")
		}
	}
	if len(clauses) == 0 {
		return nil, nil
	}
	order := "m.timestamp DESC, m.id DESC"
	if sortBy == "oldest" {
		order = "m.timestamp ASC, m.id ASC"
	}
	where, fargs := s.filters(roles)
	args = append(append(args, fargs...), max)
	q := "SELECT " + hitCols + " FROM messages m JOIN sessions se ON se.id = m.session_id WHERE (" +
		strings.Join(clauses, " OR ") + ")" + where + extra + " ORDER BY " + order + " LIMIT ?"
	return s.hits(ctx, q, args...)
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}

func (s *DB) hits(ctx context.Context, q string, args ...any) ([]Hit, error) {
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
		h.Content = hermesstate.ContentText(h.Content)
		h.ToolCalls = toolCallNames(calls.String)
		out = append(out, h)
	}
	return out, s.db.Explain("search messages", rows.Err())
}

// Recent returns the latest (or earliest) sessions the user would
// recognise as conversations, as Hermes' browse lists them: not archived,
// not hidden sources, and of the child sessions only branches and resets
// (a compression's continuation and a delegated run are part of another
// conversation). Latest means most recently active.
func (s *DB) Recent(ctx context.Context, sortBy string, limit int) ([]Session, error) {
	order := "started_at DESC"
	if s.lastActivity {
		order = "COALESCE(last_activity_at, started_at) DESC, started_at DESC"
	}
	if sortBy == "oldest" {
		order = "started_at ASC"
	}
	var args []any
	hidden := make([]string, len(hiddenSources))
	for i, h := range hiddenSources {
		hidden[i] = "?"
		args = append(args, h)
	}
	where := " WHERE COALESCE(source, '') NOT IN (" + strings.Join(hidden, ",") + ")"
	if s.archived {
		where += " AND COALESCE(archived, 0) = 0"
	}
	if s.modelConfig {
		children := []string{
			"parent_session_id IS NULL",
			hermesstate.JSONField("sessions.model_config", "_branched_from") + " IS NOT NULL",
			hermesstate.JSONField("sessions.model_config", "_reset_from") + " IS NOT NULL",
			"EXISTS (SELECT 1 FROM sessions p WHERE p.id = sessions.parent_session_id AND p.end_reason = 'branched' AND sessions.started_at >= p.ended_at)",
		}
		if s.sessionKey {
			children = append(children, "EXISTS (SELECT 1 FROM sessions p WHERE p.id = sessions.parent_session_id "+
				"AND p.end_reason IN ('"+strings.Join(hermesstate.ResetReasons, "', '")+"') "+
				"AND sessions.session_key IS NOT NULL AND sessions.session_key != '' AND sessions.session_key = p.session_key)")
		}
		where += " AND (" + strings.Join(children, " OR ") + ") AND " + hermesstate.JSONField("sessions.model_config", "_delegate_from") + " IS NULL"
	}
	args = append(args, limit)
	rows, err := s.db.QueryContext(ctx, "SELECT "+sessionCols+" FROM sessions"+where+" ORDER BY "+order+" LIMIT ?", args...)
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
	err := s.db.QueryRowContext(ctx, "SELECT content FROM messages WHERE session_id = ? AND role = 'user' AND content IS NOT NULL"+s.live("")+" ORDER BY id LIMIT 1", session).Scan(&content)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", s.db.Explain("preview session "+session, err)
	}
	return hermesstate.ContentText(content.String), nil
}

// query is free text made safe for FTS5 and LIKE.
type query struct {
	// match is the FTS5 query: every word quoted (so punctuation and FTS
	// keywords are plain text), words ANDed, an upper-case OR between
	// words kept, a trailing * keeping its prefix meaning.
	match string
	// words are the words without quotes or *; groups are the words
	// between ORs, each group's words all required.
	words  []string
	groups [][]string
}

func parseQuery(text string) query {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"'
	})
	var q query
	var parts []string
	var group []string
	for _, f := range fields {
		if f == "OR" {
			if len(parts) > 0 && parts[len(parts)-1] != "OR" {
				parts = append(parts, "OR")
				q.groups = append(q.groups, group)
				group = nil
			}
			continue
		}
		prefix := strings.HasSuffix(f, "*")
		f = strings.TrimRight(f, "*")
		if strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) == "" {
			continue
		}
		part := `"` + f + `"`
		if prefix {
			part += "*"
		}
		parts = append(parts, part)
		q.words = append(q.words, f)
		group = append(group, f)
	}
	for len(parts) > 0 && parts[len(parts)-1] == "OR" {
		parts = parts[:len(parts)-1]
	}
	if len(group) > 0 {
		q.groups = append(q.groups, group)
	}
	q.match = strings.Join(parts, " ")
	return q
}

// cjkRanges are the scripts Hermes routes past the word index: CJK
// ideographs (with extensions A and B), CJK symbols, Hiragana, Katakana
// and Hangul syllables.
var cjkRanges = [][2]rune{
	{0x4E00, 0x9FFF}, {0x3400, 0x4DBF}, {0x20000, 0x2A6DF}, {0x3000, 0x303F},
	{0x3040, 0x309F}, {0x30A0, 0x30FF}, {0xAC00, 0xD7AF},
}

func isCJK(r rune) bool {
	for _, rg := range cjkRanges {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

func countCJK(s string) int {
	n := 0
	for _, r := range s {
		if isCJK(r) {
			n++
		}
	}
	return n
}

func containsCJK(s string) bool { return countCJK(s) > 0 }

// trigramCJKRoute says the trigram index can serve a CJK query: every word
// with CJK characters has at least three (a trigram needs three, and one
// short word empties the whole AND).
func trigramCJKRoute(words []string) bool {
	total := 0
	for _, w := range words {
		n := countCJK(w)
		if n > 0 && n < 3 {
			return false
		}
		total += n
	}
	return total >= 3
}

// trigramEligible says every word is at least three characters long.
func trigramEligible(words []string) bool {
	for _, w := range words {
		if utf8.RuneCountInString(w) < 3 {
			return false
		}
	}
	return len(words) > 0
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
