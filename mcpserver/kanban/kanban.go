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
// them; anyone else sees none. The handlers repeat the worker's limits as
// guards, since a client may call a tool it was not shown.
package kanban

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// ToolsetName is what users type in --toolsets and config.yaml's toolsets;
// "kanban" in a profile's toolsets is also what makes it an orchestrator.
const ToolsetName = "kanban"

// Tool names. kanban_list and kanban_unblock are orchestrator-only; the
// rest are also a dispatcher worker's.
const (
	toolShow           = "kanban_show"
	toolList           = "kanban_list"
	toolComplete       = "kanban_complete"
	toolBlock          = "kanban_block"
	toolHeartbeat      = "kanban_heartbeat"
	toolComment        = "kanban_comment"
	toolCreate         = "kanban_create"
	toolUnblock        = "kanban_unblock"
	toolLink           = "kanban_link"
	toolRequestReview  = "kanban_request_review"
	toolRequestChanges = "kanban_request_changes"
)

// Environment variables the toolset reads. The dispatcher sets the
// HERMES_KANBAN_* task variables in a worker's environment; the checks
// read only envTask, the handlers read the rest.
const (
	envTask            = "HERMES_KANBAN_TASK"
	envRunID           = "HERMES_KANBAN_RUN_ID"
	envClaimLock       = "HERMES_KANBAN_CLAIM_LOCK"
	envClaimTTLSeconds = "HERMES_KANBAN_CLAIM_TTL_SECONDS"
	envDB              = "HERMES_KANBAN_DB"
	envBoard           = "HERMES_KANBAN_BOARD"
	envHome            = "HERMES_KANBAN_HOME"
	envProfile         = "HERMES_PROFILE"
	envTenant          = "HERMES_TENANT"
	envSessionID       = "HERMES_SESSION_ID"
)

// EnvVars returns the environment variables the toolset reads, a fresh
// slice the caller may keep or change.
func EnvVars() []string {
	return []string{
		envTask, envRunID, envClaimLock, envClaimTTLSeconds,
		envDB, envBoard, envHome,
		envProfile, envTenant, envSessionID,
	}
}

// kanban_list's limits. kanban_list's description and schema advertise
// them as literal text, so the schemas stay constant strings;
// TestListLimitsAdvertised keeps the two in step.
const (
	listDefaultLimit = 50
	listMaxLimit     = 200
)

// Options configures the kanban toolset.
type Options struct {
	// Home is HERMES_HOME, absolute. Boards live under the kanban root
	// derived from it (see Root), and its config.yaml marks an orchestrator
	// profile unless ConfigPath overrides it.
	Home string
	// Getenv reads the environment when a check or a call runs; nil means
	// os.Getenv.
	Getenv func(string) string
	// ConfigPath is the config.yaml whose top-level toolsets mark an
	// orchestrator profile; empty means Home/config.yaml. It is read each
	// time gating is decided, as Hermes does, so an edit applies without a
	// restart.
	ConfigPath string
	// BusyTimeout bounds waits for another process's lock; zero means
	// sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

type kit struct {
	opts   Options
	getenv func(string) string
}

// Toolset returns the kanban toolset. It does no I/O: the board is opened
// by each call, config.yaml is read by each check.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts, getenv: opts.Getenv}
	if k.getenv == nil {
		k.getenv = os.Getenv
	}
	tool := func(name, title, desc, in, out string, h tooldef.Hints, handler tooldef.Handler, check func() error) tooldef.Tool {
		return tooldef.Tool{
			Name: name, Title: title, Description: desc,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Hints: h, Handler: handler, Check: check,
		}
	}
	// Hints: a transition that ends a run or overwrites what the task
	// holds (its result, its assignee) is destructive; adding rows is not.
	readOnly := tooldef.Hints{ReadOnly: true, Idempotent: true}
	ending := tooldef.Hints{Destructive: true}
	additive := tooldef.Hints{}
	settles := tooldef.Hints{Idempotent: true}
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: "Work the Hermes kanban board: report back from a dispatched task, or route work as an orchestrator.",
		// On by default, yet every tool stays hidden unless this process is
		// a dispatcher worker or an orchestrator profile: a codex worker
		// whose callback lacks these tools cannot report back and hangs
		// until the dispatcher times it out.
		Default: true,
		EnvVars: EnvVars(),
		Tools: []tooldef.Tool{
			tool(toolShow, "Show a kanban task", showDescription, showInput, showOutput, readOnly, k.handleShow, k.checkWorker),
			tool(toolList, "List kanban tasks", listDescription, listInput, listOutput, settles, k.handleList, k.checkOrchestrator),
			tool(toolComplete, "Complete a kanban task", completeDescription, completeInput, okTaskRunOutput, ending, k.handleComplete, k.checkWorker),
			tool(toolBlock, "Block a kanban task", blockDescription, blockInput, okTaskRunOutput, ending, k.handleBlock, k.checkWorker),
			tool(toolHeartbeat, "Kanban heartbeat", heartbeatDescription, heartbeatInput, heartbeatOutput, additive, k.handleHeartbeat, k.checkWorker),
			tool(toolComment, "Comment on a kanban task", commentDescription, commentInput, commentOutput, additive, k.handleComment, k.checkWorker),
			tool(toolCreate, "Create a kanban task", createDescription, createInput, statusOutput, additive, k.handleCreate, k.checkWorker),
			tool(toolUnblock, "Unblock a kanban task", unblockDescription, unblockInput, statusOutput, settles, k.handleUnblock, k.checkOrchestrator),
			tool(toolLink, "Link kanban tasks", linkDescription, linkInput, linkOutput, settles, k.handleLink, k.checkWorker),
			tool(toolRequestReview, "Request review of a kanban task", requestReviewDescription, requestReviewInput, statusOutput, ending, k.handleRequestReview, k.checkWorker),
			tool(toolRequestChanges, "Request changes on a kanban task", requestChangesDescription, requestChangesInput, requestChangesOutput, ending, k.handleRequestChanges, k.checkWorker),
		},
	}
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
	return k.dispatchedTask()
}

