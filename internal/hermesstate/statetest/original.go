// Package statetest builds state.db fixtures the way the Python Hermes
// writes them and checks files "in Hermes' terms": its integrity checks,
// its layout, its insert statement and its search query. Tests of every
// package that touches state.db share it.
package statetest

import (
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite"
)

// Original writes rows with the statements Hermes (SCHEMA_VERSION 30)
// uses, on a connection set up as Hermes sets up its own (foreign keys on,
// one write transaction per call).
type Original struct {
	DB *sql.DB
	t  testing.TB
}

// OpenOriginal opens path as Hermes' writer does.
func OpenOriginal(t testing.TB, path string) *Original {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return &Original{DB: db, t: t}
}

func (o *Original) tx(fn func(tx *sql.Tx)) {
	o.t.Helper()
	tx, err := o.DB.Begin()
	if err != nil {
		o.t.Fatal(err)
	}
	fn(tx)
	if err := tx.Commit(); err != nil {
		o.t.Fatal(err)
	}
}

func (o *Original) exec(tx *sql.Tx, q string, args ...any) sql.Result {
	o.t.Helper()
	res, err := tx.Exec(q, args...)
	if err != nil {
		o.t.Fatalf("%s: %v", firstLine(q), err)
	}
	return res
}

func firstLine(q string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(q), "\n")
	return l
}

