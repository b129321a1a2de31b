package kanban

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

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
// task's worker made (its created event names the task as creator,
// created_by is its assignee or the task itself, or the card is linked as
// its child) and the rest.
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
	// Tasks this task's worker created through kanban_create are its own
	// whatever profile name it ran under.
	mine, err := b.CreatedByTask(ctx, taskID)
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
		trusted := err == nil && (contains(mine, id) || (createdBy.Valid &&
			((assignee.Valid && assignee.String != "" && createdBy.String == assignee.String) ||
				createdBy.String == taskID || contains(children, id))))
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
