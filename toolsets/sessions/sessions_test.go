package sessions_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/hermes-go/hermes/internal/hermesstate/statetest"
	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/toolsets/sessions"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type harness struct {
	t    testing.TB
	tool tooldef.Tool
	out  *jsonschema.Schema
}

func newHarness(t testing.TB, home string, env map[string]string) *harness {
	t.Helper()
	ts := sessions.Toolset(sessions.Options{Home: home, Getenv: func(k string) string { return env[k] }, Location: time.UTC})
	if ts.Name != "session_search" || !ts.Default || !ts.Tools[0].Hints.ReadOnly {
		t.Fatalf("toolset = %+v", ts)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ts.Tools[0].OutputSchema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AddResource("mem:///o.json", doc)
	s, err := c.Compile("mem:///o.json")
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, tool: ts.Tools[0], out: s}
}

func (h *harness) callErr(args map[string]any) (map[string]any, bool, error) {
	raw, _ := json.Marshal(args)
	res, err := h.tool.Handler(context.Background(), raw)
	if err != nil {
		return nil, false, err
	}
	b, _ := json.Marshal(res.Value)
	var m map[string]any
	json.Unmarshal(b, &m)
	if !res.IsError {
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err := h.out.Validate(inst); err != nil {
			h.t.Fatalf("%s: result violates the output schema: %v\n%s", raw, err, b)
		}
	} else if m["success"] != false || m["error"] == "" {
		h.t.Fatalf("%s: error not shaped {success:false,error}: %s", raw, b)
	}
	return m, res.IsError, nil
}

func (h *harness) ok(args map[string]any) map[string]any {
	h.t.Helper()
	m, isErr, err := h.callErr(args)
	if err != nil || isErr {
		h.t.Fatalf("%v: %v %v", args, m, err)
	}
	return m
}

func (h *harness) fail(args map[string]any) string {
	h.t.Helper()
	m, isErr, err := h.callErr(args)
	if err != nil || !isErr {
		h.t.Fatalf("%v: want an error result, got %v %v", args, m, err)
	}
	return m["error"].(string)
}

func resultSessions(m map[string]any) []string {
	var out []string
	for _, r := range m["results"].([]any) {
		out = append(out, r.(map[string]any)["session_id"].(string))
	}
	return out
}

func msgIDs(v any) []int {
	var out []int
	for _, m := range v.([]any) {
		out = append(out, int(m.(map[string]any)["id"].(float64)))
	}
	return out
}

// sharedFixture is the bulk state.db, built once per test binary (SQLite
// work is slow under -race) and copied into each test's home.
var sharedFixture struct {
	once sync.Once
	dir  string
}

