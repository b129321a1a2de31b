package statetest

import (
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/hermesstate"
)

//go:embed testdata/ours_v16.sql
var oursV16 string

// ResearchV30 is the research's transcription of a fresh store's DDL,
// independent of the embedded schema: the reference the layout checks
// compare with.
//
//go:embed testdata/research_v30_fresh.sql
var ResearchV30 string

// OursV16DDL is the schema earlier releases of this project created.
func OursV16DDL() string { return oursV16 }

// BaseTime is 2026-01-01T00:00:00Z; fixture rows are stamped after it.
const BaseTime = 1767225600.0

// Sessions of the fixtures Hermes wrote (OriginalV30, V31).
const (
	SessMain         = "20260101_090000_a1b2c3"
	SessCompressed   = "20260102_090000_c0ffee"
	SessContinuation = "20260102_100000_c0ffef"
	SessCron         = "cron_nightly_20260103"
	SessSubagent     = "20260103_120000_5ubag0"
	SessArchived     = "20260104_090000_arch1v"
	SessRewound      = "20260105_090000_rew1nd"
	SessCompacted    = "20260106_090000_cmpct1"
	SessCJK          = "20260107_090000_cjk001"
)

// Sessions of the fixtures earlier releases of this project wrote.
const (
	SessOurs       = "20260201_090000_0a0b0c"
	SessV16Hermes  = "20260131_090000_5e1f00"
	OursTitle      = "Staging pods"
	V16Prompt      = "You are Hermes, at schema 16."
	V16InputTokens = 120
)

// Words that occur only where the fixture put them.
const (
	WordMain       = "canary"     // SessMain, a user message
	WordTool       = "terminal"   // SessMain: the call and the result's tool_name
	WordMultimodal = "screenshot" // SessMain, inside a list-of-parts message
	WordChain      = "pangolin"   // SessCompressed and SessContinuation
	WordCron       = "nightly"    // SessCron
	WordArchived   = "quokka"     // SessArchived
	WordRewound    = "zebracorn"  // SessRewound, rewound rows only
	WordCompacted  = "flamingo"   // SessCompacted, compaction-archived rows
	WordHidden     = "scaffoldword"
	WordCJK        = "部署服务" // SessCJK
	WordOurs       = "crashlooping"
	WordV16Hermes  = "ocelot"
)

// MultimodalText is the text part of SessMain's list-of-parts message.
const MultimodalText = "What does this dashboard screenshot show?"

