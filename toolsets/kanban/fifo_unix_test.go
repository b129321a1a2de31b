//go:build unix

package kanban_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/kanban"
)

// TestFIFOBoardRefusedAndServerExits runs the real server on a home whose
// kanban.db is a FIFO: SQLite would block opening it, hanging the call and
// then the server's exit. The call must be refused, naming the file, and
// closing stdin must still end the server. The deadlines are generous: they
// only tell a hang from a slow machine.
func TestFIFOBoardRefusedAndServerExits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server process")
	}
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "toolsets: [hermes-cli, kanban]\n")
	board := filepath.Join(home, "kanban.db")
	if err := syscall.Mkfifo(board, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, "orchestrator", home, nil)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"kanban_show", map[string]any{"task_id": "t_00000000"}},
		{"kanban_create", map[string]any{"title": "x", "assignee": "y"}},
	} {
		res, err := srv.c.CallTool(call.tool, call.args)
		if err != nil {
			t.Fatalf("%s on a FIFO board: %v (the call hung or the server died)", call.tool, err)
		}
		if !res.IsError || !contains(res.Text(), board+" is a FIFO (named pipe), not a regular file") || !contains(res.Text(), "move "+board+" aside") {
			t.Fatalf("%s on a FIFO board: want a refusal naming %s, got %+v", call.tool, board, res)
		}
	}
	if err := srv.c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	if err := srv.c.Wait(time.Minute); err != nil {
		t.Fatalf("server after EOF: %v", err)
	}
}

// mkfifo makes a FIFO at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFIFOCurrentBoardDoesNotBlock: a FIFO at <root>/kanban/current (which
// names the current board) is passed over at once, as an unreadable file,
// instead of blocking every call that resolves the board.
func TestFIFOCurrentBoardDoesNotBlock(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "kanban"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(home, "kanban", "current"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		ref, _ := kanban.ResolveBoard(home, "", func(string) string { return "" })
		done <- ref.Path
	}()
	select {
	case got := <-done:
		if want := filepath.Join(home, "kanban.db"); got != want {
			t.Errorf("board %s, want the default %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("resolving the board blocked on a FIFO at kanban/current")
	}
}
