package kanban

import (
	"context"
	"database/sql"
	"time"
)

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
