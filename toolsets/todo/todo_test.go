package todo_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	_ "modernc.org/sqlite"

	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets/todo"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// childEnv marks a re-executed test binary that makes one todo call, as a
// separate MCP server process would, and prints the result.
const childEnv = "TODO_TEST_CALL"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		ts := todo.Toolset(todo.Options{Home: os.Getenv("HERMES_HOME")})
		res, err := ts.Tools[0].Handler(context.Background(), json.RawMessage(args))
		if err != nil || res.IsError {
			fmt.Fprintln(os.Stderr, err, res.Value)
			os.Exit(1)
		}
		json.NewEncoder(os.Stdout).Encode(res.Value)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

type harness struct {
	t    *testing.T
	tool tooldef.Tool
	out  *jsonschema.Schema
	env  map[string]string
}

func newHarness(t *testing.T, home string, env map[string]string) *harness {
	t.Helper()
	ts := todo.Toolset(todo.Options{Home: home, Getenv: func(k string) string { return env[k] }})
	if ts.Default || ts.Name != "todo" || len(ts.EnvVars) != 1 {
		t.Fatalf("toolset = %+v", ts)
	}
	doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(ts.Tools[0].OutputSchema))
	c := jsonschema.NewCompiler()
	c.AddResource("mem:///o.json", doc)
	s, err := c.Compile("mem:///o.json")
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, tool: ts.Tools[0], out: s, env: env}
}

