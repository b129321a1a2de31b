// Package kanban serves the Hermes kanban board (kanban.db) to MCP clients
// as the `kanban` toolset: the nine tools of tools/kanban_tools.py plus the
// two review handoffs upstream added later (kanban_request_review,
// kanban_request_changes), with the original's parameters, results, error
// texts and gating.
//
// The board is shared with the Python Hermes and its dispatcher: every
// write is one IMMEDIATE transaction on the WAL-mode database, and claims,
// runs and events are written in the rows and shapes the dispatcher reads.
// Board exposes the same operations to Go callers (a dispatcher, tests).
//
// Gating follows the original exactly. A dispatcher-spawned worker
// (HERMES_KANBAN_TASK set) sees every tool but kanban_list and
// kanban_unblock and may change only its own task's lifecycle; a profile
// with "kanban" in config.yaml's toolsets (an orchestrator) sees all of
// them; anyone else sees none.
package kanban

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Options configures the kanban toolset.
type Options struct {
	// Home is HERMES_HOME, absolute. Boards live under the kanban root
	// derived from it (see Root).
	Home string
	// Getenv reads the environment at call time; nil means os.Getenv.
	Getenv func(string) string
	// ConfigPath is the config.yaml whose top-level toolsets mark an
	// orchestrator profile; empty means Home/config.yaml. It is read each
	// time gating is decided, as Hermes does.
	ConfigPath string
	// BusyTimeout bounds waits for another process's lock; zero means
	// sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// EnvVars are the variables the toolset reads; the dispatcher sets them in
// a worker's environment.
var EnvVars = []string{
	"HERMES_KANBAN_TASK", "HERMES_KANBAN_RUN_ID", "HERMES_KANBAN_CLAIM_LOCK", "HERMES_KANBAN_CLAIM_TTL_SECONDS",
	"HERMES_KANBAN_DB", "HERMES_KANBAN_BOARD", "HERMES_KANBAN_HOME",
	"HERMES_PROFILE", "HERMES_TENANT", "HERMES_SESSION_ID",
}

type kit struct {
	opts   Options
	getenv func(string) string
}

// Toolset returns the kanban toolset.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts, getenv: opts.Getenv}
	if k.getenv == nil {
		k.getenv = os.Getenv
	}
	tool := func(name, title, desc, in, out string, h tooldef.Hints, fn tooldef.Handler, check func() error) tooldef.Tool {
		return tooldef.Tool{
			Name: name, Title: title, Description: desc,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Hints: h, Handler: fn, Check: check,
		}
	}
	// Hints: a transition that ends a run or overwrites what the task
	// holds (its result, its assignee) is destructive; adding rows is not.
	readOnly := tooldef.Hints{ReadOnly: true, Idempotent: true}
	ending := tooldef.Hints{Destructive: true}
	additive := tooldef.Hints{}
	settles := tooldef.Hints{Idempotent: true}
	return tooldef.Toolset{
		Name:        "kanban",
		Description: "Work the Hermes kanban board: report back from a dispatched task, or route work as an orchestrator.",
		// On by default, yet every tool stays hidden unless this process is
		// a dispatcher worker or an orchestrator profile: a codex worker
		// whose callback lacks these tools cannot report back and hangs
		// until the dispatcher times it out.
		Default: true,
		EnvVars: slices.Clone(EnvVars),
		Tools: []tooldef.Tool{
			tool("kanban_show", "Show a kanban task", showDescription, showInput, showOutput, readOnly, k.handleShow, k.checkWorker),
			tool("kanban_list", "List kanban tasks", listDescription, listInput, listOutput, settles, k.handleList, k.checkOrchestrator),
			tool("kanban_complete", "Complete a kanban task", completeDescription, completeInput, okTaskRunOutput, ending, k.handleComplete, k.checkWorker),
			tool("kanban_block", "Block a kanban task", blockDescription, blockInput, okTaskRunOutput, ending, k.handleBlock, k.checkWorker),
			tool("kanban_heartbeat", "Kanban heartbeat", heartbeatDescription, heartbeatInput, heartbeatOutput, additive, k.handleHeartbeat, k.checkWorker),
			tool("kanban_comment", "Comment on a kanban task", commentDescription, commentInput, commentOutput, additive, k.handleComment, k.checkWorker),
			tool("kanban_create", "Create a kanban task", createDescription, createInput, statusOutput, additive, k.handleCreate, k.checkWorker),
			tool("kanban_unblock", "Unblock a kanban task", unblockDescription, unblockInput, statusOutput, settles, k.handleUnblock, k.checkOrchestrator),
			tool("kanban_link", "Link kanban tasks", linkDescription, linkInput, linkOutput, settles, k.handleLink, k.checkWorker),
			tool("kanban_request_review", "Request review of a kanban task", requestReviewDescription, requestReviewInput, statusOutput, ending, k.handleRequestReview, k.checkWorker),
			tool("kanban_request_changes", "Request changes on a kanban task", requestChangesDescription, requestChangesInput, requestChangesOutput, ending, k.handleRequestChanges, k.checkWorker),
		},
	}
}

