package kanban

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hermes-go/hermes/internal/sqlitestore"
)

// schemaSQL creates a board in the layout a fresh Hermes board has today
// (hermes_cli/kanban_db.py SCHEMA_SQL, plus what its open-time migration
// adds to every board: completion_contract, four indexes and the recipe
// tables of kanban_recipes_store.py), column for column in Hermes' order,
// so a Python Hermes opening a board these tools created finds nothing to
// add. Hermes adds columns it lacks with ALTER TABLE when it opens a board,
// which is why a board made by a newer Hermes (more columns, all nullable
// or defaulted) is still usable here.
const schemaSQL = `
CREATE TABLE IF NOT EXISTS tasks (
    id                   TEXT PRIMARY KEY,
    title                TEXT NOT NULL,
    body                 TEXT,
    assignee             TEXT,
    status               TEXT NOT NULL,
    priority             INTEGER DEFAULT 0,
    created_by           TEXT,
    created_at           INTEGER NOT NULL,
    started_at           INTEGER,
    completed_at         INTEGER,
    workspace_kind       TEXT NOT NULL DEFAULT 'scratch',
    workspace_path       TEXT,
    branch_name          TEXT,
    project_id           TEXT,
    claim_lock           TEXT,
    claim_expires        INTEGER,
    tenant               TEXT,
    result               TEXT,
    idempotency_key      TEXT,
    consecutive_failures INTEGER NOT NULL DEFAULT 0,
    worker_pid           INTEGER,
    worker_started_at    INTEGER,
    last_failure_error   TEXT,
    max_runtime_seconds  INTEGER,
    last_heartbeat_at    INTEGER,
    current_run_id       INTEGER,
    workflow_template_id TEXT,
    current_step_key     TEXT,
    skills               TEXT,
    model_override       TEXT,
    provider_override    TEXT,
    reasoning_effort     TEXT,
    max_retries          INTEGER,
    goal_mode            INTEGER NOT NULL DEFAULT 0,
    goal_max_turns       INTEGER,
    session_id           TEXT,
    block_kind           TEXT,
    block_recurrences    INTEGER NOT NULL DEFAULT 0,
    completion_contract  TEXT
);

CREATE TABLE IF NOT EXISTS task_links (
    parent_id  TEXT NOT NULL,
    child_id   TEXT NOT NULL,
    PRIMARY KEY (parent_id, child_id)
);

CREATE TABLE IF NOT EXISTS task_comments (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id    TEXT NOT NULL,
    author     TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS task_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id    TEXT NOT NULL,
    run_id     INTEGER,
    kind       TEXT NOT NULL,
    payload    TEXT,
    created_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS task_runs (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id             TEXT NOT NULL,
    profile             TEXT,
    step_key            TEXT,
    status              TEXT NOT NULL,
    claim_lock          TEXT,
    claim_expires       INTEGER,
    worker_pid          INTEGER,
    worker_started_at   INTEGER,
    max_runtime_seconds INTEGER,
    last_heartbeat_at   INTEGER,
    started_at          INTEGER NOT NULL,
    ended_at            INTEGER,
    outcome             TEXT,
    summary             TEXT,
    metadata            TEXT,
    error               TEXT
);

CREATE TABLE IF NOT EXISTS task_attachments (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id      TEXT NOT NULL,
    filename     TEXT NOT NULL,
    stored_path  TEXT NOT NULL,
    content_type TEXT,
    size         INTEGER NOT NULL DEFAULT 0,
    uploaded_by  TEXT,
    created_at   INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS kanban_notify_subs (
    task_id       TEXT NOT NULL,
    platform      TEXT NOT NULL,
    chat_id       TEXT NOT NULL,
    thread_id     TEXT NOT NULL DEFAULT '',
    user_id       TEXT,
    user_id_alt   TEXT,
    chat_type     TEXT,
    notifier_profile TEXT,
    delivery_mode TEXT NOT NULL DEFAULT 'notify',
    delivery_metadata TEXT,
    created_at    INTEGER NOT NULL,
    last_event_id INTEGER NOT NULL DEFAULT 0,
    last_ping_event_id INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (task_id, platform, chat_id, thread_id)
);

CREATE INDEX IF NOT EXISTS idx_tasks_status          ON tasks(status);
CREATE INDEX IF NOT EXISTS idx_links_child           ON task_links(child_id);
CREATE INDEX IF NOT EXISTS idx_links_parent          ON task_links(parent_id);
CREATE INDEX IF NOT EXISTS idx_comments_task         ON task_comments(task_id, created_at);
CREATE INDEX IF NOT EXISTS idx_events_task           ON task_events(task_id, created_at);
CREATE INDEX IF NOT EXISTS idx_runs_task             ON task_runs(task_id, started_at);
CREATE INDEX IF NOT EXISTS idx_runs_status           ON task_runs(status);
CREATE INDEX IF NOT EXISTS idx_attachments_task      ON task_attachments(task_id, created_at);
CREATE INDEX IF NOT EXISTS idx_notify_task           ON kanban_notify_subs(task_id);

CREATE TABLE IF NOT EXISTS recipe_instances (
    id TEXT PRIMARY KEY,
    idempotency_key TEXT NOT NULL UNIQUE,
    recipe_id TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    definition_digest TEXT NOT NULL,
    request_digest TEXT NOT NULL,
    definition_json TEXT NOT NULL,
    inputs_json TEXT NOT NULL,
    bindings_json TEXT NOT NULL,
    effective_plan_json TEXT NOT NULL,
    created_by TEXT,
    created_at INTEGER NOT NULL,
    imported INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS recipe_instance_tasks (
    instance_id TEXT NOT NULL REFERENCES recipe_instances(id) ON DELETE RESTRICT,
    node_key TEXT NOT NULL,
    task_id TEXT NOT NULL UNIQUE REFERENCES tasks(id) ON DELETE RESTRICT,
    PRIMARY KEY(instance_id, node_key)
);

CREATE INDEX IF NOT EXISTS idx_tasks_tenant          ON tasks(tenant);
CREATE INDEX IF NOT EXISTS idx_tasks_idempotency     ON tasks(idempotency_key);
CREATE INDEX IF NOT EXISTS idx_tasks_session_id      ON tasks(session_id);
CREATE INDEX IF NOT EXISTS idx_events_run            ON task_events(run_id, id);
`

