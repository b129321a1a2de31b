package statetest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/hermesstate"
)

// Expect says what Check demands beyond what every file must pass.
type Expect struct {
	// LegacyFTS: the file keeps Hermes' inline (pre-schema-23) full-text
	// indexes with its legacy triggers; otherwise it has layout 3.
	LegacyFTS bool
	// Version is the schema version the file must be at, at least.
	Version int
	// Exact: every table's CREATE text equals the reference too (a file
	// created fresh; a file brought forward keeps its older tables' text
	// with columns appended).
	Exact bool
	// Fresh: the file was created by this project, so it carries the
	// provenance rows and application_id Hermes gives a new store.
	Fresh bool
	// Search maps queries to the sessions Hermes' own search must find
	// (at least those) and Hidden to sessions it must not return.
	Search map[string][]string
	Hidden map[string][]string
	// Counted are sessions whose counters must agree with their rows as
	// Hermes keeps them: message_count = live rows, tool_call_count = the
	// live assistant rows' calls.
	Counted []string
	// Active are sessions whose last_activity_at must be set and not older
	// than their newest message.
	Active []string
	// ExtraColumns are columns the file may have beyond the layout (a
	// newer Hermes').
	ExtraColumns map[string][]string
}

// OpenRaw opens path for the checks.
func OpenRaw(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// Check verifies path in Hermes' terms: SQLite's and FTS5's integrity
// checks, the v30 layout (sqlite_master against a store built from the
// research's DDL), the message insert Hermes runs, Hermes' search query
// and the counters it keeps.
func Check(t *testing.T, path string, e Expect) {
	t.Helper()
	db := OpenRaw(t, path)
	ctx := context.Background()
	t.Run("integrity", func(t *testing.T) { checkIntegrity(t, db) })
	t.Run("layout", func(t *testing.T) { checkLayout(t, db, e) })
	t.Run("version", func(t *testing.T) {
		var n, v int
		if err := db.QueryRow("SELECT count(*), COALESCE(MAX(version), 0) FROM schema_version").Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		if n != 1 || v < e.Version {
			t.Errorf("schema_version has %d row(s), version %d; want one row, at least %d", n, v, e.Version)
		}
	})
	if e.Fresh {
		t.Run("provenance", func(t *testing.T) { checkProvenance(t, db) })
	}
	t.Run("counters", func(t *testing.T) {
		for _, id := range e.Counted {
			var count, calls, live, liveCalls int
			err := db.QueryRow(`SELECT message_count, tool_call_count,
				(SELECT count(*) FROM messages WHERE session_id = s.id AND active = 1),
				(SELECT COALESCE(SUM(json_array_length(tool_calls)), 0) FROM messages
					WHERE session_id = s.id AND active = 1 AND role = 'assistant' AND json_valid(tool_calls))
				FROM sessions s WHERE id = ?`, id).Scan(&count, &calls, &live, &liveCalls)
			if err != nil {
				t.Fatalf("session %s: %v", id, err)
			}
			if count != live || calls != liveCalls {
				t.Errorf("session %s: message_count %d tool_call_count %d, its rows say %d and %d", id, count, calls, live, liveCalls)
			}
		}
		for _, id := range e.Active {
			var last sql.NullFloat64
			var newest float64
			if err := db.QueryRow(`SELECT last_activity_at, (SELECT COALESCE(MAX(timestamp), 0) FROM messages WHERE session_id = s.id)
				FROM sessions s WHERE id = ?`, id).Scan(&last, &newest); err != nil {
				t.Fatalf("session %s: %v", id, err)
			}
			if !last.Valid || last.Float64 < newest {
				t.Errorf("session %s: last_activity_at %v older than its newest message %f", id, last, newest)
			}
		}
	})
	t.Run("search", func(t *testing.T) {
		for q, want := range e.Search {
			got := OriginalSearch(t, db, q)
			for _, id := range want {
				if !slices.Contains(got, id) {
					t.Errorf("Hermes' search for %q finds sessions %v, not %s", q, got, id)
				}
			}
		}
		for q, hidden := range e.Hidden {
			got := OriginalSearch(t, db, q)
			for _, id := range hidden {
				if slices.Contains(got, id) {
					t.Errorf("Hermes' search for %q finds hidden session %s", q, id)
				}
			}
		}
	})
	t.Run("insert", func(t *testing.T) { checkInsert(t, ctx, db) })
}

func checkIntegrity(t *testing.T, db *sql.DB) {
	var res string
	err := db.QueryRow("PRAGMA integrity_check").Scan(&res)
	if err != nil && strings.Contains(err.Error(), "vtable constructor failed: messages_fts_cjk") {
		// The CJK index's tokenizer loads only in Hermes; check every
		// other table one by one.
		for _, table := range plainTables(t, db) {
			if err := db.QueryRow("PRAGMA integrity_check(" + table + ")").Scan(&res); err != nil || res != "ok" {
				t.Errorf("PRAGMA integrity_check(%s) = %q, %v", table, res, err)
			}
		}
	} else if err != nil || res != "ok" {
		t.Errorf("PRAGMA integrity_check = %q, %v", res, err)
	}
	rows, err := db.Query("PRAGMA foreign_key_check")
	if err != nil {
		t.Fatal(err)
	}
	if rows.Next() {
		t.Error("PRAGMA foreign_key_check reports violations")
	}
	rows.Close()
	for _, table := range ftsTables(t, db) {
		if err := ftsIntegrity(db, table); err != nil {
			t.Errorf("%s integrity-check: %v", table, err)
		}
	}
}

func plainTables(t testing.TB, db *sql.DB) []string {
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	return out
}

func ftsTables(t testing.TB, db interface {
	Query(string, ...any) (*sql.Rows, error)
}) []string {
	rows, err := db.Query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, sqlText string
		if err := rows.Scan(&name, &sqlText); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sqlText, "cjk_unicode61") {
			out = append(out, name)
		}
	}
	return out
}

