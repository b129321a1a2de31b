package kanban_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/toolsets/kanban"
)

func TestResolveBoard(t *testing.T) {
	home := t.TempDir()
	profile := filepath.Join(home, "profiles", "coder")
	writeFile(t, filepath.Join(home, "kanban", "current"), "research\n")
	// A board exists when its directory holds board.json.
	writeFile(t, filepath.Join(home, "kanban", "boards", "research", "board.json"), `{"name": "Research"}`)
	writeFile(t, filepath.Join(home, "kanban", "boards", "b", "board.json"), `{}`)
	writeFile(t, filepath.Join(home, "kanban", "boards", "old", "board.json"), `{"archived": true}`)
	writeFile(t, filepath.Join(home, "kanban", "boards", "stub", "kanban.db"), "")
	stale := t.TempDir()
	writeFile(t, filepath.Join(stale, "kanban", "current"), "gone\n")
	archived := t.TempDir()
	writeFile(t, filepath.Join(archived, "kanban", "current"), "old\n")
	writeFile(t, filepath.Join(archived, "kanban", "boards", "old", "board.json"), `{"archived": true}`)
	tests := []struct {
		name    string
		home    string
		board   string
		env     map[string]string
		want    string
		wantErr string
	}{
		{name: "current file", home: home, want: filepath.Join(home, "kanban", "boards", "research", "kanban.db")},
		{name: "argument wins", home: home, board: "Ops", env: map[string]string{"HERMES_KANBAN_DB": "/x/k.db"}, want: filepath.Join(home, "kanban", "boards", "ops", "kanban.db")},
		{name: "default argument", home: home, board: "default", want: filepath.Join(home, "kanban.db")},
		{name: "pinned file", home: home, env: map[string]string{"HERMES_KANBAN_DB": "/x/k.db", "HERMES_KANBAN_BOARD": "b"}, want: "/x/k.db"},
		{name: "board env", home: home, env: map[string]string{"HERMES_KANBAN_BOARD": " B "}, want: filepath.Join(home, "kanban", "boards", "b", "kanban.db")},
		// Hermes falls through a board env naming no registered board, an
		// archived one or a malformed one, and a current file naming no
		// board.
		{name: "board env without board.json", home: home, env: map[string]string{"HERMES_KANBAN_BOARD": "stub"}, want: filepath.Join(home, "kanban", "boards", "research", "kanban.db")},
		{name: "archived board env", home: home, env: map[string]string{"HERMES_KANBAN_BOARD": "old"}, want: filepath.Join(home, "kanban", "boards", "research", "kanban.db")},
		{name: "malformed board env", home: home, env: map[string]string{"HERMES_KANBAN_BOARD": "../x"}, want: filepath.Join(home, "kanban", "boards", "research", "kanban.db")},
		{name: "stale current file", home: stale, want: filepath.Join(stale, "kanban.db")},
		{name: "current file naming an archived board", home: archived, want: filepath.Join(archived, "kanban.db")},
		{name: "profile home shares the root", home: profile, board: "default", want: filepath.Join(home, "kanban.db")},
		{name: "kanban home", home: profile, env: map[string]string{"HERMES_KANBAN_HOME": "/srv/kb"}, want: "/srv/kb/kanban.db"},
		{name: "no current file", home: t.TempDir(), want: ""},
		{name: "bad slug", home: home, board: "../etc", wantErr: "invalid board slug '../etc'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := kanban.ResolveBoard(tt.home, tt.board, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = filepath.Join(tt.home, "kanban.db")
			}
			if ref.Path != want {
				t.Errorf("path = %s, want %s", ref.Path, want)
			}
		})
	}
}

