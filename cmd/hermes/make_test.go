package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeRunStdoutIsProtocol runs `make run` as a user (or an MCP client
// configured with it) does: its stdout must carry nothing but the MCP
// protocol, since make's own chatter there would corrupt the stream.
// stdin /dev/null must give an empty stdout; one initialize request must
// give exactly one JSON-RPC response line.
func TestMakeRunStdoutIsProtocol(t *testing.T) {
	mk, err := exec.LookPath("make")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("make not found: %v", err)
		}
		t.Skipf("make not found (%v): install GNU make to check `make run`", err)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"make-run-test","version":"1"}}}` + "\n"
	for _, tc := range []struct {
		name, stdin string
		wantLines   int
	}{
		{"stdin /dev/null", "", 0},
		{"one initialize", initialize, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(mk, "run")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "HERMES_HOME="+t.TempDir(), "MAKEFLAGS=", "MAKELEVEL=")
			cmd.Stdin = strings.NewReader(tc.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("make run: %v\nstderr:\n%s", err, stderr.String())
			}
			sc := bufio.NewScanner(&stdout)
			lines := 0
			for sc.Scan() {
				lines++
				var msg struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
				}
				if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
					t.Errorf("stdout line %d is not JSON-RPC: %q", lines, sc.Text())
				}
			}
			if lines != tc.wantLines {
				t.Errorf("%d stdout lines, want %d:\n%s", lines, tc.wantLines, stdout.String())
			}
			if !strings.Contains(stderr.String(), "serving MCP on stdio") {
				t.Errorf("the banner is not on stderr: %q", stderr.String())
			}
		})
	}
}
