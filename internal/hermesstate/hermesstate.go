// Package hermesstate knows the layout of Hermes' state.db, the SQLite file
// the Python Hermes (hermes_state.py) and this project share: the DDL of the
// version we create and follow (SCHEMA_VERSION 30, FTS storage layout 3),
// how an older file is brought to it the way Hermes does on a writable open,
// and the small formats both programs read (content encoding, profile
// ownership). The session writer (agentcore/statedb) creates and upgrades
// files through it; the session_search reader and the tests of both use its
// layout checks.
//
// Hermes only ever adds to the file: new tables, new columns (nullable or
// with a default), new indexes. So a file at a newer version than
// SchemaVersion is used as it is, never refused and never changed.
package hermesstate

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"
)

const (
	// SchemaVersion is the Hermes schema version this build creates and
	// brings older files to.
	SchemaVersion = 30
	// OldestVersion is the oldest schema version this build opens: the one
	// earlier releases of this project wrote.
	OldestVersion = 16
	// FTSStorageVersion is state_meta's fts_storage_version of the full-text
	// layout the DDL creates (external content over messages_fts_src).
	FTSStorageVersion = 3
)

//go:embed schema_v30.sql
var schemaV30 string

//go:embed legacy_fts.sql
var legacyFTS string

// Section names of schema_v30.sql, in the order a fresh store runs them.
const (
	SectionSchema        = "schema"
	SectionPlatformIndex = "platform_index"
	SectionDeferred      = "deferred"
	SectionTitleIndex    = "title_index"
	SectionFTS           = "fts"
	SectionFTSTrigram    = "fts_trigram"
	// In legacy_fts.sql.
	SectionLegacyFTS        = "legacy_fts"
	SectionLegacyFTSTrigram = "legacy_fts_trigram"
)

const sectionMarker = "-- @section "

var sections = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	for _, file := range []string{schemaV30, legacyFTS} {
		name := ""
		var b strings.Builder
		flush := func() {
			if name != "" {
				out[name] = b.String()
			}
			b.Reset()
		}
		for _, line := range strings.SplitAfter(file, "\n") {
			if rest, ok := strings.CutPrefix(line, sectionMarker); ok {
				flush()
				name = strings.TrimSpace(rest)
				continue
			}
			b.WriteString(line)
		}
		flush()
	}
	return out
})

// Section returns the DDL of one section of the embedded schema files. It
// panics on an unknown name: the names are constants of this package.
func Section(name string) string {
	s, ok := sections()[name]
	if !ok {
		panic(fmt.Sprintf("hermesstate: no DDL section %q", name))
	}
	return s
}

// Statements splits DDL into its statements, each without the comment lines
// before it and with its ";". A trigger ends at its "END;" line; every other
// statement at the first line ending in ";". The embedded DDL is written in
// that shape (and its tests check the split against SQLite).
func Statements(ddl string) []string {
	var out []string
	var cur []string
	trigger := false
	for _, line := range strings.Split(ddl, "\n") {
		trimmed := strings.TrimSpace(line)
		if len(cur) == 0 {
			if trimmed == "" || strings.HasPrefix(trimmed, "--") {
				continue
			}
			trigger = strings.HasPrefix(strings.ToUpper(trimmed), "CREATE TRIGGER")
		}
		cur = append(cur, line)
		done := strings.HasSuffix(trimmed, ";") && !strings.HasPrefix(trimmed, "--")
		if trigger {
			done = strings.EqualFold(trimmed, "END;")
		}
		if done {
			out = append(out, strings.TrimSpace(strings.Join(cur, "\n")))
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, strings.TrimSpace(strings.Join(cur, "\n")))
	}
	return out
}

// StoredSQL is the text SQLite keeps in sqlite_master for a CREATE
// statement: without "IF NOT EXISTS" and the final ";". Hermes compares its
// triggers with this text.
func StoredSQL(create string) string {
	s := strings.TrimSuffix(strings.TrimSpace(create), ";")
	if i := strings.Index(strings.ToUpper(s), " IF NOT EXISTS "); i >= 0 {
		s = s[:i] + s[i+len(" IF NOT EXISTS"):]
	}
	return s
}

// ObjectName is the name a CREATE statement creates ("" for anything else).
func ObjectName(stmt string) string {
	f := strings.Fields(stmt)
	if len(f) < 3 || !strings.EqualFold(f[0], "CREATE") {
		return ""
	}
	i := 1
	for i < len(f) && !strings.EqualFold(f[i], "TABLE") && !strings.EqualFold(f[i], "INDEX") &&
		!strings.EqualFold(f[i], "VIEW") && !strings.EqualFold(f[i], "TRIGGER") {
		i++
	}
	i++
	if i+2 < len(f) && strings.EqualFold(f[i], "IF") && strings.EqualFold(f[i+1], "NOT") && strings.EqualFold(f[i+2], "EXISTS") {
		i += 3
	}
	if i >= len(f) {
		return ""
	}
	name := f[i]
	if j := strings.IndexAny(name, "("); j >= 0 {
		name = name[:j]
	}
	return strings.Trim(name, `"`)
}

// ResetReasons are the end reasons of a deliberate conversation boundary in
// Hermes (a /new, a daily or idle reset): a child that such a boundary
// started is a conversation of its own.
var ResetReasons = []string{"session_reset", "session_switch", "idle", "daily", "suspended", "resume_pending_expired"}

// JSONField is the SQL that reads key of a JSON column (model_config) that
// may hold anything, as Hermes reads it: not JSON reads as {}.
func JSONField(col, key string) string {
	return "json_extract(CASE WHEN json_valid(" + col + ") THEN " + col + " ELSE '{}' END, '$." + key + "')"
}
