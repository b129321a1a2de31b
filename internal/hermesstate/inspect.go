package hermesstate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Querier is a *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Object is one row of sqlite_master.
type Object struct {
	Type, Name, Table, SQL string
}

// The six trigger names Hermes counts to decide whether an index is fed,
// and the three of its optional CJK index.
var (
	BaseFTSTriggers    = []string{"messages_fts_insert", "messages_fts_delete", "messages_fts_update"}
	TrigramFTSTriggers = []string{"messages_fts_trigram_insert", "messages_fts_trigram_delete", "messages_fts_trigram_update"}
	CJKFTSTriggers     = []string{"messages_fts_cjk_insert", "messages_fts_cjk_delete", "messages_fts_cjk_update"}
)

// state_meta keys this package reads.
const (
	MetaFTSStale          = "fts_stale"
	MetaFTSCJKStale       = "fts_cjk_stale"
	MetaFTSStorageVersion = "fts_storage_version"
	MetaRebuildHighWater  = "fts_rebuild_high_water"
	MetaRebuildProgress   = "fts_rebuild_progress"
	MetaOptimizeAvailable = "fts_optimize_available"
	MetaStoreInstanceID   = "store_instance_id"
	MetaStoreCreatedAt    = "store_created_at_utc"
	MetaFileGeneration    = "db_file_generation"
)

// State is what a look at a state.db found.
type State struct {
	// Objects are the tables, indexes, views and triggers by name.
	Objects map[string]Object
	// HasVersion says schema_version holds a row; Version is its value.
	HasVersion bool
	Version    int
	// Meta holds the state_meta values of the keys above that are set.
	Meta map[string]string
}

// Inspect reads sqlite_master, the schema version and the state_meta keys
// this package acts on. It never writes.
func Inspect(ctx context.Context, q Querier) (State, error) {
	st := State{Objects: map[string]Object{}, Meta: map[string]string{}}
	rows, err := q.QueryContext(ctx, "SELECT type, name, tbl_name, COALESCE(sql, '') FROM sqlite_master")
	if err != nil {
		return st, fmt.Errorf("read the schema: %w", err)
	}
	for rows.Next() {
		var o Object
		if err := rows.Scan(&o.Type, &o.Name, &o.Table, &o.SQL); err != nil {
			rows.Close()
			return st, fmt.Errorf("read the schema: %w", err)
		}
		st.Objects[o.Name] = o
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("read the schema: %w", err)
	}
	if st.IsTable("schema_version") {
		var v sql.NullInt64
		err := q.QueryRowContext(ctx, "SELECT version FROM schema_version LIMIT 1").Scan(&v)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return st, fmt.Errorf("read the schema version: %w", err)
		default:
			st.HasVersion, st.Version = true, int(v.Int64)
		}
	}
	if st.IsTable("state_meta") {
		keys := []any{MetaFTSStale, MetaFTSCJKStale, MetaFTSStorageVersion, MetaRebuildHighWater, MetaRebuildProgress,
			MetaOptimizeAvailable, MetaStoreInstanceID, MetaStoreCreatedAt, MetaFileGeneration}
		rows, err := q.QueryContext(ctx, "SELECT key, COALESCE(value, '') FROM state_meta WHERE key IN (?"+strings.Repeat(", ?", len(keys)-1)+")", keys...)
		if err != nil {
			return st, fmt.Errorf("read state_meta: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				return st, fmt.Errorf("read state_meta: %w", err)
			}
			st.Meta[k] = v
		}
		if err := rows.Err(); err != nil {
			return st, fmt.Errorf("read state_meta: %w", err)
		}
	}
	return st, nil
}

// IsTable says a table (ordinary or virtual) of that name exists.
func (s State) IsTable(name string) bool { return s.Objects[name].Type == "table" }

// Has says an object of that type and name exists.
func (s State) Has(typ, name string) bool { return s.Objects[name].Type == typ }

func (s State) sql(name string) string { return s.Objects[name].SQL }

// IsHermes says the file has the tables every Hermes state.db has had.
func (s State) IsHermes() bool {
	return s.IsTable("sessions") && s.IsTable("messages")
}

// Empty says the file holds no schema at all.
func (s State) Empty() bool {
	for name := range s.Objects {
		if !strings.HasPrefix(name, "sqlite_") {
			return false
		}
	}
	return true
}

// LegacyFTS says messages_fts is an inline index from before Hermes' schema
// 23: every such shape lacks the tool_name column. Hermes keeps these until
// `hermes sessions optimize-storage`.
func (s State) LegacyFTS() bool {
	return s.IsTable("messages_fts") && !strings.Contains(s.sql("messages_fts"), "tool_name")
}

// TrigramToolCalls says the trigram index still has its tool_calls column
// (FTS storage layout 1).
func (s State) TrigramToolCalls() bool {
	return s.IsTable("messages_fts_trigram") && strings.Contains(strings.ToLower(s.sql("messages_fts_trigram")), "tool_calls")
}

// FTSLayout3 says messages_fts reads through the messages_fts_src view.
func (s State) FTSLayout3() bool {
	return s.IsTable("messages_fts") && strings.Contains(s.sql("messages_fts"), "messages_fts_src")
}

// NeedsFTSStorageUpgrade is Hermes' "optimize-storage has work" test.
func (s State) NeedsFTSStorageUpgrade() bool { return s.LegacyFTS() || s.TrigramToolCalls() }

// FTSStale says a process detached the full-text indexes after damage: they
// miss rows until Hermes rebuilds them, so search must read messages.
func (s State) FTSStale() bool {
	_, ok := s.Meta[MetaFTSStale]
	return ok
}

// CombinedFTSTriggers are the triggers earlier releases of this project
// created under the base index's names that also write the trigram index.
// Next to the trigram triggers Hermes adds they index every row twice, and
// every insert fails.
func (s State) CombinedFTSTriggers() []string {
	var out []string
	for _, name := range BaseFTSTriggers {
		if o := s.Objects[name]; o.Type == "trigger" && strings.Contains(strings.ToLower(o.SQL), "messages_fts_trigram") {
			out = append(out, name)
		}
	}
	return out
}

// CompressionLocksWithoutExpiry says compression_locks has the shape earlier
// releases of this project created: no expires_at, so Hermes' schema script
// stops at its index on that column.
func (s State) CompressionLocksWithoutExpiry() bool {
	return s.IsTable("compression_locks") && !strings.Contains(s.sql("compression_locks"), "expires_at")
}

// LiveCJKTriggers are the triggers of the optional CJK index. Writing
// through them needs the cjk_unicode61 tokenizer, which only Hermes can
// load; without it every insert into messages fails.
func (s State) LiveCJKTriggers() []string {
	if !s.IsTable("messages_fts_cjk") {
		return nil
	}
	var out []string
	for _, name := range CJKFTSTriggers {
		if s.Has("trigger", name) {
			out = append(out, name)
		}
	}
	return out
}

func (s State) missingTriggers(names []string) bool {
	for _, n := range names {
		if !s.Has("trigger", n) {
			return true
		}
	}
	return false
}

// OursBroken says the file has a defect of a state.db earlier releases of
// this project wrote, which keeps Hermes from opening or writing it.
func (s State) OursBroken() bool {
	return s.CompressionLocksWithoutExpiry() || len(s.CombinedFTSTriggers()) > 0
}