// TestLifecycle drives a board through the tools as an orchestrator and a
// dispatched worker would, with the test standing in for the dispatcher.
func TestLifecycle(t *testing.T) {
	home := t.TempDir()
	orch := newHarness(t, home, map[string]string{"HERMES_PROFILE": "techlead", "HERMES_TENANT": "acme"})
	ctx := context.Background()

	parent := orch.ok("kanban_create", obj{"title": "Research", "assignee": "researcher", "body": "Find the facts.", "priority": 2})
	if parent["status"] != "ready" {
		t.Fatalf("parent status = %v", parent["status"])
	}
	pid := parent["task_id"].(string)
	child := orch.ok("kanban_create", obj{"title": "Write", "assignee": "writer", "parents": []string{pid}})
	cid := child["task_id"].(string)
	if child["status"] != "todo" {
		t.Fatalf("child status = %v, want todo while the parent is open", child["status"])
	}
	if msg := orch.fail("kanban_create", obj{"title": "x", "assignee": "w", "parents": []string{"t_nope"}}); !contains(msg, "unknown parent task(s): t_nope") {
		t.Errorf("unknown parent: %s", msg)
	}
	if msg := orch.fail("kanban_create", obj{"title": " ", "assignee": "w"}); msg != "title is required" {
		t.Errorf("blank title: %s", msg)
	}

	// Links: cycles and self-links are refused, a repeat is a no-op.
	if msg := orch.fail("kanban_link", obj{"parent_id": cid, "child_id": pid}); !contains(msg, "would create a cycle") {
		t.Errorf("cycle: %s", msg)
	}
	if msg := orch.fail("kanban_link", obj{"parent_id": pid, "child_id": pid}); msg != "kanban_link: a task cannot depend on itself" {
		t.Errorf("self link: %s", msg)
	}
	if msg := orch.fail("kanban_link", obj{"parent_id": pid, "child_id": "t_gone"}); !contains(msg, "unknown task(s): t_gone") {
		t.Errorf("unknown link target: %s", msg)
	}
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	before := len(eventKinds(t, b, cid))
	orch.ok("kanban_link", obj{"parent_id": pid, "child_id": cid})
	if after := len(eventKinds(t, b, cid)); after != before {
		t.Errorf("repeating an existing link added %d events", after-before)
	}

	// The dispatcher claims the parent and spawns a worker for it.
	claimed, err := b.ClaimTask(ctx, pid, "host:4242", time.Minute)
	if err != nil || claimed == nil || claimed.Status != "running" || claimed.CurrentRunID == nil {
		t.Fatalf("claim: %+v, %v", claimed, err)
	}
	if again, err := b.ClaimTask(ctx, pid, "host:9", time.Minute); err != nil || again != nil {
		t.Fatalf("second claim won: %+v, %v", again, err)
	}
	run1 := *claimed.CurrentRunID
	workerEnv := map[string]string{
		"HERMES_KANBAN_TASK": pid, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(run1, 10),
		"HERMES_KANBAN_CLAIM_LOCK": "host:4242", "HERMES_PROFILE": "researcher", "HERMES_SESSION_ID": "sess-1",
	}
	worker := newHarness(t, home, workerEnv)

	expiresBefore := *mustTask(t, b, pid).ClaimExpires
	time.Sleep(1100 * time.Millisecond) // claim_expires has one-second resolution
	worker.ok("kanban_heartbeat", obj{"note": "halfway"})
	task := mustTask(t, b, pid)
	if *task.ClaimExpires <= expiresBefore || task.LastHeartbeatAt == nil {
		t.Errorf("heartbeat did not extend the claim: %d -> %d, hb %v", expiresBefore, *task.ClaimExpires, task.LastHeartbeatAt)
	}

	// A worker may only change its own task.
	for _, call := range []struct {
		tool string
		args obj
	}{
		{"kanban_complete", obj{"task_id": cid, "summary": "done"}},
		{"kanban_block", obj{"task_id": cid, "reason": "x"}},
		{"kanban_heartbeat", obj{"task_id": cid}},
		{"kanban_request_review", obj{"task_id": cid, "summary": "x"}},
	} {
		msg := worker.fail(call.tool, call.args)
		if !contains(msg, "worker is scoped to task "+pid+"; refusing to mutate "+cid) {
			t.Errorf("%s on a foreign task: %s", call.tool, msg)
		}
	}
	for _, tool := range []string{"kanban_list", "kanban_unblock"} {
		if msg := worker.fail(tool, obj{"task_id": pid}); !contains(msg, tool+" is orchestrator-only") {
			t.Errorf("%s from a worker: %s", tool, msg)
		}
	}
	// Comments may go to any task; the author is the worker's profile.
	c := worker.ok("kanban_comment", obj{"task_id": cid, "body": "Heads up: sources are in /tmp/notes. token=sk-abcdefghijklmnopqrstuvwxyz123456"})
	comments, _ := b.Comments(ctx, cid)
	if len(comments) != 1 || comments[0].Author != "researcher" || c["comment_id"] == nil {
		t.Fatalf("comments = %+v", comments)
	}
	if strings.Contains(comments[0].Body, "sk-abcdefghijklmnopqrstuvwxyz123456") {
		t.Errorf("secret stored in a comment: %s", comments[0].Body)
	}

	// Block, unblock, reclaim: a worker left over from the first run can no
	// longer close the task.
	blocked := worker.ok("kanban_block", obj{"reason": "Need the API key for the archive."})
	if blocked["run_id"] != float64(run1) {
		t.Errorf("block run_id = %v, want %d", blocked["run_id"], run1)
	}
	if msg := orch.fail("kanban_unblock", obj{"task_id": cid}); msg != "could not unblock "+cid+" (not blocked or unknown)" {
		t.Errorf("unblock of a todo task: %s", msg)
	}
	if got := orch.ok("kanban_unblock", obj{"task_id": pid}); got["status"] != "ready" {
		t.Errorf("unblock = %v", got)
	}
	reclaimed, err := b.ClaimTask(ctx, pid, "host:5151", time.Minute)
	if err != nil || reclaimed == nil {
		t.Fatalf("re-claim: %v", err)
	}
	run2 := *reclaimed.CurrentRunID
	if msg := worker.fail("kanban_complete", obj{"summary": "stale"}); msg != "could not complete "+pid+" (unknown id or already terminal)" {
		t.Errorf("stale worker complete: %s", msg)
	}
	workerEnv["HERMES_KANBAN_RUN_ID"] = strconv.FormatInt(run2, 10)
	if msg := worker.fail("kanban_complete", obj{}); msg != "provide at least one of: summary (preferred), result" {
		t.Errorf("empty completion: %s", msg)
	}
	done := worker.ok("kanban_complete", obj{
		"summary": "Found three sources.\nDetails in metadata.", "metadata": obj{"sources": 3},
		"artifacts": []string{"/tmp/report.pdf", " "},
	})
	if done["run_id"] != float64(run2) || done["task_id"] != pid {
		t.Errorf("complete = %v", done)
	}
	task = mustTask(t, b, pid)
	if task.Status != "done" || task.CompletedAt == nil || task.ClaimLock != nil || task.CurrentRunID != nil {
		t.Errorf("after complete: %+v", task)
	}
	runs, _ := b.Runs(ctx, pid)
	last := runs[len(runs)-1]
	meta, _ := last.Metadata.(map[string]any)
	if *last.Outcome != "completed" || last.Status != "done" || meta["worker_session_id"] != "sess-1" || len(meta["artifacts"].([]any)) != 1 {
		t.Errorf("closing run: %+v meta %v", last, meta)
	}
	if runs[0].Outcome == nil || *runs[0].Outcome != "blocked" || *runs[0].Summary != "Need the API key for the archive." {
		t.Errorf("blocked run: %+v", runs[0])
	}
	evs, _ := b.Events(ctx, pid)
	completed := evs[len(evs)-1]
	payload := completed.Payload.(map[string]any)
	if completed.Kind != "completed" || payload["summary"] != "Found three sources." || completed.RunID == nil || *completed.RunID != run2 {
		t.Errorf("completed event: %+v", completed)
	}
	wantKinds := []string{"created", "claimed", "heartbeat", "blocked", "unblocked", "claimed", "completed"}
	if got := eventKinds(t, b, pid); !slices.Equal(got, wantKinds) {
		t.Errorf("events = %v, want %v", got, wantKinds)
	}
	if got := mustTask(t, b, cid); got.Status != "ready" {
		t.Errorf("child after parent done: %s, want ready", got.Status)
	}

	// show and list see it all.
	shown := worker.ok("kanban_show", obj{"task_id": cid})
	if shown["task"].(obj)["status"] != "ready" || len(shown["parents"].([]any)) != 1 || !contains(shown["worker_context"].(string), "Found three sources.") {
		t.Errorf("show = %v", shown)
	}
	own := worker.ok("kanban_show", obj{})
	if own["task"].(obj)["id"] != pid || len(own["runs"].([]any)) != 2 {
		t.Errorf("show of own task = %v", own["task"])
	}
	if msg := orch.fail("kanban_show", obj{"task_id": "t_none"}); msg != "task t_none not found" {
		t.Errorf("show missing: %s", msg)
	}
	// A worker is refused alike whether a task outside its reach exists.
	if msg := worker.fail("kanban_show", obj{"task_id": "t_none"}); !contains(msg, "worker is scoped to task "+pid+"; refusing to read t_none (task_id)") {
		t.Errorf("worker show missing: %s", msg)
	}
	listed := orch.ok("kanban_list", obj{"limit": 1})
	if listed["count"] != float64(1) || listed["truncated"] != true || listed["next_limit"] != float64(2) {
		t.Errorf("list limit 1 = %v", listed)
	}
	all := orch.ok("kanban_list", obj{"tenant": "acme"})
	if all["count"] != float64(2) || all["truncated"] != false || all["next_limit"] != nil {
		t.Errorf("list = %v", all)
	}
	for _, bad := range []struct {
		limit int
		msg   string
	}{{0, "limit must be >= 1"}, {201, "limit must be <= 200"}} {
		if msg := orch.fail("kanban_list", obj{"limit": bad.limit}); msg != bad.msg {
			t.Errorf("limit %d: %s", bad.limit, msg)
		}
	}
}

