package statedb_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/hermesstate"

	_ "modernc.org/sqlite"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/mcpserver/sessions"
)

func conversation() []agentcore.Message {
	return []agentcore.Message{
		{Role: "user", Content: "Which pods are crashlooping in the staging cluster?"},
		{Role: "assistant", Reasoning: "check the cluster", ToolCalls: []agentcore.ToolCall{{ID: "call_1", Type: "function",
			Function: agentcore.FunctionCall{Name: "terminal", Arguments: `{"command":"kubectl get pods"}`}}}},
		{Role: "tool", ToolCallID: "call_1", Content: "ledger-worker-7 CrashLoopBackOff"},
		{Role: "assistant", Content: "ledger-worker-7 is crashlooping."},
	}
}

func open(t *testing.T, home string, opts statedb.Options) *statedb.Store {
	t.Helper()
	s, err := statedb.Open(context.Background(), home, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestRoundTripAndResume(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	clock := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	s := open(t, home, statedb.Options{Now: func() time.Time { return clock }})
	id := statedb.NewSessionID(clock)
	if len(id) != len("20260301_093000_abcdef") || !strings.HasPrefix(id, "20260301_093000_") {
		t.Fatalf("session id %q not in Hermes' format", id)
	}
	meta := agentcore.SessionMeta{ID: id, Source: "cli", Model: "gpt-5", Provider: "openai", Runtime: "native", Title: "Staging pods", StartedAt: clock}
	if err := s.CreateSession(ctx, meta); err != nil {
		t.Fatal(err)
	}
	// Creating again is a no-op, as in Hermes.
	if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: id, Model: "other"}); err != nil {
		t.Fatal(err)
	}
	msgs := conversation()
	// A turn appended in two calls: the tool result's name is found in
	// the stored call.
	if err := s.AppendMessages(ctx, id, msgs[:2]); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(ctx, id, msgs[2:]); err != nil {
		t.Fatal(err)
	}
	gotMeta, got, err := s.LoadSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, msgs) {
		t.Fatalf("messages:\n got %+v\nwant %+v", got, msgs)
	}
	if !gotMeta.StartedAt.Equal(clock) {
		t.Fatalf("started %v, want %v", gotMeta.StartedAt, clock)
	}
	gotMeta.StartedAt = meta.StartedAt
	if gotMeta != meta {
		t.Fatalf("meta:\n got %+v\nwant %+v", gotMeta, meta)
	}

	// The rows are what hermes_state.append_message writes.
	db := rawDB(t, filepath.Join(home, "state.db"))
	var count, calls int
	if err := db.QueryRow("SELECT message_count, tool_call_count FROM sessions WHERE id = ?", id).Scan(&count, &calls); err != nil {
		t.Fatal(err)
	}
	if count != 4 || calls != 1 {
		t.Fatalf("counters %d/%d, want 4/1", count, calls)
	}
	var content sql.NullString
	var toolCalls, toolName, callID sql.NullString
	if err := db.QueryRow("SELECT content, tool_calls FROM messages WHERE session_id = ? AND role = 'assistant' ORDER BY id LIMIT 1", id).Scan(&content, &toolCalls); err != nil {
		t.Fatal(err)
	}
	if content.Valid || !strings.Contains(toolCalls.String, `"function":{"name":"terminal"`) {
		t.Fatalf("tool-calling assistant row: content %v tool_calls %q", content, toolCalls.String)
	}
	if err := db.QueryRow("SELECT tool_name, tool_call_id FROM messages WHERE session_id = ? AND role = 'tool'", id).Scan(&toolName, &callID); err != nil {
		t.Fatal(err)
	}
	if toolName.String != "terminal" || callID.String != "call_1" {
		t.Fatalf("tool row: tool_name %q tool_call_id %q", toolName.String, callID.String)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q (%v), want wal", mode, err)
	}

	// Resume in a new process: the codex thread and the transcript are
	// back, and the conversation continues after them.
	if err := s.SetCodexThread(ctx, id, "thr_123"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2 := open(t, home, statedb.Options{})
	gotMeta, got, err = s2.LoadSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if gotMeta.CodexThreadID != "thr_123" || gotMeta.Runtime != "native" || len(got) != 4 {
		t.Fatalf("resumed meta %+v, %d messages", gotMeta, len(got))
	}
	more := []agentcore.Message{{Role: "user", Content: "restart it"}, {Role: "assistant", Content: "Restarted."}}
	if err := s2.AppendMessages(ctx, id, more); err != nil {
		t.Fatal(err)
	}
	_, got, err = s2.LoadSession(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, append(msgs, more...)) {
		t.Fatalf("after resume: %+v", got)
	}
	// Hermes keeps nothing of ours in its own tables' shape: the thread
	// id lives under our namespaced state_meta key.
	var side string
	if err := db.QueryRow("SELECT value FROM state_meta WHERE key = ?", "hermes-go:session:"+id).Scan(&side); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(side, `"codex_thread_id":"thr_123"`) {
		t.Fatalf("state_meta record %s", side)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir(), statedb.Options{})
	if err := s.AppendMessages(ctx, "nope", conversation()); !errors.Is(err, statedb.ErrNotFound) {
		t.Fatalf("append to unknown session: %v", err)
	}
	if _, _, err := s.LoadSession(ctx, "nope"); !errors.Is(err, statedb.ErrNotFound) {
		t.Fatalf("load unknown session: %v", err)
	}
	if err := s.SetCodexThread(ctx, "nope", "t"); !errors.Is(err, statedb.ErrNotFound) {
		t.Fatalf("thread for unknown session: %v", err)
	}
	if err := s.CreateSession(ctx, agentcore.SessionMeta{}); err == nil || !strings.Contains(err.Error(), "NewSessionID") {
		t.Fatalf("empty id: %v", err)
	}
	if _, err := statedb.Open(ctx, "", statedb.Options{}); err == nil {
		t.Fatal("empty home accepted")
	}
}