// fixtureHome returns a home whose state.db holds the known sessions and
// fixtureBulkSessions bulk sessions of 50 messages, in rollback-journal or
// WAL mode.
func fixtureHome(t *testing.T, wal bool) string {
	t.Helper()
	sharedFixture.once.Do(func() {
		dir, err := os.MkdirTemp("", "session-search-fixture-")
		if err != nil {
			t.Fatal(err)
		}
		buildStateDB(t, filepath.Join(dir, "state.db"), fixtureBulkSessions, 50, false)
		sharedFixture.dir = dir
	})
	data, err := os.ReadFile(filepath.Join(sharedFixture.dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	path := filepath.Join(home, "state.db")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if wal {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("PRAGMA journal_mode=WAL"); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestDiscover(t *testing.T) {
	home := fixtureHome(t, false)
	h := newHarness(t, home, map[string]string{"HERMES_SESSION_ID": currentID})
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		// The two deploy sessions are one conversation; the subagent and
		// the caller's own session are left out.
		{"lineage, hidden and own sessions", map[string]any{"query": "billing"}, []string{deployCnt}},
		{"relevance", map[string]any{"query": "kubernetes rollout"}, []string{deployID}},
		{"a thousand messages and more", map[string]any{"query": "ticket17"}, []string{"bulk_00017"}},
		{"OR", map[string]any{"query": "ticket7 OR ticket8", "sort": "newest"}, []string{"bulk_00007", "bulk_00008"}},
		{"oldest first", map[string]any{"query": "ticket7 OR ticket8", "sort": "oldest"}, []string{"bulk_00008", "bulk_00007"}},
		{"limit", map[string]any{"query": "pipeline", "limit": 2}, nil},
		{"trigram fallback for CJK", map[string]any{"query": "部署服务"}, []string{cjkID}},
		{"tool output needs the role", map[string]any{"query": "OOMKilled"}, []string{}},
		{"tool role", map[string]any{"query": "OOMKilled", "role_filter": "tool,assistant"}, []string{toolID}},
		{"tool call names are indexed", map[string]any{"query": "terminal", "role_filter": "assistant"}, []string{deployID}},
		{"rewound messages are gone", map[string]any{"query": "zebracorn"}, []string{}},
		{"FTS syntax is plain text", map[string]any{"query": `"canary" (5 -percent* ^ NEAR`}, []string{}},
		{"FTS operators are words", map[string]any{"query": `canary* (percent -budget ^`}, []string{deployID}},
		{"punctuation only", map[string]any{"query": "!!! ???"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := h.ok(tt.args)
			if m["mode"] != "discover" {
				t.Fatalf("mode = %v", m["mode"])
			}
			got := resultSessions(m)
			if tt.want == nil {
				if len(got) != 2 {
					t.Errorf("limit 2 gave %v", got)
				}
				return
			}
			if got == nil {
				got = []string{}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("sessions = %v, want %v", got, tt.want)
			}
			if len(got) == 0 && m["message"] != "No matching sessions found." {
				t.Errorf("empty result message = %v", m["message"])
			}
		})
	}

	m := h.ok(map[string]any{"query": "kubernetes rollout billing"})
	top := m["results"].([]any)[0].(map[string]any)
	if top["detail"] != "full" || top["matched_role"] != "user" || !strings.Contains(top["snippet"].(string), "kubernetes rollout") {
		t.Errorf("top result = %v", top)
	}
	ids := msgIDs(top["messages"])
	anchor := int(top["match_message_id"].(float64))
	if len(ids) != 11 || !slices.Contains(ids, anchor) || top["messages_before"] != float64(1) || top["messages_after"] != float64(1) {
		t.Errorf("window = %v around %d, before %v after %v", ids, anchor, top["messages_before"], top["messages_after"])
	}
	for _, msg := range top["messages"].([]any) {
		x := msg.(map[string]any)
		if (int(x["id"].(float64)) == anchor) != (x["is_anchor"] == true) {
			t.Errorf("is_anchor wrong on %v", x)
		}
	}
	if start := msgIDs(top["bookend_start"]); len(start) != 1 {
		t.Errorf("bookend_start = %v (the window already covers most of the start)", start)
	}
	if top["title"] != "Deploying the billing service" || top["when"] != "January 01, 2026 at 12:00 AM" {
		t.Errorf("meta = %v / %v", top["title"], top["when"])
	}

	// The continuation's bookends skip the compaction summary; its result
	// names the conversation it continues.
	m = h.ok(map[string]any{"query": "resumes"})
	cont := m["results"].([]any)[0].(map[string]any)
	if cont["parent_session_id"] != deployID {
		t.Errorf("parent = %v", cont["parent_session_id"])
	}
	for _, key := range []string{"messages", "bookend_start", "bookend_end"} {
		for _, msg := range cont[key].([]any) {
			if c := msg.(map[string]any)["content"].(string); strings.HasPrefix(c, "[CONTEXT SUMMARY]") && key != "messages" {
				t.Errorf("%s carries a compaction summary", key)
			}
		}
	}
}

func TestScrollReadBrowse(t *testing.T) {
	home := fixtureHome(t, false)
	h := newHarness(t, home, nil)
	read := h.ok(map[string]any{"session_id": deployID})
	ids := msgIDs(read["messages"])
	if read["mode"] != "read" || len(ids) != 13 || read["omitted"] != float64(0) {
		t.Fatalf("read = %v", read)
	}
	if tc := read["messages"].([]any)[12].(map[string]any)["tool_calls"]; fmt.Sprint(tc) != "[terminal]" {
		t.Errorf("tool calls = %v", tc)
	}
	scroll := h.ok(map[string]any{"session_id": deployID, "around_message_id": ids[6], "window": 2})
	if got := msgIDs(scroll["messages"]); !slices.Equal(got, ids[4:9]) || scroll["messages_before"] != float64(4) || scroll["messages_after"] != float64(4) {
		t.Errorf("scroll = %v before %v after %v", got, scroll["messages_before"], scroll["messages_after"])
	}
	edge := h.ok(map[string]any{"session_id": deployID, "around_message_id": ids[0], "window": 99})
	if got := msgIDs(edge["messages"]); len(got) != 13 || edge["window"] != float64(20) {
		t.Errorf("clamped window = %v, %v", got, edge["window"])
	}

	// A long session is read as head and tail.
	buildStateDB(t, filepath.Join(home, "state.db"), 2, 120, false)
	long := h.ok(map[string]any{"session_id": "bulk_00001"})
	if len(msgIDs(long["messages"])) != 50 || long["omitted"] != float64(70) || long["total_messages"] != float64(120) {
		t.Errorf("long read: %d messages, omitted %v", len(msgIDs(long["messages"])), long["omitted"])
	}

	browse := h.ok(map[string]any{"limit": 4})
	var got []string
	for _, s := range browse["sessions"].([]any) {
		got = append(got, s.(map[string]any)["session_id"].(string))
	}
	if want := []string{rewoundID, toolID, cjkID, currentID}; !slices.Equal(got, want) {
		t.Errorf("browse = %v, want %v", got, want)
	}
	first := browse["sessions"].([]any)[1].(map[string]any)
	if first["preview"] != "Why did the worker die?" || first["message_count"] != float64(3) {
		t.Errorf("browse entry = %v", first)
	}
	oldest := h.ok(map[string]any{"sort": "oldest", "limit": 1})
	if s := oldest["sessions"].([]any)[0].(map[string]any)["session_id"]; s != "bulk_00001" {
		t.Errorf("oldest = %v", s)
	}
}

func TestErrors(t *testing.T) {
	home := fixtureHome(t, false)
	h := newHarness(t, home, nil)
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"session_id": "nope"}, "session_id not found: nope"},
		{map[string]any{"session_id": "nope", "around_message_id": 1}, "session_id not found: nope"},
		{map[string]any{"session_id": deployID, "around_message_id": 999999}, "around_message_id 999999 not in session_id " + deployID},
		{map[string]any{"around_message_id": 3}, "around_message_id needs session_id"},
		{map[string]any{"query": "x", "role_filter": "user,robot"}, "Unknown role 'robot'"},
		{map[string]any{"profile": "../etc"}, "invalid profile name"},
		{map[string]any{"profile": "coder"}, "No session history for profile 'coder'"},
	}
	for _, tt := range tests {
		if got := h.fail(tt.args); !strings.Contains(got, tt.want) {
			t.Errorf("%v: %q, want %q", tt.args, got, tt.want)
		}
	}
	if got := newHarness(t, t.TempDir(), nil).fail(map[string]any{}); !strings.Contains(got, "No session history yet") {
		t.Errorf("missing state.db: %s", got)
	}
}

