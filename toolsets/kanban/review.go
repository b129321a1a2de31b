package kanban

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// ReviewRequest hands a task to review.
type ReviewRequest struct {
	Summary  string
	Metadata map[string]any
	// Reviewer reassigns the task, normalised as an assignee is; empty
	// keeps the reviewer of the last requested changes, if any.
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
	if r.Reviewer != "" {
		norm, err := NormalizeProfileName(r.Reviewer)
		if err != nil {
			return false, "", &InputError{Msg: err.Error()}
		}
		r.Reviewer = norm
	}
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
		reviewer := r.Reviewer
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
		// The reviewer is the assignee as Hermes normalises it, whatever
		// spelling an older Hermes stored.
		reviewer, err := canonicalAssignee(t.Assignee)
		if err != nil {
			return &InputError{Msg: err.Error()}
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
			"reason": reason, "implementer": implementer, "reviewer": ptrValue(reviewer), "status": status,
		}, runID)
	})
	if err != nil {
		return false, "", "", err
	}
	return ok, msg, status, nil
}