// hermesFile builds a state.db the way Hermes' tests do, from the schema
// reconstruction the session_search reader is tested against, edited by
// edit.
func hermesFile(t *testing.T, edit func(string) string) string {
	t.Helper()
	schema := []byte(hermesstate.SchemaV16)
	home := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(home, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(edit(string(schema))); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestExistingHermesFile(t *testing.T) {
	ctx := context.Background()
	withoutTriggers := func(s string) string { return s[:strings.Index(s, "CREATE TRIGGER")] }
	for name, edit := range map[string]func(string) string{
		"triggers":    func(s string) string { return s },
		"no triggers": withoutTriggers,
	} {
		t.Run(name, func(t *testing.T) {
			home := hermesFile(t, edit)
			s := open(t, home, statedb.Options{})
			if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: "s1", Source: "cli"}); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendMessages(ctx, "s1", conversation()); err != nil {
				t.Fatal(err)
			}
			// Indexed exactly once, whichever way the file feeds FTS.
			db := rawDB(t, filepath.Join(home, "state.db"))
			for q, want := range map[string]int{
				"SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'crashlooping'":              2,
				"SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'terminal'":                  2, // the call and the result's tool_name
				"SELECT count(*) FROM messages_fts_trigram WHERE messages_fts_trigram MATCH 'CrashLoop'": 3,
			} {
				var n int
				if err := db.QueryRow(q).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != want {
					t.Errorf("%s = %d, want %d", q, n, want)
				}
			}
		})
	}
}

func fileState(t *testing.T, home string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, suffix := range []string{"", "-wal", "-journal"} {
		data, err := os.ReadFile(filepath.Join(home, "state.db"+suffix))
		if err == nil {
			fmt.Fprintf(&b, "%s:%x\n", suffix, data)
		}
	}
	return b.Bytes()
}

func TestRefusesForeignSchemasUntouched(t *testing.T) {
	tests := map[string]struct {
		edit func(string) string
		want string
	}{
		"newer": {func(s string) string { return strings.Replace(s, "VALUES (16)", "VALUES (17)", 1) }, "newer than the version 16"},
		"older": {func(s string) string { return strings.Replace(s, "VALUES (16)", "VALUES (15)", 1) }, "start the Python Hermes once"},
		"foreign": {func(string) string {
			return "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'x');"
		},
			"not a Hermes state database"},
		"unknown required column": {func(s string) string {
			return strings.Replace(s, "    archived INTEGER DEFAULT 0\n", "    archived INTEGER DEFAULT 0,\n    tenant TEXT NOT NULL\n", 1)
		}, "tenant"},
		"missing column": {func(s string) string { return strings.Replace(s, "    tool_call_id TEXT,\n", "", 1) }, "missing: tool_call_id"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			home := hermesFile(t, tt.edit)
			before := fileState(t, home)
			_, err := statedb.Open(context.Background(), home, statedb.Options{})
			if err == nil || !sqlitestore.IsKind(err, sqlitestore.Schema) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open = %v, want a schema error mentioning %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "left untouched") {
				t.Errorf("error does not say the file was left alone: %v", err)
			}
			if !bytes.Equal(before, fileState(t, home)) {
				t.Fatal("the refused file was changed")
			}
		})
	}
}