func TestProfiles(t *testing.T) {
	root := t.TempDir()
	buildStateDB(t, filepath.Join(root, "state.db"), 0, 0, false)
	coder := filepath.Join(root, "profiles", "coder")
	os.MkdirAll(coder, 0o755)
	buildStateDB(t, filepath.Join(coder, "state.db"), 1, 12, false)
	h := newHarness(t, coder, nil)
	if got := resultSessions(h.ok(map[string]any{"query": "ticket0"})); !slices.Equal(got, []string{"bulk_00000"}) {
		t.Errorf("own profile: %v", got)
	}
	if got := resultSessions(h.ok(map[string]any{"query": "ticket0", "profile": "default"})); len(got) != 0 {
		t.Errorf("default profile has no bulk sessions, got %v", got)
	}
	if got := resultSessions(newHarness(t, root, nil).ok(map[string]any{"query": "ticket0", "profile": "coder"})); len(got) != 1 {
		t.Errorf("cross-profile: %v", got)
	}
}

// TestReadOnlyWhileHermesWrites: the reader runs against a WAL database a
// writer keeps committing to; it never fails, never blocks the writer, and
// sees each committed message.
func TestReadOnlyWhileHermesWrites(t *testing.T) {
	home := fixtureHome(t, true)
	path := filepath.Join(home, "state.db")
	writer, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	writer.SetMaxOpenConns(1)
	h := newHarness(t, home, nil)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			_, err := writer.Exec(`INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'user', ?, ?)`,
				toolID, fmt.Sprintf("live message %d about quokka%d", i, i), baseTime+float64(i))
			if err != nil {
				writeErr = err
				return
			}
		}
	}()
	deadline := time.Now().Add(500 * time.Millisecond)
	for n := 0; time.Now().Before(deadline); n++ {
		h.ok(map[string]any{"query": "billing"})
		h.ok(map[string]any{"session_id": toolID})
	}
	close(stop)
	wg.Wait()
	if writeErr != nil {
		t.Fatalf("the writer failed while reads ran: %v", writeErr)
	}
	var last int
	writer.QueryRow("SELECT count(*) FROM messages WHERE content LIKE 'live message %'").Scan(&last)
	if last == 0 {
		t.Fatal("the writer made no progress while reads ran")
	}
	if got := resultSessions(h.ok(map[string]any{"query": fmt.Sprintf("quokka%d", last-1), "role_filter": "user"})); !slices.Equal(got, []string{toolID}) {
		t.Errorf("latest committed message not found: %v", got)
	}
}

