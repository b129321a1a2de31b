//go:build unix

package codexrt

// The codex runtime against the real codex pinned in .ci/npm and
// internal/testkit/fakeresponses as the model, all on 127.0.0.1: codextest gives
// codex a throwaway HOME and CODEX_HOME and a black-hole proxy.

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeresponses"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// One turn in which the model calls skills_list of hermes-tools-mcp (an
// MCP server codex runs) and then the in-process dynamic tool memory; the
// transcript shows both and the memory entry lands in HERMES_HOME.
func TestRealCodexMCPAndDynamicTool(t *testing.T) {
	t.Parallel()
	bin := codextest.Binary(t)
	root := codextest.RepoRoot(t)
	toolsBin := toolsbuild.ServerBinary(t)
	hermesHome := filepath.Join(t.TempDir(), "hermes")
	if err := os.CopyFS(hermesHome, os.DirFS(filepath.Join(root, "cmd/hermes-tools-mcp/testdata/home"))); err != nil {
		t.Fatal(err)
	}
	fake := fakeresponses.New(t)
	home := codextest.NewHome(t)
	ws := t.TempDir()
	server := `mcp_servers.hermes-tools={command=` + strconv.Quote(toolsBin) +
		`, args=["--hermes-home", ` + strconv.Quote(hermesHome) + `, "--toolsets", "skills"], startup_timeout_sec=30}`
	env := home.Env(codextest.NewProxy(t).URL())
	r, err := New(Config{
		Binary: bin,
		Args:   append(fake.CodexArgs(), "-c", server),
		// The codextest environment with CODEX_HOME taken out: the
		// runtime overlays it, as it does on the user's environment.
		Environ:      ChildEnv(env, ""),
		CodexHome:    home.CodexHome,
		HermesHome:   hermesHome,
		SessionID:    "real-1",
		Cwd:          ws,
		Model:        fakeresponses.DefaultModel,
		Provider:     "openai",
		ThreadParams: map[string]any{"approvalPolicy": "on-request", "sandbox": "workspace-write"},
		TurnTimeout:  60 * time.Second,
		StartTimeout: 60 * time.Second,
		Logger:       slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Logf("Close: %v", err)
		}
	})
	fake.Enqueue(
		fakeresponses.Reply{Items: []fakeresponses.Item{fakeresponses.MCPCall("call_skills", "hermes-tools", "skills_list", map[string]any{})}},
		fakeresponses.Call("call_mem", "memory", map[string]any{"action": "add", "target": "memory", "content": "User keeps interop skills."}),
		fakeresponses.Text("Noted your skills."),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	res, err := r.RunTurn(ctx, "which skills do I have? remember them")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	t.Logf("turn took %v: %s", time.Since(start), b)
	if !res.Completed || res.Error != "" || res.FinalResponse != "Noted your skills." || res.APICalls != 1 ||
		res.CodexThreadID == "" || res.CodexTurnID == "" || r.ToolIterations() != 2 {
		t.Fatalf("result %s", b)
	}
	if len(res.Messages) != 6 || res.Messages[0].Role != "user" {
		t.Fatalf("transcript has %d messages", len(res.Messages))
	}
	mcpCall, mcpResult, memCall, memResult := res.Messages[1], res.Messages[2], res.Messages[3], res.Messages[4]
	if len(mcpCall.ToolCalls) != 1 || mcpCall.ToolCalls[0].Function.Name != "mcp.hermes-tools.skills_list" ||
		mcpResult.Role != "tool" || !strings.Contains(mcpResult.Content, "interop-alpha") {
		t.Errorf("MCP call %s / %s", mustJSON(mcpCall), mustJSON(mcpResult))
	}
	if len(memCall.ToolCalls) != 1 || !strings.Contains(memCall.ToolCalls[0].Function.Name, "memory") ||
		memResult.Role != "tool" || !strings.Contains(memResult.Content, "Entry added.") {
		t.Errorf("memory call %s / %s", mustJSON(memCall), mustJSON(memResult))
	}
	mem, err := os.ReadFile(filepath.Join(hermesHome, "memories", "MEMORY.md"))
	if err != nil || !strings.Contains(string(mem), "User keeps interop skills.") {
		t.Errorf("MEMORY.md: %q, %v", mem, err)
	}
	req, err := fake.WaitRequest(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	tools := strings.Join(req.ToolNames(), " ")
	for _, want := range []string{"memory", "todo_list", "session_search", "skills_list"} {
		if !strings.Contains(tools, want) {
			t.Errorf("tools offered to the model lack %s: %s", want, tools)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
