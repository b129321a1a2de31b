package toolsets_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

// TestOversizedArgumentsRefusedThroughTheServer calls every tool the real
// server lists with a megabyte for each string argument and a hundred
// thousand items for each array argument: each call is an isError result
// whose text is short and does not echo the value, and the server still
// exits when its input closes.
func TestOversizedArgumentsRefusedThroughTheServer(t *testing.T) {
	bin := toolsbuild.ServerBinary(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "--hermes-home", home, "--toolsets", "all")
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "HERMES_HOME=" + home}
	c := mcptest.Start(t, cmd)
	raw, err := c.Request("tools/list", map[string]any{}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema struct {
				Properties map[string]struct {
					Type      any `json:"type"`
					MaxLength int `json:"maxLength"`
					MaxItems  int `json:"maxItems"`
					Items     struct {
						Type any `json:"type"`
					} `json:"items"`
				} `json:"properties"`
			} `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) < 20 {
		t.Fatalf("the server lists only %d tools", len(list.Tools))
	}
	const mb = 1 << 20
	calls := 0
	for _, tl := range list.Tools {
		for name, p := range tl.InputSchema.Properties {
			var value any
			switch {
			case hasJSONType(p.Type, "string"):
				value = strings.Repeat("x", max(mb, p.MaxLength+1))
			case hasJSONType(p.Type, "array"):
				items := make([]any, max(100_000, p.MaxItems+1))
				for i := range items {
					if hasJSONType(p.Items.Type, "object") {
						items[i] = map[string]any{}
					} else {
						items[i] = "x"
					}
				}
				value = items
			default:
				continue
			}
			calls++
			start := time.Now()
			res, err := c.CallTool(tl.Name, map[string]any{name: value})
			if err != nil {
				t.Fatalf("%s(%s): %v", tl.Name, name, err)
			}
			text := res.Text()
			if !res.IsError {
				t.Errorf("%s(%s oversized): accepted", tl.Name, name)
			}
			if len(text) > 4096 || strings.Contains(text, strings.Repeat("x", 100)) {
				t.Errorf("%s(%s oversized): the error is %d bytes or echoes the value: %.300s", tl.Name, name, len(text), text)
			}
			t.Logf("%s(%s): %v: %.200s", tl.Name, name, time.Since(start), text)
		}
	}
	if calls < 30 {
		t.Errorf("only %d arguments tried", calls)
	}
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(30 * time.Second); err != nil {
		t.Errorf("server after EOF: %v", err)
	}
}

func hasJSONType(t any, want string) bool {
	switch x := t.(type) {
	case string:
		return x == want
	case []any:
		for _, e := range x {
			if e == want {
				return true
			}
		}
	}
	return false
}
