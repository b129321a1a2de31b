package todo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Limits of the original store.
const (
	MaxItems       = 256
	MaxContentChar = 4000
)

// Item is one todo.
type Item struct {
	ID      string `json:"id"`
	Content string `json:"content"`
	Status  string `json:"status"`
	// Parent is the id of the item this one is a subtask of; empty for a
	// top-level item.
	Parent string `json:"parent,omitempty"`
}

// DBPath is where the lists of a Hermes home are kept.
func DBPath(home string) string { return filepath.Join(home, "hermes-tools", "todo.db") }

type kit struct {
	opts   Options
	getenv func(string) string
	now    func() time.Time
	// process is the list of calls that name no session and arrive
	// without an MCP session in their context (an in-process caller): one
	// per toolset, so per server process.
	process memList
}

// memList is the in-memory list of one MCP session.
type memList struct {
	mu    sync.Mutex
	items []Item
}

// listKey keys a session's list in its sessionstate.State.
type listKey struct{}

// sessionList is the list of the MCP session ctx belongs to.
func (k *kit) sessionList(ctx context.Context) (*memList, error) {
	st := sessionstate.FromContext(ctx)
	if st == nil {
		return &k.process, nil
	}
	v, err := st.Value(listKey{}, func() (any, error) { return &memList{}, nil })
	if err != nil {
		return nil, fmt.Errorf("todo list of session %s: %w", st.ID(), err)
	}
	return v.(*memList), nil
}

// use reads the list, or writes it when incoming is set.
func (l *memList) use(incoming *[]map[string]any, merge bool) ([]Item, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if incoming == nil {
		return slices.Clone(l.items), ""
	}
	next := apply(l.items, *incoming, merge)
	if len(next) > MaxItems {
		return nil, tooMany(len(next))
	}
	l.items = next
	return slices.Clone(next), ""
}

func tooMany(n int) string {
	return fmt.Sprintf("The todo list would hold %d items; it holds at most %d. Drop completed or cancelled items (write the list without merge) and try again.", n, MaxItems)
}

type args struct {
	Todos     *[]map[string]any `json:"todos"`
	Merge     bool              `json:"merge"`
	SessionID string            `json:"session_id"`
}

func failure(format string, a ...any) tooldef.Result {
	return tooldef.Failure(map[string]any{"error": fmt.Sprintf(format, a...)})
}

// validSession accepts 1-256 printable ASCII characters without spaces. A
// loop, not a regexp: `{1,256}` compiles to a 256-fold program at startup.
func validSession(s string) bool {
	if len(s) == 0 || len(s) > 256 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func (k *kit) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return failure("Invalid arguments: %v", err), nil
	}
	session := strings.TrimSpace(a.SessionID)
	if session == "" {
		session = strings.TrimSpace(k.getenv(SessionEnv))
	}
	if session == "" {
		l, err := k.sessionList(ctx)
		if err != nil {
			return tooldef.Result{}, err
		}
		items, refusal := l.use(a.Todos, a.Merge)
		if refusal != "" {
			return failure("%s", refusal), nil
		}
		return tooldef.OK(response(items, "")), nil
	}
	if !validSession(session) {
		return failure("session_id must be 1-256 printable characters without spaces"), nil
	}
	var items []Item
	if a.Todos == nil {
		items, err = Load(ctx, k.opts.Home, session, k.opts.BusyTimeout)
	} else {
		var refusal string
		items, refusal, err = Write(ctx, k.opts.Home, session, *a.Todos, a.Merge, k.opts.BusyTimeout, k.now())
		if refusal != "" {
			return failure("%s", refusal), nil
		}
	}
	if err != nil {
		return tooldef.Result{}, err
	}
	return tooldef.OK(response(items, session)), nil
}

func response(items []Item, session string) map[string]any {
	summary := map[string]int{"total": len(items), StatusPending: 0, StatusInProgress: 0, StatusCompleted: 0, StatusCancelled: 0}
	for _, it := range items {
		summary[it.Status]++
	}
	if items == nil {
		items = []Item{}
	}
	out := map[string]any{"todos": items, "summary": summary}
	if session != "" {
		out["session_id"] = session
	}
	return out
}

