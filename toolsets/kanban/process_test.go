package kanban_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/kanban"
)

// mcpProcess is one real hermes-tools-mcp serving the kanban toolset, as a
// dispatcher's worker or an orchestrator runs it.
type mcpProcess struct {
	t    *testing.T
	name string
	c    *mcptest.Client
}

func startServer(t *testing.T, name, home string, env map[string]string) *mcpProcess {
	t.Helper()
	cmd := exec.Command(toolsbuild.ServerBinary(t), "--toolsets", kanban.ToolsetName)
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stderr = &testWriter{t: t, prefix: name + ": "}
	return &mcpProcess{t: t, name: name, c: mcptest.Start(t, cmd)}
}

func (p *mcpProcess) tools() []string {
	p.t.Helper()
	names, err := p.c.ToolNames()
	if err != nil {
		p.t.Fatalf("%s: %v", p.name, err)
	}
	slices.Sort(names)
	return names
}

func (p *mcpProcess) call(tool string, args map[string]any) (map[string]any, bool) {
	p.t.Helper()
	res := p.c.MustCall(p.t, tool, args)
	m := res.JSON()
	if m == nil {
		p.t.Fatalf("%s %s: result is not JSON: %+v", p.name, tool, res)
	}
	return m, res.IsError
}

func (p *mcpProcess) ok(tool string, args map[string]any) map[string]any {
	p.t.Helper()
	m, isErr := p.call(tool, args)
	if isErr {
		p.t.Fatalf("%s %s %v: %v", p.name, tool, args, m)
	}
	return m
}

func (p *mcpProcess) fail(tool string, args map[string]any) string {
	p.t.Helper()
	m, isErr := p.call(tool, args)
	if !isErr {
		p.t.Fatalf("%s %s %v: expected a refusal, got %v", p.name, tool, args, m)
	}
	s, _ := m["error"].(string)
	return s
}

// testWriter logs a server's stderr through the test, so it shows with the
// failure it explains.
type testWriter struct {
	t      *testing.T
	prefix string
}

func (w *testWriter) Write(b []byte) (int, error) {
	w.t.Log(w.prefix + string(b))
	return len(b), nil
}