type execer interface {
	Exec(string, ...any) (sql.Result, error)
	QueryRow(string, ...any) *sql.Row
}

// ftsIntegrity runs FTS5's integrity-check; for an external-content index
// with rank 1, which also compares the index with the content it reads.
func ftsIntegrity(db execer, table string) error {
	var sqlText string
	if err := db.QueryRow("SELECT sql FROM sqlite_master WHERE name = ?", table).Scan(&sqlText); err != nil {
		return err
	}
	q := fmt.Sprintf("INSERT INTO %s(%s) VALUES('integrity-check')", table, table)
	if strings.Contains(sqlText, "content=") {
		q = fmt.Sprintf("INSERT INTO %s(%s, rank) VALUES('integrity-check', 1)", table, table)
	}
	_, err := db.Exec(q)
	return err
}

type object struct{ typ, table, sql string }

func objects(t testing.TB, db *sql.DB) map[string]object {
	t.Helper()
	rows, err := db.Query("SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]object{}
	for rows.Next() {
		var o object
		var name string
		if err := rows.Scan(&o.typ, &name, &o.table, &o.sql); err != nil {
			t.Fatal(err)
		}
		out[name] = o
	}
	return out
}

// Reference builds a store from the research's DDL in a temporary
// directory and returns its sqlite_master.
func reference(t testing.TB) map[string]object {
	t.Helper()
	path := filepath.Join(t.TempDir(), "reference.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ResearchV30); err != nil {
		t.Fatal(err)
	}
	return objects(t, db)
}

// ftsFamily are the objects of the current full-text layout, which a
// legacy file does not have.
func ftsFamily(name string) bool {
	return strings.HasPrefix(name, "messages_fts")
}

func checkLayout(t *testing.T, db *sql.DB, e Expect) {
	ref := reference(t)
	got := objects(t, db)
	if e.LegacyFTS {
		for name := range ref {
			if ftsFamily(name) {
				delete(ref, name)
			}
		}
		for _, s := range []string{hermesstate.SectionLegacyFTS, hermesstate.SectionLegacyFTSTrigram} {
			for _, stmt := range hermesstate.Statements(hermesstate.Section(s)) {
				name := hermesstate.ObjectName(stmt)
				typ := "trigger"
				if strings.HasPrefix(stmt, "CREATE VIRTUAL TABLE") {
					typ = "table"
				}
				ref[name] = object{typ: typ, table: name, sql: hermesstate.StoredSQL(stmt)}
			}
		}
	}
	names := make([]string, 0, len(ref))
	for n := range ref {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		want := ref[name]
		have, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s %s missing", want.typ, name)
			continue
		case have.typ != want.typ:
			t.Errorf("%s is a %s, want a %s", name, have.typ, want.typ)
			continue
		}
		if want.typ != "table" || e.Exact || strings.HasPrefix(want.sql, "CREATE VIRTUAL TABLE") || isShadow(name) {
			if e.LegacyFTS && isShadow(name) {
				continue // FTS5 lays out an inline index's shadow tables itself
			}
			if have.sql != want.sql {
				t.Errorf("%s %s differs from the layout:\n got %s\nwant %s", want.typ, name, have.sql, want.sql)
			}
			continue
		}
		if !strings.HasPrefix(name, "sqlite_") {
			checkColumns(t, db, name, want.sql, e.ExtraColumns[name])
		}
	}
	// Every trigger on messages is one the layout has: a trigger of our own
	// writing an index Hermes feeds would index rows twice.
	for name, o := range got {
		if o.typ == "trigger" && o.table == "messages" {
			if _, ok := ref[name]; !ok && !slices.Contains(hermesstate.CJKFTSTriggers, name) {
				t.Errorf("trigger %s on messages is not Hermes': %s", name, o.sql)
			}
		}
	}
}

