package kanban_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

// authFixture is a board with the worker's own task (running under the
// worker's claim), a task the worker created, a foreign ready task, and a
// second board.
type authFixture struct {
	home, own, created, foreign string
	orch, worker                *harness
	boards                      []string
}

func newAuthFixture(t *testing.T) *authFixture {
	t.Helper()
	home := t.TempDir()
	f := &authFixture{home: home}
	f.orch = newHarness(t, home, map[string]string{"HERMES_PROFILE": "lead"})
	f.own = f.orch.ok("kanban_create", obj{"title": "Own", "assignee": "coder"})["task_id"].(string)
	f.foreign = f.orch.ok("kanban_create", obj{"title": "Someone else's", "assignee": "other"})["task_id"].(string)
	f.boards = []string{filepath.Join(home, "kanban.db"), filepath.Join(home, "kanban", "boards", "other", "kanban.db")}
	b := openBoard(t, f.boards[0])
	openBoard(t, f.boards[1])
	claimed, err := b.ClaimTask(context.Background(), f.own, "host:1", time.Hour)
	if err != nil || claimed == nil {
		t.Fatalf("claim: %v", err)
	}
	f.worker = newHarness(t, home, map[string]string{
		"HERMES_KANBAN_TASK": f.own, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(*claimed.CurrentRunID, 10),
		"HERMES_KANBAN_CLAIM_LOCK": "host:1", "HERMES_PROFILE": "coder",
	})
	f.created = f.worker.ok("kanban_create", obj{"title": "Mine", "assignee": "helper"})["task_id"].(string)
	return f
}

// baseArgs are a valid call of each tool by the worker on its own task,
// before the argument under test is set. An argument that is the other end
// of a pair (a link) points at the worker's created task.
func (f *authFixture) baseArgs(tool, arg string) (obj, bool) {
	switch tool {
	case "kanban_show", "kanban_heartbeat", "kanban_list", "kanban_attachments":
		return obj{}, true
	case "kanban_complete":
		return obj{"summary": "done"}, true
	case "kanban_block":
		return obj{"reason": "need a decision"}, true
	case "kanban_comment":
		return obj{"task_id": f.own, "body": "note"}, true
	case "kanban_create":
		return obj{"title": "Follow-up", "assignee": "helper"}, true
	case "kanban_unblock":
		return obj{"task_id": f.own}, true
	case "kanban_link":
		switch arg {
		case "parent_id":
			return obj{"child_id": f.created}, true
		case "child_id":
			return obj{"parent_id": f.created}, true
		}
		return obj{"parent_id": f.created, "child_id": f.own}, true
	case "kanban_request_review":
		return obj{"summary": "built and tested"}, true
	case "kanban_request_changes":
		return obj{"reason": "handle empty input"}, true
	case "kanban_attach":
		return obj{"filename": "notes.txt", "content_base64": "aGk="}, true
	case "kanban_attach_url":
		// Refused by the URL policy, which only the handler applies.
		return obj{"url": "http://127.0.0.1:1/notes.txt"}, true
	}
	return nil, false
}

// reachedHandler is, for a tool whose allowed call cannot succeed on this
// fixture, the handler's own refusal that proves authority let it by.
func reachedHandler(tool string) (string, bool) {
	switch tool {
	case "kanban_request_changes":
		return "not claimed from review", true
	case "kanban_attach_url":
		return "URL blocked by SSRF protection", true
	}
	return "", false
}