func (h *harness) call(args any) (map[string]any, bool) {
	h.t.Helper()
	raw, _ := json.Marshal(args)
	res, err := h.tool.Handler(context.Background(), raw)
	if err != nil {
		h.t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(res.Value)
	var m map[string]any
	json.Unmarshal(b, &m)
	if !res.IsError {
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err := h.out.Validate(inst); err != nil {
			h.t.Fatalf("%s: result violates the output schema: %v\n%s", raw, err, b)
		}
	}
	return m, res.IsError
}

// list renders a result's todos as "id:status:content" for comparison.
func list(m map[string]any) string {
	var parts []string
	for _, it := range m["todos"].([]any) {
		x := it.(map[string]any)
		parts = append(parts, fmt.Sprintf("%s:%s:%s", x["id"], x["status"], x["content"]))
	}
	return strings.Join(parts, " | ")
}

func item(id, content, status string) map[string]any {
	return map[string]any{"id": id, "content": content, "status": status}
}

func TestTodoCalls(t *testing.T) {
	home := t.TempDir()
	h := newHarness(t, home, map[string]string{"HERMES_SESSION_ID": "s1"})
	steps := []struct {
		name    string
		args    map[string]any
		want    string
		summary map[string]float64
		wantErr string
	}{
		{name: "read empty", args: map[string]any{}, want: "", summary: map[string]float64{"total": 0}},
		{name: "replace", args: map[string]any{"todos": []any{item("1", "Read the spec", "in_progress"), item("2", "Write code", "pending")}},
			want: "1:in_progress:Read the spec | 2:pending:Write code", summary: map[string]float64{"total": 2, "in_progress": 1, "pending": 1}},
		{name: "merge updates and appends", args: map[string]any{"merge": true, "todos": []any{item("1", "Read the spec", "completed"), item("3", "Test", "pending")}},
			want: "1:completed:Read the spec | 2:pending:Write code | 3:pending:Test", summary: map[string]float64{"total": 3, "completed": 1, "pending": 2}},
		{name: "read back", args: map[string]any{}, want: "1:completed:Read the spec | 2:pending:Write code | 3:pending:Test"},
		{name: "replace with duplicate ids keeps the last", args: map[string]any{"todos": []any{item("a", "first", "pending"), item("b", "x", "cancelled"), item("a", "second", "in_progress")}},
			want: "a:in_progress:second | b:cancelled:x", summary: map[string]float64{"total": 2, "cancelled": 1, "in_progress": 1}},
		{name: "other session is separate", args: map[string]any{"session_id": "s2"}, want: ""},
		{name: "blank text gets placeholders", args: map[string]any{"session_id": "s3", "todos": []any{item(" ", "  ", "pending")}}, want: "?:pending:(no description)"},
		{name: "bad session id", args: map[string]any{"session_id": "has space"}, wantErr: "session_id must be"},
	}
	for _, st := range steps {
		m, isErr := h.call(st.args)
		if st.wantErr != "" {
			if !isErr || !strings.Contains(m["error"].(string), st.wantErr) {
				t.Errorf("%s: %v", st.name, m)
			}
			continue
		}
		if isErr {
			t.Fatalf("%s: %v", st.name, m)
		}
		if got := list(m); got != st.want {
			t.Errorf("%s: list = %q, want %q", st.name, got, st.want)
		}
		sum := m["summary"].(map[string]any)
		for k, v := range st.summary {
			if sum[k] != v {
				t.Errorf("%s: summary[%s] = %v, want %v", st.name, k, sum[k], v)
			}
		}
	}
}

func TestLimits(t *testing.T) {
	h := newHarness(t, t.TempDir(), nil)
	long := strings.Repeat("é", 5000)
	m, _ := h.call(map[string]any{"todos": []any{item("1", long, "pending")}})
	if got := m["todos"].([]any)[0].(map[string]any)["content"].(string); len([]rune(got)) != todo.MaxContentChar {
		t.Errorf("content kept %d characters", len([]rune(got)))
	}
	if _, named := m["session_id"]; named {
		t.Errorf("the connection's own list reported session_id %v", m["session_id"])
	}
	var many []any
	for i := 0; i <= todo.MaxItems; i++ {
		many = append(many, item(fmt.Sprint(i), "x", "pending"))
	}
	m, isErr := h.call(map[string]any{"todos": many})
	if !isErr || !strings.Contains(m["error"].(string), "at most 256") {
		t.Fatalf("too many items: %v", m)
	}
	if m, _ := h.call(map[string]any{}); list(m) != "1:pending:"+long[:2*todo.MaxContentChar] {
		t.Error("a refused write changed the list")
	}
}

// A list written by one server process is there for the next.
func TestSurvivesRestart(t *testing.T) {
	home := t.TempDir()
	exe, _ := os.Executable()
	run := func(args string) string {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = []string{childEnv + "=" + args, "HERMES_HOME=" + home, "HERMES_SESSION_ID=codex-42"}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("child %s: %v", args, err)
		}
		return out.String()
	}
	run(`{"todos":[{"id":"1","content":"Plan","status":"completed"},{"id":"2","content":"Build","status":"in_progress"}]}`)
	run(`{"merge":true,"todos":[{"id":"3","content":"Ship","status":"pending"}]}`)
	got := newHarness(t, home, map[string]string{"HERMES_SESSION_ID": "codex-42"})
	m, _ := got.call(map[string]any{})
	if list(m) != "1:completed:Plan | 2:in_progress:Build | 3:pending:Ship" {
		t.Errorf("after restart: %s", list(m))
	}
	// Concurrent merges from two processes both land.
	var wg sync.WaitGroup
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				run(fmt.Sprintf(`{"merge":true,"todos":[{"id":"p%d-%d","content":"x","status":"pending"}]}`, p, i))
			}
		}(p)
	}
	wg.Wait()
	m, _ = got.call(map[string]any{})
	if n := len(m["todos"].([]any)); n != 13 {
		t.Errorf("after concurrent merges: %d items, want 13", n)
	}
}

func TestStoreFile(t *testing.T) {
	t.Run("reading creates nothing", func(t *testing.T) {
		home := t.TempDir()
		newHarness(t, home, nil).call(map[string]any{})
		if entries, _ := os.ReadDir(home); len(entries) != 0 {
			t.Errorf("read created %v", entries)
		}
	})
	for _, tc := range []struct {
		name, ddl, want string
	}{
		{"newer", "CREATE TABLE todo_lists (session_id TEXT PRIMARY KEY, items TEXT NOT NULL, updated_at REAL NOT NULL); PRAGMA user_version = 2", "schema version 2 is newer"},
		{"foreign", "CREATE TABLE t (a)", "not a hermes-tools todo database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path := todo.DBPath(home)
			os.MkdirAll(filepath.Dir(path), 0o755)
			db, _ := sql.Open("sqlite", path)
			if _, err := db.Exec(tc.ddl); err != nil {
				t.Fatal(err)
			}
			db.Close()
			tool := todo.Toolset(todo.Options{Home: home}).Tools[0]
			for _, args := range []string{`{"session_id":"s"}`, `{"session_id":"s","todos":[]}`} {
				_, err := tool.Handler(context.Background(), json.RawMessage(args))
				if !sqlitestore.IsKind(err, sqlitestore.Schema) || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: err = %v, want %q", args, err, tc.want)
				}
			}
		})
	}
}

