package mcpserver_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

// Saved memory reaches every new MCP session: the instructions carry the
// snapshot read at initialize; what a session saves shows in the next
// session's instructions, not in its own (the snapshot is frozen, as
// Hermes' system prompt is).
func TestMemoryReachesNewSessions(t *testing.T) {
	bin := toolsbuild.ServerBinary(t)
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "memories"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "memories", "MEMORY.md"), []byte("The project builds with make.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	session := func() (*mcptest.Client, string) {
		c := mcptest.Start(t, exec.Command(bin, "--hermes-home", home, "--toolsets", "memory"))
		raw, err := c.Initialize("2025-06-18", 30*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Instructions string `json:"instructions"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		return c, res.Instructions
	}
	first, instr := session()
	if !strings.Contains(instr, "MEMORY (your personal notes)") || !strings.Contains(instr, "The project builds with make.") {
		t.Fatalf("first session's instructions lack the saved memory:\n%s", instr)
	}
	if strings.Contains(instr, "USER PROFILE") {
		t.Errorf("an empty user profile got a block:\n%s", instr)
	}
	res := first.MustCall(t, "memory", map[string]any{"action": "add", "target": "user", "content": "Prefers answers in French."})
	if res.IsError {
		t.Fatalf("memory add: %s", res.Text())
	}
	_, next := session()
	for _, want := range []string{"The project builds with make.", "USER PROFILE (who the user is)", "Prefers answers in French."} {
		if !strings.Contains(next, want) {
			t.Errorf("the next session's instructions lack %q:\n%s", want, next)
		}
	}
	// Without the memory toolset there is nothing to say about memory.
	c := mcptest.Start(t, exec.Command(bin, "--hermes-home", home, "--toolsets", "todo"))
	raw, err := c.Initialize("2025-06-18", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "French") {
		t.Errorf("memory shown with the memory toolset off: %s", raw)
	}
}