func TestNewFileIsReadableBySessionSearch(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s := open(t, home, statedb.Options{})
	id := statedb.NewSessionID(time.Now())
	if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: id, Source: "cli", Model: "gpt-5", Title: "Staging pods"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(ctx, id, conversation()); err != nil {
		t.Fatal(err)
	}
	handler := sessions.Toolset(sessions.Options{Home: home, Getenv: func(string) string { return "" }}).Tools[0].Handler
	call := func(args map[string]any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(args)
		res, err := handler(ctx, raw)
		if err != nil || res.IsError {
			t.Fatalf("session_search %v: %v %+v", args, err, res.Value)
		}
		data, _ := json.Marshal(res.Value)
		var out map[string]any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, args := range []map[string]any{
		{"query": "crashlooping staging"},
		{"query": "CrashLoopBackOff", "role_filter": "tool"},
		{"query": "terminal", "role_filter": "assistant"},
	} {
		out := call(args)
		results, _ := out["results"].([]any)
		if len(results) != 1 {
			t.Fatalf("%v: %d results: %v", args, len(results), out)
		}
		r := results[0].(map[string]any)
		if r["session_id"] != id || r["title"] != "Staging pods" || r["model"] != "gpt-5" {
			t.Fatalf("%v: result %v", args, r)
		}
	}
	read := call(map[string]any{"session_id": id})
	if n, _ := json.Marshal(read); !strings.Contains(string(n), "ledger-worker-7 is crashlooping.") {
		t.Fatalf("read: %s", n)
	}
}

func TestConcurrentWriter(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	s := open(t, home, statedb.Options{BusyTimeout: 5 * time.Second})
	if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: "mine", Source: "cli"}); err != nil {
		t.Fatal(err)
	}
	// Hermes, on its own connection, holds the write lock for a while and
	// writes its own session meanwhile.
	other := rawDB(t, filepath.Join(home, "state.db"))
	other.SetMaxOpenConns(1)
	tx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO sessions (id, source, started_at) VALUES ('theirs', 'telegram', 1)"); err != nil {
		t.Fatal(err)
	}
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		released <- time.Now()
		tx.Commit()
	}()
	start := time.Now()
	if err := s.AppendMessages(ctx, "mine", conversation()); err != nil {
		t.Fatalf("append while Hermes writes: %v", err)
	}
	if r := <-released; time.Since(start) < 250*time.Millisecond || time.Now().Before(r) {
		t.Fatal("the append did not wait for the other writer")
	}

	// Interleaved writers: both finish, nothing is lost.
	done := make(chan error, 1)
	go func() {
		for i := 0; i < 50; i++ {
			if _, err := other.Exec("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('theirs', 'user', ?, ?)", fmt.Sprint("hermes ", i), float64(i)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 50; i++ {
		if err := s.AppendMessages(ctx, "mine", []agentcore.Message{{Role: "user", Content: fmt.Sprint("go ", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_, got, err := s.LoadSession(ctx, "mine")
	if err != nil || len(got) != 54 || got[53].Content != "go 49" {
		t.Fatalf("after interleaving: %d messages, %v", len(got), err)
	}

	// A lock held past the busy timeout is a clear, classified error.
	short := open(t, home, statedb.Options{BusyTimeout: 100 * time.Millisecond})
	tx, err = other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("UPDATE sessions SET title = 'x' WHERE id = 'theirs'"); err != nil {
		t.Fatal(err)
	}
	err = short.AppendMessages(ctx, "mine", conversation())
	tx.Rollback()
	if !sqlitestore.IsKind(err, sqlitestore.Locked) || !strings.Contains(err.Error(), "retry") {
		t.Fatalf("append under a held lock: %v", err)
	}
}

// TestListSessions lists this program's sessions beside one the Python
// Hermes wrote straight into the table: newest first, with the runtime
// only where this program recorded it and the message count kept.
func TestListSessions(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	clock := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	s := open(t, home, statedb.Options{Now: func() time.Time { return clock }})
	for i, m := range []agentcore.SessionMeta{
		{ID: "s-old", Model: "m1", Runtime: "native", Title: "first", StartedAt: clock},
		{ID: "s-new", Model: "m2", Runtime: "codex", StartedAt: clock.Add(2 * time.Hour)},
	} {
		if err := s.CreateSession(ctx, m); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if err := s.AppendMessages(ctx, m.ID, conversation()); err != nil {
				t.Fatal(err)
			}
		}
	}
	db := rawDB(t, filepath.Join(home, "state.db"))
	if _, err := db.Exec(`INSERT INTO sessions (id, source, model, started_at, message_count, title) VALUES ('py', 'telegram', 'm3', ?, 7, 'from python')`,
		float64(clock.Add(time.Hour).Unix())); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{0, []string{"s-new||cli|m2|codex|0", "py|from python|telegram|m3||7", "s-old|first|cli|m1|native|4"}},
		{2, []string{"s-new||cli|m2|codex|0", "py|from python|telegram|m3||7"}},
	} {
		got, err := s.ListSessions(ctx, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, g := range got {
			lines = append(lines, fmt.Sprintf("%s|%s|%s|%s|%s|%d", g.ID, g.Title, g.Source, g.Model, g.Runtime, g.Messages))
		}
		if !reflect.DeepEqual(lines, tc.want) {
			t.Errorf("limit %d: got %q, want %q", tc.limit, lines, tc.want)
		}
	}
}
