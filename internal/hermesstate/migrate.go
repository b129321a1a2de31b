package hermesstate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/safefile"

	_ "modernc.org/sqlite" // the reference schema is laid out in memory
)

// UpgradeOptions tune Upgrade.
type UpgradeOptions struct {
	// Home is HERMES_HOME: the v18 step reads the gateway's
	// sessions/sessions.json there, as Hermes does. Empty skips that step.
	Home string
}

// Outcome says what Upgrade found and did.
type Outcome struct {
	// From is the schema version the file had, To the one it has now.
	From, To int
	// LegacyFTS says the file keeps its inline (pre-schema-23) full-text
	// indexes, as Hermes keeps them.
	LegacyFTS bool
	// Repaired lists defects of files earlier releases of this project
	// wrote that were fixed.
	Repaired []string
	// Steps lists the migration steps that ran.
	Steps []string
	// HeldBack says why the version stayed below SchemaVersion: a step
	// only Hermes performs (it finishes on its next open).
	HeldBack string
	// Warnings are things that went wrong without stopping the upgrade,
	// as Hermes logs and carries on.
	Warnings []string
}

// Changed says Upgrade altered anything.
func (o Outcome) Changed() bool {
	return o.From != o.To || len(o.Repaired) > 0 || len(o.Steps) > 0
}

// NeedsUpgrade says Upgrade has something to do: an older version, a defect
// of a file earlier releases of this project wrote, or CJK triggers that
// would make every insert fail here.
func (s State) NeedsUpgrade() bool {
	return (s.HasVersion && s.Version < SchemaVersion) || s.OursBroken() || len(s.LiveCJKTriggers()) > 0
}

// Upgrade brings a state.db at version OldestVersion or later forward in tx,
// the way Hermes' writable open does: missing tables, columns (added as its
// column reconciliation adds them), indexes, views and triggers; the
// version-gated data steps; schema_version set to SchemaVersion. The
// full-text layout the file has is kept: inline (legacy) indexes stay
// inline with Hermes' legacy triggers, external ones are not touched.
//
// It also repairs what earlier releases of this project got wrong
// (compression_locks without expires_at, one trigger feeding both
// indexes), and detaches the optional CJK index's triggers as Hermes does
// when it cannot load that index's tokenizer. A file at SchemaVersion or
// newer gets nothing else: Hermes only adds to the layout, so a newer file
// already has everything this build uses.
func Upgrade(ctx context.Context, tx *sql.Tx, opts UpgradeOptions) (Outcome, error) {
	st, err := Inspect(ctx, tx)
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{From: st.Version, To: st.Version, LegacyFTS: st.LegacyFTS()}
	if !st.HasVersion {
		return out, errors.New("schema_version has no row: the file is not a finished state.db")
	}
	if st.Version < OldestVersion {
		return out, fmt.Errorf("schema version %d is older than %d", st.Version, OldestVersion)
	}
	if st.Version < SchemaVersion || st.OursBroken() {
		if err := forward(ctx, tx, st, opts, &out); err != nil {
			return out, err
		}
		if st, err = Inspect(ctx, tx); err != nil {
			return out, err
		}
	}
	if live := st.LiveCJKTriggers(); len(live) > 0 {
		if _, err := tx.ExecContext(ctx, "INSERT INTO state_meta (key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = '1'", MetaFTSCJKStale); err != nil {
			return out, fmt.Errorf("mark the CJK index stale: %w", err)
		}
		for _, name := range live {
			if _, err := tx.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+name); err != nil {
				return out, fmt.Errorf("detach the CJK index: %w", err)
			}
		}
		out.Steps = append(out.Steps, "detached the CJK index (its cjk_unicode61 tokenizer loads only in Hermes; Hermes rebuilds it with optimize-storage)")
	}
	return out, nil
}

