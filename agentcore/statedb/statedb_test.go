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
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/hermesstate"
	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/toolsets/sessions"
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
	if opts.NativeHome == "" {
		opts.NativeHome = filepath.Join(t.TempDir(), ".hermes")
	}
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

	// The rows are what Hermes' append_message writes.
	path := filepath.Join(home, "state.db")
	db := rawDB(t, path)
	var count, calls int
	var profile, created, titleSource sql.NullString
	var lastActivity sql.NullFloat64
	if err := db.QueryRow("SELECT message_count, tool_call_count, profile_name, created_source, title_source, last_activity_at FROM sessions WHERE id = ?", id).
		Scan(&count, &calls, &profile, &created, &titleSource, &lastActivity); err != nil {
		t.Fatal(err)
	}
	if count != 4 || calls != 1 || profile.String != "default" || created.String != "cli" || titleSource.String != "user" ||
		lastActivity.Float64 < float64(clock.Unix()) {
		t.Fatalf("session row: counters %d/%d profile %v created_source %v title_source %v last_activity_at %v", count, calls, profile, created, titleSource, lastActivity)
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

	// Resume in a new process: the codex thread and the transcript are
	// back, and the conversation continues after them.
	if err := s.SetCodexThread(ctx, id, "thr_123"); err != nil {
		t.Fatal(err)
	}
	if err := s.EndSession(ctx, id, ""); err != nil {
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
	if err := s2.ReopenSession(ctx, id); err != nil {
		t.Fatal(err)
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
	s2.Close()

	// A home where only this program ran passes Hermes' checks.
	statetest.Check(t, path, statetest.Expect{Version: 30, Exact: true, Fresh: true,
		Search:  map[string][]string{"crashlooping": {id}, "terminal": {id}, "restart": {id}},
		Counted: []string{id}, Active: []string{id}})
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
	if err := s.EndSession(ctx, "nope", ""); !errors.Is(err, statedb.ErrNotFound) {
		t.Fatalf("end unknown session: %v", err)
	}
	if err := s.CreateSession(ctx, agentcore.SessionMeta{}); err == nil || !strings.Contains(err.Error(), "NewSessionID") {
		t.Fatalf("empty id: %v", err)
	}
	if _, err := statedb.Open(ctx, "", statedb.Options{}); err == nil {
		t.Fatal("empty home accepted")
	}
}

// fixtureHome builds a home whose state.db is made by build.
func fixtureHome(t *testing.T, build func(testing.TB, string)) (home, path string) {
	t.Helper()
	home = t.TempDir()
	path = filepath.Join(home, "state.db")
	build(t, path)
	return home, path
}

// Every kind of state.db this program meets is opened, read and written,
// and afterwards passes Hermes' checks: files Hermes wrote at 30 and 31,
// and files of earlier releases of ours at 16, which are repaired.
func TestExistingFiles(t *testing.T) {
	ctx := context.Background()
	theirs := map[string][]string{
		statetest.WordMain:      {statetest.SessMain},
		statetest.WordChain:     {statetest.SessCompressed, statetest.SessContinuation},
		statetest.WordCompacted: {statetest.SessCompacted},
		statetest.WordArchived:  {statetest.SessArchived},
	}
	tests := []struct {
		name    string
		build   func(testing.TB, string)
		legacy  bool
		read    string // an existing session to load
		note    string
		extra   map[string][]string
		search  map[string][]string
		counted []string
	}{
		{name: "Hermes v30", build: statetest.OriginalV30, read: statetest.SessMain, search: theirs},
		{name: "Hermes v31", build: statetest.V31, read: statetest.SessMain, search: theirs, extra: statetest.V31Columns,
			note: "schema version 31, newer than 30"},
		{name: "ours v16", build: statetest.OursV16, legacy: true, read: statetest.SessOurs, note: "brought from Hermes schema 16 to 30",
			search: map[string][]string{statetest.WordOurs: {statetest.SessOurs}, statetest.WordV16Hermes: {statetest.SessV16Hermes}}},
		{name: "ours v16 after Hermes tried it", build: statetest.OursV16AfterHermes, legacy: true, read: statetest.SessOurs,
			note: "compression_locks recreated", search: map[string][]string{statetest.WordOurs: {statetest.SessOurs}}},
		{name: "ours v16 with Hermes' trigram triggers", build: statetest.OursV16WithHermesTriggers, legacy: true, read: statetest.SessOurs,
			note: "full-text triggers replaced", search: map[string][]string{statetest.WordOurs: {statetest.SessOurs}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, path := fixtureHome(t, tt.build)
			var appBefore int64
			if err := rawDB(t, path).QueryRow("PRAGMA application_id").Scan(&appBefore); err != nil {
				t.Fatal(err)
			}
			modeBefore := journalMode(t, path)
			s := open(t, home, statedb.Options{})
			if notes := strings.Join(s.Notes(), "\n"); tt.note != "" && !strings.Contains(notes, tt.note) {
				t.Errorf("notes %q lack %q", notes, tt.note)
			}
			if _, msgs, err := s.LoadSession(ctx, tt.read); err != nil || len(msgs) == 0 {
				t.Fatalf("load %s: %d messages, %v", tt.read, len(msgs), err)
			}
			id := statedb.NewSessionID(time.Now())
			if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: id, Source: "cli", Model: "gpt-5", Title: "Our chat"}); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendMessages(ctx, id, conversation()); err != nil {
				t.Fatal(err)
			}
			if err := s.AppendMessages(ctx, id, []agentcore.Message{{Role: "user", Content: "and the wallaby service?"}}); err != nil {
				t.Fatal(err)
			}
			if err := s.EndSession(ctx, id, ""); err != nil {
				t.Fatal(err)
			}
			s.Close()

			search := map[string][]string{"crashlooping": {id}, "wallaby": {id}}
			for k, v := range tt.search {
				search[k] = append(search[k], v...)
			}
			statetest.Check(t, path, statetest.Expect{Version: 30, LegacyFTS: tt.legacy, Search: search,
				Counted: []string{id}, Active: []string{id}, ExtraColumns: tt.extra})

			db := rawDB(t, path)
			var appAfter int64
			if err := db.QueryRow("PRAGMA application_id").Scan(&appAfter); err != nil || appAfter != appBefore {
				t.Errorf("application_id %d, was %d (%v)", appAfter, appBefore, err)
			}
			if mode := journalMode(t, path); mode != modeBefore {
				t.Errorf("journal mode %s, was %s", mode, modeBefore)
			}
			var reason string
			if err := db.QueryRow("SELECT end_reason FROM sessions WHERE id = ?", id).Scan(&reason); err != nil || reason != statedb.EndReason {
				t.Errorf("end_reason %q (%v)", reason, err)
			}
		})
	}
}

