package hermesstate_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/hermesstate"
	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
)

// The embedded DDL splits into the statements the research's transcription
// has, and every one of them is the research's text: the DDL is the format.
func TestDDLIsTheResearchLayout(t *testing.T) {
	want := map[string]bool{}
	for _, stmt := range hermesstate.Statements(statetest.ResearchV30) {
		if strings.HasPrefix(stmt, "CREATE") || strings.HasPrefix(stmt, "DROP") {
			want[stmt] = true
		}
	}
	var got []string
	for _, s := range []string{hermesstate.SectionSchema, hermesstate.SectionPlatformIndex, hermesstate.SectionDeferred,
		hermesstate.SectionTitleIndex, hermesstate.SectionFTS, hermesstate.SectionFTSTrigram} {
		got = append(got, hermesstate.Statements(hermesstate.Section(s))...)
	}
	if len(got) != len(want) {
		t.Errorf("%d statements, the research has %d", len(got), len(want))
	}
	for _, stmt := range got {
		if !want[stmt] {
			t.Errorf("statement not in the research's layout:\n%s", stmt)
		}
	}
	// Each statement is one statement to SQLite too.
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, stmt := range got {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%v:\n%s", err, stmt)
		}
	}
}

func TestStoredSQLAndNames(t *testing.T) {
	for _, tc := range []struct{ stmt, stored, name string }{
		{"CREATE TABLE IF NOT EXISTS a (x);", "CREATE TABLE a (x)", "a"},
		{"CREATE INDEX IF NOT EXISTS idx_b\n    ON b(x);", "CREATE INDEX idx_b\n    ON b(x)", "idx_b"},
		{"CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(\n    content\n);", "CREATE VIRTUAL TABLE messages_fts USING fts5(\n    content\n)", "messages_fts"},
		{"CREATE UNIQUE INDEX IF NOT EXISTS u ON s(t) WHERE t IS NOT NULL;", "CREATE UNIQUE INDEX u ON s(t) WHERE t IS NOT NULL", "u"},
		{"DROP TRIGGER IF EXISTS x;", "DROP TRIGGER IF EXISTS x", ""},
	} {
		if got := hermesstate.StoredSQL(tc.stmt); got != tc.stored && tc.name != "" {
			t.Errorf("StoredSQL(%q) = %q, want %q", tc.stmt, got, tc.stored)
		}
		if got := hermesstate.ObjectName(tc.stmt); got != tc.name {
			t.Errorf("ObjectName(%q) = %q, want %q", tc.stmt, got, tc.name)
		}
	}
}

func TestApplicationID(t *testing.T) {
	for token, want := range map[string]int64{
		"72bb9b745f114574bec43708bc102804": 1924897652,
		"ffffffff000000000000000000000000": 0x7fffffff,
		"80000000000000000000000000000000": 1,
		"00000000111111111111111111111111": 1,
	} {
		if got := hermesstate.ApplicationID(token); got != want {
			t.Errorf("ApplicationID(%s) = %d, want %d", token, got, want)
		}
	}
}

func TestContentText(t *testing.T) {
	for stored, want := range map[string]string{
		"plain text": "plain text",
		"\x00json:" + `[{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "data:x"}}, {"type": "text", "text": "here"}]`: "look here",
		"\x00json:" + `[{"type": "image_url", "image_url": {"url": "data:x"}}]`:                                                                     hermesstate.MultimodalPlaceholder,
		"\x00json:" + `"a json string"`: "a json string",
		"\x00json:{not json":            "{not json",
	} {
		if got := hermesstate.ContentText(stored); got != want {
			t.Errorf("ContentText(%q) = %q, want %q", stored, got, want)
		}
	}
}

func TestOwnProfile(t *testing.T) {
	native := filepath.Join(t.TempDir(), ".hermes")
	custom := t.TempDir()
	for _, dir := range []string{native, filepath.Join(native, "profiles", "coder"), filepath.Join(native, "elsewhere"),
		filepath.Join(custom, "profiles", "ops"), filepath.Join(native, "profiles", "Bad Name")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ home, want string }{
		{native, "default"},
		{filepath.Join(native, "profiles", "coder"), "coder"},
		{filepath.Join(native, "elsewhere"), ""},
		{custom, "default"},
		{filepath.Join(custom, "profiles", "ops"), "ops"},
		{filepath.Join(native, "profiles", "Bad Name"), ""},
		{"", ""},
	} {
		if got := hermesstate.OwnProfile(tc.home, native); got != tc.want {
			t.Errorf("OwnProfile(%s) = %q, want %q", tc.home, got, tc.want)
		}
	}
}

// A fresh store has exactly the v30 layout and the rows Hermes gives one.
func TestFreshStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	statetest.Fresh(t, path)
	statetest.Check(t, path, statetest.Expect{Version: 30, Exact: true, Fresh: true})
}

