package kanban

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Task is one row of the tasks table. Nullable columns are pointers so
// they encode as JSON null, as Hermes reports them.
type Task struct {
	ID                  string   `json:"id"`
	Title               string   `json:"title"`
	Body                *string  `json:"body"`
	Assignee            *string  `json:"assignee"`
	Status              string   `json:"status"`
	Priority            int64    `json:"priority"`
	CreatedBy           *string  `json:"created_by"`
	CreatedAt           int64    `json:"created_at"`
	StartedAt           *int64   `json:"started_at"`
	CompletedAt         *int64   `json:"completed_at"`
	WorkspaceKind       string   `json:"workspace_kind"`
	WorkspacePath       *string  `json:"workspace_path"`
	ClaimLock           *string  `json:"claim_lock"`
	ClaimExpires        *int64   `json:"claim_expires"`
	Tenant              *string  `json:"tenant"`
	Result              *string  `json:"result"`
	IdempotencyKey      *string  `json:"idempotency_key"`
	ConsecutiveFailures int64    `json:"consecutive_failures"`
	WorkerPID           *int64   `json:"worker_pid"`
	MaxRuntimeSeconds   *int64   `json:"max_runtime_seconds"`
	LastHeartbeatAt     *int64   `json:"last_heartbeat_at"`
	CurrentRunID        *int64   `json:"current_run_id"`
	CurrentStepKey      *string  `json:"current_step_key"`
	Skills              []string `json:"skills"`
	ModelOverride       *string  `json:"model_override"`
	GoalMode            bool     `json:"goal_mode"`
	GoalMaxTurns        *int64   `json:"goal_max_turns"`
	SessionID           *string  `json:"session_id"`
}

const taskColumns = `id, title, body, assignee, status, COALESCE(priority, 0), created_by, created_at,
	started_at, completed_at, COALESCE(workspace_kind, 'scratch'), workspace_path, claim_lock, claim_expires,
	tenant, result, idempotency_key, COALESCE(consecutive_failures, 0), worker_pid, max_runtime_seconds,
	last_heartbeat_at, current_run_id, current_step_key, skills, model_override, COALESCE(goal_mode, 0),
	goal_max_turns, session_id`

type rowScanner interface{ Scan(dest ...any) error }

func scanTask(r rowScanner) (*Task, error) {
	var t Task
	var body, assignee, createdBy, wpath, lock, tenant, result, ikey, step, skills, model, session sql.NullString
	var started, completed, expires, pid, maxRT, hb, runID, goalTurns sql.NullInt64
	var goal int64
	err := r.Scan(&t.ID, &t.Title, &body, &assignee, &t.Status, &t.Priority, &createdBy, &t.CreatedAt,
		&started, &completed, &t.WorkspaceKind, &wpath, &lock, &expires,
		&tenant, &result, &ikey, &t.ConsecutiveFailures, &pid, &maxRT,
		&hb, &runID, &step, &skills, &model, &goal,
		&goalTurns, &session)
	if err != nil {
		return nil, err
	}
	t.Body, t.Assignee, t.CreatedBy, t.WorkspacePath = strPtr(body), strPtr(assignee), strPtr(createdBy), strPtr(wpath)
	t.ClaimLock, t.Tenant, t.Result, t.IdempotencyKey = strPtr(lock), strPtr(tenant), strPtr(result), strPtr(ikey)
	t.CurrentStepKey, t.SessionID = strPtr(step), strPtr(session)
	if model.Valid && model.String != "" {
		t.ModelOverride = &model.String
	}
	t.StartedAt, t.CompletedAt, t.ClaimExpires, t.WorkerPID = intPtr(started), intPtr(completed), intPtr(expires), intPtr(pid)
	t.MaxRuntimeSeconds, t.LastHeartbeatAt, t.CurrentRunID, t.GoalMaxTurns = intPtr(maxRT), intPtr(hb), intPtr(runID), intPtr(goalTurns)
	t.GoalMode = goal != 0
	if skills.Valid && skills.String != "" {
		var list []any
		if json.Unmarshal([]byte(skills.String), &list) == nil {
			t.Skills = []string{}
			for _, s := range list {
				if str, ok := s.(string); ok && str != "" {
					t.Skills = append(t.Skills, str)
				}
			}
		}
	}
	return &t, nil
}

