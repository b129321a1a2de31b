package kanban_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

// loadHermesBoard writes <home>/kanban.db from testdata/hermes-board (the
// layout and rows Hermes writes) and the attachment files its rows name.
func loadHermesBoard(t *testing.T, home string) string {
	t.Helper()
	schema, err := os.ReadFile(filepath.Join("testdata", "hermes-board", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := os.ReadFile(filepath.Join("testdata", "hermes-board", "rows.sql"))
	if err != nil {
		t.Fatal(err)
	}
	attachments := filepath.Join(home, "kanban", "attachments")
	writeFile(t, filepath.Join(attachments, "t_0a1b2c3d", "metrics.csv"), "id,metric,value\nq3,revenue,120\n")
	writeFile(t, filepath.Join(attachments, "t_0a1b2c3d", "metrics (1).csv"), "")
	path := filepath.Join(home, "kanban.db")
	db := rawDB(t, path)
	exec1(t, db, string(schema))
	exec1(t, db, strings.ReplaceAll(string(rows), "@ATTACHMENTS@", attachments))
	db.Close()
	return path
}

// hermesLayout is the board layout Hermes creates, from schema.sql alone.
func hermesLayout(t *testing.T) map[string]string {
	t.Helper()
	schema, err := os.ReadFile(filepath.Join("testdata", "hermes-board", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db := rawDB(t, filepath.Join(t.TempDir(), "layout.db"))
	exec1(t, db, string(schema))
	return layout(t, db)
}

// layout describes every table (its columns in order, with type, NOT NULL,
// default and key position) and every index (its table, uniqueness and
// columns) of a database, one entry per object.
func layout(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	tables := queryStrings(t, db, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	for _, table := range tables {
		rows, err := db.Query("SELECT name, type, \"notnull\", COALESCE(dflt_value, ''), pk FROM pragma_table_info(?)", table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for rows.Next() {
			var name, typ, dflt string
			var notnull, pk int
			rows.Scan(&name, &typ, &notnull, &dflt, &pk)
			cols = append(cols, fmt.Sprintf("%s %s notnull=%d default=%q pk=%d", name, typ, notnull, dflt, pk))
		}
		rows.Close()
		out["table "+table] = strings.Join(cols, "\n")
		for _, idx := range queryStrings(t, db, "SELECT name || ' unique=' || \"unique\" FROM pragma_index_list(?)", table) {
			name := strings.Fields(idx)[0]
			cols := queryStrings(t, db, "SELECT COALESCE(name, '<expr>') FROM pragma_index_info(?) ORDER BY seqno", name)
			out["index "+name] = table + " " + idx + " (" + strings.Join(cols, ", ") + ")"
		}
	}
	return out
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// checkInHermesTerms checks a board the way Hermes would find it: intact,
// with its indexes, the tasks in `assigned` found by list_tasks' query for
// their normalised assignee, every child's tenant what initial_task_state
// gives it, and every attachment row naming a file of that size.
func checkInHermesTerms(t *testing.T, path string, assigned map[string]string, children []string) {
	t.Helper()
	db := rawDB(t, path)
	if got := queryStrings(t, db, "PRAGMA integrity_check"); !slices.Equal(got, []string{"ok"}) {
		t.Errorf("integrity_check = %v", got)
	}
	if got := queryStrings(t, db, "SELECT \"table\" FROM pragma_foreign_key_check"); len(got) > 0 {
		t.Errorf("foreign_key_check = %v", got)
	}
	have := layout(t, db)
	for name, def := range hermesLayout(t) {
		if strings.HasPrefix(name, "index ") && have[name] != def {
			t.Errorf("%s is %q, Hermes has %q", name, have[name], def)
		}
	}
	for id, assignee := range assigned {
		norm, err := kanban.NormalizeProfileName(assignee)
		if err != nil {
			t.Fatal(err)
		}
		// kanban_db.list_tasks(assignee=...)
		got := queryStrings(t, db, "SELECT id FROM tasks WHERE 1=1 AND assignee = ? AND status != 'archived' ORDER BY priority DESC, created_at ASC", norm)
		if !slices.Contains(got, id) {
			t.Errorf("list_tasks(assignee=%q) = %v, misses %s", norm, got, id)
		}
	}
	for _, id := range children {
		var payload string
		var tenant sql.NullString
		db.QueryRow("SELECT payload FROM task_events WHERE task_id = ? AND kind = 'created'", id).Scan(&payload)
		db.QueryRow("SELECT tenant FROM tasks WHERE id = ?", id).Scan(&tenant)
		var created struct{ Parents []string }
		json.Unmarshal([]byte(payload), &created)
		// initial_task_state with tenant=None: the first parent in
		// argument order whose tenant is non-empty.
		var want sql.NullString
		for _, p := range created.Parents {
			var pt sql.NullString
			db.QueryRow("SELECT tenant FROM tasks WHERE id = ?", p).Scan(&pt)
			if pt.Valid && pt.String != "" {
				want = pt
				break
			}
		}
		if tenant != want {
			t.Errorf("tenant of %s (parents %v) = %v, Hermes gives %v", id, created.Parents, tenant, want)
		}
	}
	rows, err := db.Query("SELECT task_id, filename, stored_path, size FROM task_attachments")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var task, name, stored string
		var size int64
		rows.Scan(&task, &name, &stored, &size)
		real, err := filepath.EvalSymlinks(stored)
		if err != nil || real != stored || !filepath.IsAbs(stored) {
			t.Errorf("attachment %s of %s: stored_path %s is not absolute and resolved (%s, %v)", name, task, stored, real, err)
			continue
		}
		fi, err := os.Lstat(stored)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != size || filepath.Base(stored) != name || filepath.Base(filepath.Dir(stored)) != task {
			t.Errorf("attachment %s of %s at %s: %v, %v (row size %d)", name, task, stored, fi, err, size)
		}
	}
}

// TestHermesBoard: the tools read and change a board Hermes made, and
// leave it as Hermes expects it.
func TestHermesBoard(t *testing.T) {
	home := t.TempDir()
	path := loadHermesBoard(t, home)
	orch := newHarness(t, home, map[string]string{"HERMES_PROFILE": "techlead"})
	ids := func(res map[string]any) []string {
		var out []string
		for _, r := range res["tasks"].([]any) {
			out = append(out, r.(map[string]any)["id"].(string))
		}
		slices.Sort(out)
		return out
	}
	// Rows an older Hermes wrote as "Researcher" and " Writer" belong to
	// the normalised profiles.
	if got := ids(orch.ok("kanban_list", obj{"assignee": "researcher"})); !slices.Equal(got, []string{"t_0a1b2c3d", "t_2c3d4e5f"}) {
		t.Errorf("researcher's tasks = %v", got)
	}
	if got := ids(orch.ok("kanban_list", obj{"assignee": "Writer"})); !slices.Equal(got, []string{"t_1b2c3d4e"}) {
		t.Errorf("writer's tasks = %v", got)
	}
	shown := orch.ok("kanban_show", obj{"task_id": "t_2c3d4e5f"})
	if task := shown["task"].(obj); task["model_override"] != "gpt-5.4" || task["status"] != "running" {
		t.Errorf("show = %v", task)
	}

	assigned := map[string]string{}
	var children []string
	create := func(args obj) map[string]any {
		got := orch.ok("kanban_create", args)
		id := got["task_id"].(string)
		assigned[id] = args["assignee"].(string)
		if _, ok := args["parents"]; ok {
			children = append(children, id)
		}
		return got
	}
	// An archived parent holds the child in todo until the next promotion,
	// with no dependency_wait; the tenant is the first parent's that has one.
	c1 := create(obj{"title": "Archive notes", "assignee": "Ops", "parents": []string{"t_4e5f6a7b", "t_0a1b2c3d"}})
	if c1["status"] != "todo" || c1["gated"] != false {
		t.Errorf("child of an archived parent = %v", c1)
	}
	c2 := create(obj{"title": "Summarise the scrape", "assignee": " Researcher ", "parents": []string{"t_5f6a7b8c", "t_2c3d4e5f"}})
	if c2["status"] != "todo" || c2["gated_by"] != "t_5f6a7b8c" {
		t.Errorf("child of open parents = %v", c2)
	}
	create(obj{"title": "Solo", "assignee": "DEFAULT"})

	// Files Hermes stored are listed; ours land beside them.
	listed := orch.ok("kanban_attachments", obj{"task_id": "t_0a1b2c3d"})["attachments"].([]any)
	if len(listed) != 2 || listed[0].(obj)["filename"] != "metrics.csv" || listed[1].(obj)["uploaded_by"] != "dashboard" {
		t.Errorf("Hermes' attachments = %v", listed)
	}
	orch.ok("kanban_attach", obj{"task_id": "t_0a1b2c3d", "filename": "metrics.csv", "content_base64": b64("id,metric\n")})
	orch.ok("kanban_attach", obj{"task_id": "t_3d4e5f6a", "filename": "flow.png", "content_base64": b64("\x89PNG"), "content_type": "image/png"})
	if files := filesIn(t, filepath.Join(home, "kanban", "attachments", "t_0a1b2c3d")); !slices.Equal(files, []string{"metrics (1).csv", "metrics (2).csv", "metrics.csv"}) {
		t.Errorf("files = %v", files)
	}

	// The dispatcher's worker on the running task finishes it; the report
	// draft, waiting on it, becomes ready.
	worker := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": "t_2c3d4e5f", "HERMES_KANBAN_RUN_ID": "2", "HERMES_PROFILE": "researcher"})
	done := worker.ok("kanban_complete", obj{"summary": "All five sites scraped."})
	if done["run_id"] != float64(2) {
		t.Errorf("complete = %v", done)
	}
	worker.ok("kanban_comment", obj{"task_id": "t_1b2c3d4e", "body": "Scrape results are in the worktree."})
	b := openBoard(t, path)
	if got := mustTask(t, b, "t_1b2c3d4e").Status; got != "ready" {
		t.Errorf("report draft = %s, want ready", got)
	}
	orch.ok("kanban_list", obj{})
	if got := mustTask(t, b, c1["task_id"].(string)).Status; got != "ready" {
		t.Errorf("child of the archived parent after promotion = %s", got)
	}
	b.Close()
	checkInHermesTerms(t, path, assigned, children)
}

// TestOurBoardHasHermesLayout: a board these tools create has every table,
// column (in order, with types and defaults) and index of Hermes' current
// layout, and nothing Hermes would have to add.
func TestOurBoardHasHermesLayout(t *testing.T) {
	home := t.TempDir()
	orch := newHarness(t, home, nil)
	p := orch.ok("kanban_create", obj{"title": "p", "assignee": "Lead", "tenant": "acme"})["task_id"].(string)
	c := orch.ok("kanban_create", obj{"title": "c", "assignee": "w", "parents": []string{p}})["task_id"].(string)
	orch.ok("kanban_attach", obj{"task_id": c, "filename": "brief.md", "content_base64": b64("# Brief\n")})
	path := filepath.Join(home, "kanban.db")
	want := hermesLayout(t)
	got := layout(t, rawDB(t, path))
	var names []string
	for n := range want {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if got[n] != want[n] {
			t.Errorf("%s:\n got: %s\nwant: %s", n, got[n], want[n])
		}
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s is not in Hermes' layout", n)
		}
	}
	checkInHermesTerms(t, path, map[string]string{p: "Lead", c: "w"}, []string{c})
	if len(want) < 20 {
		t.Fatalf("Hermes' layout has only %d objects: schema.sql not read?", len(want))
	}
}
