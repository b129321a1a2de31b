package kanban_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestDelegateIsReadOnly: a delegate_task descendant carries the worker's
// HERMES_KANBAN_TASK and the HERMES_DELEGATED_CHILD_CONTEXT marker. It may
// read (even as an orchestrator profile) but changes nothing, and the
// inherited task is no default for it.
func TestDelegateIsReadOnly(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "toolsets: [kanban]\n")
	orch := newHarness(t, home, nil)
	parent := orch.ok("kanban_create", obj{"title": "p", "assignee": "w"})["task_id"].(string)
	child := orch.ok("kanban_create", obj{"title": "c", "assignee": "w", "parents": []string{parent}})["task_id"].(string)
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	raw := rawDB(t, filepath.Join(home, "kanban.db"))
	exec1(t, raw, "UPDATE tasks SET status = 'done' WHERE id = ?", parent)

	d := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": parent, "HERMES_DELEGATED_CHILD_CONTEXT": "1"})
	refusal := " refused: delegate_task child agents are not Kanban run owners. Return findings to the parent agent; the dispatcher worker or an explicitly configured Kanban orchestrator must perform board mutations."
	for tool, args := range map[string]obj{
		"kanban_create":          {"title": "x", "assignee": "w"},
		"kanban_complete":        {"summary": "done"},
		"kanban_block":           {"task_id": child, "reason": "x"},
		"kanban_heartbeat":       {},
		"kanban_comment":         {"task_id": child, "body": "x"},
		"kanban_unblock":         {"task_id": child},
		"kanban_link":            {"parent_id": parent, "child_id": child},
		"kanban_request_review":  {"summary": "x"},
		"kanban_request_changes": {"reason": "x"},
	} {
		if msg := d.fail(tool, args); msg != tool+refusal {
			t.Errorf("%s: %s", tool, msg)
		}
	}
	if got := d.ok("kanban_show", obj{"task_id": child}); got["task"].(obj)["id"] != child {
		t.Errorf("show = %v", got)
	}
	if msg := d.fail("kanban_show", obj{}); msg == "" {
		t.Error("the inherited task served as a default")
	}
	// Reading the list promotes nothing for a delegate.
	if got := d.ok("kanban_list", obj{}); got["promoted"] != float64(0) || mustTask(t, b, child).Status != "todo" {
		t.Errorf("delegate list = %v, child %s", got, mustTask(t, b, child).Status)
	}
	if got := orch.ok("kanban_list", obj{}); got["promoted"] != float64(1) {
		t.Errorf("orchestrator list = %v", got)
	}
	if kinds := eventKinds(t, b, child); strings.Join(kinds, ",") != "created,dependency_wait,promoted" {
		t.Errorf("child events = %v", kinds)
	}
}

// TestBlankTaskWorker: HERMES_KANBAN_TASK holding only blanks makes a
// worker (Hermes tests the raw value) that owns no task: it may change
// none, and has no default task.
func TestBlankTaskWorker(t *testing.T) {
	home := t.TempDir()
	orch := newHarness(t, home, nil)
	id := orch.ok("kanban_create", obj{"title": "p", "assignee": "w"})["task_id"].(string)
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	if _, err := b.ClaimTask(context.Background(), id, "host:1", 60e9); err != nil {
		t.Fatal(err)
	}
	w := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": "  "})
	if msg := w.fail("kanban_complete", obj{"summary": "x"}); msg != "task_id is required: this session does not own the inherited HERMES_KANBAN_TASK, so it is not a valid default. Pass an explicit task_id." {
		t.Errorf("complete without an id: %s", msg)
	}
	if msg := w.fail("kanban_complete", obj{"task_id": id, "summary": "x"}); !strings.Contains(msg, "refusing to mutate "+id) {
		t.Errorf("complete of another task: %s", msg)
	}
	if msg := w.fail("kanban_list", obj{}); !strings.Contains(msg, "kanban_list is orchestrator-only") {
		t.Errorf("list: %s", msg)
	}
	if mustTask(t, b, id).Status != "running" {
		t.Error("the task changed")
	}
	// Outside any worker the text points at kanban_list.
	if msg := orch.fail("kanban_block", obj{"reason": "x"}); msg != "task_id is required: this session has no dispatcher-assigned task to default to. Pass an explicit task_id; discover task ids with kanban_list." {
		t.Errorf("block without an id: %s", msg)
	}
}