const showDescription = "Read everything about a kanban task: its brief, assignee and status, parent and child " +
	"tasks, earlier attempts with their handoffs, comments and recent events, plus worker_context, a ready-made " +
	"summary to read before you start. Call it first when you pick up a task, and again when you retry one."

const listDescription = "List kanban tasks so an orchestrator can see what to route. Filter by assignee, status " +
	"or tenant; archived tasks are left out unless asked for. Returns compact rows (id, title, status, assignee, " +
	"priority, parent and child ids), 50 by default and at most 200, and says when the list was cut short. " +
	"Before listing it promotes tasks whose parents have all finished, like the Hermes CLI. Orchestrators only."

const completeDescription = "Finish your kanban task and hand off the result. Put a short human-readable account " +
	"of what you did in summary and machine-readable facts (changed files, tests run, findings) in metadata; at " +
	"least one of summary or result is needed. List tasks you created with kanban_create in created_cards and " +
	"deliverable files in artifacts. Children waiting on this task become ready."

const blockDescription = "Stop work on your kanban task because you need a person: a decision, an answer, access " +
	"you lack. The reason is shown on the board and to whoever unblocks the task. Only for real blockers, not for " +
	"things you can work out yourself."

const heartbeatDescription = "Tell the board you are still working on your kanban task during a long operation " +
	"(a build, a crawl, a training run): it extends your claim so the dispatcher does not take the task back, and " +
	"logs an optional progress note. Call it every few minutes. Changes nothing else."

const commentDescription = "Add a comment to a kanban task's thread, yours or another's. Comments outlive this run: " +
	"use them for questions to the next worker, findings, or the reasoning behind a decision, not for passing " +
	"thoughts."

const createDescription = "Create a kanban task, for example to split your work into pieces for other profiles. " +
	"Give it an assignee and a clear body; list parents to make it wait for other tasks (include your own task id " +
	"to run it after you). The dispatcher starts the assigned profile once the task is ready."

const unblockDescription = "Release a blocked kanban task: it becomes ready again, or waits in todo while a parent " +
	"is unfinished. Orchestrators only; dispatched workers never see this tool."

const linkDescription = "Make one existing kanban task wait for another: the child stays out of ready until every " +
	"parent is done. Links that would form a cycle, or link a task to itself, are refused."

const requestReviewDescription = "Hand your kanban task to review once the work is built, self-checked and verified: " +
	"it moves to the review column (reassigned to reviewer when you name one) and your run ends. Unlike " +
	"kanban_block it is not a blocker, so repeated review rounds are never mistaken for a stuck task."

const requestChangesDescription = "As the reviewer of a kanban task, send it back to its implementer with the " +
	"changes that must be made: your review run ends and the task returns to ready (or todo while a parent is " +
	"unfinished). Use it only on a task you claimed from review; use kanban_block for a real external blocker."

// --- gating ---

func (k *kit) configPath() string {
	if k.opts.ConfigPath != "" {
		return k.opts.ConfigPath
	}
	return filepath.Join(k.opts.Home, hermeshome.ConfigFile)
}

