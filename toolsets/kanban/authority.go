package kanban

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// A dispatcher worker's authority is its own task. Every kanban call a
// worker makes passes through authorize before its handler runs, and
// authorize checks every task the call names, by the argument that names
// it, against the one rule table below. Orchestrators and other callers
// are not restricted here (the tools' checks decide who sees them).
//
// The README's kanban section shows the same table; TestWorkerAuthority
// generates its cases from the tools' input schemas and fails for any
// argument this table does not classify.

// access is what a call does with a task it names.
type access int

const (
	// notATask: the argument names no task (text, a profile, a flag).
	notATask access = iota
	// accessRead: the task is read (kanban_show).
	accessRead
	// accessComment: a comment is added to the task's thread, which later
	// workers of that task read in their prompt.
	accessComment
	// accessChange: the task's lifecycle changes (complete, block,
	// heartbeat, review handoffs, unblock).
	accessChange
	// accessLink: the task becomes either end of a dependency; as the
	// child it can drop from ready back to todo.
	accessLink
	// accessCreateUnder: a new task is created to wait for this one.
	accessCreateUnder
	// accessClaimCreated: the task is claimed as one this worker created
	// (kanban_complete's created_cards).
	accessClaimCreated
	// accessBoard: the argument picks the board every other id is on.
	accessBoard
)

// scope is a set of tasks relative to the worker's own task.
type scope int

const (
	// scopeOwn: the worker's own task only.
	scopeOwn scope = iota + 1
	// scopeMine: its own task and the tasks it created.
	scopeMine
	// scopeCreated: the tasks it created.
	scopeCreated
	// scopeRelated: its own task, the tasks it created, and its own
	// task's parents and children.
	scopeRelated
)

type accessRule struct {
	verb  string // "link", for "refusing to link t_..."
	scope scope
	hint  string // what to do instead
}

func (a access) rule() accessRule {
	switch a {
	case accessRead:
		return accessRule{"read", scopeRelated, "Read your own task (kanban_show without task_id): its worker_context already carries the parents' handoffs."}
	case accessComment:
		return accessRule{"comment on", scopeRelated, "Comment on your own task, or on a parent or child of it."}
	case accessChange:
		return accessRule{"mutate", scopeOwn, "Use kanban_comment to hand off information to other tasks, or kanban_create to spawn follow-up work."}
	case accessLink:
		return accessRule{"link", scopeMine, "Ask an orchestrator (a profile with \"kanban\" in toolsets) to link other tasks."}
	case accessCreateUnder:
		return accessRule{"create a task under", scopeMine, "Create the task under your own task or one you created, or without parents."}
	case accessClaimCreated:
		return accessRule{"claim as created", scopeCreated, "List in created_cards only ids kanban_create returned to you."}
	}
	return accessRule{}
}

func (s scope) String() string {
	switch s {
	case scopeOwn:
		return "its own task"
	case scopeMine:
		return "its own task and tasks it created with kanban_create"
	case scopeCreated:
		return "tasks it created with kanban_create"
	case scopeRelated:
		return "its own task, tasks it created with kanban_create, and its own task's parents and children"
	}
	return "no task"
}

// toolRule is a tool's worker rule: refused outright, or each input
// argument classified.
type toolRule struct {
	orchestratorOnly bool
	args             map[string]access
}