func forward(ctx context.Context, tx *sql.Tx, st State, opts UpgradeOptions, out *Outcome) error {
	ours := st.OursBroken()
	if st.CompressionLocksWithoutExpiry() {
		// Its rows are leases a few seconds long; a table Hermes' schema
		// script cannot index is worth none of them.
		if _, err := tx.ExecContext(ctx, "DROP TABLE compression_locks"); err != nil {
			return fmt.Errorf("replace compression_locks: %w", err)
		}
		out.Repaired = append(out.Repaired, "compression_locks recreated with expires_at")
	}
	if combined := st.CombinedFTSTriggers(); len(combined) > 0 {
		for _, name := range combined {
			if _, err := tx.ExecContext(ctx, "DROP TRIGGER "+name); err != nil {
				return fmt.Errorf("drop trigger %s: %w", name, err)
			}
		}
		out.Repaired = append(out.Repaired, "full-text triggers replaced by Hermes' own (one per index)")
	}

	schema := Statements(Section(SectionSchema))
	for _, stmt := range schema {
		if strings.HasPrefix(stmt, "CREATE TABLE") {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: %w", firstLine(stmt), err)
			}
		}
	}
	if err := reconcileColumns(ctx, tx, out); err != nil {
		return err
	}
	for _, stmt := range schema {
		if !strings.HasPrefix(stmt, "CREATE INDEX") {
			continue
		}
		// Earlier releases of this project created some of these indexes
		// with other columns; Hermes would keep them (IF NOT EXISTS), but
		// they are ours to put right.
		if name := ObjectName(stmt); ours {
			if o := st.Objects[name]; o.Type == "index" && o.SQL != StoredSQL(stmt) {
				if _, err := tx.ExecContext(ctx, "DROP INDEX "+name); err != nil {
					return fmt.Errorf("replace index %s: %w", name, err)
				}
			}
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", firstLine(stmt), err)
		}
	}
	if err := execAll(ctx, tx, Section(SectionPlatformIndex)); err != nil {
		return err
	}
	if err := execDeferred(ctx, tx, st); err != nil {
		return err
	}
	var nullActive int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM messages WHERE active IS NULL LIMIT 1)").Scan(&nullActive); err != nil {
		return fmt.Errorf("look for messages without active: %w", err)
	}
	if nullActive > 0 {
		if _, err := tx.ExecContext(ctx, "UPDATE messages SET active = 1 WHERE active IS NULL"); err != nil {
			return fmt.Errorf("mark messages active: %w", err)
		}
	}
	if st.FTSStale() {
		// Detached indexes stay detached until Hermes rebuilds them.
		for _, names := range [][]string{BaseFTSTriggers, TrigramFTSTriggers, CJKFTSTriggers} {
			for _, n := range names {
				if _, err := tx.ExecContext(ctx, "DROP TRIGGER IF EXISTS "+n); err != nil {
					return fmt.Errorf("drop trigger %s: %w", n, err)
				}
			}
		}
	}
	if st.Version < SchemaVersion {
		if err := dataSteps(ctx, tx, st, opts, out); err != nil {
			return err
		}
	}
	if err := uniqueTitleIndex(ctx, tx, out); err != nil {
		return err
	}
	return fullText(ctx, tx, ours, out)
}

// reference is each table's columns as schema_v30.sql declares them, in
// declaration order, with the type clause Hermes' reconciliation adds them
// with. Laid out once per process in an in-memory database.
type refColumn struct{ table, name, spec string }

var reference = sync.OnceValues(func() ([]refColumn, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, stmt := range Statements(Section(SectionSchema)) {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("lay out the reference schema: %s: %w", firstLine(stmt), err)
		}
	}
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		tables = append(tables, n)
	}
	rows.Close()
	var out []refColumn
	for _, t := range tables {
		rows, err := db.QueryContext(ctx, "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid", t)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var name, typ string
			var notNull bool
			var dflt sql.NullString
			var pk int
			if err := rows.Scan(&name, &typ, &notNull, &dflt, &pk); err != nil {
				rows.Close()
				return nil, err
			}
			var parts []string
			if typ != "" {
				parts = append(parts, typ)
			}
			if notNull && pk == 0 {
				parts = append(parts, "NOT NULL")
			}
			if dflt.Valid {
				parts = append(parts, "DEFAULT "+dflt.String)
			}
			out = append(out, refColumn{t, name, strings.Join(parts, " ")})
		}
		rows.Close()
	}
	return out, nil
})