// profileHasKanban reads config.yaml: "kanban" in the top-level toolsets,
// and not in agent.disabled_toolsets. An unreadable file means no, as in
// Hermes: gating must not be the thing that fails.
func (k *kit) profileHasKanban() bool {
	var cfg struct {
		Toolsets []any `yaml:"toolsets"`
		Agent    struct {
			DisabledToolsets []any `yaml:"disabled_toolsets"`
		} `yaml:"agent"`
	}
	if hermeshome.DecodeFile(k.configPath(), &cfg) != nil {
		return false
	}
	has := func(list []any) bool {
		for _, v := range list {
			if fmt.Sprint(v) == "kanban" {
				return true
			}
		}
		return false
	}
	return has(cfg.Toolsets) && !has(cfg.Agent.DisabledToolsets)
}

func (k *kit) envTask() string { return strings.TrimSpace(k.getenv("HERMES_KANBAN_TASK")) }

func (k *kit) checkWorker() error {
	if k.envTask() != "" || k.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`kanban tools are for Hermes kanban work only: a dispatcher worker (HERMES_KANBAN_TASK set) or an orchestrator profile ("kanban" in toolsets in %s)`, k.configPath())
}

func (k *kit) checkOrchestrator() error {
	if k.envTask() != "" {
		return errors.New("orchestrator-only: hidden from dispatcher workers (HERMES_KANBAN_TASK is set)")
	}
	if k.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`orchestrator-only: add "kanban" to toolsets in %s to route board work from this profile`, k.configPath())
}

// --- shared helpers ---

// fail is the original's tool_error shape.
func fail(format string, args ...any) tooldef.Result {
	return tooldef.Failure(map[string]any{"error": fmt.Sprintf(format, args...)})
}

func ok(fields map[string]any) tooldef.Result {
	fields["ok"] = true
	return tooldef.OK(fields)
}

func (k *kit) defaultTaskID(arg string) string {
	if arg = strings.TrimSpace(arg); arg != "" {
		return arg
	}
	return k.envTask()
}

// ownTask resolves the task a lifecycle tool acts on (the argument, else
// HERMES_KANBAN_TASK) and refuses one that is not the worker's own. A
// refusal comes back as the result to return.
func (k *kit) ownTask(arg string) (string, tooldef.Result, bool) {
	tid := k.defaultTaskID(arg)
	if tid == "" {
		return "", fail("task_id is required (or set HERMES_KANBAN_TASK in the env)"), true
	}
	if res, refused := k.ownership(tid); refused {
		return "", res, true
	}
	return tid, tooldef.Result{}, false
}

// ownership refuses a worker's lifecycle change to another task: a buggy
// or prompt-injected worker must not close sibling runs.
func (k *kit) ownership(tid string) (tooldef.Result, bool) {
	own := k.envTask()
	if own == "" || tid == own {
		return tooldef.Result{}, false
	}
	return fail("worker is scoped to task %s; refusing to mutate %s. Use kanban_comment to hand off information to other tasks, or kanban_create to spawn follow-up work.", own, tid), true
}

func (k *kit) orchestratorGuard(tool string) (tooldef.Result, bool) {
	if k.envTask() == "" {
		return tooldef.Result{}, false
	}
	return fail("%s is orchestrator-only; dispatcher-spawned workers must use kanban_complete, kanban_block, kanban_heartbeat, or kanban_comment for their assigned task.", tool), true
}

// workerRunID is the dispatcher's run id for this worker's own task: it
// pins transitions to the run this worker was spawned for, so a worker
// that was reclaimed cannot close its successor's run.
func (k *kit) workerRunID(tid string) *int64 {
	if k.envTask() != tid {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(k.getenv("HERMES_KANBAN_RUN_ID")), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

func (k *kit) claimTTL() time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(k.getenv("HERMES_KANBAN_CLAIM_TTL_SECONDS"))); err == nil && n >= 1 {
		return time.Duration(n) * time.Second
	}
	return DefaultClaimTTL
}