func TestReviewHandoff(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	// The reviewer must be an installed profile.
	if err := os.MkdirAll(filepath.Join(home, "profiles", "qa"), 0o755); err != nil {
		t.Fatal(err)
	}
	orch := newHarness(t, home, map[string]string{"HERMES_PROFILE": "lead"})
	id := orch.ok("kanban_create", obj{"title": "Build it", "assignee": "coder"})["task_id"].(string)
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	claimed, err := b.ClaimTask(ctx, id, "host:1", time.Minute)
	if err != nil || claimed == nil {
		t.Fatal(err)
	}
	env := map[string]string{"HERMES_KANBAN_TASK": id, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(*claimed.CurrentRunID, 10)}
	coder := newHarness(t, home, env)
	if msg := coder.fail("kanban_request_changes", obj{"reason": "nope"}); !contains(msg, "not claimed from review") {
		t.Errorf("request_changes on an implementation run: %s", msg)
	}
	got := coder.ok("kanban_request_review", obj{"summary": "Implemented and tested.", "reviewer": "qa", "metadata": obj{"tests_run": 4}})
	if got["status"] != "review" {
		t.Fatalf("request_review = %v", got)
	}
	task := mustTask(t, b, id)
	if task.Status != "review" || *task.Assignee != "qa" || task.ClaimLock != nil {
		t.Fatalf("after review request: %+v", task)
	}

	rev, err := b.ClaimReviewTask(ctx, id, "host:2", time.Minute)
	if err != nil || rev == nil {
		t.Fatalf("claim review: %v", err)
	}
	env["HERMES_KANBAN_RUN_ID"] = strconv.FormatInt(*rev.CurrentRunID, 10)
	qa := newHarness(t, home, env)
	changes := qa.ok("kanban_request_changes", obj{"reason": "Handle the empty input case."})
	if changes["implementer"] != "coder" || changes["status"] != "ready" {
		t.Fatalf("request_changes = %v", changes)
	}
	task = mustTask(t, b, id)
	if task.Status != "ready" || *task.Assignee != "coder" || task.CurrentRunID != nil {
		t.Fatalf("after changes: %+v", task)
	}

	// Second round: the reviewer defaults to the one who asked for changes.
	again, _ := b.ClaimTask(ctx, id, "host:3", time.Minute)
	env["HERMES_KANBAN_RUN_ID"] = strconv.FormatInt(*again.CurrentRunID, 10)
	newHarness(t, home, env).ok("kanban_request_review", obj{"summary": "Fixed."})
	if task = mustTask(t, b, id); *task.Assignee != "qa" {
		t.Errorf("re-review went to %v, want qa", *task.Assignee)
	}
	runs, _ := b.Runs(ctx, id)
	var outcomes []string
	for _, r := range runs {
		outcomes = append(outcomes, *r.Outcome)
	}
	if !slices.Equal(outcomes, []string{"review_requested", "changes_requested", "review_requested"}) {
		t.Errorf("run outcomes = %v", outcomes)
	}
	// Without the run id a worker cannot clear a live claim.
	id2 := orch.ok("kanban_create", obj{"title": "Other", "assignee": "coder"})["task_id"].(string)
	if _, err := b.ClaimTask(ctx, id2, "host:4", time.Minute); err != nil {
		t.Fatal(err)
	}
	msg := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": id2}).fail("kanban_request_review", obj{"summary": "x"})
	if !contains(msg, "could not request review for "+id2+": task is running under a live claim") {
		t.Errorf("review without run id: %s", msg)
	}
}

