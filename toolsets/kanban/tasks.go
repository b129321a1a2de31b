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

	"github.com/hermes-go/hermes/internal/sqlitestore"
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

// Filter narrows ListTasks. Empty strings do not filter; a nil Assignee
// does not filter either, but a non-nil one must name a profile.
type Filter struct {
	// Assignee, when set, is normalised as Hermes normalises it
	// (NormalizeProfileName) and matched against assignees as normalised,
	// so a task an older Hermes stored as "Researcher" is found by
	// "researcher". A blank one is refused, as in Hermes.
	Assignee        *string
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
	var assignees []string
	if f.Assignee != nil {
		norm, err := NormalizeProfileName(*f.Assignee)
		if err != nil {
			return nil, &InputError{Msg: err.Error()}
		}
		if assignees, err = b.assigneeSpellings(ctx, norm); err != nil {
			return nil, err
		}
	}
	if b.empty {
		return []Task{}, nil
	}
	q := "SELECT " + taskColumns + " FROM tasks WHERE 1=1"
	var args []any
	if f.Assignee != nil {
		q += " AND assignee IN (" + strings.TrimSuffix(strings.Repeat("?, ", len(assignees)), ", ") + ")"
		for _, a := range assignees {
			args = append(args, a)
		}
	}
	for _, c := range []struct{ col, val string }{{"status", f.Status}, {"tenant", f.Tenant}} {
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

// assigneeSpellings returns norm and every stored assignee that normalises
// to it. Hermes normalises assignees on write only since 0.16; a board
// carries the older spellings ("Researcher", " coder") until each task is
// reassigned, and the dispatcher spawns them as the normalised profile, so
// they are that profile's tasks. The stored text is left as it is.
func (b *Board) assigneeSpellings(ctx context.Context, norm string) ([]string, error) {
	out := []string{norm}
	if b.empty {
		return out, nil
	}
	stored, err := b.strings(ctx, "SELECT DISTINCT assignee FROM tasks WHERE assignee IS NOT NULL AND assignee != ?", norm)
	if err != nil {
		return nil, err
	}
	for _, s := range stored {
		if n, err := NormalizeProfileName(s); err == nil && n == norm {
			out = append(out, s)
		}
	}
	return out, nil
}

// NewTask describes a task to create. Empty strings mean "not set".
type NewTask struct {
	Title string
	Body  string
	// Assignee is normalised (NormalizeProfileName) before it is stored;
	// empty leaves the task unassigned, blank is refused.
	Assignee  string
	CreatedBy string
	// Tenant nil inherits the tenant of the first parent, in Parents
	// order, that has a non-empty one. A non-nil tenant is stored as given,
	// "" included, and inherits nothing (Hermes' tenant=None versus "").
	Tenant            *string
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
	// is recorded in the created event (as creator_task_id, Hermes' key),
	// which is what later lets that worker link, parent or claim the task
	// as its own; and it scopes IdempotencyKey to that worker's tasks, so a
	// key cannot hand a worker another task's id.
	CreatorTask string
}

// creatorTaskKeys are the created event's payload keys naming the worker
// task that created a task: Hermes' creator_task_id, and creator_task,
// which earlier versions of these tools wrote.
var creatorTaskKeys = [...]string{"creator_task_id", "creator_task"}

// createdByTaskSQL selects the tasks whose created event names a creator
// task; a payload that is not JSON names none.
var createdByTaskSQL = `SELECT task_id FROM task_events WHERE kind = 'created'
	AND CASE WHEN json_valid(payload) THEN COALESCE(json_extract(payload, '$.` + creatorTaskKeys[0] + `'),
		json_extract(payload, '$.` + creatorTaskKeys[1] + `')) END = ?`

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

// createdPayload is the created event's payload, its keys in Hermes' order.
type createdPayload struct {
	Assignee         *string  `json:"assignee"`
	Status           string   `json:"status"`
	Parents          []string `json:"parents"`
	CreatorTaskID    *string  `json:"creator_task_id"`
	Tenant           *string  `json:"tenant"`
	WorkspaceKind    string   `json:"workspace_kind"`
	WorkspacePath    *string  `json:"workspace_path"`
	BranchName       *string  `json:"branch_name"`
	ProjectID        *string  `json:"project_id"`
	Skills           []string `json:"skills"`
	GoalMode         *bool    `json:"goal_mode"`
	ModelOverride    *string  `json:"model_override"`
	ProviderOverride *string  `json:"provider_override"`
}

// CreateTask adds a task and returns its id. Its status is Hermes'
// (kanban_db_graph.initial_task_state): blocked when InitialStatus says so,
// else triage when asked, else todo while any parent is not done (an
// archived parent counts as not done here; the next promotion releases
// it), else ready. A todo task waiting on an open parent records a
// dependency_wait event naming the first such parent. With an
// IdempotencyKey already used by a live task, that task's id is returned
// instead.
func (b *Board) CreateTask(ctx context.Context, nt NewTask) (string, error) {
	var assignee *string
	if nt.Assignee != "" {
		norm, err := NormalizeProfileName(nt.Assignee)
		if err != nil {
			return "", &InputError{Msg: err.Error()}
		}
		assignee = &norm
	}
	title := strings.TrimSpace(nt.Title)
	if title == "" {
		return "", inputErrorf("title is required")
	}
	initial := nt.InitialStatus
	if initial == "" {
		initial = "running"
	}
	if initial != "running" && initial != "blocked" {
		return "", inputErrorf("initial_status must be one of ['blocked', 'running']")
	}
	kind := nt.WorkspaceKind
	if kind == "" {
		kind = "scratch"
	}
	if !contains(WorkspaceKinds, kind) {
		return "", inputErrorf("workspace_kind must be one of ['dir', 'scratch', 'worktree'], got '%s'", kind)
	}
	// Ids are neither trimmed nor de-duplicated, as in Hermes: a padded id
	// names no task, and a repeated one links once.
	var parents []string
	for _, p := range nt.Parents {
		if p != "" {
			parents = append(parents, p)
		}
	}
	var skillsJSON any
	var skillsPayload []string
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
		if len(clean) > 0 {
			skillsPayload = clean
		}
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
		st, err := b.initialState(ctx, tx, parents, initial, nt.Triage, nt.Tenant)
		if err != nil {
			return err
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
			newID, title, nullable(nt.Body), ptrValue(assignee), st.status, nt.Priority, nullable(nt.CreatedBy), b.unix(),
			kind, nullable(nt.WorkspacePath), ptrValue(st.tenant), nullable(nt.IdempotencyKey), nullInt(nt.MaxRuntimeSeconds),
			skillsJSON, goal, nullInt(nt.GoalMaxTurns), nullable(nt.SessionID))
		if err != nil {
			return b.db.Explain("insert the task", err)
		}
		for _, p := range parents {
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)", p, newID); err != nil {
				return b.db.Explain("link the task to its parents", err)
			}
		}
		payload := createdPayload{
			Assignee: assignee, Status: st.status, Parents: nonNil(parents), Tenant: st.tenant,
			WorkspaceKind: kind, WorkspacePath: strOrNil(nt.WorkspacePath), Skills: skillsPayload,
		}
		if nt.CreatorTask != "" {
			payload.CreatorTaskID = &nt.CreatorTask
		}
		if nt.GoalMode {
			payload.GoalMode = &nt.GoalMode
		}
		if err := b.appendEvent(ctx, tx, newID, "created", payload, nil); err != nil {
			return b.db.Explain("record the created event", err)
		}
		switch {
		case st.status == "blocked":
			actor := nt.CreatedBy
			if actor == "" {
				actor = "user"
			}
			if err := b.appendEvent(ctx, tx, newID, "blocked", map[string]any{"reason": "initial_status", "status": "blocked", "actor": actor}, nil); err != nil {
				return b.db.Explain("record the blocked event", err)
			}
		case st.status == "todo" && st.gatedBy != "":
			if err := b.appendEvent(ctx, tx, newID, "dependency_wait", map[string]any{"reason": "parent_not_done", "parent": st.gatedBy}, nil); err != nil {
				return b.db.Explain("record the dependency wait", err)
			}
		}
		id = newID
		return nil
	})
	return id, err
}

