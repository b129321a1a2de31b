package kanban

import (
	"context"
	"database/sql"
	"errors"
)

// AssignTask sets a task's assignee, normalised as Hermes normalises it
// (NormalizeProfileName), or clears it with nil. A task running under a
// claim is refused: its worker would finish under the old profile. A new
// assignee starts with a clean failure streak, since the streak belongs to
// the profile that failed. False when there is no such task.
func (b *Board) AssignTask(ctx context.Context, id string, profile *string) (bool, error) {
	profile, err := canonicalAssignee(profile)
	if err != nil {
		return false, &InputError{Msg: err.Error()}
	}
	found := false
	err = b.db.Tx(ctx, "assign "+id, func(tx *sql.Tx) error {
		var status string
		var lock, old sql.NullString
		err := tx.QueryRowContext(ctx, "SELECT status, claim_lock, assignee FROM tasks WHERE id = ?", id).Scan(&status, &lock, &old)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return b.db.Explain("read task "+id, err)
		}
		found = true
		if lock.Valid && status == "running" {
			return inputErrorf("cannot reassign %s: currently running (claimed). Wait for completion or reclaim the stale lock first.", id)
		}
		q := "UPDATE tasks SET assignee = ? WHERE id = ?"
		if changed := old.Valid != (profile != nil) || (profile != nil && old.String != *profile); changed {
			q = "UPDATE tasks SET assignee = ?, consecutive_failures = 0, last_failure_error = NULL WHERE id = ?"
		}
		if _, err := tx.ExecContext(ctx, q, ptrValue(profile), id); err != nil {
			return b.db.Explain("assign "+id, err)
		}
		return b.appendEvent(ctx, tx, id, "assigned", assignedPayload{Assignee: profile, From: strPtr(old)}, nil)
	})
	return found && err == nil, err
}

// assignedPayload is the assigned event's payload, in Hermes' key order.
type assignedPayload struct {
	Assignee *string `json:"assignee"`
	From     *string `json:"from"`
}