// The fixture Hermes' writes build passes the checks, which see its rows
// the way Hermes' search does.
func TestOriginalFixture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	statetest.OriginalV30(t, path)
	statetest.Check(t, path, originalExpect(statetest.Expect{Version: 30, Exact: true, Fresh: true}))
}

func originalExpect(e statetest.Expect) statetest.Expect {
	e.Search = map[string][]string{
		statetest.WordMain:       {statetest.SessMain},
		statetest.WordTool:       {statetest.SessMain},
		statetest.WordMultimodal: {statetest.SessMain},
		statetest.WordChain:      {statetest.SessCompressed, statetest.SessContinuation},
		statetest.WordArchived:   {statetest.SessArchived},
		statetest.WordCompacted:  {statetest.SessCompacted},
	}
	e.Hidden = map[string][]string{
		statetest.WordRewound: {statetest.SessRewound},
		statetest.WordHidden:  {statetest.SessMain},
	}
	e.Counted = []string{statetest.SessMain, statetest.SessContinuation, statetest.SessRewound, statetest.SessCompacted}
	return e
}

func upgrade(t *testing.T, path, home string) hermesstate.Outcome {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	out, err := hermesstate.Upgrade(ctx, tx, hermesstate.UpgradeOptions{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return out
}

func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Files of ours at schema 16 are brought to 30 as Hermes brings a file
// forward, keep their inline full-text indexes with Hermes' own triggers,
// and afterwards pass every check in Hermes' terms.
func TestUpgradeOursV16(t *testing.T) {
	for name, build := range map[string]func(testing.TB, string){
		"as written":               statetest.OursV16,
		"after Hermes tried":       statetest.OursV16AfterHermes,
		"with Hermes' v16 trigram": statetest.OursV16WithHermesTriggers,
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, "state.db")
			build(t, path)
			// The gateway's index of that time: its routing columns are
			// copied into the v16 Hermes session (the v18 step).
			if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
				t.Fatal(err)
			}
			index := `{"agent:main:telegram:dm:42": {"session_id": "` + statetest.SessV16Hermes + `", "chat_type": "dm",
				"display_name": "Ada", "origin": {"platform": "telegram", "chat_id": 42, "thread_id": null}, "memory_flushed": true},
				"_meta": {"version": 1}}`
			if err := os.WriteFile(filepath.Join(home, "sessions", "sessions.json"), []byte(index), 0o600); err != nil {
				t.Fatal(err)
			}
			out := upgrade(t, path, home)
			if out.From != 16 || out.To != 30 || !out.LegacyFTS || len(out.Repaired) == 0 || out.HeldBack != "" {
				t.Fatalf("outcome %+v", out)
			}
			statetest.Check(t, path, statetest.Expect{Version: 30, LegacyFTS: true,
				Search:  map[string][]string{statetest.WordOurs: {statetest.SessOurs}, statetest.WordV16Hermes: {statetest.SessV16Hermes}},
				Counted: []string{statetest.SessOurs}})

			db := statetest.OpenRaw(t, path)
			var hash, prompt, key, chat, display, origin, optimize sql.NullString
			var finalized, usage int
			if err := db.QueryRow(`SELECT s.system_prompt_hash, s.system_prompt, s.session_key, s.chat_id, s.display_name, s.origin_json, s.expiry_finalized,
				(SELECT count(*) FROM session_model_usage u WHERE u.session_id = s.id AND u.input_tokens = ?),
				(SELECT value FROM state_meta WHERE key = 'fts_optimize_available')
				FROM sessions s WHERE id = ?`, statetest.V16InputTokens, statetest.SessV16Hermes).
				Scan(&hash, &prompt, &key, &chat, &display, &origin, &finalized, &usage, &optimize); err != nil {
				t.Fatal(err)
			}
			var stored string
			if err := db.QueryRow("SELECT prompt FROM system_prompts WHERE hash = ?", hash.String).Scan(&stored); err != nil || stored != statetest.V16Prompt || prompt.Valid {
				t.Errorf("v25: prompt %q at %s, inline %v (%v)", stored, hash.String, prompt, err)
			}
			if key.String != "agent:main:telegram:dm:42" || chat.String != "42" || display.String != "Ada" || finalized != 1 ||
				!strings.Contains(origin.String, `"chat_id": 42`) {
				t.Errorf("v18: session_key %v chat_id %v display_name %v origin %v expiry_finalized %d", key, chat, display, origin, finalized)
			}
			if usage != 1 || optimize.String != "1" {
				t.Errorf("v20 usage rows %d, v23 fts_optimize_available %v", usage, optimize)
			}

			// A second open has nothing to do and leaves the file as it is.
			before := fileBytes(t, path)
			if again := upgrade(t, path, home); again.Changed() {
				t.Errorf("second upgrade changed the file: %+v", again)
			}
			if !bytes.Equal(before, fileBytes(t, path)) {
				t.Error("second upgrade rewrote the file")
			}
		})
	}
}