// normalize turns one raw item into an Item the way Hermes does: text is
// trimmed, a missing id or content gets a placeholder and an unknown
// status becomes pending, so a sloppy call still yields a usable list.
func normalize(raw map[string]any) Item {
	str := func(k string) string {
		v, ok := raw[k]
		if !ok || v == nil {
			return ""
		}
		return strings.TrimSpace(fmt.Sprint(v))
	}
	it := Item{ID: str("id"), Content: str("content"), Status: strings.ToLower(str("status")), Parent: str("parent")}
	if it.ID == "" {
		it.ID = "?"
	}
	if it.Content == "" {
		it.Content = "(no description)"
	}
	if utf8.RuneCountInString(it.Content) > MaxContentChar {
		it.Content = string([]rune(it.Content)[:MaxContentChar])
	}
	if !validStatus(it.Status) {
		it.Status = StatusPending
	}
	return it
}

func validStatus(s string) bool {
	for _, v := range Statuses() {
		if s == v {
			return true
		}
	}
	return false
}

// apply computes the list after a write: a replacement, or a merge that
// updates items by id and appends new ones. Later duplicates of an id win,
// keeping the first one's place.
func apply(current []Item, incoming []map[string]any, merge bool) []Item {
	var next []Item
	if merge {
		next = append(next, current...)
		pos := map[string]int{}
		for i, it := range next {
			pos[it.ID] = i
		}
		for _, raw := range incoming {
			id := strings.TrimSpace(fmt.Sprint(raw["id"]))
			if raw["id"] == nil || id == "" {
				continue
			}
			if i, ok := pos[id]; ok {
				upd := normalize(raw)
				if c, _ := raw["content"].(string); strings.TrimSpace(c) != "" {
					next[i].Content = upd.Content
				}
				if s, _ := raw["status"].(string); validStatus(strings.ToLower(strings.TrimSpace(s))) {
					next[i].Status = upd.Status
				}
				if _, ok := raw["parent"]; ok {
					next[i].Parent = upd.Parent
				}
				continue
			}
			pos[id] = len(next)
			next = append(next, normalize(raw))
		}
		return dropBadParents(next)
	}
	pos := map[string]int{}
	for _, raw := range incoming {
		it := normalize(raw)
		if i, ok := pos[it.ID]; ok {
			next[i] = it
			continue
		}
		pos[it.ID] = len(next)
		next = append(next, it)
	}
	return dropBadParents(next)
}

// dropBadParents clears parents that name no item or close a cycle, as
// the original drops them: the item becomes top-level.
func dropBadParents(items []Item) []Item {
	parent := map[string]string{}
	for _, it := range items {
		parent[it.ID] = it.Parent
	}
	for i, it := range items {
		if it.Parent == "" {
			continue
		}
		if _, ok := parent[it.Parent]; !ok || it.Parent == it.ID {
			items[i].Parent = ""
			parent[it.ID] = ""
			continue
		}
		// Walk up; meeting this item again is a cycle.
		seen := map[string]bool{it.ID: true}
		for p := it.Parent; p != ""; p = parent[p] {
			if seen[p] {
				items[i].Parent = ""
				parent[it.ID] = ""
				break
			}
			seen[p] = true
		}
	}
	return items
}

// schemaVersion is this store's PRAGMA user_version.
const schemaVersion = 1

const schemaSQL = `
CREATE TABLE todo_lists (
    session_id TEXT PRIMARY KEY,
    items      TEXT NOT NULL,
    updated_at REAL NOT NULL
);
PRAGMA user_version = 1;
`

