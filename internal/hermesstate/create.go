package hermesstate

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
)

// CreateOptions tune Create.
type CreateOptions struct {
	// Now stamps store_created_at_utc; zero means time.Now.
	Now time.Time
	// Rand draws the store's identifiers; nil means crypto/rand.
	Rand io.Reader
	// SetApplicationID writes the header's application_id from the new
	// db_file_generation, as Hermes does. Only for a file the caller has
	// just created: Hermes remembers the value when it opens a file and
	// refuses to write once it changes.
	SetApplicationID bool
}

// Create lays out a fresh state.db in tx exactly as Hermes creates one:
// every table, index, view, trigger and full-text index of schema_v30.sql,
// the schema_version row (30), store_instance_id, store_created_at_utc,
// db_file_generation and fts_storage_version. Run on a file that holds part
// of that layout (a Hermes that died while creating it), it adds what is
// missing.
func Create(ctx context.Context, tx *sql.Tx, opts CreateOptions) error {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	rnd := opts.Rand
	if rnd == nil {
		rnd = rand.Reader
	}
	instance, err := uuid4(rnd)
	if err != nil {
		return err
	}
	generation, err := uuid4(rnd)
	if err != nil {
		return err
	}
	st, err := Inspect(ctx, tx)
	if err != nil {
		return err
	}
	for _, name := range []string{SectionSchema, SectionPlatformIndex} {
		if err := execAll(ctx, tx, Section(name)); err != nil {
			return err
		}
	}
	if err := execDeferred(ctx, tx, st); err != nil {
		return err
	}
	if !st.HasVersion {
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version) VALUES (?)", SchemaVersion); err != nil {
			return fmt.Errorf("record the schema version: %w", err)
		}
		for _, kv := range [][2]string{{MetaStoreInstanceID, uuidString(instance)}, {MetaStoreCreatedAt, pythonISOTime(now)}} {
			if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO state_meta (key, value) VALUES (?, ?)", kv[0], kv[1]); err != nil {
				return fmt.Errorf("record %s: %w", kv[0], err)
			}
		}
	}
	for _, name := range []string{SectionTitleIndex, SectionFTS, SectionFTSTrigram} {
		if err := execAll(ctx, tx, Section(name)); err != nil {
			return err
		}
	}
	for _, stmt := range []string{
		"INSERT INTO messages_fts(messages_fts) VALUES('rebuild')",
		"INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('rebuild')",
		"DELETE FROM state_meta WHERE key IN ('fts_rebuild_high_water', 'fts_rebuild_progress')",
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("build the full-text indexes: %w", err)
		}
	}
	token := hexOf(generation)
	if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO state_meta (key, value) VALUES (?, ?)", MetaFileGeneration, token); err != nil {
		return fmt.Errorf("record db_file_generation: %w", err)
	}
	if err := setMeta(ctx, tx, MetaFTSStorageVersion, fmt.Sprint(FTSStorageVersion)); err != nil {
		return err
	}
	if opts.SetApplicationID {
		if err := tx.QueryRowContext(ctx, "SELECT value FROM state_meta WHERE key = ?", MetaFileGeneration).Scan(&token); err != nil {
			return fmt.Errorf("read db_file_generation: %w", err)
		}
		var current int64
		if err := tx.QueryRowContext(ctx, "PRAGMA application_id").Scan(&current); err != nil {
			return fmt.Errorf("read application_id: %w", err)
		}
		if current == 0 {
			if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID(token))); err != nil {
				return fmt.Errorf("set application_id: %w", err)
			}
		}
	}
	return nil
}

// ApplicationID is the header application_id Hermes derives from a
// db_file_generation token: its first 8 hex digits as a positive 31-bit
// number, 1 when that is 0 (0 means "not set").
func ApplicationID(token string) int64 {
	var v int64
	for i := 0; i < len(token) && i < 8; i++ {
		c := token[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 1
		}
		v = v<<4 | int64(d)
	}
	if v &= 0x7FFFFFFF; v == 0 {
		return 1
	}
	return v
}

func setMeta(ctx context.Context, tx *sql.Tx, key, value string) error {
	if _, err := tx.ExecContext(ctx, "INSERT INTO state_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value); err != nil {
		return fmt.Errorf("record %s: %w", key, err)
	}
	return nil
}

// execAll runs every statement of ddl.
func execAll(ctx context.Context, tx *sql.Tx, ddl string) error {
	for _, stmt := range Statements(ddl) {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", firstLine(stmt), err)
		}
	}
	return nil
}

// execDeferred runs the deferred section as Hermes does: a DROP TRIGGER /
// CREATE TRIGGER pair is skipped while the stored trigger already has the
// text, so a settled file is left exactly as it is.
func execDeferred(ctx context.Context, tx *sql.Tx, st State) error {
	pendingDrop := ""
	for _, stmt := range Statements(Section(SectionDeferred)) {
		upper := strings.ToUpper(stmt)
		if strings.HasPrefix(upper, "DROP TRIGGER IF EXISTS ") {
			pendingDrop = stmt
			continue
		}
		if strings.HasPrefix(upper, "CREATE TRIGGER ") {
			name := ObjectName(stmt)
			if o := st.Objects[name]; o.Type == "trigger" && o.SQL == StoredSQL(stmt) {
				pendingDrop = ""
				continue
			}
		}
		if pendingDrop != "" {
			if _, err := tx.ExecContext(ctx, pendingDrop); err != nil {
				return fmt.Errorf("%s: %w", pendingDrop, err)
			}
			pendingDrop = ""
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", firstLine(stmt), err)
		}
	}
	return nil
}

func firstLine(stmt string) string {
	line, _, _ := strings.Cut(stmt, "\n")
	return strings.TrimSuffix(line, ";")
}

// uuid4 draws a random (version 4) UUID.
func uuid4(r io.Reader) ([16]byte, error) {
	var u [16]byte
	if _, err := io.ReadFull(r, u[:]); err != nil {
		return u, fmt.Errorf("draw a store identifier: %w", err)
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u, nil
}

// hexOf is Python's uuid.hex: 32 lower-case hex digits.
func hexOf(u [16]byte) string { return hex.EncodeToString(u[:]) }

// uuidString is Python's str(uuid): 8-4-4-4-12 hex digits.
func uuidString(u [16]byte) string {
	h := hexOf(u)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// pythonISOTime is datetime.now(timezone.utc).isoformat(): microseconds
// only when there are any, and "+00:00" for UTC.
func pythonISOTime(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + "+00:00"
}
