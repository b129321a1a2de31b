package kanban

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

// missingTasks returns the ids that name no task, in order.
func (b *Board) missingTasks(ctx context.Context, q execer, ids []string) ([]string, error) {
	var missing []string
	for _, id := range ids {
		var one int
		err := q.QueryRowContext(ctx, "SELECT 1 FROM tasks WHERE id = ?", id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			missing = append(missing, id)
			continue
		}
		if err != nil {
			return nil, b.db.Explain("read task "+id, err)
		}
	}
	return missing, nil
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

// LinkTasks adds a parent→child dependency and reports whether it sent a
// ready child back to todo (gated) to wait for an unfinished parent, which
// is recorded as a dependency_wait event. Self-links, unknown tasks, cycles
// and a running child are refused with an *InputError: a link cannot
// constrain a run already under way, unless the caller proves it owns that
// run (expectedChildRun equals the child's current run). An existing link
// is a no-op.
func (b *Board) LinkTasks(ctx context.Context, parent, child string, expectedChildRun *int64) (gated bool, err error) {
	if parent == child {
		return false, inputErrorf("a task cannot depend on itself")
	}
	err = b.db.Tx(ctx, "link "+parent+" -> "+child, func(tx *sql.Tx) error {
		missing, err := b.missingTasks(ctx, tx, []string{parent, child})
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			return inputErrorf("unknown task(s): %s", strings.Join(missing, ", "))
		}
		var status string
		var run sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT status, current_run_id FROM tasks WHERE id = ?", child).Scan(&status, &run); err != nil {
			return b.db.Explain("read task "+child, err)
		}
		if status == "running" && (expectedChildRun == nil || !run.Valid || run.Int64 != *expectedChildRun) {
			return inputErrorf("cannot link %s -> %s: child is already running", parent, child)
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
		res, err = tx.ExecContext(ctx, `UPDATE tasks SET status = 'todo' WHERE id = ? AND status = 'ready'
				AND (SELECT status FROM tasks WHERE id = ?) NOT IN ('done', 'archived')`, child, parent)
		if err != nil {
			return b.db.Explain("re-gate "+child, err)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			gated = true
			if err := b.appendEvent(ctx, tx, child, "dependency_wait", map[string]any{"reason": "parent_not_done", "demoted": true, "parent": parent}, nil); err != nil {
				return b.db.Explain("record the dependency wait of "+child, err)
			}
		}
		return b.appendEvent(ctx, tx, child, "linked", map[string]any{"parent": parent, "child": child}, nil)
	})
	return gated, err
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