// newFile creates path empty with mode 0600, as Hermes creates state.db.
func newFile(t testing.TB, path string) *sql.DB {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// Fresh creates path as a fresh store from the embedded DDL, as this
// project creates one.
func Fresh(t testing.TB, path string) {
	t.Helper()
	db := newFile(t, path)
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if err := hermesstate.Create(context.Background(), tx, hermesstate.CreateOptions{SetApplicationID: true, Now: time.Unix(int64(BaseTime), 123456000)}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// OriginalV30 creates path as a fresh v30 store and writes into it what
// Hermes writes: sessions with tool calls, a list-of-parts message, a
// compression chain, a cron and a subagent session, an archived session,
// rewound and compaction-archived rows, a hidden row and CJK text.
func OriginalV30(t testing.TB, path string) {
	t.Helper()
	freshFromResearch(t, path)
	WriteOriginalRows(t, OpenOriginal(t, path))
}

// freshFromResearch creates path as the original creates a fresh store,
// from the research's transcription of its DDL and initial rows
// (ResearchV30), not from this project's schema: the fixture then tests
// our code against the original's layout, not against itself. The
// header's application_id and fts_storage_version, which the original
// sets on its next writable open, are set here as it leaves them.
func freshFromResearch(t testing.TB, path string) {
	t.Helper()
	db := newFile(t, path)
	defer db.Close()
	if _, err := db.Exec(ResearchV30); err != nil {
		t.Fatalf("the research DDL: %v", err)
	}
	if _, err := db.Exec(`INSERT OR IGNORE INTO state_meta (key, value) VALUES ('fts_storage_version', '3')`); err != nil {
		t.Fatal(err)
	}
	var gen string
	if err := db.QueryRow(`SELECT value FROM state_meta WHERE key = 'db_file_generation'`).Scan(&gen); err != nil {
		t.Fatal(err)
	}
	// (int(generation[:8], 16) & 0x7FFFFFFF) or 1, as the original stamps it.
	n, err := strconv.ParseUint(gen[:8], 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	app := n & 0x7fffffff
	if app == 0 {
		app = 1
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA application_id = %d", app)); err != nil {
		t.Fatal(err)
	}
}

// WriteOriginalRows writes the sessions OriginalV30 describes.
func WriteOriginalRows(t testing.TB, o *Original) {
	t.Helper()
	ts := BaseTime + 9*3600
	next := func() float64 { ts += 30; return ts }

	o.CreateSession(Session{ID: SessMain, Source: "cli", Model: "gpt-5", Profile: "default", Cwd: "/srv/billing",
		SystemPrompt: "You are Hermes.", StartedAt: ts})
	o.SetTitle(SessMain, "Deploying the billing service", "user")
	o.AppendMessage(SessMain, Msg{Role: "user", Content: "How do we deploy the billing service with a " + WordMain + "?", Timestamp: next()})
	o.AppendMessage(SessMain, Msg{Role: "assistant", Reasoning: "check the rollout", Timestamp: next(),
		ToolCalls: []ToolCall{Call("call_1", WordTool, `{"command": "kubectl rollout status deploy/billing"}`)}})
	o.AppendMessage(SessMain, Msg{Role: "tool", ToolCallID: "call_1", ToolName: WordTool, Timestamp: next(),
		Content: `deployment "billing" successfully rolled out`})
	o.AppendMessage(SessMain, Msg{Role: "assistant", Content: "The billing rollout finished; the canary is healthy.", Timestamp: next()})
	o.AppendMessage(SessMain, Msg{Role: "user", Timestamp: next(), Content: []any{
		map[string]any{"type": "text", "text": MultimodalText},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw0KGgo="}},
	}})
	o.AppendMessage(SessMain, Msg{Role: "assistant", Content: "The dashboard shows the error budget holding.", Timestamp: next()})
	o.AppendMessage(SessMain, Msg{Role: "user", DisplayKind: "hidden", Content: "internal " + WordHidden + " for the model", Timestamp: next()})
	o.Heartbeat(SessMain, ts+5, "answered")

	ts = BaseTime + 86400 + 9*3600
	o.CreateSession(Session{ID: SessCompressed, Source: "cli", Model: "gpt-5", Profile: "default", StartedAt: ts})
	o.AppendMessage(SessCompressed, Msg{Role: "user", Content: "Plan the " + WordChain + " migration", Timestamp: next()})
	o.AppendMessage(SessCompressed, Msg{Role: "assistant", Content: "Step one of the " + WordChain + " migration: freeze writes.", Timestamp: next()})
	o.EndSession(SessCompressed, "compression", next())
	o.CreateSession(Session{ID: SessContinuation, Source: "cli", Model: "gpt-5", Parent: SessCompressed, StartedAt: next()})
	o.AppendMessage(SessContinuation, Msg{Role: "user", Content: "[CONTEXT COMPACTION] Earlier we planned the " + WordChain + " migration.", Timestamp: next()})
	o.AppendMessage(SessContinuation, Msg{Role: "user", Content: "Continue the migration tomorrow morning.", Timestamp: next()})
	o.AppendMessage(SessContinuation, Msg{Role: "assistant", Content: "Noted: the migration resumes tomorrow at 09:00.", Timestamp: next()})

	ts = BaseTime + 2*86400 + 3*3600
	o.CreateSession(Session{ID: SessCron, Source: "cron", Model: "gpt-5", Profile: "default", StartedAt: ts})
	o.AppendMessage(SessCron, Msg{Role: "user", Content: "Run the " + WordCron + " backup report", Timestamp: next()})
	o.AppendMessage(SessCron, Msg{Role: "assistant", Content: WordCron + " backup report: 3 snapshots kept", Timestamp: next()})
	o.EndSession(SessCron, "cron_complete", next())

	ts = BaseTime + 2*86400 + 12*3600
	cfg, _ := json.Marshal(map[string]string{"_delegate_from": SessMain})
	o.CreateSession(Session{ID: SessSubagent, Source: "subagent", Model: "gpt-5-mini", Parent: SessMain, ModelConfig: string(cfg), StartedAt: ts})
	o.AppendMessage(SessSubagent, Msg{Role: "user", Content: "Summarise the billing logs", Timestamp: next()})
	o.AppendMessage(SessSubagent, Msg{Role: "assistant", Content: "billing logs look fine", Timestamp: next()})

	ts = BaseTime + 3*86400 + 9*3600
	o.CreateSession(Session{ID: SessArchived, Source: "cli", Model: "gpt-5", Profile: "default", StartedAt: ts})
	o.AppendMessage(SessArchived, Msg{Role: "user", Content: "Tell me about the " + WordArchived, Timestamp: next()})
	o.AppendMessage(SessArchived, Msg{Role: "assistant", Content: "The " + WordArchived + " lives on Rottnest Island.", Timestamp: next()})
	o.Archive(SessArchived)

	ts = BaseTime + 4*86400 + 9*3600
	o.CreateSession(Session{ID: SessRewound, Source: "cli", Model: "gpt-5", Profile: "default", StartedAt: ts})
	o.AppendMessage(SessRewound, Msg{Role: "user", Content: "Let us talk about passwords.", Timestamp: next()})
	from := o.AppendMessage(SessRewound, Msg{Role: "user", Content: "remember the passphrase " + WordRewound, Timestamp: next()})
	o.AppendMessage(SessRewound, Msg{Role: "assistant", Content: "I will remember " + WordRewound + ".", Timestamp: next()})
	o.Rewind(SessRewound, from)
	o.AppendMessage(SessRewound, Msg{Role: "user", Content: "never mind", Timestamp: next()})

	ts = BaseTime + 5*86400 + 9*3600
	o.CreateSession(Session{ID: SessCompacted, Source: "cli", Model: "gpt-5", Profile: "default", StartedAt: ts})
	o.AppendMessage(SessCompacted, Msg{Role: "user", Content: "Investigate the " + WordCompacted + " outage", Timestamp: next()})
	o.AppendMessage(SessCompacted, Msg{Role: "assistant", Content: "The " + WordCompacted + " outage came from DNS.", Timestamp: next()})
	o.CompactInPlace(SessCompacted,
		Msg{Role: "user", Content: "[CONTEXT SUMMARY]: the outage was DNS.", Timestamp: next()},
		Msg{Role: "assistant", Content: "Understood, continuing from the summary.", Timestamp: next()})

	ts = BaseTime + 6*86400 + 9*3600
	o.CreateSession(Session{ID: SessCJK, Source: "telegram", Model: "gpt-5", Profile: "default", StartedAt: ts})
	o.AppendMessage(SessCJK, Msg{Role: "user", Content: "我们明天" + WordCJK + "吗", Timestamp: next()})
	o.AppendMessage(SessCJK, Msg{Role: "assistant", Content: "是的，明天上午" + WordCJK + "。", Timestamp: next()})
}

// V31Columns are the columns a Hermes newer than 30 adds (schema 31).
var V31Columns = map[string][]string{
	"sessions": {"auto_archived"},
	"messages": {"message_uid", "absorbed_message_uids", "tool_call_uids", "tool_call_uid"},
}

// V31 creates path as Hermes at schema 31 lays it out (v30 plus
// sessions.auto_archived and the messages uid columns) and writes
// OriginalV30's rows, each message with its uid.
func V31(t testing.TB, path string) {
	t.Helper()
	db := newFile(t, path)
	schema := hermesstate.Section(hermesstate.SectionSchema)
	schema = strings.Replace(schema, "    archived INTEGER NOT NULL DEFAULT 0,\n", "    archived INTEGER NOT NULL DEFAULT 0,\n    auto_archived INTEGER NOT NULL DEFAULT 0,\n", 1)
	schema = strings.Replace(schema, "    display_order INTEGER\n", "    display_order INTEGER,\n    message_uid TEXT,\n    absorbed_message_uids TEXT,\n    tool_call_uids TEXT,\n    tool_call_uid TEXT\n", 1)
	var ddl strings.Builder
	ddl.WriteString(schema)
	for _, s := range []string{hermesstate.SectionPlatformIndex, hermesstate.SectionDeferred, hermesstate.SectionTitleIndex, hermesstate.SectionFTS, hermesstate.SectionFTSTrigram} {
		ddl.WriteString(hermesstate.Section(s))
	}
	ddl.WriteString(`
INSERT INTO schema_version (version) VALUES (31);
INSERT INTO state_meta (key, value) VALUES ('store_instance_id', '6c1d8a52-3b9e-4c57-9d0f-2a7e5b1c4d31');
INSERT INTO state_meta (key, value) VALUES ('store_created_at_utc', '2026-01-01T00:00:00+00:00');
INSERT INTO state_meta (key, value) VALUES ('db_file_generation', '5f0e1d2c3b4a59687766554433221100');
INSERT INTO state_meta (key, value) VALUES ('fts_storage_version', '3');
PRAGMA application_id = 1594760492;
`)
	if _, err := db.Exec(ddl.String()); err != nil {
		t.Fatal(err)
	}
	db.Close()
	o := OpenOriginal(t, path)
	WriteOriginalRows(t, o)
	if _, err := o.DB.Exec("UPDATE messages SET message_uid = 'msg-' || id"); err != nil {
		t.Fatal(err)
	}
}

// OursV16 creates path as earlier releases of this project created and
// wrote state.db: their schema-16 DDL, a session written by their writer
// (inserts without active, explicit counters, the runtime in state_meta),
// and a session as a Hermes of that time wrote it (inline system prompt,
// token totals).
func OursV16(t testing.TB, path string) {
	t.Helper()
	db := newFile(t, path)
	defer db.Close()
	if _, err := db.Exec(oursV16); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", firstLine(q), err)
		}
	}
	ts := BaseTime + 31*86400 + 9*3600
	exec(`INSERT OR IGNORE INTO sessions (id, source, model, billing_provider, title, started_at) VALUES (?, ?, ?, ?, ?, ?)`,
		SessOurs, "cli", "gpt-5", "openai", OursTitle, ts)
	exec(`INSERT INTO state_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
		"hermes-go:session:"+SessOurs, `{"runtime":"native"}`)
	calls := `[{"id":"call_1","type":"function","function":{"name":"terminal","arguments":"{\"command\":\"kubectl get pods\"}"}}]`
	for i, m := range []struct{ role, content, callID, calls, tool, reasoning any }{
		{"user", "Which pods are " + WordOurs + " in the staging cluster?", nil, nil, nil, nil},
		{"assistant", nil, nil, calls, nil, "check the cluster"},
		{"tool", "ledger-worker-7 CrashLoopBackOff", "call_1", nil, "terminal", nil},
		{"assistant", "ledger-worker-7 is " + WordOurs + ".", nil, nil, nil, nil},
	} {
		exec(`INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, reasoning, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			SessOurs, m.role, m.content, m.callID, m.calls, m.tool, m.reasoning, ts+float64(i)*1e-6)
	}
	exec(`UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?, tool_call_count = COALESCE(tool_call_count, 0) + ? WHERE id = ?`, 4, 1, SessOurs)

	ts -= 86400
	exec(`INSERT INTO sessions (id, source, model, system_prompt, started_at, ended_at, end_reason, message_count, input_tokens, output_tokens, title)
		VALUES (?, 'telegram', 'claude-sonnet', ?, ?, ?, 'session_reset', 2, ?, 30, 'From the gateway')`, SessV16Hermes, V16Prompt, ts, ts+600, V16InputTokens)
	exec(`INSERT INTO messages (session_id, role, content, timestamp, active) VALUES (?, 'user', ?, ?, 1)`, SessV16Hermes, "Is the "+WordV16Hermes+" nocturnal?", ts+1)
	exec(`INSERT INTO messages (session_id, role, content, timestamp, active) VALUES (?, 'assistant', ?, ?, 1)`, SessV16Hermes, "Yes, the "+WordV16Hermes+" hunts at night.", ts+2)
}

// OursV16AfterHermes is OursV16 after a Hermes at schema 30 tried to open
// it: its schema script commits statement by statement and stops at the
// index on compression_locks.expires_at, so the tables and indexes before
// that statement are already there.
func OursV16AfterHermes(t testing.TB, path string) {
	t.Helper()
	OursV16(t, path)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range hermesstate.Statements(hermesstate.Section(hermesstate.SectionSchema)) {
		if _, err := db.Exec(stmt); err != nil {
			if !strings.Contains(err.Error(), "expires_at") {
				t.Fatalf("Hermes' schema script stopped at %q with %v, not at expires_at", firstLine(stmt), err)
			}
			return
		}
	}
	t.Fatal("Hermes' schema script ran through on a file of ours; the fixture no longer shows the failure")
}

// OursV16WithHermesTriggers is OursV16 after a Hermes that could open it
// added its legacy trigram triggers: next to this project's trigger that
// feeds both indexes, every insert into messages fails.
func OursV16WithHermesTriggers(t testing.TB, path string) {
	t.Helper()
	OursV16(t, path)
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(hermesstate.Section(hermesstate.SectionLegacyFTSTrigram)); err != nil {
		t.Fatal(err)
	}
}

// WithCJKIndex adds to path the optional CJK-bigram index Hermes creates
// when its cjk_unicode61 tokenizer loads. That tokenizer does not exist
// here, so the virtual table is entered into the schema directly, as the
// file holds it; its triggers then make every insert into messages fail
// in any process without the tokenizer.
func WithCJKIndex(t testing.TB, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		"PRAGMA writable_schema = ON",
		`INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql) VALUES ('table', 'messages_fts_cjk', 'messages_fts_cjk', 0,
			'CREATE VIRTUAL TABLE messages_fts_cjk USING fts5(
    content,
    tool_name,
    tool_calls,
    content=''messages_fts_cjk_src'',
    content_rowid=''id'',
    tokenize=''cjk_unicode61''
)')`,
		"PRAGMA writable_schema = OFF",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", firstLine(stmt), err)
		}
	}
	db.Close()
	db, err = sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(cjkDDL); err != nil {
		t.Fatal(err)
	}
}