func TestNeverWrites(t *testing.T) {
	home := fixtureHome(t, false)
	path := filepath.Join(home, "state.db")
	before := fileSum(t, path)
	h := newHarness(t, home, nil)
	for _, args := range []map[string]any{{}, {"query": "billing"}, {"session_id": deployID}, {"session_id": deployID, "around_message_id": 3}} {
		h.ok(args)
	}
	if fileSum(t, path) != before {
		t.Error("state.db changed")
	}
	if entries, _ := os.ReadDir(home); len(entries) != 1 {
		t.Errorf("reading left files behind: %v", entries)
	}
}

func TestSchemaChecks(t *testing.T) {
	tests := []struct {
		name  string
		build func(t *testing.T, path string)
		want  string
		kind  sqlitestore.Kind
	}{
		{"older", func(t *testing.T, path string) {
			buildStateDB(t, path, 0, 0, false)
			execOn(t, path, "UPDATE schema_version SET version = 15")
		}, "schema version 15, older than 16", sqlitestore.Schema},
		{"missing column", func(t *testing.T, path string) {
			execOn(t, path, strings.Replace(statetest.OursV16DDL(), "    tool_name TEXT,\n", "", 1))
		}, "messages lacks column(s) tool_name", sqlitestore.Schema},
		{"foreign", func(t *testing.T, path string) {
			buildStateDB(t, path, 0, 0, false)
			execOn(t, path, "DROP TABLE schema_version")
		}, "not a Hermes state database", sqlitestore.Schema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, "state.db")
			tt.build(t, path)
			_, _, err := newHarness(t, home, nil).callErr(map[string]any{"query": "billing"})
			if !sqlitestore.IsKind(err, tt.kind) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	t.Run("damaged", func(t *testing.T) {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "state.db"), bytes.Repeat([]byte("not sqlite "), 500), 0o644)
		_, _, err := newHarness(t, home, nil).callErr(map[string]any{})
		if !sqlitestore.IsKind(err, sqlitestore.Corrupt) {
			t.Errorf("err = %v", err)
		}
	})
}

func execOn(t *testing.T, path, q string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
}

func fileSum(t *testing.T, p string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(data)
}