// Task returns one task, or nil when there is none with that id.
func (b *Board) Task(ctx context.Context, id string) (*Task, error) {
	if b.empty {
		return nil, nil
	}
	return b.task(ctx, b.db, id)
}

func (b *Board) task(ctx context.Context, q execer, id string) (*Task, error) {
	t, err := scanTask(q.QueryRowContext(ctx, "SELECT "+taskColumns+" FROM tasks WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, b.db.Explain("read task "+id, err)
	}
	return t, nil
}

// Filter narrows ListTasks. Empty fields do not filter.
type Filter struct {
	Assignee        string
	Status          string
	Tenant          string
	IncludeArchived bool
	Limit           int
}

// ListTasks returns tasks by priority (highest first), then age.
func (b *Board) ListTasks(ctx context.Context, f Filter) ([]Task, error) {
	if f.Status != "" && !contains(Statuses, f.Status) {
		return nil, inputErrorf("status must be one of ['archived', 'blocked', 'done', 'ready', 'review', 'running', 'scheduled', 'todo', 'triage']")
	}
	if b.empty {
		return []Task{}, nil
	}
	q := "SELECT " + taskColumns + " FROM tasks WHERE 1=1"
	var args []any
	for _, c := range []struct{ col, val string }{{"assignee", f.Assignee}, {"status", f.Status}, {"tenant", f.Tenant}} {
		if c.val != "" {
			q += " AND " + c.col + " = ?"
			args = append(args, c.val)
		}
	}
	if !f.IncludeArchived && f.Status != "archived" {
		q += " AND status != 'archived'"
	}
	q += " ORDER BY priority DESC, created_at ASC, id ASC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := b.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, b.db.Explain("list tasks", err)
	}
	defer rows.Close()
	out := []Task{}
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, b.db.Explain("list tasks", err)
		}
		out = append(out, *t)
	}
	return out, b.db.Explain("list tasks", rows.Err())
}

// NewTask describes a task to create. Empty strings mean "not set".
type NewTask struct {
	Title             string
	Body              string
	Assignee          string
	CreatedBy         string
	Tenant            string
	Priority          int64
	Parents           []string
	WorkspaceKind     string
	WorkspacePath     string
	Triage            bool
	IdempotencyKey    string
	MaxRuntimeSeconds *int64
	// Skills nil means "defaults only"; an empty slice means "none".
	Skills        []string
	GoalMode      bool
	GoalMaxTurns  *int64
	InitialStatus string // "running" (the default: normal dispatch) or "blocked"
	SessionID     string
	// CreatorTask is the task whose dispatcher worker creates this one. It
	// is recorded in the created event (as creator_task), which is what
	// later lets that worker link, parent or claim the task as its own;
	// and it scopes IdempotencyKey to that worker's tasks, so a key cannot
	// hand a worker another task's id.
	CreatorTask string
}

// creatorTaskKey is the created event's payload key for NewTask.CreatorTask.
// Hermes ignores payload keys it does not know.
const creatorTaskKey = "creator_task"

// createdByTaskSQL selects the tasks whose created event names a creator
// task; a payload that is not JSON names none.
const createdByTaskSQL = `SELECT task_id FROM task_events WHERE kind = 'created'
	AND CASE WHEN json_valid(payload) THEN json_extract(payload, '$.` + creatorTaskKey + `') END = ?`

// CreatedByTask returns the tasks created by the worker of task creator,
// sorted.
func (b *Board) CreatedByTask(ctx context.Context, creator string) ([]string, error) {
	return b.strings(ctx, createdByTaskSQL+" ORDER BY task_id", creator)
}

func newTaskID() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate a task id: %w", err)
	}
	return "t_" + hex.EncodeToString(b[:]), nil
}