// initialState is what a new task starts as.
type initialState struct {
	status string
	tenant *string
	// gatedBy is the first parent, in argument order, neither done nor
	// archived: the one a todo task waits for. "" when only archived
	// parents hold it in todo.
	gatedBy string
}

// initialState decides a new task's status and tenant inside its creating
// transaction, as kanban_db_graph.initial_task_state does. Parents are
// checked to exist whatever the status, so no link dangles.
func (b *Board) initialState(ctx context.Context, q execer, parents []string, initial string, triage bool, tenant *string) (initialState, error) {
	st := initialState{tenant: tenant}
	type parentRow struct {
		status string
		tenant sql.NullString
	}
	rows := map[string]parentRow{}
	anyMissing := false
	for _, p := range parents {
		if _, seen := rows[p]; seen {
			continue
		}
		var r parentRow
		err := q.QueryRowContext(ctx, "SELECT status, tenant FROM tasks WHERE id = ?", p).Scan(&r.status, &r.tenant)
		if errors.Is(err, sql.ErrNoRows) {
			anyMissing = true
			continue
		}
		if err != nil {
			return st, b.db.Explain("read parent "+p, err)
		}
		rows[p] = r
	}
	if anyMissing {
		// Every missing id in argument order, repeats included.
		var missing []string
		for _, p := range parents {
			if _, ok := rows[p]; !ok {
				missing = append(missing, p)
			}
		}
		return st, inputErrorf("unknown parent task(s): %s", strings.Join(missing, ", "))
	}
	if tenant == nil {
		for _, p := range parents {
			if t := rows[p].tenant; t.Valid && t.String != "" {
				st.tenant = &t.String
				break
			}
		}
	}
	undone := false
	for _, p := range parents {
		s := rows[p].status
		if s != "done" {
			undone = true
		}
		if s != "done" && s != "archived" && st.gatedBy == "" {
			st.gatedBy = p
		}
	}
	switch {
	case initial == "blocked":
		st.status = "blocked"
	case triage:
		st.status = "triage"
	case undone:
		st.status = "todo"
	default:
		st.status = "ready"
	}
	return st, nil
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ProjectID returns the project a task is linked to (tasks.project_id,
// which Hermes sets for project worktrees), nil when it has none or the
// board predates the column.
func (b *Board) ProjectID(ctx context.Context, id string) (*string, error) {
	if b.empty {
		return nil, nil
	}
	cols, err := sqlitestore.Columns(ctx, b.db, "tasks")
	if err != nil {
		return nil, b.db.Explain("read the columns of tasks", err)
	}
	if _, ok := cols["project_id"]; !ok {
		return nil, nil
	}
	var p sql.NullString
	err = b.db.QueryRowContext(ctx, "SELECT project_id FROM tasks WHERE id = ?", id).Scan(&p)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, b.db.Explain("read the project of "+id, err)
	}
	return strPtr(p), nil
}
