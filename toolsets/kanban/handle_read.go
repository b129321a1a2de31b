package kanban

import (
	"context"
	"encoding/json"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type showArgs struct {
	TaskID string `json:"task_id"`
	Board  string `json:"board"`
}

func (k *kit) handleShow(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[showArgs](raw)
	if err != nil {
		return fail("kanban_show: %v", err), nil
	}
	tid := k.defaultTaskID(a.TaskID)
	if tid == "" {
		return fail("task_id is required (or set HERMES_KANBAN_TASK in the env)"), nil
	}
	b, res, done, err := k.open(ctx, toolShow, a.Board, readBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("task %s not found", tid), nil
	}
	defer b.Close()
	t, err := b.Task(ctx, tid)
	if err != nil {
		return finish(toolShow, err)
	}
	if t == nil {
		return fail("task %s not found", tid), nil
	}
	parents, err := b.ParentIDs(ctx, tid)
	if err != nil {
		return finish(toolShow, err)
	}
	children, err := b.ChildIDs(ctx, tid)
	if err != nil {
		return finish(toolShow, err)
	}
	comments, err := b.Comments(ctx, tid)
	if err != nil {
		return finish(toolShow, err)
	}
	events, err := b.Events(ctx, tid)
	if err != nil {
		return finish(toolShow, err)
	}
	runs, err := b.Runs(ctx, tid)
	if err != nil {
		return finish(toolShow, err)
	}
	wctx, err := b.WorkerContext(ctx, tid)
	if err != nil {
		return finish(toolShow, err)
	}
	type commentOut struct {
		Author    string `json:"author"`
		Body      string `json:"body"`
		CreatedAt int64  `json:"created_at"`
	}
	type eventOut struct {
		Kind      string `json:"kind"`
		Payload   any    `json:"payload"`
		CreatedAt int64  `json:"created_at"`
		RunID     *int64 `json:"run_id"`
	}
	cs := make([]commentOut, 0, len(comments))
	for _, c := range comments {
		cs = append(cs, commentOut{c.Author, c.Body, c.CreatedAt})
	}
	// The full log stays in the CLI; the model gets the recent part.
	if len(events) > 50 {
		events = events[len(events)-50:]
	}
	es := make([]eventOut, 0, len(events))
	for _, e := range events {
		es = append(es, eventOut{e.Kind, e.Payload, e.CreatedAt, e.RunID})
	}
	return tooldef.OK(map[string]any{
		"task": map[string]any{
			"id": t.ID, "title": t.Title, "body": t.Body, "assignee": t.Assignee, "status": t.Status,
			"tenant": t.Tenant, "priority": t.Priority, "workspace_kind": t.WorkspaceKind,
			"workspace_path": t.WorkspacePath, "created_by": t.CreatedBy, "created_at": t.CreatedAt,
			"started_at": t.StartedAt, "completed_at": t.CompletedAt, "result": t.Result,
			"current_run_id": t.CurrentRunID, "model_override": t.ModelOverride,
		},
		"parents":        parents,
		"children":       children,
		"comments":       cs,
		"events":         es,
		"runs":           runs,
		"worker_context": wctx,
	}), nil
}

type listArgs struct {
	// Assignee absent lists every assignee; present, it must name a
	// profile ("" is refused, as in Hermes).
	Assignee        *string `json:"assignee"`
	Status          string  `json:"status"`
	Tenant          string  `json:"tenant"`
	IncludeArchived bool    `json:"include_archived"`
	Limit           *int    `json:"limit"`
	Board           string  `json:"board"`
}

func (k *kit) handleList(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[listArgs](raw)
	if err != nil {
		return fail("kanban_list: %v", err), nil
	}
	limit := listDefaultLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	if limit < 1 {
		return fail("limit must be >= 1"), nil
	}
	if limit > listMaxLimit {
		return fail("limit must be <= %d", listMaxLimit), nil
	}
	if a.Assignee != nil {
		if _, err := NormalizeProfileName(*a.Assignee); err != nil {
			return fail("kanban_list: %v", err), nil
		}
	}
	// A delegate_task descendant reads the board as it is: it may not
	// write, not even the promotions below.
	mode := updateBoard
	if k.delegated() {
		mode = readBoard
	}
	b, res, done, err := k.open(ctx, toolList, a.Board, mode)
	if done || err != nil {
		return res, err
	}
	promoted := 0
	tasks := []Task{}
	if b != nil {
		defer b.Close()
		// Dependencies that cleared since the dispatcher's last tick show
		// as ready at once, as in the CLI.
		if mode == updateBoard {
			if promoted, err = b.RecomputeReady(ctx); err != nil {
				return finish(toolList, err)
			}
		}
		if tasks, err = b.ListTasks(ctx, Filter{Assignee: a.Assignee, Status: a.Status, Tenant: a.Tenant, IncludeArchived: a.IncludeArchived, Limit: limit + 1}); err != nil {
			return finish(toolList, err)
		}
	}
	truncated := len(tasks) > limit
	if truncated {
		tasks = tasks[:limit]
	}
	rows := make([]map[string]any, 0, len(tasks))
	for _, t := range tasks {
		parents, children := []string{}, []string{}
		if b != nil {
			if parents, err = b.ParentIDs(ctx, t.ID); err != nil {
				return finish(toolList, err)
			}
			if children, err = b.ChildIDs(ctx, t.ID); err != nil {
				return finish(toolList, err)
			}
		}
		rows = append(rows, map[string]any{
			"id": t.ID, "title": t.Title, "assignee": t.Assignee, "status": t.Status, "priority": t.Priority,
			"tenant": t.Tenant, "workspace_kind": t.WorkspaceKind, "workspace_path": t.WorkspacePath,
			"created_by": t.CreatedBy, "created_at": t.CreatedAt, "started_at": t.StartedAt,
			"completed_at": t.CompletedAt, "current_run_id": t.CurrentRunID, "model_override": t.ModelOverride,
			"parents": parents, "children": children, "parent_count": len(parents), "child_count": len(children),
		})
	}
	var next any
	if truncated && limit < listMaxLimit {
		next = min(limit*2, listMaxLimit)
	}
	return tooldef.OK(map[string]any{
		"tasks": rows, "count": len(rows), "limit": limit, "truncated": truncated, "next_limit": next, "promoted": promoted,
	}), nil
}