// claimer is the lock the dispatcher gave this worker, else host:pid as in
// Hermes (which then matches no dispatcher claim, so only the heartbeat is
// recorded).
func (k *kit) claimer() string {
	if v := strings.TrimSpace(k.getenv("HERMES_KANBAN_CLAIM_LOCK")); v != "" {
		return v
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

func (k *kit) author() string {
	if p := strings.TrimSpace(k.getenv("HERMES_PROFILE")); p != "" {
		return p
	}
	return "worker"
}

type openMode int

const (
	// readBoard opens read-only; a missing board is not created.
	readBoard openMode = iota
	// updateBoard opens for writing an existing board; a missing board is
	// not created, since there is nothing on it to update.
	updateBoard
	// createBoard opens for writing and creates the default (or a pinned)
	// board when it is missing.
	createBoard
)

// open resolves and opens the board for one call. A missing board comes
// back as a nil *Board (except with createBoard), which callers answer as
// "no such task" without leaving a file behind.
func (k *kit) open(ctx context.Context, tool, board string, mode openMode) (*Board, tooldef.Result, bool, error) {
	ref, err := ResolveBoard(k.opts.Home, board, k.getenv)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, fail("%s: %s", tool, ie.Msg), true, nil
		}
		return nil, tooldef.Result{}, false, err
	}
	opts := BoardOptions{ReadOnly: mode == readBoard, BusyTimeout: k.opts.BusyTimeout, Now: k.opts.Now}
	if mode == createBoard {
		opts.Create = ref.mayCreate()
	}
	b, err := OpenBoard(ctx, ref.Path, opts)
	switch {
	case err == nil:
		return b, tooldef.Result{}, false, nil
	case errors.Is(err, fs.ErrNotExist) && mode != createBoard:
		return nil, tooldef.Result{}, false, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fail("%s: board '%s' does not exist (%s); create it with `hermes kanban boards create %s` or omit board", tool, ref.Slug, ref.Path, ref.Slug), true, nil
	}
	return nil, tooldef.Result{}, false, err
}

// finish turns an operation's error into a result: refusals the model can
// act on become error results, anything else stays a Go error.
func finish(tool string, err error) (tooldef.Result, error) {
	var ie *InputError
	if errors.As(err, &ie) {
		return fail("%s: %s", tool, ie.Msg), nil
	}
	return tooldef.Result{}, fmt.Errorf("%s: %w", tool, err)
}