// workerRules is the rule table: every tool, every input argument.
func workerRules() map[string]toolRule {
	with := func(args map[string]access) map[string]access {
		args["board"] = accessBoard
		return args
	}
	return map[string]toolRule{
		toolShow: {args: with(map[string]access{"task_id": accessRead})},
		toolList: {orchestratorOnly: true, args: with(map[string]access{
			"assignee": notATask, "status": notATask, "tenant": notATask, "include_archived": notATask, "limit": notATask,
		})},
		toolComplete: {args: with(map[string]access{
			"task_id": accessChange, "created_cards": accessClaimCreated,
			"summary": notATask, "metadata": notATask, "result": notATask, "artifacts": notATask,
		})},
		toolBlock:     {args: with(map[string]access{"task_id": accessChange, "reason": notATask})},
		toolHeartbeat: {args: with(map[string]access{"task_id": accessChange, "note": notATask})},
		toolComment:   {args: with(map[string]access{"task_id": accessComment, "body": notATask})},
		toolCreate: {args: with(map[string]access{
			"parents": accessCreateUnder,
			// assignee names a profile; idempotency_key matches only tasks
			// this worker created (CreateTask's CreatorTask).
			"title": notATask, "assignee": notATask, "body": notATask, "tenant": notATask, "priority": notATask,
			"workspace_kind": notATask, "workspace_path": notATask, "triage": notATask, "idempotency_key": notATask,
			"max_runtime_seconds": notATask, "initial_status": notATask, "skills": notATask, "goal_mode": notATask,
			"goal_max_turns": notATask,
		})},
		toolUnblock: {orchestratorOnly: true, args: with(map[string]access{"task_id": accessChange})},
		toolLink:    {args: with(map[string]access{"parent_id": accessLink, "child_id": accessLink})},
		// reviewer reassigns the task named by task_id, which must be the
		// worker's own.
		toolRequestReview:  {args: with(map[string]access{"task_id": accessChange, "summary": notATask, "reviewer": notATask, "metadata": notATask})},
		toolRequestChanges: {args: with(map[string]access{"task_id": accessChange, "reason": notATask})},
		// A file lands in the task's directory and its worker's prompt:
		// a worker attaches to its own task only, as in Hermes.
		toolAttach: {args: with(map[string]access{
			"task_id": accessChange, "filename": notATask, "content_base64": notATask, "content_type": notATask,
		})},
		toolAttachURL: {args: with(map[string]access{
			"task_id": accessChange, "url": notATask, "filename": notATask, "content_type": notATask,
		})},
		// Listing reads, like kanban_show (Hermes lets a worker list any
		// task's files; here the reach of kanban_show applies).
		toolAttachments: {args: with(map[string]access{"task_id": accessRead})},
	}
}

// mutates reports a tool that changes the board, which a delegate_task
// descendant may not call (Hermes' _reject_delegated_child_mutation).
// kanban_list only promotes tasks whose parents finished, which a
// delegate's list skips.
func mutates(tool string) bool {
	switch tool {
	case toolShow, toolList, toolAttachments:
		return false
	}
	return true
}

// defaultsToOwn is the argument that means the worker's own task when
// omitted.
const defaultsToOwn = "task_id"

// taskRef is one task a call names.
type taskRef struct {
	arg  string
	id   string
	kind access
}

// guarded puts the delegate refusal and authorize in front of a handler.
func (k *kit) guarded(tool string, next tooldef.Handler) tooldef.Handler {
	return func(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
		if k.delegated() && mutates(tool) {
			return fail("%s refused: delegate_task child agents are not Kanban run owners. Return findings to the parent agent; the dispatcher worker or an explicitly configured Kanban orchestrator must perform board mutations.", tool), nil
		}
		if !k.isWorker() {
			return next(ctx, raw)
		}
		res, refused, err := k.authorize(ctx, tool, raw)
		if err != nil || refused {
			return res, err
		}
		return next(ctx, raw)
	}
}

// authorize decides whether this worker may make the call, from the call's
// tool and raw arguments alone, before anything is written. A refusal is a
// result saying what was refused and why.
func (k *kit) authorize(ctx context.Context, tool string, raw json.RawMessage) (tooldef.Result, bool, error) {
	own := k.dispatchedTask()
	rule, known := workerRules()[tool]
	if !known {
		return tooldef.Result{}, true, fmt.Errorf("%s: no worker authority rule for this tool; refusing rather than guessing", tool)
	}
	if rule.orchestratorOnly {
		return fail("%s is orchestrator-only; dispatcher-spawned workers must use kanban_complete, kanban_block, kanban_heartbeat, or kanban_comment for their assigned task.", tool), true, nil
	}
	var args map[string]json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return fail("%s: decode arguments: %v", tool, err), true, nil
		}
	}
	var refs []taskRef
	boardArg := ""
	names := make([]string, 0, len(rule.args))
	for name := range rule.args {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		kind := rule.args[name]
		if kind == notATask {
			continue
		}
		ids, err := idsOf(args[name])
		if err != nil {
			return fail("%s: argument %s: %v", tool, name, err), true, nil
		}
		if kind == accessBoard {
			if len(ids) > 0 {
				boardArg = ids[0]
			}
			continue
		}
		if len(ids) == 0 && name == defaultsToOwn {
			ids = []string{own}
		}
		for _, id := range ids {
			refs = append(refs, taskRef{arg: name, id: id, kind: kind})
		}
	}
	if res, refused, err := k.authorizeBoard(own, boardArg); err != nil || refused {
		return res, refused, err
	}
	var sets *workerSets
	for _, r := range refs {
		ar := r.kind.rule()
		if r.id == own && ar.scope != scopeCreated {
			continue
		}
		if ar.scope == scopeOwn {
			return k.refuse(own, r), true, nil
		}
		if sets == nil {
			s, res, done, err := k.loadSets(ctx, tool, boardArg, own)
			if done || err != nil {
				return res, true, err
			}
			sets = s
		}
		if !sets.in(ar.scope, r.id) {
			return k.refuse(own, r), true, nil
		}
	}
	return tooldef.Result{}, false, nil
}