// A call that names no session gets its own MCP session's list: never one
// shared with another session or another server process, never written to
// the Hermes home, and gone once the session ends.
func TestUnnamedListIsPerSession(t *testing.T) {
	home := t.TempDir()
	tool := todo.Toolset(todo.Options{Home: home, Getenv: func(string) string { return "" }}).Tools[0]
	other := todo.Toolset(todo.Options{Home: home, Getenv: func(string) string { return "" }}).Tools[0]
	a, b := sessionstate.New("a"), sessionstate.New("b")
	ctxA := sessionstate.NewContext(context.Background(), a)
	ctxB := sessionstate.NewContext(context.Background(), b)
	call := func(tl tooldef.Tool, ctx context.Context, args string) (map[string]any, error) {
		res, err := tl.Handler(ctx, json.RawMessage(args))
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res.Value)
		var m map[string]any
		json.Unmarshal(b, &m)
		return m, nil
	}
	write := `{"todos":[{"id":"1","content":"mine","status":"pending"}]}`
	for _, tc := range []struct {
		name string
		tool tooldef.Tool
		ctx  context.Context
		args string
		want string
	}{
		{"session a writes", tool, ctxA, write, "1:pending:mine"},
		{"session a reads its list", tool, ctxA, `{}`, "1:pending:mine"},
		{"session b has its own", tool, ctxB, `{}`, ""},
		{"no session: the process list is empty", tool, context.Background(), `{}`, ""},
		{"process list write", tool, context.Background(), write, "1:pending:mine"},
		{"another server process has its own", other, context.Background(), `{}`, ""},
		{"a named session is separate", tool, ctxA, `{"session_id":"named"}`, ""},
	} {
		m, err := call(tc.tool, tc.ctx, tc.args)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := list(m); got != tc.want {
			t.Errorf("%s: list = %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := os.Stat(todo.DBPath(home)); !os.IsNotExist(err) {
		t.Errorf("unnamed lists touched the store: %v", err)
	}
	a.Close()
	if _, err := call(tool, ctxA, `{}`); !errors.Is(err, sessionstate.ErrClosed) {
		t.Errorf("call after the session ended: err = %v, want ErrClosed", err)
	}
}

// Items nest under a parent id, as the original's todo_list allows; a
// parent naming no item, the item itself, or closing a cycle is dropped,
// and the nesting survives a merge that does not touch it and is saved
// with a named session.
func TestParents(t *testing.T) {
	h := newHarness(t, t.TempDir(), nil)
	out, isErr := h.call(map[string]any{"session_id": "s1", "todos": []any{
		map[string]any{"id": "a", "content": "phase", "status": "in_progress"},
		map[string]any{"id": "b", "content": "step", "status": "pending", "parent": "a"},
		map[string]any{"id": "c", "content": "orphan", "status": "pending", "parent": "nope"},
		map[string]any{"id": "d", "content": "loop 1", "status": "pending", "parent": "e"},
		map[string]any{"id": "e", "content": "loop 2", "status": "pending", "parent": "d"},
		map[string]any{"id": "f", "content": "self", "status": "pending", "parent": "f"},
	}})
	if isErr {
		t.Fatalf("write: %v", out)
	}
	parents := func(out map[string]any) map[string]any {
		m := map[string]any{}
		for _, it := range out["todos"].([]any) {
			item := it.(map[string]any)
			m[item["id"].(string)] = item["parent"]
		}
		return m
	}
	got := parents(out)
	if got["b"] != "a" || got["c"] != nil || got["f"] != nil || (got["d"] != nil && got["e"] != nil) {
		t.Errorf("parents = %v", got)
	}
	out, _ = h.call(map[string]any{"session_id": "s1", "merge": true, "todos": []any{map[string]any{"id": "b", "status": "completed"}}})
	if got := parents(out); got["b"] != "a" {
		t.Errorf("merge lost the parent: %v", got)
	}
	out, _ = h.call(map[string]any{"session_id": "s1"})
	if got := parents(out); got["b"] != "a" {
		t.Errorf("saved list lost the parent: %v", got)
	}
}