// open opens the store; empty reports a file without the schema yet
// (possible only read-only, since a writable open creates it).
func open(ctx context.Context, home string, readOnly bool, busy time.Duration) (db *sqlitestore.DB, empty bool, err error) {
	db, err = sqlitestore.Open(ctx, DBPath(home), sqlitestore.Options{ReadOnly: readOnly, Create: !readOnly, BusyTimeout: busy})
	if err != nil {
		return nil, false, err
	}
	if empty, err = checkSchema(ctx, db, readOnly); err != nil {
		db.Close()
		return nil, false, err
	}
	if !readOnly {
		if err := db.EnableWAL(ctx); err != nil {
			db.Close()
			return nil, false, err
		}
	}
	return db, empty, nil
}

func checkSchema(ctx context.Context, db *sqlitestore.DB, readOnly bool) (empty bool, err error) {
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, db.Explain("read the schema version", err)
	}
	tables, err := sqlitestore.Tables(ctx, db)
	if err != nil {
		return false, db.Explain("read the schema", err)
	}
	switch {
	case version == 0 && len(tables) == 0:
		if readOnly {
			return true, nil
		}
		return false, db.Tx(ctx, "create the todo schema", func(tx *sql.Tx) error {
			// Another server may have created it between the check and
			// the write lock.
			var v int
			if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
				return db.Explain("read the schema version", err)
			}
			if v != 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
				return db.Explain("create the todo schema", err)
			}
			return nil
		})
	case version > schemaVersion:
		return false, sqlitestore.SchemaError(db.Path, fmt.Sprintf("schema version %d is newer than this build knows (%d)", version, schemaVersion),
			"update hermes-tools-mcp; the file was written by a newer version")
	case version != schemaVersion || !tables["todo_lists"]:
		return false, sqlitestore.SchemaError(db.Path, "not a hermes-tools todo database",
			"move the file aside; it will be recreated empty")
	}
	return false, nil
}

// Load returns the session's list; a missing database is an empty list and
// is not created.
func Load(ctx context.Context, home, session string, busy time.Duration) ([]Item, error) {
	db, empty, err := open(ctx, home, true, busy)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if empty {
		return nil, nil
	}
	return load(ctx, db, db, session)
}

func load(ctx context.Context, db *sqlitestore.DB, q sqlitestore.Querier, session string) ([]Item, error) {
	rows, err := q.QueryContext(ctx, "SELECT items FROM todo_lists WHERE session_id = ?", session)
	if err != nil {
		return nil, db.Explain("read the todo list", err)
	}
	defer rows.Close()
	var items []Item
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return nil, db.Explain("read the todo list", err)
		}
		if err := json.Unmarshal([]byte(raw), &items); err != nil {
			return nil, fmt.Errorf("%s: the todo list of session %q is not valid JSON (%w); write the list again without merge to replace it", db.Path, session, err)
		}
	}
	return items, db.Explain("read the todo list", rows.Err())
}

// Write stores the session's new list and returns it. refusal is set (and
// nothing written) when the list would break a limit.
func Write(ctx context.Context, home, session string, incoming []map[string]any, merge bool, busy time.Duration, now time.Time) (items []Item, refusal string, err error) {
	db, _, err := open(ctx, home, false, busy)
	if err != nil {
		return nil, "", err
	}
	defer db.Close()
	err = db.Tx(ctx, "write the todo list", func(tx *sql.Tx) error {
		current, err := load(ctx, db, tx, session)
		if err != nil {
			return err
		}
		next := apply(current, incoming, merge)
		if len(next) > MaxItems {
			refusal = tooMany(len(next))
			return nil
		}
		data, err := json.Marshal(nonNil(next))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO todo_lists (session_id, items, updated_at) VALUES (?, ?, ?)
			ON CONFLICT(session_id) DO UPDATE SET items = excluded.items, updated_at = excluded.updated_at`,
			session, string(data), float64(now.UnixNano())/1e9)
		if err != nil {
			return db.Explain("save the todo list", err)
		}
		items = next
		return nil
	})
	return items, refusal, err
}

func nonNil(items []Item) []Item {
	if items == nil {
		return []Item{}
	}
	return items
}