func isShadow(name string) bool {
	for _, s := range []string{"_data", "_idx", "_docsize", "_config", "_content"} {
		if strings.HasPrefix(name, "messages_fts") && strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

type column struct {
	typ     string
	notNull bool
	dflt    sql.NullString
}

func tableColumns(t testing.TB, q interface {
	Query(string, ...any) (*sql.Rows, error)
}, table string) (map[string]column, []string) {
	rows, err := q.Query(`SELECT name, type, "notnull", dflt_value FROM pragma_table_info(?) ORDER BY cid`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]column{}
	var order []string
	for rows.Next() {
		var name string
		var c column
		if err := rows.Scan(&name, &c.typ, &c.notNull, &c.dflt); err != nil {
			t.Fatal(err)
		}
		out[name] = c
		order = append(order, name)
	}
	return out, order
}

// checkColumns compares a table brought forward with the layout's: every
// declared column with its type; columns the file adds are only allowed
// when extra names them.
func checkColumns(t *testing.T, db *sql.DB, table, createSQL string, extra []string) {
	mem, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	mem.SetMaxOpenConns(1)
	if _, err := mem.Exec(createSQL); err != nil {
		t.Fatalf("reference %s: %v", table, err)
	}
	want, order := tableColumns(t, mem, table)
	have, _ := tableColumns(t, db, table)
	for _, name := range order {
		h, ok := have[name]
		if !ok {
			t.Errorf("%s.%s missing", table, name)
			continue
		}
		if h.typ != want[name].typ {
			t.Errorf("%s.%s is %s, want %s", table, name, h.typ, want[name].typ)
		}
	}
	for name := range have {
		if _, ok := want[name]; !ok && !slices.Contains(extra, name) {
			t.Errorf("%s.%s is not in the layout", table, name)
		}
	}
}

func checkProvenance(t *testing.T, db *sql.DB) {
	meta := map[string]string{}
	rows, err := db.Query("SELECT key, value FROM state_meta")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		meta[k] = v
	}
	rows.Close()
	if id := meta[hermesstate.MetaStoreInstanceID]; len(id) != 36 || id[14] != '4' {
		t.Errorf("store_instance_id %q is not a uuid4", id)
	}
	if at := meta[hermesstate.MetaStoreCreatedAt]; !strings.HasSuffix(at, "+00:00") || len(at) < len("2026-01-01T00:00:00+00:00") {
		t.Errorf("store_created_at_utc %q is not an ISO UTC time", at)
	}
	gen := meta[hermesstate.MetaFileGeneration]
	if len(gen) != 32 {
		t.Errorf("db_file_generation %q is not a uuid4 hex", gen)
	}
	if v := meta[hermesstate.MetaFTSStorageVersion]; v != "3" {
		t.Errorf("fts_storage_version %q, want 3", v)
	}
	var app, user int64
	if err := db.QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA user_version").Scan(&user); err != nil {
		t.Fatal(err)
	}
	if app != hermesstate.ApplicationID(gen) || user != 0 {
		t.Errorf("application_id %d user_version %d, want %d and 0", app, user, hermesstate.ApplicationID(gen))
	}
}