func TestCreatedCardsAreVerified(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	orch := newHarness(t, home, map[string]string{"HERMES_PROFILE": "lead"})
	id := orch.ok("kanban_create", obj{"title": "Plan", "assignee": "planner"})["task_id"].(string)
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	claimed, _ := b.ClaimTask(ctx, id, "host:1", time.Minute)
	env := map[string]string{"HERMES_KANBAN_TASK": id, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(*claimed.CurrentRunID, 10), "HERMES_PROFILE": "planner"}
	w := newHarness(t, home, env)
	mine := w.ok("kanban_create", obj{"title": "Step 1", "assignee": "coder", "parents": []string{id}})["task_id"].(string)
	// The worker's authority stops a card it did not create before the
	// completion looks at it.
	msg := w.fail("kanban_complete", obj{"summary": "Planned.", "created_cards": []string{mine, "t_deadbeef"}})
	if !contains(msg, "refusing to claim as created t_deadbeef (created_cards)") {
		t.Fatalf("phantom card from the worker: %s", msg)
	}
	if mustTask(t, b, id).Status != "running" {
		t.Fatal("a refused completion changed the task")
	}
	// A caller that is not a worker gets the completion's own check, which
	// leaves an audit event.
	msg = orch.fail("kanban_complete", obj{"task_id": id, "summary": "Planned.", "created_cards": []string{mine, "t_deadbeef"}})
	if !contains(msg, "kanban_complete blocked: the following created_cards do not exist or were not created by this worker: t_deadbeef") {
		t.Fatalf("phantom card: %s", msg)
	}
	if mustTask(t, b, id).Status != "running" {
		t.Fatal("a refused completion changed the task")
	}
	if kinds := eventKinds(t, b, id); kinds[len(kinds)-1] != "completion_blocked_hallucination" {
		t.Errorf("no audit event: %v", kinds)
	}
	w.ok("kanban_complete", obj{"summary": "Planned.", "created_cards": []string{mine}})
	evs, _ := b.Events(ctx, id)
	p := evs[len(evs)-1].Payload.(map[string]any)
	if cards, _ := p["verified_cards"].([]any); len(cards) != 1 || cards[0] != mine {
		t.Errorf("completed payload = %v", p)
	}
	// The worker's child inherited its scratch workspace kind; the child
	// became ready when the parent finished.
	if task := mustTask(t, b, mine); task.Status != "ready" || task.WorkspaceKind != "scratch" {
		t.Errorf("child = %+v", task)
	}
}