func (k *kit) refuse(own string, r taskRef) tooldef.Result {
	ar := r.kind.rule()
	if r.kind == accessChange {
		// The original's text (_enforce_worker_task_ownership), naming the
		// argument as every refusal here does.
		return fail("worker is scoped to task %s; refusing to mutate %s (%s). %s", own, r.id, r.arg, ar.hint)
	}
	return fail("worker is scoped to task %s; refusing to %s %s (%s): a worker may %s only %s. %s",
		own, ar.verb, r.id, r.arg, ar.verb, ar.scope, ar.hint)
}

// idsOf reads an id argument: absent, null, a string or a list of strings,
// each trimmed as the handlers trim them; blanks are dropped.
func idsOf(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return cleanList([]string{one}), nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("want a task id or a list of task ids")
	}
	return cleanList(many), nil
}

// authorizeBoard keeps a worker on the board it was dispatched on: its own
// task, and what it created, live there.
func (k *kit) authorizeBoard(own, boardArg string) (tooldef.Result, bool, error) {
	if strings.TrimSpace(boardArg) == "" {
		return tooldef.Result{}, false, nil
	}
	home, err := ResolveBoard(k.opts.Home, "", k.getenv)
	if err != nil {
		return tooldef.Result{}, true, fmt.Errorf("resolve this worker's board: %w", err)
	}
	asked, err := ResolveBoard(k.opts.Home, boardArg, k.getenv)
	if err != nil {
		return fail("board: %v", err), true, nil
	}
	if samePath(home.Path, asked.Path) {
		return tooldef.Result{}, false, nil
	}
	return fail("worker is scoped to task %s on board %s; refusing board '%s' (board), which is %s: a worker may use only the board it was dispatched on. Omit board.",
		own, home.Path, boardArg, asked.Path), true, nil
}

func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// workerSets are the tasks around the worker's own, read from the board.
type workerSets struct {
	created map[string]bool
	linked  map[string]bool // own task's parents and children
}

func (s *workerSets) in(sc scope, id string) bool {
	switch sc {
	case scopeMine, scopeCreated:
		return s.created[id]
	case scopeRelated:
		return s.created[id] || s.linked[id]
	}
	return false
}

func (k *kit) loadSets(ctx context.Context, tool, boardArg, own string) (*workerSets, tooldef.Result, bool, error) {
	s := &workerSets{created: map[string]bool{}, linked: map[string]bool{}}
	b, res, done, err := k.open(ctx, tool, boardArg, readBoard)
	if done || err != nil || b == nil {
		return s, res, done, err
	}
	defer b.Close()
	created, err := b.CreatedByTask(ctx, own)
	if err != nil {
		return nil, tooldef.Result{}, true, fmt.Errorf("%s: check the worker's authority: %w", tool, err)
	}
	parents, err := b.ParentIDs(ctx, own)
	if err != nil {
		return nil, tooldef.Result{}, true, fmt.Errorf("%s: check the worker's authority: %w", tool, err)
	}
	children, err := b.ChildIDs(ctx, own)
	if err != nil {
		return nil, tooldef.Result{}, true, fmt.Errorf("%s: check the worker's authority: %w", tool, err)
	}
	for _, id := range created {
		s.created[id] = true
	}
	for _, id := range append(parents, children...) {
		s.linked[id] = true
	}
	return s, tooldef.Result{}, false, nil
}