// reconcileColumns adds every declared column a table lacks, with the
// statement Hermes uses, so the file ends up as Hermes' own reconciliation
// leaves it. A column SQLite refuses to add (NOT NULL without a default in
// a table that has rows) is reported and skipped, as Hermes does.
func reconcileColumns(ctx context.Context, tx *sql.Tx, out *Outcome) error {
	ref, err := reference()
	if err != nil {
		return err
	}
	have := map[string]map[string]bool{}
	for _, c := range ref {
		cols, ok := have[c.table]
		if !ok {
			cols = map[string]bool{}
			rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info(?)", c.table)
			if err != nil {
				return fmt.Errorf("read the columns of %s: %w", c.table, err)
			}
			for rows.Next() {
				var n string
				if err := rows.Scan(&n); err != nil {
					rows.Close()
					return fmt.Errorf("read the columns of %s: %w", c.table, err)
				}
				cols[n] = true
			}
			rows.Close()
			have[c.table] = cols
		}
		if cols[c.name] {
			continue
		}
		stmt := fmt.Sprintf(`ALTER TABLE "%s" ADD COLUMN %s %s`, c.table, quoteIdent(c.name), c.spec)
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			if strings.Contains(strings.ToLower(err.Error()), "duplicate column") {
				continue
			}
			out.Warnings = append(out.Warnings, fmt.Sprintf("column %s.%s not added: %v", c.table, c.name, err))
			continue
		}
		cols[c.name] = true
	}
	return nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// dataSteps are Hermes' version-gated row migrations for the versions a
