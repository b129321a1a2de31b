package kanban

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

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