// TestWorkerAuthority proves the rule table for every kanban tool and
// every argument in its input schema: an argument the table does not
// classify fails; a worker naming a task outside its scope (or another
// board) is refused with a result naming the task, the argument and the
// rule, and both boards are unchanged; naming its own task (or, for
// created_cards, a task it created) gets past the check.
func TestWorkerAuthority(t *testing.T) {
	ts := kanban.Toolset(kanban.Options{Home: t.TempDir()})
	var toolNames []string
	for _, tool := range ts.Tools {
		toolNames = append(toolNames, tool.Name)
	}
	for _, name := range kanban.WorkerRuleTools() {
		if !slices.Contains(toolNames, name) {
			t.Errorf("rule table has %s, which is not a kanban tool", name)
		}
	}
	for _, tool := range ts.Tools {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		props := make([]string, 0, len(schema.Properties))
		for p := range schema.Properties {
			props = append(props, p)
		}
		sort.Strings(props)
		_, orchestratorOnly, _ := kanban.WorkerArgRule(tool.Name, "")
		if orchestratorOnly {
			t.Run(tool.Name+"/whole tool", func(t *testing.T) {
				t.Parallel()
				f := newAuthFixture(t)
				args, _ := f.baseArgs(tool.Name, "")
				f.refused(t, tool.Name, args, tool.Name+" is orchestrator-only")
			})
		}
		for _, arg := range props {
			scope, _, known := kanban.WorkerArgRule(tool.Name, arg)
			if !known {
				t.Errorf("%s.%s has no worker authority rule: classify it in workerRules (authority.go) and the README", tool.Name, arg)
				continue
			}
			if scope == "" {
				continue
			}
			if _, ok := newAuthFixtureArgs(tool.Name); !ok {
				t.Errorf("%s: no base arguments in authFixture.baseArgs", tool.Name)
				continue
			}
			isList := strings.Contains(string(schema.Properties[arg]), `"array"`)
			t.Run(tool.Name+"/"+arg+"/not its own", func(t *testing.T) {
				t.Parallel()
				f := newAuthFixture(t)
				args, _ := f.baseArgs(tool.Name, arg)
				bad, want := f.foreign, f.foreign
				if scope == "board" {
					bad, want = "other", "refusing board 'other'"
				}
				args[arg] = bad
				if isList {
					// Every element is checked, not just the first.
					args[arg] = []string{f.allowed(scope), bad}
				}
				if orchestratorOnly {
					f.refused(t, tool.Name, args, tool.Name+" is orchestrator-only")
					return
				}
				f.refused(t, tool.Name, args, want, "("+arg+")")
			})
			t.Run(tool.Name+"/"+arg+"/its own", func(t *testing.T) {
				t.Parallel()
				f := newAuthFixture(t)
				args, _ := f.baseArgs(tool.Name, arg)
				good := f.allowed(scope)
				args[arg] = good
				if isList {
					args[arg] = []string{good}
				}
				if orchestratorOnly {
					f.refused(t, tool.Name, args, tool.Name+" is orchestrator-only")
					return
				}
				m, isErr := f.worker.call(tool.Name, args)
				msg, _ := m["error"].(string)
				switch want, ok := reachedHandler(tool.Name); {
				case ok && (!isErr || !contains(msg, want)):
					t.Errorf("%s %v: want the handler's %q, got %v", tool.Name, args, want, m)
				case !ok && isErr:
					t.Errorf("%s %v by the worker on its own task: %s", tool.Name, args, msg)
				}
			})
		}
	}
}

func newAuthFixtureArgs(tool string) (obj, bool) { return (&authFixture{}).baseArgs(tool, "") }

// allowed is the id the worker may name for a scope.
func (f *authFixture) allowed(scope string) string {
	switch scope {
	case "created":
		return f.created
	case "board":
		return "default"
	}
	return f.own
}

// refused calls tool as the worker, wants an error result containing each
// of want and the worker's task, and both boards unchanged.
func (f *authFixture) refused(t *testing.T, tool string, args obj, want ...string) {
	t.Helper()
	before := f.dump(t)
	msg := f.worker.fail(tool, args)
	if !strings.Contains(want[0], "orchestrator-only") {
		want = append(want, "worker is scoped to task "+f.own)
	}
	for _, w := range want {
		if !contains(msg, w) {
			t.Errorf("%s %v: refusal %q lacks %q", tool, args, msg, w)
		}
	}
	if after := f.dump(t); after != before {
		t.Errorf("%s %v: a refused call changed the board:\nbefore:\n%s\nafter:\n%s", tool, args, before, after)
	}
}

// dump renders every row of every table of both boards.
func (f *authFixture) dump(t *testing.T) string {
	t.Helper()
	var out strings.Builder
	for _, path := range f.boards {
		db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tables, err := db.Query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for tables.Next() {
			var n string
			tables.Scan(&n)
			names = append(names, n)
		}
		tables.Close()
		for _, n := range names {
			rows, err := db.Query(`SELECT * FROM "` + n + `"`)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rows.Columns()
			var lines []string
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				lines = append(lines, fmt.Sprint(vals...))
			}
			rows.Close()
			sort.Strings(lines)
			fmt.Fprintf(&out, "%s %s:\n%s\n", path, n, strings.Join(lines, "\n"))
		}
	}
	return out.String()
}

// TestWorkerIdempotencyKeyScoped: a worker reusing another task's
// idempotency key gets a task of its own, never the other task's id, while
// its own retries still find the task it created first.
func TestWorkerIdempotencyKeyScoped(t *testing.T) {
	f := newAuthFixture(t)
	theirs := f.orch.ok("kanban_create", obj{"title": "Theirs", "assignee": "other", "idempotency_key": "k1"})["task_id"].(string)
	mine := f.worker.ok("kanban_create", obj{"title": "Mine", "assignee": "helper", "idempotency_key": "k1"})["task_id"].(string)
	if mine == theirs {
		t.Fatalf("the worker's create with another task's key returned that task %s", theirs)
	}
	if again := f.worker.ok("kanban_create", obj{"title": "Mine", "assignee": "helper", "idempotency_key": "k1"})["task_id"].(string); again != mine {
		t.Errorf("the worker's retry made %s, want its first task %s", again, mine)
	}
	// The worker may link what it created, both ends.
	f.worker.ok("kanban_link", obj{"parent_id": f.created, "child_id": mine})
}