// Session is what create_session is given.
type Session struct {
	ID, Source, Model, Parent, Profile, Cwd, SystemPrompt string
	// ModelConfig is stored as given (JSON text) when set.
	ModelConfig string
	StartedAt   float64
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// insertSessionSQL is _insert_session_row's upsert: every column an earlier
// writer set is kept.
const insertSessionSQL = `INSERT INTO sessions (
   id, source, user_id, session_key, chat_id, chat_type, thread_id,
   model, model_config, system_prompt, system_prompt_hash,
   parent_session_id, cwd, profile_name, git_repo_root,
   origin_json, display_name, started_at
)
   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?)
   ON CONFLICT(id) DO UPDATE SET
       source = CASE WHEN sessions.source = 'unknown' THEN COALESCE(excluded.source, 'unknown') ELSE sessions.source END,
       model = COALESCE(sessions.model, excluded.model),
       model_config = COALESCE(sessions.model_config, excluded.model_config),
       system_prompt_hash = COALESCE(sessions.system_prompt_hash, excluded.system_prompt_hash),
       system_prompt = CASE WHEN sessions.system_prompt_hash IS NULL AND excluded.system_prompt_hash IS NOT NULL THEN NULL ELSE sessions.system_prompt END,
       session_key = COALESCE(sessions.session_key, excluded.session_key),
       chat_id = COALESCE(sessions.chat_id, excluded.chat_id),
       chat_type = COALESCE(sessions.chat_type, excluded.chat_type),
       thread_id = COALESCE(sessions.thread_id, excluded.thread_id),
       parent_session_id = COALESCE(sessions.parent_session_id, excluded.parent_session_id),
       cwd = COALESCE(sessions.cwd, excluded.cwd),
       profile_name = COALESCE(sessions.profile_name, excluded.profile_name),
       git_repo_root = COALESCE(sessions.git_repo_root, excluded.git_repo_root),
       origin_json = COALESCE(sessions.origin_json, excluded.origin_json),
       display_name = COALESCE(sessions.display_name, excluded.display_name)`

// CreateSession is SessionDB.create_session.
func (o *Original) CreateSession(s Session) {
	o.t.Helper()
	o.tx(func(tx *sql.Tx) { o.CreateSessionTx(tx, s) })
}

// Tx runs fn in one write transaction, for fixtures that write many rows.
func (o *Original) Tx(fn func(tx *sql.Tx)) {
	o.t.Helper()
	o.tx(fn)
}

// CreateSessionTx is CreateSession inside the caller's transaction.
func (o *Original) CreateSessionTx(tx *sql.Tx, s Session) {
	o.t.Helper()
	var hash any
	if s.SystemPrompt != "" {
		sum := sha256.Sum256([]byte(s.SystemPrompt))
		h := fmt.Sprintf("%x", sum)
		o.exec(tx, "INSERT OR IGNORE INTO system_prompts (hash, prompt) VALUES (?, ?)", h, s.SystemPrompt)
		hash = h
	}
	o.exec(tx, insertSessionSQL, s.ID, s.Source, nil, nil, nil, nil, nil, nullable(s.Model), nullable(s.ModelConfig), hash,
		nullable(s.Parent), nullable(s.Cwd), nullable(s.Profile), nil, nil, nil, s.StartedAt)
	if s.Parent != "" {
		o.exec(tx, `UPDATE sessions SET cwd = COALESCE(sessions.cwd, (SELECT p.cwd FROM sessions p WHERE p.id = sessions.parent_session_id)),
			profile_name = COALESCE(sessions.profile_name, (SELECT p.profile_name FROM sessions p WHERE p.id = sessions.parent_session_id))
			WHERE id = ? AND parent_session_id IS NOT NULL`, s.ID)
	}
}

// EndSessionTx is EndSession inside the caller's transaction.
func (o *Original) EndSessionTx(tx *sql.Tx, id, reason string, at float64) {
	o.t.Helper()
	o.exec(tx, "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL", at, reason, id)
}

// InsertMessageSQL is Hermes' _INSERT_MESSAGE_SQL, the statement every
// message it writes goes through.
const InsertMessageSQL = `INSERT INTO messages (session_id, role, content, tool_call_id,
                   tool_calls, tool_name, effect_disposition, timestamp, token_count, finish_reason,
                   reasoning, reasoning_content, reasoning_details, codex_reasoning_items,
                   codex_message_items, platform_message_id, observed, _compressed_summary, active, api_content, display_kind,
                   display_metadata, display_identity)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// ToolCall is one OpenAI-style tool call, in the key order Hermes stores.
type ToolCall struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function is a tool call's function and JSON arguments.
type Function struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Call is a function tool call.
func Call(id, name, args string) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: Function{Name: name, Arguments: args}}
}

// Msg is what append_message is given.
type Msg struct {
	Role string
	// Content is a string, nil, or a list of parts (stored as
	// "\x00json:" + JSON, as Hermes stores multimodal content).
	Content     any
	ToolCallID  string
	ToolName    string
	ToolCalls   []ToolCall
	Reasoning   string
	DisplayKind string
	Timestamp   float64
}

// StoredContent is the messages.content value Hermes writes for content.
func StoredContent(content any) any {
	switch c := content.(type) {
	case nil:
		return nil
	case string:
		return c
	default:
		return "\x00json:" + PyJSON(c)
	}
}

// AppendMessage is SessionDB.append_message: one insert and the session's
// counters, in one transaction. It returns the new row's id.
func (o *Original) AppendMessage(sessionID string, m Msg) int64 {
	o.t.Helper()
	var id int64
	o.tx(func(tx *sql.Tx) { id = o.AppendMessageTx(tx, sessionID, m) })
	return id
}

// AppendMessageTx is AppendMessage inside the caller's transaction.
func (o *Original) AppendMessageTx(tx *sql.Tx, sessionID string, m Msg) int64 {
	o.t.Helper()
	content := StoredContent(m.Content)
	var calls any
	if len(m.ToolCalls) > 0 {
		calls = PyJSON(m.ToolCalls)
	}
	identity := DisplayIdentity(m.Role, content, m.Timestamp, nullable(m.ToolCallID), calls, nullable(m.ToolName))
	res := o.exec(tx, InsertMessageSQL, sessionID, m.Role, content, nullable(m.ToolCallID), calls, nullable(m.ToolName), nil,
		m.Timestamp, nil, nil, nullable(m.Reasoning), nil, nil, nil, nil, nil, 0, 0, 1, nil, nullable(m.DisplayKind), nil, identity)
	id, err := res.LastInsertId()
	if err != nil {
		o.t.Fatal(err)
	}
	if n := len(m.ToolCalls); n > 0 {
		o.exec(tx, "UPDATE sessions SET message_count = message_count + 1, tool_call_count = tool_call_count + ? WHERE id = ?", n, sessionID)
	} else {
		o.exec(tx, "UPDATE sessions SET message_count = message_count + 1 WHERE id = ?", sessionID)
	}
	return id
}

// EndSession is SessionDB.end_session: the first reason wins.
func (o *Original) EndSession(id, reason string, at float64) {
	o.t.Helper()
	o.tx(func(tx *sql.Tx) { o.EndSessionTx(tx, id, reason, at) })
}

// SetTitle records a title with its provenance.
func (o *Original) SetTitle(id, title, source string) {
	o.t.Helper()
	o.tx(func(tx *sql.Tx) {
		o.exec(tx, "UPDATE sessions SET title = ?, title_source = ? WHERE id = ?", title, source, id)
	})
}

// Heartbeat is the activity writer's update of last_activity_at.
func (o *Original) Heartbeat(id string, at float64, what string) {
	o.t.Helper()
	o.tx(func(tx *sql.Tx) {
		o.exec(tx, "UPDATE sessions SET last_activity_at = ?, last_activity_description = ?, last_activity_provenance = ? WHERE id = ?",
			at, what, "agent", id)
	})
}

// Rewind undoes a session from message fromID on: the rows are hidden
// (active = 0, compacted = 0) and the counters recounted from live rows.
func (o *Original) Rewind(id string, fromID int64) {
	o.t.Helper()
	o.tx(func(tx *sql.Tx) {
		o.exec(tx, "UPDATE messages SET active = 0, compacted = 0 WHERE session_id = ? AND id >= ? AND active = 1", id, fromID)
		o.exec(tx, "UPDATE sessions SET rewind_count = COALESCE(rewind_count, 0) + 1 WHERE id = ?", id)
		o.recount(tx, id)
	})
}

func (o *Original) recount(tx *sql.Tx, id string) {
	o.exec(tx, `UPDATE sessions SET
		message_count = (SELECT COUNT(*) FROM messages WHERE session_id = ? AND active = 1),
		tool_call_count = (SELECT COALESCE(SUM(CASE WHEN json_valid(tool_calls) AND json_type(tool_calls) = 'array' THEN json_array_length(tool_calls) ELSE 0 END), 0)
			FROM messages WHERE session_id = ? AND active = 1 AND role = 'assistant' AND tool_calls IS NOT NULL)
		WHERE id = ?`, id, id, id)
}

// CompactInPlace archives a session's live rows (active = 0, compacted = 1:
// out of the model's context, still found by search) and writes keep as
// its new live rows.
func (o *Original) CompactInPlace(id string, keep ...Msg) {
	o.t.Helper()
	o.tx(func(tx *sql.Tx) {
		o.exec(tx, "UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ? AND active = 1", id)
		o.exec(tx, "UPDATE sessions SET message_count = 0, tool_call_count = 0 WHERE id = ?", id)
		for _, m := range keep {
			o.AppendMessageTx(tx, id, m)
		}
	})
}

// Archive hides a session from listings.
func (o *Original) Archive(id string) {
	o.t.Helper()
	o.tx(func(tx *sql.Tx) { o.exec(tx, "UPDATE sessions SET archived = 1 WHERE id = ?", id) })
}

// DisplayIdentity is the display_identity Hermes stores: SHA-256 of the
// Python repr of (role, content, timestamp, tool_call_id, tool_calls,
// tool_name) as stored.
func DisplayIdentity(role string, content any, ts float64, callID, calls, toolName any) []byte {
	parts := []string{pyRepr(role), pyRepr(content), pyFloat(ts), pyRepr(callID), pyRepr(calls), pyRepr(toolName)}
	sum := sha256.Sum256([]byte("(" + strings.Join(parts, ", ") + ")"))
	return sum[:]
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case string:
		return pyStr(x)
	}
	panic(fmt.Sprintf("statetest: no repr for %T", v))
}

// pyStr is Python's repr of a str.
func pyStr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x80 || unicode.IsPrint(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// pyFloat is Python's repr of a float.
func pyFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		panic("statetest: no repr for a non-finite timestamp")
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return fmt.Sprintf("%se%s%02d", mant, sign, exp)
}

// PyJSON is Python's json.dumps with its defaults: ", " and ": " between
// items, non-ASCII escaped, keys in the order given (maps sorted, as a Go
// map has none).
func PyJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	inString := false
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case inString && c == '\\':
			// Go writes <, > and & as \u escapes, as json.dumps does not.
			if i+5 < len(raw) && raw[i+1] == 'u' {
				if r, err := strconv.ParseUint(string(raw[i+2:i+6]), 16, 32); err == nil && r >= 0x20 && r < 0x7f {
					b.WriteByte(byte(r))
					i += 6
					continue
				}
			}
			b.WriteByte(c)
			b.WriteByte(raw[i+1])
			i += 2
			continue
		case c == '"':
			inString = !inString
		case !inString && c == ',':
			b.WriteString(", ")
			i++
			continue
		case !inString && c == ':':
			b.WriteString(": ")
			i++
			continue
		case inString && c >= 0x80:
			r, size := utf8.DecodeRune(raw[i:])
			if r > 0xffff {
				r1, r2 := utf16Pair(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
			i += size
			continue
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