func TestReadsCreateNothing(t *testing.T) {
	home := t.TempDir()
	orch := newHarness(t, home, nil)
	if msg := orch.fail("kanban_show", obj{"task_id": "t_1"}); msg != "task t_1 not found" {
		t.Errorf("show on no board: %s", msg)
	}
	if got := orch.ok("kanban_list", obj{}); got["count"] != float64(0) {
		t.Errorf("list on no board: %v", got)
	}
	if msg := orch.fail("kanban_complete", obj{"task_id": "t_1", "summary": "x"}); !contains(msg, "could not complete t_1") {
		t.Errorf("complete on no board: %s", msg)
	}
	if msg := orch.fail("kanban_create", obj{"title": "x", "assignee": "y", "board": "nosuch"}); !contains(msg, "board 'nosuch' does not exist") {
		t.Errorf("create on a missing named board: %s", msg)
	}
	if msg := orch.fail("kanban_show", obj{"task_id": "t_1", "board": "Bad Slug"}); !contains(msg, "invalid board slug 'Bad Slug'") {
		t.Errorf("bad slug: %s", msg)
	}
	entries, _ := os.ReadDir(home)
	if len(entries) != 0 {
		t.Errorf("reads left files behind: %v", entries)
	}
	if msg := orch.fail("kanban_show", obj{}); msg != "task_id is required (or set HERMES_KANBAN_TASK in the env)" {
		t.Errorf("show without id: %s", msg)
	}
}

