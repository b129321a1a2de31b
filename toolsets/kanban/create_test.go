package kanban_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

// parentBoard builds parents with the given status and tenant ("-" for
// NULL) and returns the board, its file and the ids by name.
func parentBoard(t *testing.T) (*kanban.Board, string, map[string]string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kanban.db")
	b := openBoard(t, path)
	raw := rawDB(t, path)
	ids := map[string]string{}
	for _, p := range []struct{ name, status, tenant string }{
		{"open_none", "running", "-"},
		{"open_empty", "ready", ""},
		{"open_acme", "todo", "acme"},
		{"done_beta", "done", "beta"},
		{"done_none", "done", "-"},
		{"archived_gamma", "archived", "gamma"},
		{"blocked_none", "blocked", "-"},
	} {
		id, err := b.CreateTask(context.Background(), kanban.NewTask{Title: p.name, Assignee: "w"})
		if err != nil {
			t.Fatal(err)
		}
		var tenant any = p.tenant
		if p.tenant == "-" {
			tenant = nil
		}
		exec1(t, raw, "UPDATE tasks SET status = ?, tenant = ? WHERE id = ?", p.status, tenant, id)
		ids[p.name] = id
	}
	return b, path, ids
}

// TestInitialTaskState is kanban_db_graph.initial_task_state's rule: the
// tenant of the first parent (argument order) with a non-empty tenant when
// none is given; blocked > triage > todo (a parent not done, archived
// included) > ready; and a dependency_wait naming the first parent that is
// neither done nor archived.
func TestInitialTaskState(t *testing.T) {
	b, _, ids := parentBoard(t)
	ctx := context.Background()
	str := func(s string) *string { return &s }
	tests := []struct {
		name       string
		parents    []string
		tenant     *string
		triage     bool
		initial    string
		wantStatus string
		wantTenant *string
		wantWait   string // dependency_wait parent, "" for none
	}{
		{name: "no parents", wantStatus: "ready"},
		{name: "first non-empty tenant in argument order", parents: []string{"open_none", "open_empty", "done_beta", "open_acme"},
			wantStatus: "todo", wantTenant: str("beta"), wantWait: "open_none"},
		{name: "argument order, not id order", parents: []string{"open_acme", "done_beta"}, wantStatus: "todo", wantTenant: str("acme"), wantWait: "open_acme"},
		{name: "explicit tenant wins", parents: []string{"done_beta"}, tenant: str("own"), wantStatus: "ready", wantTenant: str("own")},
		{name: "explicit empty tenant is kept and inherits nothing", parents: []string{"done_beta"}, tenant: str(""), wantStatus: "ready", wantTenant: str("")},
		{name: "parents without tenants", parents: []string{"open_none", "done_none"}, wantStatus: "todo", wantWait: "open_none"},
		{name: "all done", parents: []string{"done_beta", "done_none"}, wantStatus: "ready", wantTenant: str("beta")},
		{name: "archived parent is not done at creation", parents: []string{"archived_gamma", "done_beta"}, wantStatus: "todo", wantTenant: str("gamma")},
		{name: "wait names the first open parent after an archived one", parents: []string{"archived_gamma", "blocked_none", "open_acme"},
			wantStatus: "todo", wantTenant: str("gamma"), wantWait: "blocked_none"},
		{name: "repeated parent", parents: []string{"open_acme", "open_acme"}, wantStatus: "todo", wantTenant: str("acme"), wantWait: "open_acme"},
		{name: "triage beats todo", parents: []string{"open_none"}, triage: true, wantStatus: "triage"},
		{name: "blocked beats triage", parents: []string{"open_none"}, triage: true, initial: "blocked", wantStatus: "blocked"},
		{name: "blocked without parents", initial: "blocked", wantStatus: "blocked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var parents []string
			for _, p := range tt.parents {
				parents = append(parents, ids[p])
			}
			id, err := b.CreateTask(ctx, kanban.NewTask{Title: tt.name, Assignee: "w", Parents: parents, Tenant: tt.tenant,
				Triage: tt.triage, InitialStatus: tt.initial})
			if err != nil {
				t.Fatal(err)
			}
			task := mustTask(t, b, id)
			if task.Status != tt.wantStatus {
				t.Errorf("status = %s, want %s", task.Status, tt.wantStatus)
			}
			if (task.Tenant == nil) != (tt.wantTenant == nil) || task.Tenant != nil && *task.Tenant != *tt.wantTenant {
				t.Errorf("tenant = %v, want %v", deref(task.Tenant), deref(tt.wantTenant))
			}
			evs, _ := b.Events(ctx, id)
			created := evs[0].Payload.(map[string]any)
			if created["status"] != tt.wantStatus || created["tenant"] != anyOf(tt.wantTenant) {
				t.Errorf("created payload = %v", created)
			}
			var waits []any
			for _, e := range evs {
				if e.Kind == "dependency_wait" {
					waits = append(waits, e.Payload)
				}
			}
			switch {
			case tt.wantWait == "" && len(waits) > 0:
				t.Errorf("unexpected dependency_wait %v", waits)
			case tt.wantWait != "":
				want := map[string]any{"reason": "parent_not_done", "parent": ids[tt.wantWait]}
				if len(waits) != 1 || !jsonEqual(waits[0], want) {
					t.Errorf("dependency_wait = %v, want %v", waits, want)
				}
			}
		})
	}
	// Unknown parents are named in argument order whatever the status.
	for _, initial := range []string{"running", "blocked"} {
		_, err := b.CreateTask(ctx, kanban.NewTask{Title: "x", Assignee: "w", InitialStatus: initial,
			Parents: []string{"t_zz", ids["done_beta"], "t_aa", " " + ids["done_beta"]}})
		if err == nil || err.Error() != "unknown parent task(s): t_zz, t_aa,  "+ids["done_beta"] {
			t.Errorf("%s: err = %v", initial, err)
		}
	}
	// The archived-only todo task is released by the next promotion.
	if n, err := b.RecomputeReady(ctx); err != nil || n == 0 {
		t.Errorf("RecomputeReady = %d, %v", n, err)
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func anyOf(p *string) any { return deref(p) }

func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// TestCreatedEventPayload pins the created event's keys, in Hermes' order.
func TestCreatedEventPayload(t *testing.T) {
	b, path, ids := parentBoard(t)
	ctx := context.Background()
	id, err := b.CreateTask(ctx, kanban.NewTask{Title: "x", Assignee: "W", Parents: []string{ids["open_acme"]},
		Skills: []string{"translation"}, GoalMode: true, CreatorTask: ids["open_none"], WorkspaceKind: "dir", WorkspacePath: "/srv/x"})
	if err != nil {
		t.Fatal(err)
	}
	var payload string
	rawDB(t, path).QueryRow("SELECT payload FROM task_events WHERE task_id = ? AND kind = 'created'", id).Scan(&payload)
	dec := json.NewDecoder(strings.NewReader(payload))
	dec.Token()
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var v any
		dec.Decode(&v)
	}
	want := []string{"assignee", "status", "parents", "creator_task_id", "tenant", "workspace_kind", "workspace_path",
		"branch_name", "project_id", "skills", "goal_mode", "model_override", "provider_override"}
	if !slices.Equal(keys, want) {
		t.Fatalf("created payload keys = %v\nwant %v", keys, want)
	}
	var p map[string]any
	json.Unmarshal([]byte(payload), &p)
	wantP := map[string]any{"assignee": "w", "status": "todo", "parents": []any{ids["open_acme"]}, "creator_task_id": ids["open_none"],
		"tenant": "acme", "workspace_kind": "dir", "workspace_path": "/srv/x", "branch_name": nil, "project_id": nil,
		"skills": []any{"translation"}, "goal_mode": true, "model_override": nil, "provider_override": nil}
	if !jsonEqual(p, wantP) {
		t.Errorf("payload = %s\nwant %v", payload, wantP)
	}
	// Without them, skills and goal_mode are null, as in Hermes.
	id2, _ := b.CreateTask(ctx, kanban.NewTask{Title: "y", Assignee: "w", Skills: []string{}})
	evs, _ := b.Events(ctx, id2)
	if p := evs[0].Payload.(map[string]any); p["skills"] != nil || p["goal_mode"] != nil || p["creator_task_id"] != nil || p["parents"] == nil {
		t.Errorf("bare payload = %v", p)
	}
	// Tasks created by a worker, recorded under Hermes' key or the key
	// earlier versions of these tools wrote, are that worker's.
	raw := rawDB(t, path)
	exec1(t, raw, `INSERT INTO task_events (task_id, kind, payload, created_at) VALUES ('t_old', 'created', '{"creator_task": "`+ids["open_none"]+`"}', 1)`)
	mine, _ := b.CreatedByTask(ctx, ids["open_none"])
	if want := []string{id, "t_old"}; !slices.Equal(mine, sortedCopy(want)) {
		t.Errorf("CreatedByTask = %v, want %v", mine, sortedCopy(want))
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestCreateToolTenantAndGate: kanban_create's tenant is the argument,
// else HERMES_TENANT, else the parents'; its result says whether the task
// waits for a parent.
func TestCreateToolTenantAndGate(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{}
	h := newHarness(t, home, env)
	parent := h.ok("kanban_create", obj{"title": "p", "assignee": "w", "tenant": "acme"})
	pid := parent["task_id"].(string)
	if parent["gated"] != false || parent["workspace_kind"] != "scratch" || parent["subscribed"] != false {
		t.Errorf("parent result = %v", parent)
	}
	child := h.ok("kanban_create", obj{"title": "c", "assignee": "w", "parents": []string{pid}})
	if child["status"] != "todo" || child["gated"] != true || child["gated_by"] != pid {
		t.Errorf("child result = %v", child)
	}
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	if tn := mustTask(t, b, child["task_id"].(string)).Tenant; tn == nil || *tn != "acme" {
		t.Errorf("child tenant = %v, want inherited acme", deref(tn))
	}
	env["HERMES_TENANT"] = "envco"
	for _, args := range []obj{
		{"title": "c2", "assignee": "w", "parents": []string{pid}},
		{"title": "c3", "assignee": "w", "parents": []string{pid}, "tenant": ""},
	} {
		got := h.ok("kanban_create", args)
		if tn := mustTask(t, b, got["task_id"].(string)).Tenant; tn == nil || *tn != "envco" {
			t.Errorf("%v: tenant = %v, want HERMES_TENANT", args, deref(tn))
		}
	}
	got := h.ok("kanban_create", obj{"title": "c4", "assignee": "w", "parents": []string{pid}, "tenant": "mine"})
	if tn := mustTask(t, b, got["task_id"].(string)).Tenant; *tn != "mine" {
		t.Errorf("explicit tenant = %v", *tn)
	}
	// A worker's child gets a fresh scratch workspace, not the worker's.
	raw := rawDB(t, filepath.Join(home, "kanban.db"))
	exec1(t, raw, "UPDATE tasks SET workspace_kind = 'dir', workspace_path = '/srv/shared' WHERE id = ?", pid)
	w := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": pid})
	wc := w.ok("kanban_create", obj{"title": "sub", "assignee": "w"})
	if wc["workspace_kind"] != "scratch" || wc["workspace_path"] != nil {
		t.Errorf("worker child workspace = %v %v", wc["workspace_kind"], wc["workspace_path"])
	}
}

// TestLinkGates: a link that sends a ready child back to todo says so and
// records why; a running child cannot be linked under a new parent except
// by the worker that owns its run.
func TestLinkGates(t *testing.T) {
	home := t.TempDir()
	h := newHarness(t, home, nil)
	b := openBoard(t, filepath.Join(home, "kanban.db"))
	ctx := context.Background()
	p := h.ok("kanban_create", obj{"title": "p", "assignee": "w"})["task_id"].(string)
	c := h.ok("kanban_create", obj{"title": "c", "assignee": "w"})["task_id"].(string)
	got := h.ok("kanban_link", obj{"parent_id": p, "child_id": c})
	if got["gated"] != true || got["gated_by"] != p || mustTask(t, b, c).Status != "todo" {
		t.Errorf("link = %v, child %s", got, mustTask(t, b, c).Status)
	}
	evs, _ := b.Events(ctx, c)
	if e := evs[len(evs)-2]; e.Kind != "dependency_wait" || !jsonEqual(e.Payload, map[string]any{"reason": "parent_not_done", "demoted": true, "parent": p}) {
		t.Errorf("events = %+v", evs)
	}
	r := h.ok("kanban_create", obj{"title": "r", "assignee": "w"})["task_id"].(string)
	claimed, err := b.ClaimTask(ctx, r, "host:1", 60e9)
	if err != nil || claimed == nil {
		t.Fatal(err)
	}
	if msg := h.fail("kanban_link", obj{"parent_id": p, "child_id": r}); msg != "kanban_link: cannot link "+p+" -> "+r+": child is already running" {
		t.Errorf("link under a running child: %s", msg)
	}
	owner := newHarness(t, home, map[string]string{"HERMES_KANBAN_TASK": r, "HERMES_KANBAN_RUN_ID": itoa(*claimed.CurrentRunID)})
	// The worker may link only tasks it created; create the parent as it.
	op := owner.ok("kanban_create", obj{"title": "dep", "assignee": "w"})["task_id"].(string)
	if got := owner.ok("kanban_link", obj{"parent_id": op, "child_id": r}); got["gated"] != false {
		t.Errorf("owner link = %v", got)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
