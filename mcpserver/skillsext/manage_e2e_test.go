package skillsext_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/mcpserver/skillsext"
)

// wireClient is the project's test client (mcptest.Client) with the
// helpers this file's assertions read best with.
type wireClient struct {
	t *testing.T
	c *mcptest.Client
}

func startWire(t *testing.T, home string) *wireClient {
	t.Helper()
	cmd := exec.Command(toolsbuild.ServerBinary(t), "--toolsets", "skills")
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	c, err := mcptest.Launch(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", c.Stderr())
		}
	})
	return &wireClient{t: t, c: c}
}

// request sends a request and returns its result.
func (w *wireClient) request(method string, params any) map[string]any {
	w.t.Helper()
	raw, err := w.c.Request(method, params, 60*time.Second)
	if err != nil {
		w.t.Fatalf("%s: %v", method, err)
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil {
		w.t.Fatalf("%s: result is not an object: %s", method, raw)
	}
	return res
}

func (w *wireClient) notify(method string) {
	if err := w.c.Notify(method, nil); err != nil {
		w.t.Fatalf("%s: %v", method, err)
	}
}

// notifications are the methods of the notifications received so far.
func (w *wireClient) notifications() []string {
	var out []string
	for _, n := range w.c.Notifications() {
		out = append(out, n.Method)
	}
	return out
}

// callTool returns a tools/call result's JSON text, decoded, and isError.
func (w *wireClient) callTool(name string, args map[string]any) (map[string]any, bool) {
	w.t.Helper()
	res, err := w.c.CallTool(name, args)
	if err != nil {
		w.t.Fatalf("%s: %v", name, err)
	}
	m := res.JSON()
	if m == nil {
		w.t.Fatalf("%s: result is not JSON: %q", name, res.Text())
	}
	return m, res.IsError
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