// CreateTask adds a task and returns its id. It lands in triage when asked,
// blocked when InitialStatus says so, ready when every parent is done, and
// todo otherwise. With an IdempotencyKey already used by a live task, that
// task's id is returned instead.
func (b *Board) CreateTask(ctx context.Context, nt NewTask) (string, error) {
	title := strings.TrimSpace(nt.Title)
	if title == "" {
		return "", inputErrorf("title is required")
	}
	kind := nt.WorkspaceKind
	if kind == "" {
		kind = "scratch"
	}
	if !contains(WorkspaceKinds, kind) {
		return "", inputErrorf("workspace_kind must be one of ['dir', 'scratch', 'worktree'], got '%s'", kind)
	}
	initial := nt.InitialStatus
	if initial == "" {
		initial = "running"
	}
	if initial != "running" && initial != "blocked" {
		return "", inputErrorf("initial_status must be one of ['blocked', 'running']")
	}
	var parents []string
	for _, p := range nt.Parents {
		if p = strings.TrimSpace(p); p != "" && !contains(parents, p) {
			parents = append(parents, p)
		}
	}
	var skillsJSON any
	if nt.Skills != nil {
		clean := []string{}
		for _, s := range nt.Skills {
			s = strings.TrimSpace(s)
			if s == "" || contains(clean, s) {
				continue
			}
			if strings.Contains(s, ",") {
				return "", inputErrorf("skill name cannot contain comma: '%s' (pass a list of separate names instead of a comma-joined string)", s)
			}
			clean = append(clean, s)
		}
		enc, err := json.Marshal(clean)
		if err != nil {
			return "", err
		}
		skillsJSON = string(enc)
	}

	var id string
	err := b.db.Tx(ctx, "create a task", func(tx *sql.Tx) error {
		if nt.IdempotencyKey != "" {
			var existing string
			q := "SELECT id FROM tasks WHERE idempotency_key = ? AND status != 'archived'"
			args := []any{nt.IdempotencyKey}
			if nt.CreatorTask != "" {
				q += " AND id IN (" + createdByTaskSQL + ")"
				args = append(args, nt.CreatorTask)
			}
			err := tx.QueryRowContext(ctx, q+" ORDER BY created_at DESC LIMIT 1", args...).Scan(&existing)
			if err == nil {
				id = existing
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return b.db.Explain("look up the idempotency key", err)
			}
		}
		status := "ready"
		if len(parents) > 0 {
			missing, undone, err := b.parentStates(ctx, tx, parents)
			if err != nil {
				return err
			}
			if len(missing) > 0 {
				return inputErrorf("unknown parent task(s): %s", strings.Join(missing, ", "))
			}
			if undone {
				status = "todo"
			}
		}
		switch {
		case nt.Triage:
			status = "triage"
		case initial == "blocked":
			status = "blocked"
		}
		newID, err := newTaskID()
		if err != nil {
			return err
		}
		goal := 0
		if nt.GoalMode {
			goal = 1
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO tasks (
				id, title, body, assignee, status, priority, created_by, created_at,
				workspace_kind, workspace_path, tenant, idempotency_key, max_runtime_seconds,
				skills, goal_mode, goal_max_turns, session_id
			) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			newID, title, nullable(nt.Body), nullable(nt.Assignee), status, nt.Priority, nullable(nt.CreatedBy), b.unix(),
			kind, nullable(nt.WorkspacePath), nullable(nt.Tenant), nullable(nt.IdempotencyKey), nullInt(nt.MaxRuntimeSeconds),
			skillsJSON, goal, nullInt(nt.GoalMaxTurns), nullable(nt.SessionID))
		if err != nil {
			return b.db.Explain("insert the task", err)
		}
		for _, p := range parents {
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)", p, newID); err != nil {
				return b.db.Explain("link the task to its parents", err)
			}
		}
		payload := map[string]any{
			"assignee":       nullable(nt.Assignee),
			"status":         status,
			"parents":        append([]string{}, parents...),
			"tenant":         nullable(nt.Tenant),
			"workspace_kind": kind,
			"workspace_path": nullable(nt.WorkspacePath),
			"skills":         nil,
			"goal_mode":      nil,
		}
		if len(nt.Skills) > 0 {
			payload["skills"] = nt.Skills
		}
		if nt.GoalMode {
			payload["goal_mode"] = true
		}
		if nt.CreatorTask != "" {
			payload[creatorTaskKey] = nt.CreatorTask
		}
		if err := b.appendEvent(ctx, tx, newID, "created", payload, nil); err != nil {
			return b.db.Explain("record the created event", err)
		}
		if status == "blocked" {
			actor := nt.CreatedBy
			if actor == "" {
				actor = "user"
			}
			if err := b.appendEvent(ctx, tx, newID, "blocked", map[string]any{"reason": "initial_status", "status": "blocked", "actor": actor}, nil); err != nil {
				return b.db.Explain("record the blocked event", err)
			}
		}
		id = newID
		return nil
	})
	return id, err
}