// file of schema 16 or later can miss.
func dataSteps(ctx context.Context, tx *sql.Tx, st State, opts UpgradeOptions, out *Outcome) error {
	v := st.Version
	if v < 18 && opts.Home != "" {
		n, err := backfillGatewayMetadata(ctx, tx, opts.Home)
		switch {
		case err != nil:
			// Best effort in Hermes too: the index is the gateway's.
			out.Warnings = append(out.Warnings, fmt.Sprintf("v18: gateway metadata not copied from sessions/sessions.json: %v", err))
		case n > 0:
			out.Steps = append(out.Steps, fmt.Sprintf("v18: gateway metadata of %d session(s) copied from sessions/sessions.json", n))
		}
	}
	if v < 20 {
		res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_model_usage (session_id, model, billing_provider, billing_base_url,
			billing_mode, api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens,
			estimated_cost_usd, actual_cost_usd, cost_status, cost_source, first_seen, last_seen)
			SELECT id, COALESCE(model, 'unknown'), COALESCE(billing_provider, ''), COALESCE(billing_base_url, ''),
				COALESCE(billing_mode, ''), COALESCE(api_call_count, 0), COALESCE(input_tokens, 0), COALESCE(output_tokens, 0),
				COALESCE(cache_read_tokens, 0), COALESCE(cache_write_tokens, 0), COALESCE(reasoning_tokens, 0),
				COALESCE(estimated_cost_usd, 0), COALESCE(actual_cost_usd, 0), cost_status, cost_source,
				started_at, COALESCE(ended_at, started_at)
			FROM sessions
			WHERE COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0) + COALESCE(cache_read_tokens, 0)
				+ COALESCE(cache_write_tokens, 0) + COALESCE(reasoning_tokens, 0) > 0`)
		if err != nil {
			return fmt.Errorf("v20: seed session_model_usage: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			out.Steps = append(out.Steps, fmt.Sprintf("v20: token usage of %d session(s) recorded per model", n))
		}
	}
	if v < 22 {
		var taskInKey int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('session_model_usage') WHERE name = 'task' AND pk > 0").Scan(&taskInKey); err != nil {
			return fmt.Errorf("v22: read session_model_usage: %w", err)
		}
		if taskInKey == 0 {
			out.HeldBack = "session_model_usage needs its v22 rebuild, which Hermes performs"
		}
	}
	now, err := Inspect(ctx, tx)
	if err != nil {
		return err
	}
	if v < 23 && now.NeedsFTSStorageUpgrade() {
		if err := setMeta(ctx, tx, MetaOptimizeAvailable, "1"); err != nil {
			return err
		}
		out.Steps = append(out.Steps, "v23: inline full-text indexes kept (the Python Hermes converts them with its sessions optimize-storage command)")
	}
	if v < 25 {
		n, err := dedupeSystemPrompts(ctx, tx)
		if err != nil {
			return err
		}
		if n > 0 {
			out.Steps = append(out.Steps, fmt.Sprintf("v25: %d system prompt(s) moved to system_prompts", n))
		}
	}
	if v < 30 && !now.LegacyFTS() && !now.TrigramToolCalls() && now.IsTable("messages_fts_trigram") && out.HeldBack == "" {
		// Rebuilding the trigram index without cron and subagent sessions
		// needs Hermes' cross-process rebuild lock; leaving the version
		// below 30 is how Hermes itself records the step as pending.
		out.HeldBack = "the trigram index must be rebuilt without cron and subagent sessions, which Hermes does on its next open"
	}
	if now.FTSLayout3() && !now.TrigramToolCalls() && now.Meta[MetaRebuildHighWater] == "" && now.Meta[MetaFTSStorageVersion] != fmt.Sprint(FTSStorageVersion) {
		var trash, unindexed int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'fts_v22_trash_%'").Scan(&trash); err != nil {
			return fmt.Errorf("read the schema: %w", err)
		}
		if now.IsTable("messages_fts_docsize") {
			if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM messages) AND NOT EXISTS (SELECT 1 FROM messages_fts_docsize)").Scan(&unindexed); err != nil {
				return fmt.Errorf("read the full-text index: %w", err)
			}
		}
		if trash == 0 && unindexed == 0 {
			if err := setMeta(ctx, tx, MetaFTSStorageVersion, fmt.Sprint(FTSStorageVersion)); err != nil {
				return err
			}
		}
	}
	if out.HeldBack == "" {
		if _, err := tx.ExecContext(ctx, "UPDATE schema_version SET version = ?", SchemaVersion); err != nil {
			return fmt.Errorf("record the schema version: %w", err)
		}
		out.To = SchemaVersion
	}
	return nil
}

// dedupeSystemPrompts is the v25 step: inline system prompts move to the
// system_prompts table under their SHA-256, the session keeps the hash.
func dedupeSystemPrompts(ctx context.Context, tx *sql.Tx) (int, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, system_prompt FROM sessions WHERE system_prompt IS NOT NULL")
	if err != nil {
		return 0, fmt.Errorf("v25: read system prompts: %w", err)
	}
	type row struct{ id, prompt string }
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.prompt); err != nil {
			rows.Close()
			return 0, fmt.Errorf("v25: read system prompts: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("v25: read system prompts: %w", err)
	}
	for _, r := range all {
		sum := sha256.Sum256([]byte(r.prompt))
		h := hex.EncodeToString(sum[:])
		if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO system_prompts (hash, prompt) VALUES (?, ?)", h, r.prompt); err != nil {
			return 0, fmt.Errorf("v25: store a system prompt: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE sessions SET system_prompt_hash = ?, system_prompt = NULL WHERE id = ?", h, r.id); err != nil {
			return 0, fmt.Errorf("v25: point session %s at its prompt: %w", r.id, err)
		}
	}
	return len(all), nil
}

// gatewayIndexLimit bounds the sessions.json read: the gateway's index is
// a few kilobytes per chat.
const gatewayIndexLimit = 64 << 20

// backfillGatewayMetadata is the v18 step: routing columns the gateway's
// sessions/sessions.json knows are copied into sessions rows that lack
// them. A missing index is nothing to do.
func backfillGatewayMetadata(ctx context.Context, tx *sql.Tx, home string) (int, error) {
	root := canonical(home)
	if root == "" {
		return 0, nil
	}
	data, err := safefile.ReadFile(root, filepath.Join(root, "sessions", "sessions.json"), gatewayIndexLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	var index map[string]json.RawMessage
	if err := dec.Decode(&index); err != nil {
		return 0, nil // not an object: Hermes skips it too
	}
	n := 0
	for key, raw := range index {
		if strings.HasPrefix(key, "_") {
			continue
		}
		var entry map[string]any
		d := json.NewDecoder(strings.NewReader(string(raw)))
		d.UseNumber()
		if d.Decode(&entry) != nil || entry == nil {
			continue
		}
		id := scalar(entry["session_id"])
		if !pystr.Truthy(entry["session_id"]) || id == nil {
			continue
		}
		sessionKey := scalar(entry["session_key"])
		if !pystr.Truthy(entry["session_key"]) {
			sessionKey = key
		}
		var chatID, threadID, originJSON any
		if origin, ok := entry["origin"].(map[string]any); ok {
			chatID, threadID = scalar(origin["chat_id"]), scalar(origin["thread_id"])
			var fields map[string]json.RawMessage
			if json.Unmarshal(raw, &fields) == nil {
				originJSON = string(fields["origin"])
			}
		}
		finalized := 0
		if pystr.Truthy(entry["expiry_finalized"]) || pystr.Truthy(entry["memory_flushed"]) {
			finalized = 1
		}
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET session_key = COALESCE(session_key, ?), chat_id = COALESCE(chat_id, ?),
			chat_type = COALESCE(chat_type, ?), thread_id = COALESCE(thread_id, ?), display_name = COALESCE(display_name, ?),
			origin_json = COALESCE(origin_json, ?),
			expiry_finalized = CASE WHEN COALESCE(expiry_finalized, 0) = 0 AND ? = 1 THEN 1 ELSE expiry_finalized END
			WHERE id = ?`,
			sessionKey, chatID, scalar(entry["chat_type"]), threadID, scalar(entry["display_name"]), originJSON, finalized, fmt.Sprint(id))
		if err != nil {
			return n, fmt.Errorf("update session %v: %w", id, err)
		}
		if c, _ := res.RowsAffected(); c > 0 {
			n++
		}
	}
	return n, nil
}

