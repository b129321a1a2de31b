package skillsext_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/skillsext"
)

// wireClient speaks newline-delimited JSON-RPC to a real server and, unlike
// mcptest.Client, keeps the notifications it receives, in order with the
// responses.
type wireClient struct {
	t      *testing.T
	in     io.WriteCloser
	msgs   chan map[string]any
	nextID int
	mu     sync.Mutex
	notes  []string // notification methods seen so far
}

func startWire(t *testing.T, home string) *wireClient {
	t.Helper()
	cmd := exec.Command(toolsbuild.ServerBinary(t), "--toolsets", "skills")
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &wireClient{t: t, in: in, msgs: make(chan map[string]any, 64)}
	go func() {
		defer close(c.msgs)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var m map[string]any
				if json.Unmarshal(line, &m) == nil {
					c.msgs <- m
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	return c
}

// request sends a request and returns its result, recording every
// notification that arrives before the response.
func (c *wireClient) request(method string, params any) map[string]any {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("%s: server output ended", method)
			}
			if meth, ok := m["method"].(string); ok {
				if _, isReq := m["id"]; !isReq {
					c.mu.Lock()
					c.notes = append(c.notes, meth)
					c.mu.Unlock()
				}
				continue
			}
			if got, _ := m["id"].(float64); int(got) != id {
				continue
			}
			if e, ok := m["error"]; ok {
				c.t.Fatalf("%s: error %v", method, e)
			}
			res, _ := m["result"].(map[string]any)
			return res
		case <-timeout:
			c.t.Fatalf("%s: no response", method)
		}
	}
}

func (c *wireClient) notify(method string) {
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method})
	c.in.Write(append(line, '\n'))
}

func (c *wireClient) notifications() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.notes...)
}

// callTool returns a tools/call result's JSON text, decoded, and isError.
func (c *wireClient) callTool(name string, args map[string]any) (map[string]any, bool) {
	c.t.Helper()
	res := c.request("tools/call", map[string]any{"name": name, "arguments": args})
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		c.t.Fatalf("%s: no content: %v", name, res)
	}
	text, _ := content[0].(map[string]any)["text"].(string)
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		c.t.Fatalf("%s: result is not JSON: %q", name, text)
	}
	isErr, _ := res["isError"].(bool)
	return m, isErr
}

// TestSkillManageEndToEnd proves, through the real server binary, that a
// skill saved with skill_manage is visible in the same session at once:
// skills_list lists it, skill_view returns it, a SEP-2640 client is told
// the list changed and skills/list shows it.
func TestSkillManageEndToEnd(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := startWire(t, home)
	initRes := c.request("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "skill-manage-e2e", "version": "0"},
	})
	caps, _ := initRes["capabilities"].(map[string]any)
	if ext, _ := caps["extensions"].(map[string]any); ext[skillsext.ExtensionID] == nil {
		t.Fatalf("server does not declare %s: %v", skillsext.ExtensionID, caps)
	}
	c.notify("notifications/initialized")

	// Warm every cache first: the write must invalidate them, not a cold start.
	if got := c.request(skillsext.MethodSkillsList, map[string]any{}); len(got["skills"].([]any)) != 0 {
		t.Fatalf("skills/list before create: %v", got)
	}
	if m, _ := c.callTool("skills_list", map[string]any{}); len(m["skills"].([]any)) != 0 {
		t.Fatalf("skills_list before create: %v", m)
	}

	content := "---\nname: deploy-check\ndescription: Verify a deploy before announcing it.\n---\n1. Run the smoke test.\n2. Check the dashboard.\n"
	res, isErr := c.callTool("skill_manage", map[string]any{"action": "create", "name": "deploy-check", "category": "ops", "content": content})
	if isErr || res["success"] != true || res["path"] != "ops/deploy-check" {
		t.Fatalf("skill_manage create: %v", res)
	}
	const changed = "notifications/resources/list_changed"
	if n := strings.Count(strings.Join(c.notifications(), " "), changed); n != 1 {
		t.Errorf("before the create's response the client got %v, want one %s", c.notifications(), changed)
	}

	list, _ := c.callTool("skills_list", map[string]any{})
	found := false
	for _, s := range list["skills"].([]any) {
		if e := s.(map[string]any); e["name"] == "deploy-check" && e["category"] == "ops" && e["description"] == "Verify a deploy before announcing it." {
			found = true
		}
	}
	if !found {
		t.Errorf("skills_list after create: %v", list)
	}
	view, isErr := c.callTool("skill_view", map[string]any{"name": "deploy-check"})
	if isErr || view["content"] != content {
		t.Errorf("skill_view after create: %v", view)
	}
	ext := c.request(skillsext.MethodSkillsList, map[string]any{})
	var uris []string
	for _, s := range ext["skills"].([]any) {
		uris = append(uris, fmt.Sprint(s.(map[string]any)["uri"]))
	}
	if strings.Join(uris, " ") != "skill://ops/deploy-check/SKILL.md" {
		t.Errorf("skills/list after create: %v", uris)
	}

	// A refused call changes nothing and announces nothing.
	before := len(c.notifications())
	if m, isErr := c.callTool("skill_manage", map[string]any{"action": "create", "name": "Bad Name", "content": content}); !isErr || !strings.Contains(fmt.Sprint(m["error"]), "Invalid skill name") {
		t.Errorf("bad name: %v", m)
	}
	if got := len(c.notifications()); got != before {
		t.Errorf("a refused call sent %d notifications", got-before)
	}

	// Delete is announced and seen the same way.
	if m, isErr := c.callTool("skill_manage", map[string]any{"action": "delete", "name": "deploy-check"}); isErr {
		t.Fatalf("delete: %v", m)
	}
	if got := c.request(skillsext.MethodSkillsList, map[string]any{}); len(got["skills"].([]any)) != 0 {
		t.Errorf("skills/list after delete: %v", got)
	}
	if n := strings.Count(strings.Join(c.notifications(), " "), changed); n != 2 {
		t.Errorf("notifications after delete: %v, want two %s", c.notifications(), changed)
	}
}
