package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The worker is a child of the real server: started by the first call to
// one of its tools, answering it, and gone when the server is, whether the
// server exits cleanly (stdin closed) or is killed.
func TestWorkerLivesAndDiesWithTheServer(t *testing.T) {
	for _, ending := range []string{"stdin closed", "SIGKILL"} {
		t.Run(ending, func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(serverBinary(t), "--hermes-home", home, "--toolsets", "todo,skills")
			cmd.Env = append(os.Environ(), "HERMES_SESSION_ID=worker-test")
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			outPipe, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			out := bufio.NewReader(outPipe)
			send := func(line string) {
				t.Helper()
				if _, err := io.WriteString(in, line+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			recv := func(id int) string {
				t.Helper()
				for {
					line, err := out.ReadString('\n')
					if err != nil {
						t.Fatalf("read: %v", err)
					}
					var m struct {
						ID *int `json:"id"`
					}
					if json.Unmarshal([]byte(line), &m) == nil && m.ID != nil && *m.ID == id {
						return line
					}
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			recv(1)
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			if kids := childrenOf(t, cmd.Process.Pid); len(kids) != 0 {
				t.Fatalf("a worker runs before any call needs it: %v", kids)
			}
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"todo","arguments":{"todos":[{"id":"1","content":"ship it","status":"in_progress"}]}}}`)
			if resp := recv(2); !strings.Contains(resp, "ship it") || strings.Contains(resp, `"isError":true`) {
				t.Fatalf("todo through the worker: %s", resp)
			}
			kids := childrenOf(t, cmd.Process.Pid)
			if len(kids) != 1 {
				t.Fatalf("want one worker child, got %v", kids)
			}
			worker := kids[0]
			if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", worker)); filepath.Base(exe) != "hermes-tools-worker" {
				t.Fatalf("child %d is %s", worker, exe)
			}
			// A second call reuses the same worker.
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"todo","arguments":{}}}`)
			if resp := recv(3); !strings.Contains(resp, "ship it") {
				t.Fatalf("the list did not persist: %s", resp)
			}
			if again := childrenOf(t, cmd.Process.Pid); len(again) != 1 || again[0] != worker {
				t.Fatalf("worker changed from %d to %v", worker, again)
			}
			switch ending {
			case "stdin closed":
				in.Close()
				if err := cmd.Wait(); err != nil {
					t.Fatalf("server exit: %v", err)
				}
			case "SIGKILL":
				cmd.Process.Kill()
				cmd.Wait()
			}
			deadline := time.Now().Add(10 * time.Second)
			for alive(worker) {
				if time.Now().After(deadline) {
					t.Fatalf("worker %d outlived the server (%s)", worker, ending)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// childrenOf lists the processes pid started, from every one of its
// threads (each thread lists the children it forked).
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if len(files) == 0 {
		t.Skip("needs Linux /proc/<pid>/task/*/children")
	}
	var out []int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited meanwhile
		}
		for _, field := range strings.Fields(string(data)) {
			var child int
			fmt.Sscan(field, &child)
			out = append(out, child)
		}
	}
	return out
}

// alive reports whether pid still exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return !strings.HasPrefix(strings.TrimSpace(rest), "Z")
}
