package kanban

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/sqlitestore"
)

// Statuses a task can be in (hermes_cli/kanban_db.py VALID_STATUSES).
var Statuses = []string{"triage", "todo", "scheduled", "ready", "running", "blocked", "review", "done", "archived"}

// WorkspaceKinds a task can use.
var WorkspaceKinds = []string{"scratch", "worktree", "dir"}

// DefaultClaimTTL is how long a claim lasts before the dispatcher may
// reclaim the task (Hermes' DEFAULT_CLAIM_TTL_SECONDS).
const DefaultClaimTTL = 15 * time.Minute

// InputError is a refusal the caller can act on: an unknown task, a cycle,
// a missing field. Its text is shown to the model as is.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErrorf(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// HallucinatedCardsError refuses a completion whose created_cards name
// tasks that do not exist or that this worker did not create. The task is
// left untouched so the worker can retry.
type HallucinatedCardsError struct {
	Phantom []string
	TaskID  string
}

func (e *HallucinatedCardsError) Error() string {
	return "completion blocked: claimed created_cards that do not exist or were not created by this worker: " +
		strings.Join(e.Phantom, ", ")
}

// BoardOptions says how to open a board.
type BoardOptions struct {
	// ReadOnly opens without write access and never creates the file.
	ReadOnly bool
	// Create makes the file (and its directory) when it is missing.
	Create bool
	// BusyTimeout bounds the wait for another process's lock; zero means
	// sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Board is an open kanban.db. It is safe for use by one goroutine at a
// time per call chain; every mutation is its own IMMEDIATE transaction, so
// several processes may share the file.
type Board struct {
	db    *sqlitestore.DB
	now   func() time.Time
	empty bool // read-only handle on a file without the kanban tables
}

// OpenBoard opens the board at path, creating the schema on a new file and
// refusing a file whose schema it does not know. A missing file, when not
// created, is an error wrapping fs.ErrNotExist.
func OpenBoard(ctx context.Context, path string, opts BoardOptions) (*Board, error) {
	db, err := sqlitestore.Open(ctx, path, sqlitestore.Options{
		ReadOnly:    opts.ReadOnly,
		Create:      opts.Create,
		BusyTimeout: opts.BusyTimeout,
	})
	if err != nil {
		return nil, err
	}
	has, err := ensureSchema(ctx, db, !opts.ReadOnly)
	if err == nil && !opts.ReadOnly {
		// Only a board known to be Hermes' is converted, and Hermes keeps
		// its boards in WAL anyway.
		err = db.EnableWAL(ctx)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Board{db: db, now: now, empty: !has}, nil
}

// Close releases the database.
func (b *Board) Close() error { return b.db.Close() }

// Path is the board's file.
func (b *Board) Path() string { return b.db.Path }

func (b *Board) unix() int64 { return b.now().Unix() }

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

func strPtr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

func intPtr(n sql.NullInt64) *int64 {
	if !n.Valid {
		return nil
	}
	return &n.Int64
}

// nullable stores "" as NULL, as Hermes stores an absent value.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// encodePayload renders an event payload or run metadata the way Hermes
// does: JSON text, or NULL for an empty value.
func encodePayload(v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

func decodeJSON(s sql.NullString) any {
	if !s.Valid || s.String == "" {
		return nil
	}
	var v any
	if err := json.Unmarshal([]byte(s.String), &v); err != nil {
		return nil
	}
	return v
}

// execer is a transaction or the database.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (b *Board) appendEvent(ctx context.Context, q execer, taskID, kind string, payload any, runID *int64) error {
	p, err := encodePayload(payload)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx,
		"INSERT INTO task_events (task_id, run_id, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)",
		taskID, nullInt(runID), kind, p, b.unix())
	return err
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
			err := tx.QueryRowContext(ctx,
				"SELECT id FROM tasks WHERE idempotency_key = ? AND status != 'archived' ORDER BY created_at DESC LIMIT 1",
				nt.IdempotencyKey).Scan(&existing)
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

// parentStates reports which of ids do not exist and whether any existing
// one is neither done nor archived.
func (b *Board) parentStates(ctx context.Context, q execer, ids []string) (missing []string, undone bool, err error) {
	for _, p := range ids {
		var status string
		err := q.QueryRowContext(ctx, "SELECT status FROM tasks WHERE id = ?", p).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			missing = append(missing, p)
			continue
		}
		if err != nil {
			return nil, false, b.db.Explain("read parent "+p, err)
		}
		if status != "done" && status != "archived" {
			undone = true
		}
	}
	return missing, undone, nil
}

func (b *Board) parentsSatisfied(ctx context.Context, q execer, taskID string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM task_links l JOIN tasks p ON p.id = l.parent_id
		WHERE l.child_id = ? AND p.status NOT IN ('done', 'archived') LIMIT 1`, taskID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, b.db.Explain("check the parents of "+taskID, err)
	}
	return false, nil
}

// ClaimTask moves a ready task to running under claimer's lock, opens a run
// row and records a claimed event, as the Hermes dispatcher does before it
// spawns a worker. It returns nil when the task was not ready (someone else
// won, or a parent reopened).
func (b *Board) ClaimTask(ctx context.Context, id, claimer string, ttl time.Duration) (*Task, error) {
	return b.claim(ctx, id, "ready", claimer, ttl)
}

// ClaimReviewTask claims a task waiting in review for a reviewer: a new run
// whose claimed event says it came from review, which is what lets the
// reviewer hand it back with RequestChanges.
func (b *Board) ClaimReviewTask(ctx context.Context, id, claimer string, ttl time.Duration) (*Task, error) {
	return b.claim(ctx, id, "review", claimer, ttl)
}

func (b *Board) claim(ctx context.Context, id, from, claimer string, ttl time.Duration) (*Task, error) {
	if claimer == "" {
		return nil, inputErrorf("claimer is required")
	}
	if ttl <= 0 {
		ttl = DefaultClaimTTL
	}
	var claimed *Task
	err := b.db.Tx(ctx, "claim "+id, func(tx *sql.Tx) error {
		ok, err := b.parentsSatisfied(ctx, tx, id)
		if err != nil {
			return err
		}
		if !ok {
			res, err := tx.ExecContext(ctx, "UPDATE tasks SET status = 'todo' WHERE id = ? AND status = ? AND claim_lock IS NULL", id, from)
			if err != nil {
				return b.db.Explain("demote "+id, err)
			}
			if n, _ := res.RowsAffected(); n == 1 {
				kind, payload := "claim_rejected", map[string]any{"reason": "parents_not_done"}
				if from == "review" {
					kind, payload = "dependency_wait", map[string]any{"reason": "parent_reopened", "source_status": "review"}
				}
				return b.appendEvent(ctx, tx, id, kind, payload, nil)
			}
			return nil
		}
		now := b.unix()
		expires := now + int64(ttl/time.Second)
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'running', claim_lock = ?, claim_expires = ?,
				started_at = COALESCE(started_at, ?)
			WHERE id = ? AND status = ? AND claim_lock IS NULL`, claimer, expires, now, id, from)
		if err != nil {
			return b.db.Explain("claim "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		res, err = tx.ExecContext(ctx, `INSERT INTO task_runs (task_id, profile, step_key, status, claim_lock, claim_expires, max_runtime_seconds, started_at)
			SELECT id, assignee, current_step_key, 'running', ?, ?, max_runtime_seconds, ? FROM tasks WHERE id = ?`,
			claimer, expires, now, id)
		if err != nil {
			return b.db.Explain("open a run for "+id, err)
		}
		runID, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE tasks SET current_run_id = ? WHERE id = ?", runID, id); err != nil {
			return b.db.Explain("record the run of "+id, err)
		}
		payload := map[string]any{"lock": claimer, "expires": expires, "run_id": runID}
		if from == "review" {
			payload["source_status"] = "review"
		}
		if err := b.appendEvent(ctx, tx, id, "claimed", payload, &runID); err != nil {
			return b.db.Explain("record the claim of "+id, err)
		}
		claimed, err = b.task(ctx, tx, id)
		return err
	})
	return claimed, err
}

