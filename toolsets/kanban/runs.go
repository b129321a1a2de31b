package kanban

import (
	"context"
	"database/sql"
	"errors"
)

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
