package statedb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agentcore"
)

// ErrCompressionBusy is wrapped when another process holds the session's
// compression lease.
var ErrCompressionBusy = errors.New("another process is compressing this session")

// AcquireCompressionLock takes the session's lease in Hermes'
// compression_locks table, as Hermes' own compressor does before it
// summarises: a row held by another holder and not yet expired keeps it
// (false); an expired one is taken over.
func (s *Store) AcquireCompressionLock(ctx context.Context, sessionID, holder string, ttl time.Duration) (bool, error) {
	var got bool
	err := s.db.Tx(ctx, "take the compression lock of "+sessionID, func(tx *sql.Tx) error {
		now := epoch(s.now())
		if _, err := tx.ExecContext(ctx, "DELETE FROM compression_locks WHERE session_id = ? AND expires_at < ?", sessionID, now); err != nil {
			return s.db.Explain("clear an expired compression lock", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO compression_locks (session_id, holder, acquired_at, expires_at)
			VALUES (?, ?, ?, ?)`, sessionID, holder, now, now+ttl.Seconds()); err != nil {
			return s.db.Explain("take the compression lock of "+sessionID, err)
		}
		var owner string
		if err := tx.QueryRowContext(ctx, "SELECT holder FROM compression_locks WHERE session_id = ?", sessionID).Scan(&owner); err != nil {
			return s.db.Explain("read the compression lock of "+sessionID, err)
		}
		got = owner == holder
		return nil
	})
	return got, err
}

// ReleaseCompressionLock drops the lease if holder still has it.
func (s *Store) ReleaseCompressionLock(ctx context.Context, sessionID, holder string) error {
	return s.db.Tx(ctx, "release the compression lock of "+sessionID, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM compression_locks WHERE session_id = ? AND holder = ?", sessionID, holder); err != nil {
			return s.db.Explain("release the compression lock of "+sessionID, err)
		}
		return nil
	})
}

// PublishCompressionChild ends parentID as Hermes ends a compressed
// session (end_reason "compression") and starts its continuation child
// with msgs, the compressed transcript, in one transaction: readers see
// the live parent or the complete child, never half of it. The parent's
// rows are kept as they are, so nothing said is lost from state.db; the
// title moves to the child, the tip of the lineage, as Hermes moves it.
// holder must still hold the parent's compression lease.
func (s *Store) PublishCompressionChild(ctx context.Context, parentID, holder string, child agentcore.SessionMeta, msgs []agentcore.Message) error {
	if strings.TrimSpace(child.ID) == "" || child.ID == parentID {
		return errors.New("statedb: compression child needs its own session id")
	}
	return s.db.Tx(ctx, "publish the continuation of "+parentID, func(tx *sql.Tx) error {
		now := epoch(s.now())
		var owner string
		var expires float64
		err := tx.QueryRowContext(ctx, "SELECT holder, expires_at FROM compression_locks WHERE session_id = ?", parentID).Scan(&owner, &expires)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && (owner != holder || expires < now)) {
			return fmt.Errorf("publish the continuation of %s: %w (its compression lease was lost)", parentID, ErrCompressionBusy)
		}
		if err != nil {
			return s.db.Explain("read the compression lock of "+parentID, err)
		}
		if err := s.writable(ctx, tx, parentID); err != nil {
			return err
		}
		var source, model, provider, title, profile sql.NullString
		if err := tx.QueryRowContext(ctx, "SELECT source, model, billing_provider, title FROM sessions WHERE id = ?", parentID).
			Scan(&source, &model, &provider, &title); err != nil {
			return s.db.Explain("read session "+parentID, err)
		}
		if s.has["profile_name"] {
			if err := tx.QueryRowContext(ctx, "SELECT profile_name FROM sessions WHERE id = ?", parentID).Scan(&profile); err != nil {
				return s.db.Explain("read session "+parentID, err)
			}
		}
		var titleSrc sql.NullString
		if title.Valid && s.has["title_source"] {
			if err := tx.QueryRowContext(ctx, "SELECT title_source FROM sessions WHERE id = ?", parentID).Scan(&titleSrc); err != nil {
				return s.db.Explain("read session "+parentID, err)
			}
		}
		if _, err := tx.ExecContext(ctx, "UPDATE sessions SET ended_at = ?, end_reason = 'compression' WHERE id = ?", now, parentID); err != nil {
			return s.db.Explain("end session "+parentID, err)
		}
		if title.Valid {
			if _, err := tx.ExecContext(ctx, "UPDATE sessions SET title = NULL WHERE id = ?", parentID); err != nil {
				return s.db.Explain("move the title of "+parentID, err)
			}
		}
		cols := []string{"id", "source", "model", "billing_provider", "title", "parent_session_id", "started_at"}
		args := []any{child.ID, cmpNull(source, "cli"), nullIfEmpty(cmpStr(child.Model, model.String)), nullIfEmpty(cmpStr(child.Provider, provider.String)),
			nullString(title), parentID, now}
		for _, c := range []struct {
			col string
			val any
		}{{"created_source", cmpNull(source, "cli")}, {"profile_name", nullString(profile)}, {"title_source", nullString(titleSrc)}} {
			if s.has[c.col] {
				cols = append(cols, c.col)
				args = append(args, c.val)
			}
		}
		q := "INSERT INTO sessions (" + strings.Join(cols, ", ") + ") VALUES (?" + strings.Repeat(", ?", len(cols)-1) + ")"
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return s.db.Explain("create the continuation of "+parentID, err)
		}
		side, err := s.getSide(ctx, tx, parentID)
		if err != nil {
			return err
		}
		if side.Runtime != "" {
			if err := s.putSide(ctx, tx, child.ID, sideRecord{Runtime: side.Runtime}); err != nil {
				return err
			}
		}
		if len(msgs) == 0 {
			return nil
		}
		return s.appendTx(ctx, tx, child.ID, msgs, now)
	})
}

func nullString(v sql.NullString) any {
	if !v.Valid {
		return nil
	}
	return v.String
}

func cmpNull(v sql.NullString, def string) string {
	if v.Valid && v.String != "" {
		return v.String
	}
	return def
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
