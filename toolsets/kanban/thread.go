package kanban

import (
	"context"
	"database/sql"
	"errors"
	"strings"
)

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