func TestSchemaIsCheckedNeverChanged(t *testing.T) {
	tests := []struct {
		name string
		ddl  string
		want string
	}{
		{"foreign", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "not a Hermes kanban board"},
		{"older", strings.Replace(kanbanDDL(t), "    current_run_id       INTEGER,\n", "", 1), "tasks lacks column(s) current_run_id"},
		{"newer version", kanbanDDL(t) + ";PRAGMA user_version = 7", "schema version 7, newer than this build knows"},
		{"newer required column", strings.Replace(kanbanDDL(t), "CREATE TABLE task_events (", "CREATE TABLE task_events (\n    actor TEXT NOT NULL,", 1), "task_events has required column(s) actor"},
		{"newer but compatible", kanbanDDL(t) + ";ALTER TABLE task_events ADD COLUMN actor TEXT NOT NULL DEFAULT ''; CREATE TABLE x(a); ALTER TABLE tasks ADD COLUMN future_flag TEXT", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, "kanban.db")
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := raw.Exec(tt.ddl); err != nil {
				t.Fatal(err)
			}
			raw.Close()
			sum := digest(t, path)
			h := newHarness(t, home, nil)
			_, _, err = h.callErr("kanban_create", obj{"title": "x", "assignee": "y"})
			if tt.want == "" {
				if err != nil {
					t.Fatalf("a compatible newer board was refused: %v", err)
				}
				return
			}
			if err == nil || !sqlitestore.IsKind(err, sqlitestore.Schema) || !contains(err.Error(), tt.want) || !contains(err.Error(), path) {
				t.Fatalf("err = %v, want a schema error containing %q", err, tt.want)
			}
			if digest(t, path) != sum {
				t.Error("a refused board was modified")
			}
			if _, _, err := h.callErr("kanban_show", obj{"task_id": "t_1"}); err == nil {
				t.Error("kanban_show read a refused board")
			}
		})
	}
}

func TestDamagedAndLockedBoards(t *testing.T) {
	ctx := context.Background()
	t.Run("damaged", func(t *testing.T) {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, "kanban.db"), "SQLite format 3\x00"+strings.Repeat("garbage", 1000))
		_, _, err := newHarness(t, home, nil).callErr("kanban_show", obj{"task_id": "t_1"})
		if err == nil || !sqlitestore.IsKind(err, sqlitestore.Corrupt) || !contains(err.Error(), "aside") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("locked", func(t *testing.T) {
		home := t.TempDir()
		path := filepath.Join(home, "kanban.db")
		b := openBoard(t, path)
		if _, err := b.CreateTask(ctx, kanban.NewTask{Title: "x", Assignee: "y"}); err != nil {
			t.Fatal(err)
		}
		holder, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer holder.Close()
		tx, err := holder.BeginTx(ctx, nil) // IMMEDIATE: holds the write lock
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if _, err := tx.Exec("UPDATE tasks SET priority = 1"); err != nil {
			t.Fatal(err)
		}
		ts := kanban.Toolset(kanban.Options{Home: home, Getenv: func(string) string { return "" }, BusyTimeout: 150 * time.Millisecond})
		var create func(context.Context, []byte) (any, error)
		for _, tool := range ts.Tools {
			if tool.Name == "kanban_create" {
				create = func(ctx context.Context, a []byte) (any, error) { r, err := tool.Handler(ctx, a); return r, err }
			}
		}
		_, err = create(ctx, []byte(`{"title":"y","assignee":"z"}`))
		if err == nil || !sqlitestore.IsKind(err, sqlitestore.Locked) || !contains(err.Error(), "locked") || !contains(err.Error(), path) {
			t.Fatalf("err = %v, want a locked error naming the board", err)
		}
	})
}

func kanbanDDL(t *testing.T) string {
	t.Helper()
	// Build a board with this package, then read its DDL back: the tests
	// then edit the real schema rather than a copy that could drift.
	path := filepath.Join(t.TempDir(), "k.db")
	b := openBoard(t, path)
	b.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var stmts []string
	for rows.Next() {
		var s string
		rows.Scan(&s)
		stmts = append(stmts, s)
	}
	return strings.Join(stmts, ";\n")
}

func digest(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
