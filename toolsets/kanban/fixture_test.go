package kanban_test

import (
	"context"
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

var writeFixtures = flag.Bool("write-fixtures", false, "rewrite ../testdata/home/kanban.db, the small board the registry tests read")

// TestWriteRegistryFixture regenerates the board under mcpserver/testdata/home
// when run with -write-fixtures: a finished parent with a run, a comment
// and a waiting child, with fixed ids so the registry's sample calls can
// name them. It is stored in rollback-journal mode so that reading it
// leaves no -wal/-shm files behind.
func TestWriteRegistryFixture(t *testing.T) {
	if !*writeFixtures {
		t.Skip("run with -write-fixtures to regenerate ../testdata/home/kanban.db")
	}
	ctx := context.Background()
	path := filepath.Join("..", "..", "mcpserver", "testdata", "home", "kanban.db")
	os.Remove(path)
	clock := time.Unix(1767225600, 0)
	b, err := kanban.OpenBoard(ctx, path, kanban.BoardOptions{Create: true, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	parent, _ := b.CreateTask(ctx, kanban.NewTask{Title: "Collect the release notes", Body: "Gather notes from the last three releases.", Assignee: "researcher", CreatedBy: "techlead"})
	child, _ := b.CreateTask(ctx, kanban.NewTask{Title: "Draft the announcement", Assignee: "writer", CreatedBy: "techlead", Parents: []string{parent}})
	if _, err := b.ClaimTask(ctx, parent, "host:1", time.Hour); err != nil {
		t.Fatal(err)
	}
	b.AddComment(ctx, child, "researcher", "Notes are in docs/releases.")
	blocked, _ := b.CreateTask(ctx, kanban.NewTask{Title: "Book the venue", Assignee: "ops", CreatedBy: "techlead", InitialStatus: "blocked"})
	_ = blocked
	b.Close()
	// Fixed ids let the registry test name the tasks.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		"UPDATE tasks SET id = 't_fixture1' WHERE id = '" + parent + "'",
		"UPDATE task_links SET parent_id = 't_fixture1' WHERE parent_id = '" + parent + "'",
		"UPDATE task_events SET task_id = 't_fixture1' WHERE task_id = '" + parent + "'",
		"UPDATE task_runs SET task_id = 't_fixture1' WHERE task_id = '" + parent + "'",
		"UPDATE tasks SET id = 't_fixture2' WHERE id = '" + child + "'",
		"UPDATE task_links SET child_id = 't_fixture2' WHERE child_id = '" + child + "'",
		"UPDATE task_events SET task_id = 't_fixture2' WHERE task_id = '" + child + "'",
		"UPDATE task_comments SET task_id = 't_fixture2' WHERE task_id = '" + child + "'",
		"PRAGMA journal_mode=DELETE",
		"VACUUM",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}