const cjkDDL = `
CREATE VIEW IF NOT EXISTS messages_fts_cjk_src AS
    SELECT id, role, content, tool_name, tool_calls
    FROM messages
    WHERE role <> 'tool';

CREATE TRIGGER IF NOT EXISTS messages_fts_cjk_insert AFTER INSERT ON messages
WHEN new.role <> 'tool'
   AND (new.id > COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
                           WHERE key = 'fts_cjk_rebuild_high_water'), -1)
     OR new.id <= COALESCE((SELECT CAST(value AS INTEGER) FROM state_meta
                            WHERE key = 'fts_cjk_rebuild_progress'), -1))
BEGIN
    INSERT INTO messages_fts_cjk(rowid, content, tool_name, tool_calls)
    VALUES (new.id, new.content, new.tool_name, new.tool_calls);
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_cjk_delete AFTER DELETE ON messages
WHEN old.role <> 'tool'
BEGIN
    INSERT INTO messages_fts_cjk(messages_fts_cjk, rowid, content, tool_name, tool_calls)
    VALUES ('delete', old.id, old.content, old.tool_name, old.tool_calls);
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_cjk_update
AFTER UPDATE OF content, tool_name, tool_calls, role ON messages
BEGIN
    INSERT INTO messages_fts_cjk(messages_fts_cjk, rowid, content, tool_name, tool_calls)
    SELECT 'delete', old.id, old.content, old.tool_name, old.tool_calls
    WHERE old.role <> 'tool';
    INSERT INTO messages_fts_cjk(rowid, content, tool_name, tool_calls)
    SELECT new.id, new.content, new.tool_name, new.tool_calls
    WHERE new.role <> 'tool';
END;
`
