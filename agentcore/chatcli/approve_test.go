package chatcli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/bridge"
)

func TestApprover(t *testing.T) {
	cmdReq := bridge.ApprovalRequest{Kind: bridge.ApproveCommand, Command: "/bin/bash -lc 'echo hello > foo.txt'", Cwd: "/work/x"}
	patchReq := bridge.ApprovalRequest{Kind: bridge.ApproveFileChange, Command: "apply_patch: 1 add, 1 update", Changes: "1 add, 1 update: /tmp/new.py, /tmp/old.py", GrantRoot: "/tmp"}
	tests := []struct {
		name    string
		tty     bool
		allow   bool
		input   string
		req     bridge.ApprovalRequest
		want    bridge.Decision
		wantOut []string
	}{
		{name: "no tty denies", req: cmdReq, want: bridge.DecisionDeny, wantOut: []string{"denied", "--yes-commands"}},
		{name: "no tty with flag allows once", allow: true, req: cmdReq, want: bridge.DecisionOnce, wantOut: []string{"allowed (--yes-commands)"}},
		{name: "tty once", tty: true, input: "1\n", req: cmdReq, want: bridge.DecisionOnce,
			wantOut: []string{"Dangerous Command", "echo hello > foo.txt", "1. Allow once", "2. Allow for this session", "3. Deny", "/work/x"}},
		{name: "tty session", tty: true, input: "session\n", req: cmdReq, want: bridge.DecisionSession},
		{name: "tty re-asks then denies", tty: true, input: "maybe\n3\n", req: cmdReq, want: bridge.DecisionDeny, wantOut: []string{"Please answer"}},
		{name: "tty eof denies", tty: true, input: "", req: cmdReq, want: bridge.DecisionDeny},
		{name: "tty flag still asks", tty: true, allow: true, input: "3\n", req: cmdReq, want: bridge.DecisionDeny},
		{name: "patch summary", tty: true, input: "1\n", req: patchReq, want: bridge.DecisionOnce,
			wantOut: []string{"File Change", "1 add, 1 update: /tmp/new.py, /tmp/old.py", "write access to /tmp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			ls := &lineSource{r: strings.NewReader(tt.input), stop: make(chan struct{})}
			defer close(ls.stop)
			a := &approver{out: &out, lines: ls, tty: tt.tty, allowNoTTY: tt.allow}
			got, err := a.Approve(context.Background(), tt.req)
			if err != nil || got != tt.want {
				t.Fatalf("Approve = %q, %v; want %q", got, err, tt.want)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("prompt lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

func TestApproverCancelledDenies(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ls := &lineSource{r: pr, stop: make(chan struct{})}
	defer close(ls.stop)
	a := &approver{out: io.Discard, lines: ls, tty: true}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, _ := a.Approve(ctx, bridge.ApprovalRequest{Command: "rm -rf /"}); got != bridge.DecisionDeny {
		t.Errorf("cancelled prompt = %q, want deny", got)
	}
}

func TestCodexProgress(t *testing.T) {
	tests := []struct {
		method, params, want string
	}{
		{"item/started", `{"item":{"type":"commandExecution","id":"1","command":"ls  -la"}}`, "⚙ exec ls -la"},
		{"item/started", `{"item":{"type":"mcpToolCall","id":"2","server":"hermes-tools","tool":"skills_list"}}`, "⚙ hermes-tools.skills_list"},
		{"item/started", `{"item":{"type":"dynamicToolCall","id":"3","tool":"memory"}}`, "⚙ memory"},
		{"item/started", `{"item":{"type":"fileChange","id":"4"}}`, "⚙ apply_patch"},
		{"item/started", `{"item":{"type":"agentMessage","id":"5"}}`, ""},
		{"item/completed", `{"item":{"type":"commandExecution","id":"1","command":"ls"}}`, ""},
		{"item/started", `not json`, ""},
	}
	for _, tt := range tests {
		if got := codexProgress(bridge.Notification{Method: tt.method, Params: []byte(tt.params)}); got != tt.want {
			t.Errorf("%s %s = %q, want %q", tt.method, tt.params, got, tt.want)
		}
	}
}
