package kanban

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type createArgs struct {
	Title             string   `json:"title"`
	Assignee          string   `json:"assignee"`
	Body              string   `json:"body"`
	Parents           []string `json:"parents"`
	Tenant            string   `json:"tenant"`
	Priority          int64    `json:"priority"`
	WorkspaceKind     string   `json:"workspace_kind"`
	WorkspacePath     *string  `json:"workspace_path"`
	Triage            bool     `json:"triage"`
	IdempotencyKey    string   `json:"idempotency_key"`
	MaxRuntimeSeconds *int64   `json:"max_runtime_seconds"`
	InitialStatus     string   `json:"initial_status"`
	Skills            []string `json:"skills"`
	GoalMode          bool     `json:"goal_mode"`
	GoalMaxTurns      *int64   `json:"goal_max_turns"`
	Board             string   `json:"board"`
}

func (k *kit) handleCreate(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[createArgs](raw)
	if err != nil {
		return fail("kanban_create: %v", err), nil
	}
	if strings.TrimSpace(a.Title) == "" {
		return fail("title is required"), nil
	}
	// Only a missing or empty assignee is "required"; a blank one reaches
	// the normalisation and is refused there, as in Hermes.
	if a.Assignee == "" {
		return fail("assignee is required — name the profile that should execute this task (the dispatcher will only spawn tasks with an assignee)"), nil
	}
	// An empty tenant argument falls back to HERMES_TENANT, and no tenant
	// at all (nil) inherits the parents'. Hermes also stores a set but
	// empty HERMES_TENANT as "", which inherits nothing; here an empty
	// variable counts as unset, because MCP clients forward every variable
	// as ${VAR:-} and so turn "unset" into "".
	var tenant *string
	if a.Tenant != "" {
		tenant = &a.Tenant
	} else if v := k.getenv(envTenant); v != "" {
		tenant = &v
	}
	path := ""
	if a.WorkspacePath != nil {
		path = *a.WorkspacePath
	}
	b, res, done, err := k.open(ctx, toolCreate, a.Board, createBoard)
	if done || err != nil {
		return res, err
	}
	defer b.Close()
	// Omitted workspace fields mean a fresh scratch workspace, even for a
	// worker's child: sharing the creator's directory would let the child
	// change the evidence under review or race its checkout (Hermes dropped
	// that inheritance for the same reason).
	id, err := b.CreateTask(ctx, NewTask{
		Title: a.Title, Body: a.Body, Assignee: a.Assignee, CreatedBy: k.author(),
		Tenant: tenant, Priority: a.Priority, Parents: a.Parents, WorkspaceKind: a.WorkspaceKind, WorkspacePath: path,
		Triage: a.Triage, IdempotencyKey: a.IdempotencyKey, MaxRuntimeSeconds: a.MaxRuntimeSeconds,
		Skills: a.Skills, GoalMode: a.GoalMode, GoalMaxTurns: a.GoalMaxTurns, InitialStatus: a.InitialStatus,
		SessionID: strings.TrimSpace(k.getenv(envSessionID)), CreatorTask: k.dispatchedTask(),
	})
	if err != nil {
		return finish(toolCreate, err)
	}
	t, err := b.Task(ctx, id)
	if err != nil {
		return finish(toolCreate, err)
	}
	if t == nil {
		return tooldef.Result{}, fmt.Errorf("kanban_create: task %s vanished right after it was created", id)
	}
	project, err := b.ProjectID(ctx, id)
	if err != nil {
		return finish(toolCreate, err)
	}
	out := map[string]any{
		"task_id": id, "status": t.Status, "workspace_kind": t.WorkspaceKind, "workspace_path": t.WorkspacePath,
		"project_id": project, "gated": false,
		// This server keeps no notification subscriptions.
		"subscribed": false,
	}
	wait, err := b.latestEventPayload(ctx, b.db, id, "dependency_wait", nil)
	if err != nil {
		return finish(toolCreate, err)
	}
	if wait != nil {
		out["gated"] = true
		out["gated_by"] = wait["parent"]
	}
	return ok(out), nil
}

type linkArgs struct {
	ParentID string `json:"parent_id"`
	ChildID  string `json:"child_id"`
	Board    string `json:"board"`
}

func (k *kit) handleLink(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[linkArgs](raw)
	if err != nil {
		return fail("kanban_link: %v", err), nil
	}
	parent, child := strings.TrimSpace(a.ParentID), strings.TrimSpace(a.ChildID)
	if parent == "" || child == "" {
		return fail("both parent_id and child_id are required"), nil
	}
	b, res, done, err := k.open(ctx, toolLink, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("kanban_link: unknown task(s): %s, %s", parent, child), nil
	}
	defer b.Close()
	// A worker linking a parent under its own running task proves it owns
	// that run with its run id.
	gated, err := b.LinkTasks(ctx, parent, child, k.workerRunID(child))
	if err != nil {
		return finish(toolLink, err)
	}
	out := map[string]any{"parent_id": parent, "child_id": child, "gated": gated}
	if gated {
		out["gated_by"] = parent
	}
	return ok(out), nil
}

type unblockArgs struct {
	TaskID string `json:"task_id"`
	Board  string `json:"board"`
}

func (k *kit) handleUnblock(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[unblockArgs](raw)
	if err != nil {
		return fail("kanban_unblock: %v", err), nil
	}
	tid := strings.TrimSpace(a.TaskID)
	if tid == "" {
		return fail("task_id is required"), nil
	}
	b, res, done, err := k.open(ctx, toolUnblock, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not unblock %s (not blocked or unknown)", tid), nil
	}
	defer b.Close()
	unblocked, err := b.UnblockTask(ctx, tid)
	if err != nil {
		return finish(toolUnblock, err)
	}
	if !unblocked {
		return fail("could not unblock %s (not blocked or unknown)", tid), nil
	}
	t, err := b.Task(ctx, tid)
	if err != nil {
		return finish(toolUnblock, err)
	}
	status := "ready"
	if t != nil {
		status = t.Status
	}
	return ok(map[string]any{"task_id": tid, "status": status}), nil
}

type commentArgs struct {
	TaskID string `json:"task_id"`
	Body   string `json:"body"`
	Board  string `json:"board"`
}

func (k *kit) handleComment(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[commentArgs](raw)
	if err != nil {
		return fail("kanban_comment: %v", err), nil
	}
	tid := strings.TrimSpace(a.TaskID)
	if tid == "" {
		return fail("task_id is required (use the current task id if that's what you mean — pulls from env but kept explicit here)"), nil
	}
	if strings.TrimSpace(a.Body) == "" {
		return fail("body is required"), nil
	}
	b, res, done, err := k.open(ctx, toolComment, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("kanban_comment: unknown task %s", tid), nil
	}
	defer b.Close()
	// The author comes from this process, never from the caller: comments
	// reach later workers' prompts, and a forged "hermes-system" author
	// would read as an instruction.
	cid, err := b.AddComment(ctx, tid, k.author(), redact.String(a.Body))
	if err != nil {
		return finish(toolComment, err)
	}
	return ok(map[string]any{"task_id": tid, "comment_id": cid}), nil
}