// workerRunID is the dispatcher's run id for this worker's own task: it
// pins transitions to the run this worker was spawned for, so a worker
// that was reclaimed cannot close its successor's run.
func (k *kit) workerRunID(tid string) *int64 {
	if k.dispatchedTask() != tid {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(k.getenv(envRunID)), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

func (k *kit) claimTTL() time.Duration {
	if n, err := strconv.Atoi(strings.TrimSpace(k.getenv(envClaimTTLSeconds))); err == nil && n >= 1 {
		return time.Duration(n) * time.Second
	}
	return DefaultClaimTTL
}

// claimer is the lock the dispatcher gave this worker, else host:pid as in
// Hermes (which then matches no dispatcher claim, so only the heartbeat is
// recorded).
func (k *kit) claimer() string {
	if v := strings.TrimSpace(k.getenv(envClaimLock)); v != "" {
		return v
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

func (k *kit) author() string {
	if p := strings.TrimSpace(k.getenv(envProfile)); p != "" {
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
	Assignee        string `json:"assignee"`
	Status          string `json:"status"`
	Tenant          string `json:"tenant"`
	IncludeArchived bool   `json:"include_archived"`
	Limit           *int   `json:"limit"`
	Board           string `json:"board"`
}

func (k *kit) handleList(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	if res, refused := k.orchestratorGuard(toolList); refused {
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
	b, res, done, err := k.open(ctx, toolList, a.Board, updateBoard)
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
			return finish(toolList, err)
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
	b, res, done, err := k.open(ctx, toolComplete, a.Board, updateBoard)
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
		return finish(toolComplete, err)
	}
	if !completed {
		return fail("could not complete %s (unknown id or already terminal)", tid), nil
	}
	return k.okWithRun(ctx, b, toolComplete, tid)
}

// stampSession records the worker's session on its own task's handoff, so
// a person can find the conversation behind a result.
func (k *kit) stampSession(tid string, meta map[string]any) map[string]any {
	session := strings.TrimSpace(k.getenv(envSessionID))
	if k.dispatchedTask() != tid || session == "" {
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
	b, res, done, err := k.open(ctx, toolBlock, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not block %s (unknown id or not in running/ready)", tid), nil
	}
	defer b.Close()
	blocked, err := b.BlockTask(ctx, tid, reason, k.workerRunID(tid))
	if err != nil {
		return finish(toolBlock, err)
	}
	if !blocked {
		return fail("could not block %s (unknown id or not in running/ready)", tid), nil
	}
	return k.okWithRun(ctx, b, toolBlock, tid)
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
	b, res, done, err := k.open(ctx, toolHeartbeat, a.Board, updateBoard)
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
		return finish(toolHeartbeat, err)
	}
	alive, err := b.HeartbeatWorker(ctx, tid, redact.String(a.Note), k.workerRunID(tid))
	if err != nil {
		return finish(toolHeartbeat, err)
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
		tenant = strings.TrimSpace(k.getenv(envTenant))
	}
	b, res, done, err := k.open(ctx, toolCreate, a.Board, createBoard)
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
		if own := k.dispatchedTask(); own != "" {
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
		SessionID: strings.TrimSpace(k.getenv(envSessionID)),
	})
	if err != nil {
		return finish(toolCreate, err)
	}
	t, err := b.Task(ctx, id)
	if err != nil {
		return finish(toolCreate, err)
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
	if res, refused := k.orchestratorGuard(toolUnblock); refused {
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
	if err := b.LinkTasks(ctx, parent, child); err != nil {
		return finish(toolLink, err)
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
	b, res, done, err := k.open(ctx, toolRequestReview, a.Board, updateBoard)
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
		return finish(toolRequestReview, err)
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
	b, res, done, err := k.open(ctx, toolRequestChanges, a.Board, updateBoard)
	if done || err != nil {
		return res, err
	}
	if b == nil {
		return fail("could not request changes on %s: task not found", tid), nil
	}
	defer b.Close()
	moved, msg, status, err := b.RequestChanges(ctx, tid, redact.String(a.Reason), k.workerRunID(tid))
	if err != nil {
		return finish(toolRequestChanges, err)
	}
	if !moved {
		return fail("could not request changes on %s: %s", tid, msg), nil
	}
	return ok(map[string]any{"task_id": tid, "status": status, "implementer": msg}), nil
}