func journalMode(t *testing.T, path string) string {
	t.Helper()
	// The header says it: bytes 18 and 19 are 2 for WAL, 1 for rollback.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var h [20]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		t.Fatal(err)
	}
	if h[18] == 2 {
		return "wal"
	}
	return "rollback"
}

// The journal mode of an existing file is its owner's choice; a new file
// is created in rollback mode, as Hermes creates one on the SQLite builds
// with the WAL-reset bug it ships with.
func TestJournalModeKept(t *testing.T) {
	for _, mode := range []string{"WAL", "DELETE"} {
		t.Run(mode, func(t *testing.T) {
			home, path := fixtureHome(t, statetest.OriginalV30)
			if _, err := rawDB(t, path).Exec("PRAGMA journal_mode=" + mode); err != nil {
				t.Fatal(err)
			}
			want := journalMode(t, path)
			s := open(t, home, statedb.Options{})
			if err := s.CreateSession(context.Background(), agentcore.SessionMeta{ID: "x"}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if got := journalMode(t, path); got != want {
				t.Errorf("journal mode %s, was %s", got, want)
			}
		})
	}
	home := t.TempDir()
	open(t, home, statedb.Options{}).Close()
	if got := journalMode(t, filepath.Join(home, "state.db")); got != "rollback" {
		t.Errorf("new file journal mode %s", got)
	}
}

// A new state.db is created as Hermes creates one: mode 0600, the whole
// layout at once, under Hermes' creation lock.
func TestCreateLikeHermes(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	path := filepath.Join(home, "state.db")
	lock, err := filelock.Acquire(ctx, path+".quarantine.lock", filelock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := statedb.Open(ctx, home, statedb.Options{BusyTimeout: 200 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "quarantine.lock") {
		t.Fatalf("Open while Hermes creates the file: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("state.db created while the lock was held: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		s, err := statedb.Open(ctx, home, statedb.Options{BusyTimeout: 10 * time.Second})
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	lock.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if mode := statetest.FileMode(t, path); mode != 0o600 {
		t.Errorf("state.db mode %v, want 0600", mode)
	}
	statetest.Check(t, path, statetest.Expect{Version: 30, Exact: true, Fresh: true})
}

// A failed creation leaves no state.db behind (Hermes would quarantine an
// empty one), and an empty state.db found under the lock is moved aside.
func TestCreateFailureAndEmptyFile(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	path := filepath.Join(home, "state.db")
	if err := syscall.Mkfifo(path+"-journal", 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := statedb.Open(ctx, home, statedb.Options{}); err == nil {
		t.Fatal("created state.db beside a FIFO journal")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed creation left %s: %v", path, err)
	}
	if fi, err := os.Lstat(path + "-journal"); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was touched: %v %v", fi, err)
	}

	home = t.TempDir()
	path = filepath.Join(home, "state.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	open(t, home, statedb.Options{}).Close()
	aside, _ := filepath.Glob(path + ".zeroed-*.bak")
	if len(aside) != 1 {
		t.Fatalf("empty state.db not moved aside: %v", aside)
	}
	statetest.Check(t, path, statetest.Expect{Version: 30, Exact: true, Fresh: true})
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
	sqlFile := func(ddl string) func(testing.TB, string) {
		return func(t testing.TB, path string) {
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(ddl); err != nil {
				t.Fatal(err)
			}
		}
	}
	v31With := func(edit func(string) string) func(testing.TB, string) {
		return func(t testing.TB, path string) {
			statetest.V31(t, path)
			db, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			var ddl string
			if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE name = 'messages'").Scan(&ddl); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"PRAGMA writable_schema = ON", "UPDATE sqlite_master SET sql = ? WHERE name = 'messages'", "PRAGMA writable_schema = OFF"} {
				var args []any
				if strings.Contains(q, "?") {
					args = []any{edit(ddl)}
				}
				if _, err := db.Exec(q, args...); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	tests := map[string]struct {
		build func(testing.TB, string)
		want  string
	}{
		"older": {func(t testing.TB, p string) {
			statetest.OursV16(t, p)
			sqlFile("UPDATE schema_version SET version = 15")(t, p)
		}, "older than 16"},
		"foreign": {sqlFile("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes VALUES (1, 'x');"), "not a Hermes state database"},
		"unknown required column": {v31With(func(s string) string {
			return strings.Replace(s, "    tool_call_uid TEXT\n", "    tool_call_uid TEXT,\n    tenant TEXT NOT NULL\n", 1)
		}), "tenant"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			home, _ := fixtureHome(t, tt.build)
			before := fileState(t, home)
			_, err := statedb.Open(context.Background(), home, statedb.Options{})
			if err == nil || !sqlitestore.IsKind(err, sqlitestore.Schema) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Open = %v, want a schema error mentioning %q", err, tt.want)
			}
			if !bytes.Equal(before, fileState(t, home)) {
				t.Fatal("the refused file was changed")
			}
		})
	}
}

// Resuming a session Hermes closed by compressing it continues in its live
// continuation; appending to the closed one is refused, as Hermes refuses.
func TestResumeCompressedSession(t *testing.T) {
	ctx := context.Background()
	home, _ := fixtureHome(t, statetest.OriginalV30)
	s := open(t, home, statedb.Options{})
	meta, msgs, err := s.LoadSession(ctx, statetest.SessCompressed)
	if err != nil {
		t.Fatal(err)
	}
	if meta.ID != statetest.SessContinuation || len(msgs) != 3 || !strings.HasPrefix(msgs[0].Content, "[CONTEXT COMPACTION]") {
		t.Fatalf("resumed %s with %+v", meta.ID, msgs)
	}
	if err := s.AppendMessages(ctx, statetest.SessCompressed, []agentcore.Message{{Role: "user", Content: "x"}}); !errors.Is(err, statedb.ErrCompressed) {
		t.Fatalf("append to the compressed session: %v", err)
	}
	if err := s.ReopenSession(ctx, statetest.SessCompressed); !errors.Is(err, statedb.ErrCompressed) {
		t.Fatalf("reopen the compressed session: %v", err)
	}
	if err := s.AppendMessages(ctx, meta.ID, []agentcore.Message{{Role: "user", Content: "resume the pangolin work"}}); err != nil {
		t.Fatal(err)
	}
}

// What Hermes hides stays hidden when a session is loaded, and content it
// stored as a list of parts comes back as its text.
func TestLoadHermesContent(t *testing.T) {
	ctx := context.Background()
	home, _ := fixtureHome(t, statetest.OriginalV30)
	s := open(t, home, statedb.Options{})
	_, msgs, err := s.LoadSession(ctx, statetest.SessMain)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(msgs, func(m agentcore.Message) bool { return m.Content == statetest.MultimodalText }) {
		t.Errorf("the list-of-parts message is not its text: %+v", msgs)
	}
	for _, m := range msgs {
		if strings.Contains(m.Content, "\x00") {
			t.Errorf("raw JSON content loaded: %q", m.Content)
		}
	}
	for id, word := range map[string]string{statetest.SessRewound: statetest.WordRewound, statetest.SessCompacted: statetest.WordCompacted} {
		_, msgs, err := s.LoadSession(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if strings.Contains(m.Content, word) {
				t.Errorf("session %s loaded a hidden row: %q", id, m.Content)
			}
		}
		if len(msgs) == 0 {
			t.Errorf("session %s loaded nothing", id)
		}
	}
}

// EndSession keeps the first reason; ReopenSession clears it, first
// marking the children a reset of the session started, as Hermes does.
func TestEndAndReopen(t *testing.T) {
	ctx := context.Background()
	home, path := fixtureHome(t, statetest.OriginalV30)
	o := statetest.OpenOriginal(t, path)
	o.CreateSession(statetest.Session{ID: "gw_parent", Source: "telegram", StartedAt: statetest.BaseTime})
	o.CreateSession(statetest.Session{ID: "gw_child", Source: "telegram", Parent: "gw_parent", StartedAt: statetest.BaseTime + 60})
	if _, err := o.DB.Exec("UPDATE sessions SET session_key = 'agent:main:telegram:dm:7' WHERE id IN ('gw_parent', 'gw_child')"); err != nil {
		t.Fatal(err)
	}
	o.EndSession("gw_parent", "session_reset", statetest.BaseTime+30)
	s := open(t, home, statedb.Options{})
	if err := s.EndSession(ctx, "gw_parent", "cli_close"); err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, path)
	var reason sql.NullString
	if err := db.QueryRow("SELECT end_reason FROM sessions WHERE id = 'gw_parent'").Scan(&reason); err != nil || reason.String != "session_reset" {
		t.Fatalf("end_reason %v (%v): the first reason must win", reason, err)
	}
	if err := s.ReopenSession(ctx, "gw_parent"); err != nil {
		t.Fatal(err)
	}
	var ended sql.NullFloat64
	var childConfig sql.NullString
	if err := db.QueryRow("SELECT ended_at, end_reason, (SELECT model_config FROM sessions WHERE id = 'gw_child') FROM sessions WHERE id = 'gw_parent'").
		Scan(&ended, &reason, &childConfig); err != nil {
		t.Fatal(err)
	}
	if ended.Valid || reason.Valid || !strings.Contains(childConfig.String, `"_reset_from":"gw_parent"`) {
		t.Fatalf("after reopen: ended_at %v end_reason %v child model_config %v", ended, reason, childConfig)
	}
}

// A title another session has gets Hermes' lineage numbering.
func TestTitles(t *testing.T) {
	ctx := context.Background()
	home, path := fixtureHome(t, statetest.OriginalV30)
	s := open(t, home, statedb.Options{})
	for _, id := range []string{"t1", "t2"} {
		if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: id, Title: "Deploying the\tbilling\u200b service"}); err != nil {
			t.Fatal(err)
		}
	}
	db := rawDB(t, path)
	for id, want := range map[string]string{"t1": "Deploying the billing service #2", "t2": "Deploying the billing service #3"} {
		var title, source string
		if err := db.QueryRow("SELECT title, title_source FROM sessions WHERE id = ?", id).Scan(&title, &source); err != nil || title != want || source != "user" {
			t.Errorf("%s: title %q source %q (%v), want %q", id, title, source, err, want)
		}
	}
}

// The CJK index's triggers need a tokenizer only Hermes loads: the store
// detaches them as Hermes does, and can then write.
func TestCJKIndexDetached(t *testing.T) {
	ctx := context.Background()
	home, path := fixtureHome(t, func(t testing.TB, p string) {
		statetest.OriginalV30(t, p)
		statetest.WithCJKIndex(t, p)
	})
	s := open(t, home, statedb.Options{})
	if !strings.Contains(strings.Join(s.Notes(), "\n"), "CJK") {
		t.Errorf("notes %q do not mention the CJK index", s.Notes())
	}
	if err := s.CreateSession(ctx, agentcore.SessionMeta{ID: "cjk"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(ctx, "cjk", []agentcore.Message{{Role: "user", Content: "你好"}}); err != nil {
		t.Fatal(err)
	}
	var stale string
	if err := rawDB(t, path).QueryRow("SELECT value FROM state_meta WHERE key = 'fts_cjk_stale'").Scan(&stale); err != nil || stale != "1" {
		t.Errorf("fts_cjk_stale %q (%v)", stale, err)
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
			if _, err := other.Exec("INSERT INTO messages (session_id, role, content, timestamp, active) VALUES ('theirs', 'user', ?, ?, 1)", fmt.Sprint("hermes ", i), float64(i)); err != nil {
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

// TestListSessions lists this program's sessions beside ones the Python
// Hermes wrote straight into the table: most recently active first, with
// the runtime only where this program recorded it, the message count kept,
// archived sessions left out. Listing opens the file read-only.
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
	s.Close()
	path := filepath.Join(home, "state.db")
	db := rawDB(t, path)
	for _, q := range []string{
		`INSERT INTO sessions (id, source, model, started_at, message_count, title) VALUES ('py', 'telegram', 'm3', 1772359200, 7, 'from python')`,
		`INSERT INTO sessions (id, source, model, started_at, message_count, title, archived) VALUES ('gone', 'cli', 'm4', 1772362800, 2, 'archived', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before := fileState(t, home)
	ro := open(t, home, statedb.Options{ReadOnly: true})
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{0, []string{"s-new||cli|m2|codex|0", "py|from python|telegram|m3||7", "s-old|first|cli|m1|native|4"}},
		{2, []string{"s-new||cli|m2|codex|0", "py|from python|telegram|m3||7"}},
	} {
		got, err := ro.ListSessions(ctx, tc.limit)
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
	if err := ro.CreateSession(ctx, agentcore.SessionMeta{ID: "w"}); err == nil {
		t.Error("a read-only store wrote")
	}
	ro.Close()
	if !bytes.Equal(before, fileState(t, home)) {
		t.Error("listing changed state.db")
	}
}

// A newer Hermes schema is read and written (the columns used exist) and
// left at its version; listing it read-only says so too.
func TestNewerSchemaUsedAsIs(t *testing.T) {
	home, path := fixtureHome(t, statetest.V31)
	ro := open(t, home, statedb.Options{ReadOnly: true})
	if notes := ro.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "31") {
		t.Errorf("notes %q", notes)
	}
	ro.Close()
	s := open(t, home, statedb.Options{})
	if err := s.CreateSession(context.Background(), agentcore.SessionMeta{ID: "x"}); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := rawDB(t, path).QueryRow("SELECT version FROM schema_version").Scan(&v); err != nil || v != 31 {
		t.Errorf("version %d (%v)", v, err)
	}
}

var _ = hermesstate.SchemaVersion