// scalar is a JSON value as SQLite stores what Python binds: numbers as
// integers or reals, booleans as 0/1, strings as text; anything else NULL.
func scalar(v any) any {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
	case bool:
		if x {
			return 1
		}
		return 0
	}
	return nil
}

// uniqueTitleIndex creates the unique title index; older files may hold
// duplicate titles, and as in Hermes the newest session keeps its title.
func uniqueTitleIndex(ctx context.Context, tx *sql.Tx, out *Outcome) error {
	stmt := Statements(Section(SectionTitleIndex))[0]
	if _, err := tx.ExecContext(ctx, stmt); err == nil {
		return nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE sessions AS older SET title = NULL WHERE title IS NOT NULL
		AND EXISTS (SELECT 1 FROM sessions AS newer WHERE newer.title = older.title AND newer.rowid > older.rowid)`)
	if err != nil {
		return fmt.Errorf("clear duplicate session titles: %w", err)
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("create the unique title index: %w", err)
	}
	n, _ := res.RowsAffected()
	out.Steps = append(out.Steps, fmt.Sprintf("%d duplicate session title(s) cleared (the newest session keeps each)", n))
	return nil
}

// fullText keeps the file's full-text layout fed, as Hermes' open does.
// Inline (legacy) indexes get Hermes' legacy triggers and, when triggers
// were missing, are filled again from messages. A file without any index
// gets the current layout. External indexes are left to Hermes.
func fullText(ctx context.Context, tx *sql.Tx, ours bool, out *Outcome) error {
	st, err := Inspect(ctx, tx)
	if err != nil {
		return err
	}
	if st.FTSStale() {
		return nil
	}
	switch {
	case st.LegacyFTS():
		refill := st.missingTriggers(BaseFTSTriggers) || st.missingTriggers(TrigramFTSTriggers)
		if ours {
			// Both inline indexes are refilled below anyway; recreated
			// from Hermes' legacy DDL they are the tables Hermes has.
			for _, table := range []string{"messages_fts", "messages_fts_trigram"} {
				if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
					return fmt.Errorf("recreate %s: %w", table, err)
				}
			}
			refill = true
		}
		for _, name := range []string{"messages_fts_update", "messages_fts_trigram_update"} {
			if o := st.Objects[name]; o.Type == "trigger" && broadUpdateTrigger(o.SQL) {
				if _, err := tx.ExecContext(ctx, "DROP TRIGGER "+name); err != nil {
					return fmt.Errorf("replace trigger %s: %w", name, err)
				}
			}
		}
		for _, s := range []string{SectionLegacyFTS, SectionLegacyFTSTrigram} {
			if err := execAll(ctx, tx, Section(s)); err != nil {
				return err
			}
		}
		if refill {
			for _, table := range []string{"messages_fts", "messages_fts_trigram"} {
				if _, err := tx.ExecContext(ctx, "DELETE FROM "+table); err != nil {
					return fmt.Errorf("refill %s: %w", table, err)
				}
				if _, err := tx.ExecContext(ctx, "INSERT INTO "+table+`(rowid, content)
					SELECT id, COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') FROM messages`); err != nil {
					return fmt.Errorf("refill %s: %w", table, err)
				}
			}
			out.Steps = append(out.Steps, "inline full-text indexes refilled from messages")
		}
	case !st.IsTable("messages_fts"):
		for _, s := range []string{SectionFTS, SectionFTSTrigram} {
			if err := execAll(ctx, tx, Section(s)); err != nil {
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
		if err := setMeta(ctx, tx, MetaFTSStorageVersion, fmt.Sprint(FTSStorageVersion)); err != nil {
			return err
		}
		out.Steps = append(out.Steps, "full-text indexes created")
	}
	return nil
}

// broadUpdateTrigger says an update trigger fires on any column change
// ("AFTER UPDATE ON") instead of only on the indexed ones.
func broadUpdateTrigger(sqlText string) bool {
	compact := strings.ToUpper(strings.Join(strings.Fields(sqlText), " "))
	return !strings.Contains(compact, "AFTER UPDATE OF ") && strings.Contains(compact, "AFTER UPDATE ON ")
}