// redactValue masks secrets in every string of a JSON-like value: handoffs
// are stored on a shared board and shown to other agents and people.
func redactValue(v any) any {
	switch x := v.(type) {
	case string:
		return redact.String(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for key, val := range x {
			out[key] = redactValue(val)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = redactValue(val)
		}
		return out
	}
	return v
}

func cleanList(in []string) []string {
	out := []string{}
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// --- handlers ---

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
	b, res, done, err := k.open(ctx, "kanban_show", a.Board, readBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("task %s not found", tid), nil
	}
	defer b.Close()
	t, err := b.Task(ctx, tid)
	if err != nil {
		return finish("kanban_show", err)
	}
	if t == nil {
		return fail("task %s not found", tid), nil
	}
	parents, err := b.ParentIDs(ctx, tid)
	if err != nil {
		return finish("kanban_show", err)
	}
	children, err := b.ChildIDs(ctx, tid)
	if err != nil {
		return finish("kanban_show", err)
	}
	comments, err := b.Comments(ctx, tid)
	if err != nil {
		return finish("kanban_show", err)
	}
	events, err := b.Events(ctx, tid)
	if err != nil {
		return finish("kanban_show", err)
	}
	runs, err := b.Runs(ctx, tid)
	if err != nil {
		return finish("kanban_show", err)
	}
	wctx, err := b.WorkerContext(ctx, tid)
	if err != nil {
		return finish("kanban_show", err)
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

const (
	listDefaultLimit = 50
	listMaxLimit     = 200
)

type listArgs struct {
	Assignee        string `json:"assignee"`
	Status          string `json:"status"`
	Tenant          string `json:"tenant"`
	IncludeArchived bool   `json:"include_archived"`
	Limit           *int   `json:"limit"`
	Board           string `json:"board"`
}

func (k *kit) handleList(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	if res, refused := k.orchestratorGuard("kanban_list"); refused {
		return res, nil
	}
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
	b, res, done, err := k.open(ctx, "kanban_list", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	promoted := 0
	tasks := []Task{}
	if b != nil {
		defer b.Close()
		// Dependencies that cleared since the dispatcher's last tick show
		// as ready at once, as in the CLI.
		if promoted, err = b.RecomputeReady(ctx); err != nil {
			return finish("kanban_list", err)
		}
		if tasks, err = b.ListTasks(ctx, Filter{Assignee: a.Assignee, Status: a.Status, Tenant: a.Tenant, IncludeArchived: a.IncludeArchived, Limit: limit + 1}); err != nil {
			return finish("kanban_list", err)
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
				return finish("kanban_list", err)
			}
			if children, err = b.ChildIDs(ctx, t.ID); err != nil {
				return finish("kanban_list", err)
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

type completeArgs struct {
	TaskID       string         `json:"task_id"`
	Summary      string         `json:"summary"`
	Metadata     map[string]any `json:"metadata"`
	Result       string         `json:"result"`
	CreatedCards []string       `json:"created_cards"`
	Artifacts    []string       `json:"artifacts"`
	Board        string         `json:"board"`
}

func (k *kit) handleComplete(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[completeArgs](raw)
	if err != nil {
		return fail("kanban_complete: %v", err), nil
	}
	tid, res, refused := k.ownTask(a.TaskID)
	if refused {
		return res, nil
	}
	summary, result := redact.String(a.Summary), redact.String(a.Result)
	var meta map[string]any
	if a.Metadata != nil {
		meta, _ = redactValue(a.Metadata).(map[string]any)
	}
	if arts := cleanList(a.Artifacts); len(arts) > 0 {
		if meta == nil {
			meta = map[string]any{}
		}
		// Merge with any artifacts the worker also put in metadata.
		var merged []any
		seen := map[string]bool{}
		var existing []any
		if list, ok := meta["artifacts"].([]any); ok {
			existing = list
		}
		for _, v := range existing {
			s := strings.TrimSpace(fmt.Sprint(v))
			if s != "" && !seen[s] {
				seen[s] = true
				merged = append(merged, s)
			}
		}
		for _, s := range arts {
			if !seen[s] {
				seen[s] = true
				merged = append(merged, s)
			}
		}
		meta["artifacts"] = merged
	}
	if summary == "" && result == "" {
		return fail("provide at least one of: summary (preferred), result"), nil
	}
	meta = k.stampSession(tid, meta)
	b, res, done, err := k.open(ctx, "kanban_complete", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not complete %s (unknown id or already terminal)", tid), nil
	}
	defer b.Close()
	completed, err := b.CompleteTask(ctx, tid, Completion{
		Result: result, Summary: summary, Metadata: meta,
		CreatedCards: cleanList(a.CreatedCards), ExpectedRunID: k.workerRunID(tid),
	})
	var hall *HallucinatedCardsError
	if errors.As(err, &hall) {
		return fail("kanban_complete blocked: the following created_cards do not exist or were not created by this worker: %s. "+
			"Your task is still in-flight (no state change). Retry kanban_complete with the same summary/metadata and either "+
			"drop these ids from created_cards, or pass created_cards=[] to skip the card-claim check entirely.",
			strings.Join(hall.Phantom, ", ")), nil
	}
	if err != nil {
		return finish("kanban_complete", err)
	}
	if !completed {
		return fail("could not complete %s (unknown id or already terminal)", tid), nil
	}
	return k.okWithRun(ctx, b, "kanban_complete", tid)
}

// stampSession records the worker's session on its own task's handoff, so
// a person can find the conversation behind a result.
func (k *kit) stampSession(tid string, meta map[string]any) map[string]any {
	session := strings.TrimSpace(k.getenv("HERMES_SESSION_ID"))
	if k.envTask() != tid || session == "" {
		return meta
	}
	if meta == nil {
		meta = map[string]any{}
	}
	meta["worker_session_id"] = session
	return meta
}

func (k *kit) okWithRun(ctx context.Context, b *Board, tool, tid string) (tooldef.Result, error) {
	run, err := b.LatestRun(ctx, tid)
	if err != nil {
		return finish(tool, err)
	}
	var runID any
	if run != nil {
		runID = run.ID
	}
	return ok(map[string]any{"task_id": tid, "run_id": runID}), nil
}

type blockArgs struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
	Board  string `json:"board"`
}

func (k *kit) handleBlock(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[blockArgs](raw)
	if err != nil {
		return fail("kanban_block: %v", err), nil
	}
	tid, res, refused := k.ownTask(a.TaskID)
	if refused {
		return res, nil
	}
	if strings.TrimSpace(a.Reason) == "" {
		return fail("reason is required — explain what input you need"), nil
	}
	reason := redact.String(a.Reason)
	b, res, done, err := k.open(ctx, "kanban_block", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not block %s (unknown id or not in running/ready)", tid), nil
	}
	defer b.Close()
	blocked, err := b.BlockTask(ctx, tid, reason, k.workerRunID(tid))
	if err != nil {
		return finish("kanban_block", err)
	}
	if !blocked {
		return fail("could not block %s (unknown id or not in running/ready)", tid), nil
	}
	return k.okWithRun(ctx, b, "kanban_block", tid)
}

type heartbeatArgs struct {
	TaskID string `json:"task_id"`
	Note   string `json:"note"`
	Board  string `json:"board"`
}

func (k *kit) handleHeartbeat(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[heartbeatArgs](raw)
	if err != nil {
		return fail("kanban_heartbeat: %v", err), nil
	}
	tid, res, refused := k.ownTask(a.TaskID)
	if refused {
		return res, nil
	}
	b, res, done, err := k.open(ctx, "kanban_heartbeat", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not heartbeat %s (unknown id or not running)", tid), nil
	}
	defer b.Close()
	// Extending the claim is what keeps the dispatcher from reclaiming a
	// worker stuck in one long call; the heartbeat alone would not.
	if _, err := b.HeartbeatClaim(ctx, tid, k.claimer(), k.claimTTL()); err != nil {
		return finish("kanban_heartbeat", err)
	}
	alive, err := b.HeartbeatWorker(ctx, tid, redact.String(a.Note), k.workerRunID(tid))
	if err != nil {
		return finish("kanban_heartbeat", err)
	}
	if !alive {
		return fail("could not heartbeat %s (unknown id or not running)", tid), nil
	}
	return ok(map[string]any{"task_id": tid}), nil
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
	b, res, done, err := k.open(ctx, "kanban_comment", a.Board, updateBoard)
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
		return finish("kanban_comment", err)
	}
	return ok(map[string]any{"task_id": tid, "comment_id": cid}), nil
}

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
	if strings.TrimSpace(a.Assignee) == "" {
		return fail("assignee is required — name the profile that should execute this task (the dispatcher will only spawn tasks with an assignee)"), nil
	}
	tenant := a.Tenant
	if tenant == "" {
		tenant = strings.TrimSpace(k.getenv("HERMES_TENANT"))
	}
	b, res, done, err := k.open(ctx, "kanban_create", a.Board, createBoard)
	if done || err != nil {
		return res, err
	}
	defer b.Close()
	kind, path := a.WorkspaceKind, ""
	if a.WorkspacePath != nil {
		path = *a.WorkspacePath
	}
	// A worker fanning out keeps its children in the project it is
	// working in, instead of a throwaway scratch directory.
	if a.WorkspaceKind == "" && a.WorkspacePath == nil {
		if own := k.envTask(); own != "" {
			if self, err := b.Task(ctx, own); err == nil && self != nil && self.WorkspaceKind != "" {
				kind = self.WorkspaceKind
				if self.WorkspacePath != nil {
					path = *self.WorkspacePath
				}
			}
		}
	}
	id, err := b.CreateTask(ctx, NewTask{
		Title: a.Title, Body: a.Body, Assignee: strings.TrimSpace(a.Assignee), CreatedBy: k.author(),
		Tenant: tenant, Priority: a.Priority, Parents: a.Parents, WorkspaceKind: kind, WorkspacePath: path,
		Triage: a.Triage, IdempotencyKey: a.IdempotencyKey, MaxRuntimeSeconds: a.MaxRuntimeSeconds,
		Skills: a.Skills, GoalMode: a.GoalMode, GoalMaxTurns: a.GoalMaxTurns, InitialStatus: a.InitialStatus,
		SessionID: strings.TrimSpace(k.getenv("HERMES_SESSION_ID")),
	})
	if err != nil {
		return finish("kanban_create", err)
	}
	t, err := b.Task(ctx, id)
	if err != nil {
		return finish("kanban_create", err)
	}
	status := ""
	if t != nil {
		status = t.Status
	}
	return ok(map[string]any{"task_id": id, "status": status}), nil
}

type unblockArgs struct {
	TaskID string `json:"task_id"`
	Board  string `json:"board"`
}

func (k *kit) handleUnblock(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	if res, refused := k.orchestratorGuard("kanban_unblock"); refused {
		return res, nil
	}
	a, err := tooldef.DecodeArgs[unblockArgs](raw)
	if err != nil {
		return fail("kanban_unblock: %v", err), nil
	}
	tid := strings.TrimSpace(a.TaskID)
	if tid == "" {
		return fail("task_id is required"), nil
	}
	b, res, done, err := k.open(ctx, "kanban_unblock", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not unblock %s (not blocked or unknown)", tid), nil
	}
	defer b.Close()
	unblocked, err := b.UnblockTask(ctx, tid)
	if err != nil {
		return finish("kanban_unblock", err)
	}
	if !unblocked {
		return fail("could not unblock %s (not blocked or unknown)", tid), nil
	}
	t, err := b.Task(ctx, tid)
	if err != nil {
		return finish("kanban_unblock", err)
	}
	status := "ready"
	if t != nil {
		status = t.Status
	}
	return ok(map[string]any{"task_id": tid, "status": status}), nil
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
	b, res, done, err := k.open(ctx, "kanban_link", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("kanban_link: unknown task(s): %s, %s", parent, child), nil
	}
	defer b.Close()
	if err := b.LinkTasks(ctx, parent, child); err != nil {
		return finish("kanban_link", err)
	}
	return ok(map[string]any{"parent_id": parent, "child_id": child}), nil
}

type requestReviewArgs struct {
	TaskID   string         `json:"task_id"`
	Summary  string         `json:"summary"`
	Reviewer string         `json:"reviewer"`
	Metadata map[string]any `json:"metadata"`
	Board    string         `json:"board"`
}

func (k *kit) handleRequestReview(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[requestReviewArgs](raw)
	if err != nil {
		return fail("kanban_request_review: %v", err), nil
	}
	tid, res, refused := k.ownTask(a.TaskID)
	if refused {
		return res, nil
	}
	if strings.TrimSpace(a.Summary) == "" {
		return fail("summary is required — say what was implemented and how it was verified"), nil
	}
	var meta map[string]any
	if a.Metadata != nil {
		meta, _ = redactValue(a.Metadata).(map[string]any)
	}
	meta = k.stampSession(tid, meta)
	b, res, done, err := k.open(ctx, "kanban_request_review", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not request review for %s: task not found", tid), nil
	}
	defer b.Close()
	moved, reason, err := b.RequestReview(ctx, tid, ReviewRequest{
		Summary: redact.String(a.Summary), Metadata: meta, Reviewer: a.Reviewer, ExpectedRunID: k.workerRunID(tid),
	})
	if err != nil {
		return finish("kanban_request_review", err)
	}
	if !moved {
		return fail("could not request review for %s: %s", tid, reason), nil
	}
	return ok(map[string]any{"task_id": tid, "status": "review"}), nil
}

type requestChangesArgs struct {
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
	Board  string `json:"board"`
}

func (k *kit) handleRequestChanges(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[requestChangesArgs](raw)
	if err != nil {
		return fail("kanban_request_changes: %v", err), nil
	}
	tid, res, refused := k.ownTask(a.TaskID)
	if refused {
		return res, nil
	}
	if strings.TrimSpace(a.Reason) == "" {
		return fail("reason is required — list the changes the implementer must make"), nil
	}
	b, res, done, err := k.open(ctx, "kanban_request_changes", a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not request changes on %s: task not found", tid), nil
	}
	defer b.Close()
	moved, msg, status, err := b.RequestChanges(ctx, tid, redact.String(a.Reason), k.workerRunID(tid))
	if err != nil {
		return finish("kanban_request_changes", err)
	}
	if !moved {
		return fail("could not request changes on %s: %s", tid, msg), nil
	}
	return ok(map[string]any{"task_id": tid, "status": status, "implementer": msg}), nil
}