// usedColumns are the columns these tools read or write. A board lacking
// any of them predates the run-based schema (or is not a kanban board) and
// is refused rather than upgraded behind the user's back.
var usedColumns = map[string][]string{
	"tasks": {"id", "title", "body", "assignee", "status", "priority", "created_by", "created_at",
		"started_at", "completed_at", "workspace_kind", "workspace_path", "claim_lock", "claim_expires",
		"tenant", "result", "idempotency_key", "consecutive_failures", "last_failure_error",
		"worker_pid", "max_runtime_seconds", "last_heartbeat_at", "current_run_id",
		"current_step_key", "skills", "model_override", "goal_mode", "goal_max_turns", "session_id"},
	"task_links":    {"parent_id", "child_id"},
	"task_comments": {"id", "task_id", "author", "body", "created_at"},
	"task_events":   {"id", "task_id", "run_id", "kind", "payload", "created_at"},
	"task_runs": {"id", "task_id", "profile", "step_key", "status", "claim_lock", "claim_expires",
		"worker_pid", "max_runtime_seconds", "last_heartbeat_at", "started_at", "ended_at",
		"outcome", "summary", "metadata", "error"},
}

// knownUserVersion is the PRAGMA user_version of the boards this code knows.
// Hermes does not set it; a board that does was versioned by something
// newer, whose rules these tools cannot know.
const knownUserVersion = 0

// ensureSchema creates the schema on an empty board (when writable) and
// checks any other board. It reports whether the board holds the kanban
// tables at all (false only for an empty read-only file).
func ensureSchema(ctx context.Context, db *sqlitestore.DB, writable bool) (bool, error) {
	tables, err := sqlitestore.Tables(ctx, db)
	if err != nil {
		return false, db.Explain("read the schema", err)
	}
	if len(tables) == 0 {
		if !writable {
			return false, nil
		}
		err := db.Tx(ctx, "create the kanban schema", func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
				return db.Explain("create the kanban schema", err)
			}
			return nil
		})
		return err == nil, err
	}
	return true, checkSchema(ctx, db, tables)
}

func checkSchema(ctx context.Context, db *sqlitestore.DB, tables map[string]bool) error {
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return db.Explain("read the schema version", err)
	}
	if version > knownUserVersion {
		return sqlitestore.SchemaError(db.Path,
			fmt.Sprintf("the board carries schema version %d, newer than this build knows (%d)", version, knownUserVersion),
			"update hermes-tools-mcp, or point HERMES_KANBAN_DB at another board")
	}
	if !tables["tasks"] {
		names := make([]string, 0, len(tables))
		for n := range tables {
			names = append(names, n)
		}
		sort.Strings(names)
		return sqlitestore.SchemaError(db.Path,
			fmt.Sprintf("not a Hermes kanban board (it has tables %s but no tasks table)", strings.Join(names, ", ")),
			"check HERMES_KANBAN_DB / HERMES_KANBAN_HOME; these tools never alter a database they do not recognise")
	}
	tableNames := make([]string, 0, len(usedColumns))
	for t := range usedColumns {
		tableNames = append(tableNames, t)
	}
	sort.Strings(tableNames)
	for _, table := range tableNames {
		cols, err := sqlitestore.Columns(ctx, db, table)
		if err != nil {
			return db.Explain("read the columns of "+table, err)
		}
		var missing []string
		for _, c := range usedColumns[table] {
			if _, ok := cols[c]; !ok {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			return sqlitestore.SchemaError(db.Path,
				fmt.Sprintf("table %s lacks column(s) %s: the board was made by an older Hermes or another program", table, strings.Join(missing, ", ")),
				"run any `hermes kanban` command once so Hermes upgrades the board; these tools never alter a schema themselves")
		}
		// A newer Hermes may add columns; they are fine as long as rows can
		// be inserted without naming them.
		var mandatory []string
		for name, c := range cols {
			if c.NotNull && !c.HasDefault && !c.PrimaryKey && !slices.Contains(usedColumns[table], name) {
				mandatory = append(mandatory, name)
			}
		}
		if len(mandatory) > 0 {
			sort.Strings(mandatory)
			return sqlitestore.SchemaError(db.Path,
				fmt.Sprintf("table %s has required column(s) %s that this build does not know: the board is from a newer Hermes", table, strings.Join(mandatory, ", ")),
				"update hermes-tools-mcp to a version that knows this board")
		}
	}
	return nil
}