// TestTwoServersAndADispatcher runs an orchestrator server and a worker
// server as separate processes on one kanban.db, with the test writing
// claims the way the Hermes dispatcher does.
func TestTwoServersAndADispatcher(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "toolsets: [hermes-cli, kanban]\n")
	ctx := context.Background()

	orch := startServer(t, "orchestrator", home, map[string]string{"HERMES_PROFILE": "techlead"})
	if got := orch.tools(); len(got) != 14 {
		t.Fatalf("orchestrator sees %d tools: %v", len(got), got)
	}
	parent := orch.ok("kanban_create", map[string]any{"title": "Collect data", "assignee": "researcher"})["task_id"].(string)
	child := orch.ok("kanban_create", map[string]any{"title": "Write report", "assignee": "writer", "parents": []string{parent}})["task_id"].(string)
	if msg := orch.fail("kanban_link", map[string]any{"parent_id": child, "child_id": parent}); !contains(msg, "would create a cycle") {
		t.Fatalf("cycle: %s", msg)
	}

	// The dispatcher claims the parent and spawns its worker.
	dispatcher := openBoard(t, filepath.Join(home, "kanban.db"))
	claimed, err := dispatcher.ClaimTask(ctx, parent, "dispatch-host:777", time.Minute)
	if err != nil || claimed == nil {
		t.Fatalf("dispatcher claim: %v", err)
	}
	worker := startServer(t, "worker", home, map[string]string{
		"HERMES_KANBAN_TASK": parent, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(*claimed.CurrentRunID, 10),
		"HERMES_KANBAN_CLAIM_LOCK": "dispatch-host:777", "HERMES_PROFILE": "researcher",
	})
	got := worker.tools()
	if slices.Contains(got, "kanban_list") || slices.Contains(got, "kanban_unblock") || len(got) != 12 {
		t.Fatalf("worker tools = %v", got)
	}
	if msg := worker.fail("kanban_complete", map[string]any{"task_id": child, "summary": "not mine"}); !contains(msg, "worker is scoped to task "+parent) {
		t.Fatalf("foreign task: %s", msg)
	}

	// Both processes write at once: the orchestrator fans out while the
	// worker heartbeats and comments.
	const n = 15
	var wg sync.WaitGroup
	var created []string
	var mu sync.Mutex
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < n; i++ {
			m, isErr := orch.call("kanban_create", map[string]any{"title": fmt.Sprintf("Fan-out %d", i), "assignee": "helper", "parents": []string{parent}})
			if isErr {
				t.Errorf("create %d: %v", i, m)
				return
			}
			mu.Lock()
			created = append(created, m["task_id"].(string))
			mu.Unlock()
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < n; i++ {
			if m, isErr := worker.call("kanban_heartbeat", map[string]any{"note": fmt.Sprintf("step %d", i)}); isErr {
				t.Errorf("heartbeat %d: %v", i, m)
				return
			}
			if m, isErr := worker.call("kanban_comment", map[string]any{"task_id": child, "body": fmt.Sprintf("finding %d", i)}); isErr {
				t.Errorf("comment %d: %v", i, m)
				return
			}
		}
	}()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	comments, err := dispatcher.Comments(ctx, child)
	if err != nil || len(comments) != n {
		t.Fatalf("comments = %d, %v", len(comments), err)
	}
	kinds := eventKinds(t, dispatcher, parent)
	if hb := countOf(kinds, "heartbeat"); hb != n {
		t.Errorf("heartbeat events = %d, want %d", hb, n)
	}

	worker.ok("kanban_block", map[string]any{"reason": "Which date range?"})
	if task := mustTask(t, dispatcher, parent); task.Status != "blocked" || task.ClaimLock != nil {
		t.Fatalf("after block: %+v", task)
	}
	if got := orch.ok("kanban_unblock", map[string]any{"task_id": parent}); got["status"] != "ready" {
		t.Fatalf("unblock = %v", got)
	}
	again, err := dispatcher.ClaimTask(ctx, parent, "dispatch-host:778", time.Minute)
	if err != nil || again == nil {
		t.Fatalf("re-claim: %v", err)
	}
	// The first worker belongs to the closed run and cannot complete.
	if msg := worker.fail("kanban_complete", map[string]any{"summary": "late"}); !contains(msg, "could not complete") {
		t.Fatalf("stale worker: %s", msg)
	}
	worker2 := startServer(t, "worker-2", home, map[string]string{
		"HERMES_KANBAN_TASK": parent, "HERMES_KANBAN_RUN_ID": strconv.FormatInt(*again.CurrentRunID, 10),
		"HERMES_KANBAN_CLAIM_LOCK": "dispatch-host:778", "HERMES_PROFILE": "researcher",
	})
	worker2.ok("kanban_heartbeat", map[string]any{})
	res := worker2.ok("kanban_complete", map[string]any{"summary": "Collected 2019-2024.", "metadata": map[string]any{"rows": 1200}})
	if res["run_id"] != float64(*again.CurrentRunID) {
		t.Errorf("complete = %v", res)
	}
	listed := orch.ok("kanban_list", map[string]any{"status": "ready", "limit": 200})
	if listed["count"] != float64(n+1) {
		t.Errorf("ready after completion = %v, want the child and %d fan-outs", listed["count"], n)
	}
	shown := orch.ok("kanban_show", map[string]any{"task_id": parent})
	if shown["task"].(map[string]any)["status"] != "done" || len(shown["runs"].([]any)) != 2 {
		t.Errorf("show = %v", shown["task"])
	}
}

func countOf(list []string, s string) int {
	n := 0
	for _, v := range list {
		if v == s {
			n++
		}
	}
	return n
}