// checkInsert runs Hermes' message insert and counter update on a live
// session, then the FTS5 checks, and rolls back.
func checkInsert(t *testing.T, ctx context.Context, db *sql.DB) {
	var session string
	err := db.QueryRow("SELECT id FROM sessions WHERE ended_at IS NULL AND source NOT IN ('cron', 'subagent') ORDER BY started_at DESC LIMIT 1").Scan(&session)
	if err == sql.ErrNoRows {
		if _, err := db.Exec("INSERT INTO sessions (id, source, started_at) VALUES ('statetest_probe', 'cli', 1)"); err != nil {
			t.Fatal(err)
		}
		session = "statetest_probe"
	} else if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ts := BaseTime + 400*86400
	content := "probe message from Hermes about quixotry"
	identity := DisplayIdentity("user", content, ts, nil, nil, nil)
	res, err := tx.Exec(InsertMessageSQL, session, "user", content, nil, nil, nil, nil, ts, nil, nil, nil, nil, nil, nil, nil, nil, 0, 0, 1, nil, nil, nil, identity)
	if err != nil {
		t.Fatalf("Hermes' message insert fails: %v", err)
	}
	id, _ := res.LastInsertId()
	if _, err := tx.Exec("UPDATE sessions SET message_count = message_count + 1 WHERE id = ?", session); err != nil {
		t.Fatalf("Hermes' counter update fails: %v", err)
	}
	var order sql.NullInt64
	if err := tx.QueryRow("SELECT display_order FROM messages WHERE id = ?", id).Scan(&order); err != nil || !order.Valid {
		t.Errorf("display_order of the new row %v (%v): the display trigger did not run", order, err)
	}
	for _, table := range ftsTables(t, tx) {
		if err := ftsIntegrity(tx, table); err != nil {
			t.Errorf("%s integrity-check after Hermes' insert: %v", table, err)
		}
	}
	var found int
	if err := tx.QueryRow("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'quixotry'").Scan(&found); err != nil || found != 1 {
		t.Errorf("the inserted row is not indexed: %d (%v)", found, err)
	}
}

// OriginalSearchSQL is the row query of Hermes' search_messages on the word
// index, with its default visibility: live and compaction-archived rows,
// no hidden scaffolding.
const OriginalSearchSQL = `SELECT m.id, m.session_id, m.role,
       snippet(messages_fts, -1, '>>>', '<<<', '...', 40) AS snippet,
       m.timestamp, m.tool_name, s.source, s.model, s.started_at AS session_started
FROM messages_fts
JOIN messages m ON m.id = messages_fts.rowid
JOIN sessions s ON s.id = m.session_id
WHERE messages_fts MATCH ?
  AND (m.active = 1 OR m.compacted = 1)
  AND COALESCE(m.display_kind, '') <> 'hidden'
ORDER BY rank
LIMIT ? OFFSET ?`

// OriginalSearch runs Hermes' search and returns the sessions it hits.
func OriginalSearch(t testing.TB, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(OriginalSearchSQL, query, 50, 0)
	if err != nil {
		t.Fatalf("Hermes' search for %q: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id int64
		var session, role string
		var snippet, tool, source, model sql.NullString
		var ts, started sql.NullFloat64
		if err := rows.Scan(&id, &session, &role, &snippet, &ts, &tool, &source, &model, &started); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(out, session) {
			out = append(out, session)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// FileMode is the permission bits of path.
func FileMode(t testing.TB, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}