// Files Hermes wrote at 30 or later are left exactly as they are.
func TestUpgradeLeavesCurrentFilesAlone(t *testing.T) {
	for name, build := range map[string]func(testing.TB, string){
		"v30": statetest.OriginalV30,
		"v31": statetest.V31,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			build(t, path)
			before := fileBytes(t, path)
			if out := upgrade(t, path, ""); out.Changed() {
				t.Errorf("outcome %+v", out)
			}
			if !bytes.Equal(before, fileBytes(t, path)) {
				t.Error("the file changed")
			}
		})
	}
}

// Without the cjk_unicode61 tokenizer every insert fails while the CJK
// index's triggers are live; the upgrade detaches them as Hermes does.
func TestUpgradeDetachesCJKIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	statetest.OriginalV30(t, path)
	statetest.WithCJKIndex(t, path)
	o := statetest.OpenOriginal(t, path)
	if _, err := o.DB.Exec("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', 'x', 1)", statetest.SessMain); err == nil {
		t.Fatal("the fixture's CJK triggers do not break inserts")
	}
	out := upgrade(t, path, "")
	if !out.Changed() || out.To != 30 {
		t.Fatalf("outcome %+v", out)
	}
	db := statetest.OpenRaw(t, path)
	var stale string
	var triggers int
	if err := db.QueryRow("SELECT value, (SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'messages_fts_cjk_%') FROM state_meta WHERE key = 'fts_cjk_stale'").Scan(&stale, &triggers); err != nil || stale != "1" || triggers != 0 {
		t.Fatalf("fts_cjk_stale %q, %d cjk triggers left (%v)", stale, triggers, err)
	}
	statetest.Check(t, path, originalExpect(statetest.Expect{Version: 30, Exact: true}))
}

func TestUpgradeRefusesUnfinishedAndOlderFiles(t *testing.T) {
	for name, edit := range map[string]string{
		"no version row": "DELETE FROM schema_version",
		"schema 15":      "UPDATE schema_version SET version = 15",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			statetest.OursV16(t, path)
			db := statetest.OpenRaw(t, path)
			if _, err := db.Exec(edit); err != nil {
				t.Fatal(err)
			}
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if _, err := hermesstate.Upgrade(context.Background(), tx, hermesstate.UpgradeOptions{}); err == nil {
				t.Fatal("upgraded")
			}
		})
	}
}

// Duplicate titles of an older file lose the unique index's conflict the
// way Hermes resolves it: the newest session keeps the title.
func TestUpgradeClearsDuplicateTitles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	statetest.OursV16(t, path)
	db := statetest.OpenRaw(t, path)
	if _, err := db.Exec("INSERT INTO sessions (id, source, started_at, title) VALUES ('later', 'cli', ?, ?)", time.Now().Unix(), statetest.OursTitle); err != nil {
		t.Fatal(err)
	}
	out := upgrade(t, path, "")
	var titles []string
	rows, err := db.Query("SELECT id FROM sessions WHERE title = ?", statetest.OursTitle)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		titles = append(titles, id)
	}
	rows.Close()
	if !slices.Equal(titles, []string{"later"}) || !slices.ContainsFunc(out.Steps, func(s string) bool { return strings.Contains(s, "duplicate") }) {
		t.Errorf("title kept by %v; steps %v", titles, out.Steps)
	}
}

// A file without full-text indexes (Hermes could not load FTS5 when it
// wrote it) gets the current layout, filled from messages.
func TestUpgradeCreatesMissingIndexes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	statetest.OursV16(t, path)
	db := statetest.OpenRaw(t, path)
	for _, q := range []string{"DROP TRIGGER messages_fts_insert", "DROP TRIGGER messages_fts_delete", "DROP TRIGGER messages_fts_update",
		"DROP TABLE messages_fts", "DROP TABLE messages_fts_trigram"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if out := upgrade(t, path, ""); out.To != 30 || out.LegacyFTS {
		t.Fatalf("outcome %+v", out)
	}
	var layout string
	if err := db.QueryRow("SELECT value FROM state_meta WHERE key = 'fts_storage_version'").Scan(&layout); err != nil || layout != "3" {
		t.Errorf("fts_storage_version %q (%v)", layout, err)
	}
	statetest.Check(t, path, statetest.Expect{Version: 30,
		Search: map[string][]string{statetest.WordOurs: {statetest.SessOurs}, statetest.WordV16Hermes: {statetest.SessV16Hermes}}})
}
