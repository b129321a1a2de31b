//go:build unix

package sessions_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/sessions"
)

// TestFIFOStateDBRefusedAndServerExits runs the real server on a home
// whose state.db is a FIFO, which SQLite would block on forever. The search
// must be refused naming the file, and EOF on stdin must still end the
// server. The deadlines only tell a hang from a slow machine.
func TestFIFOStateDBRefusedAndServerExits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	home := t.TempDir()
	state := filepath.Join(home, "state.db")
	if err := syscall.Mkfifo(state, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(toolsbuild.ServerBinary(t), "--toolsets", sessions.ToolsetName)
	cmd.Env = []string{"HERMES_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	c := mcptest.Start(t, cmd)
	for _, args := range []map[string]any{{"query": "deploy"}, {}} {
		res, err := c.CallTool(sessions.ToolsetName, args)
		if err != nil {
			t.Fatalf("session_search %v on a FIFO state.db: %v (the call hung or the server died)", args, err)
		}
		if !res.IsError || !strings.Contains(res.Text(), state+" is a FIFO (named pipe), not a regular file") {
			t.Fatalf("session_search %v on a FIFO state.db: want a refusal naming %s, got %+v", args, state, res)
		}
	}
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	if err := c.Wait(time.Minute); err != nil {
		t.Fatalf("server after EOF: %v", err)
	}
}

// TestNonRegularStateDB refuses a state.db that is a directory or a
// device, in process, with the path in the message.
func TestNonRegularStateDB(t *testing.T) {
	for name, setup := range map[string]func(t *testing.T, state string){
		"directory": func(t *testing.T, state string) {
			if err := os.Mkdir(state, 0o755); err != nil {
				t.Fatal(err)
			}
		},
		"symlink to device": func(t *testing.T, state string) {
			if err := os.Symlink(os.DevNull, state); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			state := filepath.Join(home, "state.db")
			setup(t, state)
			_, _, err := newHarness(t, home, nil).callErr(map[string]any{"query": "x"})
			if err == nil || !strings.Contains(err.Error(), state+" is a") || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("err = %v, want a refusal naming %s", err, state)
			}
		})
	}
}
