package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

// A model that calls a tool the server hides learns why and what turns it
// on, from the error its client receives: a toolset that is off names the
// config key and the flag, a tool waiting for a key names the variable, a
// typo names the tool it meant.
func TestCallingAHiddenToolSaysWhy(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(toolsbuild.ServerBinary(t), "--hermes-home", home, "--toolsets", "skills,image_gen")
	// No provider keys: image_generate is declared but hidden.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	c := mcptest.Start(t, cmd)
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"todo_list", []string{"tool 'todo_list' not found", "todo_list is hidden", `toolset "todo" is not enabled`, "hermes_tools.toolsets", "--toolsets default,todo"}},
		{"image_generate", []string{"image_generate is hidden", "FAL_KEY"}},
		{"skill_veiw", []string{`did you mean "skill_view"?`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.CallTool(tc.name, map[string]any{})
			var rpc *mcptest.RPCError
			if !errors.As(err, &rpc) || rpc.Code != -32602 {
				t.Fatalf("calling %s: %v; want a -32602 error", tc.name, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(rpc.Message, w) {
					t.Errorf("error %q does not say %q", rpc.Message, w)
				}
			}
		})
	}
}