// HeartbeatClaim extends a running claim held by claimer; false when the
// claim is not (or no longer) claimer's.
func (b *Board) HeartbeatClaim(ctx context.Context, id, claimer string, ttl time.Duration) (bool, error) {
	if ttl <= 0 {
		ttl = DefaultClaimTTL
	}
	expires := b.unix() + int64(ttl/time.Second)
	var ok bool
	err := b.db.Tx(ctx, "extend the claim on "+id, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE tasks SET claim_expires = ? WHERE id = ? AND status = 'running' AND claim_lock = ?", expires, id, claimer)
		if err != nil {
			return b.db.Explain("extend the claim on "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		ok = true
		if _, err := tx.ExecContext(ctx, "UPDATE task_runs SET claim_expires = ? WHERE id = (SELECT current_run_id FROM tasks WHERE id = ?)", expires, id); err != nil {
			return b.db.Explain("extend the run claim on "+id, err)
		}
		return nil
	})
	return ok, err
}

// HeartbeatWorker records that the worker on a running task is alive, with
// an optional note for the event log. expectedRun, when set, must be the
// task's current run. False when the task is not running (or the run
// moved on).
func (b *Board) HeartbeatWorker(ctx context.Context, id, note string, expectedRun *int64) (bool, error) {
	var ok bool
	err := b.db.Tx(ctx, "heartbeat "+id, func(tx *sql.Tx) error {
		now := b.unix()
		q := "UPDATE tasks SET last_heartbeat_at = ? WHERE id = ? AND status = 'running'"
		args := []any{now, id}
		if expectedRun != nil {
			q += " AND current_run_id = ?"
			args = append(args, *expectedRun)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return b.db.Explain("heartbeat "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		ok = true
		var runID sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT current_run_id FROM tasks WHERE id = ?", id).Scan(&runID); err != nil {
			return b.db.Explain("read the run of "+id, err)
		}
		if runID.Valid {
			if _, err := tx.ExecContext(ctx, "UPDATE task_runs SET last_heartbeat_at = ? WHERE id = ?", now, runID.Int64); err != nil {
				return b.db.Explain("heartbeat the run of "+id, err)
			}
		}
		var payload any
		if note != "" {
			payload = map[string]any{"note": note}
		}
		return b.appendEvent(ctx, tx, id, "heartbeat", payload, intPtr(runID))
	})
	return ok, err
}

// endRun closes the task's active run and clears current_run_id. It
// returns the run id, or nil when no run was active.
func (b *Board) endRun(ctx context.Context, tx execer, taskID, outcome, status string, summary, errText *string, metadata map[string]any) (*int64, error) {
	var runID sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT current_run_id FROM tasks WHERE id = ?", taskID).Scan(&runID); err != nil {
		return nil, b.db.Explain("read the run of "+taskID, err)
	}
	if !runID.Valid || runID.Int64 == 0 {
		return nil, nil
	}
	meta, err := encodePayload(metaValue(metadata))
	if err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `UPDATE task_runs SET status = ?, outcome = ?, summary = ?, error = ?, metadata = ?,
			ended_at = ?, claim_lock = NULL, claim_expires = NULL, worker_pid = NULL
		WHERE id = ? AND ended_at IS NULL`,
		status, outcome, ptrValue(summary), ptrValue(errText), meta, b.unix(), runID.Int64)
	if err != nil {
		return nil, b.db.Explain("close the run of "+taskID, err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE tasks SET current_run_id = NULL WHERE id = ?", taskID); err != nil {
		return nil, b.db.Explain("clear the run of "+taskID, err)
	}
	return &runID.Int64, nil
}

// synthesizeRun records a zero-length closed run for a transition on a task
// nobody claimed, so the handoff text is not lost from the attempt history.
func (b *Board) synthesizeRun(ctx context.Context, tx execer, taskID, outcome string, summary *string, metadata map[string]any) (*int64, error) {
	meta, err := encodePayload(metaValue(metadata))
	if err != nil {
		return nil, err
	}
	now := b.unix()
	res, err := tx.ExecContext(ctx, `INSERT INTO task_runs (task_id, profile, step_key, status, outcome, summary, metadata, started_at, ended_at)
		SELECT id, assignee, current_step_key, ?, ?, ?, ?, ?, ? FROM tasks WHERE id = ?`,
		outcome, outcome, ptrValue(summary), meta, now, now, taskID)
	if err != nil {
		return nil, b.db.Explain("record a run for "+taskID, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return nil, err
	}
	return &id, nil
}

func metaValue(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

func ptrValue(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// firstLine is the first line of s, cut to limit characters; nil when s
// has no text.
func firstLine(s string, limit int) any {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	r := []rune(s)
	if len(r) > limit {
		r = r[:limit]
	}
	return string(r)
}

// Completion is a worker's structured handoff.
type Completion struct {
	Result   string
	Summary  string
	Metadata map[string]any
	// CreatedCards, when non-empty, must each name a task this worker
	// created (or linked as a child); otherwise nothing changes and a
	// *HallucinatedCardsError is returned.
	CreatedCards []string
	// ExpectedRunID pins the completion to the worker's own run.
	ExpectedRunID *int64
}

// CompleteTask moves a running, ready, blocked or review task to done,
// closes its run with the handoff and promotes children whose parents are
// now all done. False when the task is unknown, already terminal, or the
// run moved on.
func (b *Board) CompleteTask(ctx context.Context, id string, c Completion) (bool, error) {
	var verified []string
	if len(c.CreatedCards) > 0 {
		var phantom []string
		var err error
		verified, phantom, err = b.verifyCreatedCards(ctx, id, c.CreatedCards)
		if err != nil {
			return false, err
		}
		if len(phantom) > 0 {
			preview := c.Summary
			if preview == "" {
				preview = c.Result
			}
			err := b.db.Tx(ctx, "record the refused completion of "+id, func(tx *sql.Tx) error {
				return b.appendEvent(ctx, tx, id, "completion_blocked_hallucination", map[string]any{
					"phantom_cards":   phantom,
					"verified_cards":  nonNil(verified),
					"summary_preview": firstLine(preview, 200),
				}, nil)
			})
			if err != nil {
				return false, err
			}
			return false, &HallucinatedCardsError{Phantom: phantom, TaskID: id}
		}
	}
	var handoff *string
	switch {
	case c.Summary != "":
		handoff = &c.Summary
	case c.Result != "":
		handoff = &c.Result
	}
	done := false
	err := b.db.Tx(ctx, "complete "+id, func(tx *sql.Tx) error {
		q := `UPDATE tasks SET status = 'done', result = ?, completed_at = ?, claim_lock = NULL, claim_expires = NULL,
				worker_pid = NULL, consecutive_failures = 0, last_failure_error = NULL
			WHERE id = ? AND status IN ('running', 'ready', 'blocked', 'review')`
		args := []any{nullable(c.Result), b.unix(), id}
		if c.ExpectedRunID != nil {
			q += " AND current_run_id = ?"
			args = append(args, *c.ExpectedRunID)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return b.db.Explain("complete "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		done = true
		runID, err := b.endRun(ctx, tx, id, "completed", "done", handoff, nil, c.Metadata)
		if err != nil {
			return err
		}
		if runID == nil && (handoff != nil || c.Metadata != nil) {
			if runID, err = b.synthesizeRun(ctx, tx, id, "completed", handoff, c.Metadata); err != nil {
				return err
			}
		}
		payload := map[string]any{"result_len": len([]rune(c.Result)), "summary": nil}
		if handoff != nil {
			payload["summary"] = firstLine(*handoff, 400)
		}
		if len(verified) > 0 {
			payload["verified_cards"] = verified
		}
		if arts := artifactPaths(c.Metadata); len(arts) > 0 {
			payload["artifacts"] = arts
		}
		return b.appendEvent(ctx, tx, id, "completed", payload, runID)
	})
	if err != nil || !done {
		return false, err
	}
	// Its own transaction, as in Hermes, so children see the parent done.
	if _, err := b.RecomputeReady(ctx); err != nil {
		return true, err
	}
	return true, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func artifactPaths(meta map[string]any) []string {
	raw, ok := meta["artifacts"].([]any)
	if !ok {
		if list, ok := meta["artifacts"].([]string); ok {
			raw = make([]any, len(list))
			for i, s := range list {
				raw[i] = s
			}
		}
	}
	var out []string
	for _, v := range raw {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}

// verifyCreatedCards splits claimed card ids into those the completing
// task's worker made (created_by is its assignee or the task itself, or the
// card is linked as its child) and the rest.
func (b *Board) verifyCreatedCards(ctx context.Context, taskID string, claimed []string) (verified, phantom []string, err error) {
	var assignee sql.NullString
	err = b.db.QueryRowContext(ctx, "SELECT assignee FROM tasks WHERE id = ?", taskID).Scan(&assignee)
	notFound := errors.Is(err, sql.ErrNoRows)
	if err != nil && !notFound {
		return nil, nil, b.db.Explain("read task "+taskID, err)
	}
	children, err := b.ChildIDs(ctx, taskID)
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, id := range claimed {
		id = strings.TrimSpace(id)
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if notFound {
			phantom = append(phantom, id)
			continue
		}
		var createdBy sql.NullString
		err := b.db.QueryRowContext(ctx, "SELECT created_by FROM tasks WHERE id = ?", id).Scan(&createdBy)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, nil, b.db.Explain("read task "+id, err)
		}
		trusted := err == nil && createdBy.Valid &&
			((assignee.Valid && assignee.String != "" && createdBy.String == assignee.String) ||
				createdBy.String == taskID || contains(children, id))
		if trusted {
			verified = append(verified, id)
		} else {
			phantom = append(phantom, id)
		}
	}
	return verified, phantom, nil
}

// BlockTask moves a running or ready task to blocked with a reason a human
// will read, closing the active run. False when the task is in another
// state (or the run moved on).
func (b *Board) BlockTask(ctx context.Context, id, reason string, expectedRun *int64) (bool, error) {
	blocked := false
	err := b.db.Tx(ctx, "block "+id, func(tx *sql.Tx) error {
		q := `UPDATE tasks SET status = 'blocked', claim_lock = NULL, claim_expires = NULL, worker_pid = NULL
			WHERE id = ? AND status IN ('running', 'ready')`
		args := []any{id}
		if expectedRun != nil {
			q += " AND current_run_id = ?"
			args = append(args, *expectedRun)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return b.db.Explain("block "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		blocked = true
		var summary *string
		if reason != "" {
			summary = &reason
		}
		runID, err := b.endRun(ctx, tx, id, "blocked", "blocked", summary, nil, nil)
		if err != nil {
			return err
		}
		if runID == nil && summary != nil {
			if runID, err = b.synthesizeRun(ctx, tx, id, "blocked", summary, nil); err != nil {
				return err
			}
		}
		return b.appendEvent(ctx, tx, id, "blocked", map[string]any{"reason": nullable(reason)}, runID)
	})
	return blocked, err
}

// UnblockTask returns a blocked (or scheduled) task to ready, or to todo
// while a parent is unfinished, and resets its failure counter. False when
// it is not blocked.
func (b *Board) UnblockTask(ctx context.Context, id string) (bool, error) {
	unblocked := false
	err := b.db.Tx(ctx, "unblock "+id, func(tx *sql.Tx) error {
		// A run left open on a blocked task would outlive the unblock.
		if _, err := tx.ExecContext(ctx, `UPDATE task_runs SET status = 'reclaimed', outcome = 'reclaimed',
				summary = COALESCE(summary, 'invariant recovery on unblock'), ended_at = ?,
				claim_lock = NULL, claim_expires = NULL, worker_pid = NULL
			WHERE ended_at IS NULL AND id = (SELECT current_run_id FROM tasks WHERE id = ? AND status IN ('blocked', 'scheduled'))`,
			b.unix(), id); err != nil {
			return b.db.Explain("close a stale run of "+id, err)
		}
		ok, err := b.parentsSatisfied(ctx, tx, id)
		if err != nil {
			return err
		}
		landing := "ready"
		if !ok {
			landing = "todo"
		}
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, current_run_id = NULL, consecutive_failures = 0,
				last_failure_error = NULL
			WHERE id = ? AND status IN ('blocked', 'scheduled')`, landing, id)
		if err != nil {
			return b.db.Explain("unblock "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		unblocked = true
		var payload any
		if landing != "ready" {
			payload = map[string]any{"status": landing, "resume_status": "ready"}
		}
		return b.appendEvent(ctx, tx, id, "unblocked", payload, nil)
	})
	return unblocked, err
}

// LinkTasks adds a parent→child dependency. Self-links, unknown tasks and
// cycles are refused with an *InputError; an existing link is a no-op.
func (b *Board) LinkTasks(ctx context.Context, parent, child string) error {
	if parent == child {
		return inputErrorf("a task cannot depend on itself")
	}
	return b.db.Tx(ctx, "link "+parent+" -> "+child, func(tx *sql.Tx) error {
		missing, _, err := b.parentStates(ctx, tx, []string{parent, child})
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			return inputErrorf("unknown task(s): %s", strings.Join(missing, ", "))
		}
		cycle, err := b.wouldCycle(ctx, tx, parent, child)
		if err != nil {
			return err
		}
		if cycle {
			return inputErrorf("linking %s -> %s would create a cycle", parent, child)
		}
		res, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO task_links (parent_id, child_id) VALUES (?, ?)", parent, child)
		if err != nil {
			return b.db.Explain("link "+parent+" -> "+child, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // already linked: repeating the call changes nothing
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tasks SET status = 'todo' WHERE id = ? AND status = 'ready'
				AND (SELECT status FROM tasks WHERE id = ?) NOT IN ('done', 'archived')`, child, parent); err != nil {
			return b.db.Explain("re-gate "+child, err)
		}
		return b.appendEvent(ctx, tx, child, "linked", map[string]any{"parent": parent, "child": child}, nil)
	})
}

// wouldCycle reports whether parent is already a descendant of child.
func (b *Board) wouldCycle(ctx context.Context, q execer, parent, child string) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, `WITH RECURSIVE descendants(id) AS (
			SELECT ? UNION SELECT l.child_id FROM task_links l JOIN descendants d ON l.parent_id = d.id
		) SELECT 1 FROM descendants WHERE id = ? LIMIT 1`, child, parent).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, b.db.Explain("check for a dependency cycle", err)
	}
	return true, nil
}

// AddComment appends a comment to a task's thread and returns its id.
func (b *Board) AddComment(ctx context.Context, id, author, body string) (int64, error) {
	body = strings.TrimSpace(body)
	author = strings.TrimSpace(author)
	if body == "" {
		return 0, inputErrorf("comment body is required")
	}
	if author == "" {
		return 0, inputErrorf("comment author is required")
	}
	var cid int64
	err := b.db.Tx(ctx, "comment on "+id, func(tx *sql.Tx) error {
		t, err := b.task(ctx, tx, id)
		if err != nil {
			return err
		}
		if t == nil {
			return inputErrorf("unknown task %s", id)
		}
		res, err := tx.ExecContext(ctx, "INSERT INTO task_comments (task_id, author, body, created_at) VALUES (?, ?, ?, ?)",
			id, author, body, b.unix())
		if err != nil {
			return b.db.Explain("comment on "+id, err)
		}
		if cid, err = res.LastInsertId(); err != nil {
			return err
		}
		return b.appendEvent(ctx, tx, id, "commented", map[string]any{"author": author, "len": len([]rune(body))}, nil)
	})
	return cid, err
}

// RecomputeReady promotes todo tasks whose parents are all done or archived
// and returns how many moved.
func (b *Board) RecomputeReady(ctx context.Context) (int, error) {
	promoted := 0
	err := b.db.Tx(ctx, "promote ready tasks", func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT t.id FROM tasks t WHERE t.status = 'todo' AND NOT EXISTS (
				SELECT 1 FROM task_links l JOIN tasks p ON p.id = l.parent_id
				WHERE l.child_id = t.id AND p.status NOT IN ('done', 'archived'))`)
		if err != nil {
			return b.db.Explain("find promotable tasks", err)
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return b.db.Explain("find promotable tasks", err)
		}
		for _, id := range ids {
			res, err := tx.ExecContext(ctx, "UPDATE tasks SET status = 'ready' WHERE id = ? AND status = 'todo'", id)
			if err != nil {
				return b.db.Explain("promote "+id, err)
			}
			if n, _ := res.RowsAffected(); n == 1 {
				if err := b.appendEvent(ctx, tx, id, "promoted", nil, nil); err != nil {
					return b.db.Explain("record the promotion of "+id, err)
				}
				promoted++
			}
		}
		return nil
	})
	return promoted, err
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

// ParentIDs returns the task's parents, sorted.
func (b *Board) ParentIDs(ctx context.Context, id string) ([]string, error) {
	return b.strings(ctx, "SELECT parent_id FROM task_links WHERE child_id = ? ORDER BY parent_id", id)
}

// ChildIDs returns the task's children, sorted.
func (b *Board) ChildIDs(ctx context.Context, id string) ([]string, error) {
	return b.strings(ctx, "SELECT child_id FROM task_links WHERE parent_id = ? ORDER BY child_id", id)
}

func (b *Board) strings(ctx context.Context, q string, args ...any) ([]string, error) {
	out := []string{}
	if b.empty {
		return out, nil
	}
	rows, err := b.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, b.db.Explain("read links", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, b.db.Explain("read links", rows.Err())
}

// Comment is one entry of a task's thread.
type Comment struct {
	ID        int64  `json:"id"`
	Author    string `json:"author"`
	Body      string `json:"body"`
	CreatedAt int64  `json:"created_at"`
}

// Comments returns a task's thread, oldest first.
func (b *Board) Comments(ctx context.Context, id string) ([]Comment, error) {
	out := []Comment{}
	if b.empty {
		return out, nil
	}
	rows, err := b.db.QueryContext(ctx, "SELECT id, author, body, created_at FROM task_comments WHERE task_id = ? ORDER BY created_at ASC, id ASC", id)
	if err != nil {
		return nil, b.db.Explain("read comments", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Comment
		if err := rows.Scan(&c.ID, &c.Author, &c.Body, &c.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, b.db.Explain("read comments", rows.Err())
}

// Event is one entry of a task's audit log.
type Event struct {
	ID        int64  `json:"id"`
	Kind      string `json:"kind"`
	Payload   any    `json:"payload"`
	CreatedAt int64  `json:"created_at"`
	RunID     *int64 `json:"run_id"`
}

// Events returns a task's events, oldest first.
func (b *Board) Events(ctx context.Context, id string) ([]Event, error) {
	out := []Event{}
	if b.empty {
		return out, nil
	}
	rows, err := b.db.QueryContext(ctx, "SELECT id, kind, payload, created_at, run_id FROM task_events WHERE task_id = ? ORDER BY created_at ASC, id ASC", id)
	if err != nil {
		return nil, b.db.Explain("read events", err)
	}
	defer rows.Close()
	for rows.Next() {
		var e Event
		var payload sql.NullString
		var run sql.NullInt64
		if err := rows.Scan(&e.ID, &e.Kind, &payload, &e.CreatedAt, &run); err != nil {
			return nil, err
		}
		e.Payload, e.RunID = decodeJSON(payload), intPtr(run)
		out = append(out, e)
	}
	return out, b.db.Explain("read events", rows.Err())
}

// Run is one attempt at a task.
type Run struct {
	ID                int64   `json:"id"`
	TaskID            string  `json:"-"`
	Profile           *string `json:"profile"`
	StepKey           *string `json:"-"`
	Status            string  `json:"status"`
	ClaimLock         *string `json:"-"`
	ClaimExpires      *int64  `json:"-"`
	WorkerPID         *int64  `json:"-"`
	MaxRuntimeSeconds *int64  `json:"-"`
	LastHeartbeatAt   *int64  `json:"-"`
	StartedAt         int64   `json:"started_at"`
	EndedAt           *int64  `json:"ended_at"`
	Outcome           *string `json:"outcome"`
	Summary           *string `json:"summary"`
	Metadata          any     `json:"metadata"`
	Error             *string `json:"error"`
}

const runColumns = `id, task_id, profile, step_key, status, claim_lock, claim_expires, worker_pid,
	max_runtime_seconds, last_heartbeat_at, started_at, ended_at, outcome, summary, metadata, error`

func scanRun(r rowScanner) (*Run, error) {
	var run Run
	var profile, step, lock, outcome, summary, meta, errText sql.NullString
	var expires, pid, maxRT, hb, ended sql.NullInt64
	if err := r.Scan(&run.ID, &run.TaskID, &profile, &step, &run.Status, &lock, &expires, &pid,
		&maxRT, &hb, &run.StartedAt, &ended, &outcome, &summary, &meta, &errText); err != nil {
		return nil, err
	}
	run.Profile, run.StepKey, run.ClaimLock = strPtr(profile), strPtr(step), strPtr(lock)
	run.Outcome, run.Summary, run.Error = strPtr(outcome), strPtr(summary), strPtr(errText)
	run.ClaimExpires, run.WorkerPID, run.MaxRuntimeSeconds = intPtr(expires), intPtr(pid), intPtr(maxRT)
	run.LastHeartbeatAt, run.EndedAt = intPtr(hb), intPtr(ended)
	run.Metadata = decodeJSON(meta)
	return &run, nil
}

// Runs returns a task's attempts, oldest first.
func (b *Board) Runs(ctx context.Context, id string) ([]Run, error) {
	out := []Run{}
	if b.empty {
		return out, nil
	}
	rows, err := b.db.QueryContext(ctx, "SELECT "+runColumns+" FROM task_runs WHERE task_id = ? ORDER BY started_at ASC, id ASC", id)
	if err != nil {
		return nil, b.db.Explain("read runs", err)
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *r)
	}
	return out, b.db.Explain("read runs", rows.Err())
}

// LatestRun returns the task's most recent attempt, or nil.
func (b *Board) LatestRun(ctx context.Context, id string) (*Run, error) {
	if b.empty {
		return nil, nil
	}
	r, err := scanRun(b.db.QueryRowContext(ctx, "SELECT "+runColumns+" FROM task_runs WHERE task_id = ? ORDER BY started_at DESC, id DESC LIMIT 1", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, b.db.Explain("read the latest run of "+id, err)
	}
	return r, nil
}

// ReviewRequest hands a task to review.
type ReviewRequest struct {
	Summary  string
	Metadata map[string]any
	// Reviewer reassigns the task; empty keeps the reviewer of the last
	// requested changes, if any.
	Reviewer      string
	ExpectedRunID *int64
	// Force clears a live claim without proof of ownership.
	Force bool
}

// RequestReview moves a running or ready task to review, closing the
// worker's run as review_requested and recording who implemented it and who
// reviews it, so RequestChanges can route it back. When it refuses, ok is
// false and reason says why.
func (b *Board) RequestReview(ctx context.Context, id string, r ReviewRequest) (ok bool, reason string, err error) {
	err = b.db.Tx(ctx, "request review of "+id, func(tx *sql.Tx) error {
		sat, err := b.parentsSatisfied(ctx, tx, id)
		if err != nil {
			return err
		}
		if !sat {
			reason = "parent dependencies are not satisfied"
			return nil
		}
		t, err := b.task(ctx, tx, id)
		if err != nil {
			return err
		}
		if t == nil {
			reason = "task not found"
			return nil
		}
		if r.ExpectedRunID == nil && !r.Force && t.Status == "running" && t.ClaimLock != nil {
			reason = "task is running under a live claim; pass expected_run_id (worker ownership) or force=True " +
				"(explicit operator override) instead of clearing the live run's claim"
			return nil
		}
		var implementer any
		if t.Assignee != nil {
			implementer = *t.Assignee
		}
		reviewer := strings.TrimSpace(r.Reviewer)
		if reviewer == "" {
			prior, found, err := b.priorReviewer(ctx, tx, id)
			if err != nil {
				return err
			}
			if found && prior == "" {
				reason = "re-review has no durable reviewer provenance (the latest changes_requested event is missing or malformed); pass reviewer= explicitly"
				return nil
			}
			reviewer = prior
		}
		q := "UPDATE tasks SET status = 'review', claim_lock = NULL, claim_expires = NULL, worker_pid = NULL"
		var args []any
		if reviewer != "" {
			q += ", assignee = ?"
			args = append(args, reviewer)
		}
		q += " WHERE id = ? AND status IN ('running', 'ready')"
		args = append(args, id)
		if r.ExpectedRunID != nil {
			q += " AND current_run_id = ?"
			args = append(args, *r.ExpectedRunID)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return b.db.Explain("request review of "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			reason = "task is not in running/ready (or expected_run_id did not match the current run)"
			return nil
		}
		var summary *string
		if r.Summary != "" {
			summary = &r.Summary
		}
		runID, err := b.endRun(ctx, tx, id, "review_requested", "review", summary, nil, r.Metadata)
		if err != nil {
			return err
		}
		if runID == nil && (summary != nil || r.Metadata != nil) {
			if runID, err = b.synthesizeRun(ctx, tx, id, "review_requested", summary, r.Metadata); err != nil {
				return err
			}
		}
		payload := map[string]any{"summary": firstLine(r.Summary, 400), "implementer": implementer, "reviewer": nullable(reviewer)}
		if arts := artifactPaths(r.Metadata); len(arts) > 0 {
			payload["artifacts"] = arts
		}
		ok = true
		return b.appendEvent(ctx, tx, id, "review_requested", payload, runID)
	})
	if err != nil {
		return false, "", err
	}
	return ok, reason, nil
}

// priorReviewer finds the reviewer recorded by the latest changes-requested
// run. found is false on a first review.
func (b *Board) priorReviewer(ctx context.Context, q execer, id string) (reviewer string, found bool, err error) {
	var runID int64
	err = q.QueryRowContext(ctx, "SELECT id FROM task_runs WHERE task_id = ? AND outcome = 'changes_requested' ORDER BY id DESC LIMIT 1", id).Scan(&runID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, b.db.Explain("read review history of "+id, err)
	}
	p, err := b.latestEventPayload(ctx, q, id, "changes_requested", &runID)
	if err != nil {
		return "", true, err
	}
	s, _ := p["reviewer"].(string)
	return strings.TrimSpace(s), true, nil
}

func (b *Board) latestEventPayload(ctx context.Context, q execer, id, kind string, runID *int64) (map[string]any, error) {
	query := "SELECT payload FROM task_events WHERE task_id = ? AND kind = ?"
	args := []any{id, kind}
	if runID != nil {
		query += " AND run_id = ?"
		args = append(args, *runID)
	}
	var payload sql.NullString
	err := q.QueryRowContext(ctx, query+" ORDER BY id DESC LIMIT 1", args...).Scan(&payload)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, b.db.Explain("read the "+kind+" event of "+id, err)
	}
	m, _ := decodeJSON(payload).(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// RequestChanges closes a reviewer's run (one claimed from review) and
// hands the task back to the implementer recorded when review was
// requested: ready, or todo while a parent is unfinished. On success the
// second value is the implementer; on refusal it says why.
func (b *Board) RequestChanges(ctx context.Context, id, reason string, expectedRun *int64) (bool, string, string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" {
		return false, "reason is required", "", nil
	}
	var ok bool
	var msg, status string
	err := b.db.Tx(ctx, "request changes on "+id, func(tx *sql.Tx) error {
		t, err := b.task(ctx, tx, id)
		if err != nil {
			return err
		}
		if t == nil {
			msg = "task not found"
			return nil
		}
		if t.Status != "running" || t.CurrentRunID == nil {
			msg = "task is not in an active review run"
			return nil
		}
		if expectedRun != nil && *expectedRun != *t.CurrentRunID {
			msg = "run_id mismatch"
			return nil
		}
		claimed, err := b.latestEventPayload(ctx, tx, id, "claimed", t.CurrentRunID)
		if err != nil {
			return err
		}
		if claimed["source_status"] != "review" {
			msg = "active run was not claimed from review"
			return nil
		}
		requested, err := b.latestEventPayload(ctx, tx, id, "review_requested", nil)
		if err != nil {
			return err
		}
		if requested == nil {
			msg = "no prior review_requested event"
			return nil
		}
		implementer, _ := requested["implementer"].(string)
		if strings.TrimSpace(implementer) == "" {
			msg = "review handoff has no valid implementer provenance"
			return nil
		}
		var reviewer any
		if t.Assignee != nil && strings.TrimSpace(*t.Assignee) != "" {
			reviewer = *t.Assignee
		}
		sat, err := b.parentsSatisfied(ctx, tx, id)
		if err != nil {
			return err
		}
		status = "ready"
		if !sat {
			status = "todo"
		}
		res, err := tx.ExecContext(ctx, `UPDATE tasks SET status = ?, assignee = ?, claim_lock = NULL, claim_expires = NULL,
				worker_pid = NULL
			WHERE id = ? AND status = 'running' AND current_run_id = ?`, status, implementer, id, *t.CurrentRunID)
		if err != nil {
			return b.db.Explain("request changes on "+id, err)
		}
		if n, _ := res.RowsAffected(); n != 1 {
			msg = "task changed during review handoff"
			return nil
		}
		runID, err := b.endRun(ctx, tx, id, "changes_requested", status, &reason, nil, nil)
		if err != nil {
			return err
		}
		ok, msg = true, implementer
		return b.appendEvent(ctx, tx, id, "changes_requested", map[string]any{
			"reason": reason, "implementer": implementer, "reviewer": reviewer, "status": status,
		}, runID)
	})
	if err != nil {
		return false, "", "", err
	}
	return ok, msg, status, nil
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
