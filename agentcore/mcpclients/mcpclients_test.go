package mcpclients

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// toolsBin is the real hermes-tools-mcp.
var toolsBin string

func TestMain(m *testing.M) { os.Exit(toolsbuild.Main(m, toolsbuild.Server, &toolsBin)) }

// fixtureHome copies the hermes-tools-mcp fixture home so tests can write
// logs into it.
func fixtureHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.CopyFS(home, os.DirFS("../../cmd/hermes-tools-mcp/testdata/home")); err != nil {
		t.Fatal(err)
	}
	return home
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ server, tool, want string }{
		{HermesToolsName, "skills_list", "skills_list"},
		{"docs", "skills_list", "mcp_docs_skills_list"},
		{"my-server", "read.file", "mcp_my_server_read_file"},
		{"gh", "list-issues", "mcp_gh_list_issues"},
	} {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
}

func TestResultText(t *testing.T) {
	text := []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}
	for _, tc := range []struct {
		name   string
		server string
		res    *mcp.CallToolResult
		want   string
	}{
		{"text joined", "docs", &mcp.CallToolResult{Content: text}, `{"result":"a\nb"}`},
		{"error", "docs", &mcp.CallToolResult{Content: text, IsError: true}, `{"error":"a\nb"}`},
		{"structured with text", "docs", &mcp.CallToolResult{Content: text, StructuredContent: map[string]any{"k": 1}}, `{"result":"a\nb","structuredContent":{"k":1}}`},
		{"structured only", "docs", &mcp.CallToolResult{StructuredContent: map[string]any{"k": 1}}, `{"result":{"k":1}}`},
		{"hermes-tools raw", HermesToolsName, &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(`{"success":true}`)}}, `{"success":true}`},
		{"hermes-tools error", HermesToolsName, &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("boom")}, IsError: true}, `{"error":"boom"}`},
		{"image named", "docs", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent("AAAA", "image/png")}}, `{"result":"[image content (image/png) not shown]"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resultText(tc.server, tc.res); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestStdio starts hermes-tools and a second instance as a user server,
// calls both, and checks Close reaps the children and stderr is logged.
func TestStdio(t *testing.T) {
	home := fixtureHome(t)
	ctx := context.Background()
	m, err := Start(ctx, Options{
		HermesHome:  home,
		ToolsBinary: toolsBin,
		Servers: []configmigrate.Server{{
			Name: "docs", Command: toolsBin, Args: []string{"--hermes-home", home, "--toolsets", "skills"},
			EnabledTools: []string{"skills_list"},
		}},
		ConnectTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	for _, st := range m.Statuses() {
		if !st.Connected || st.Tools == 0 {
			t.Fatalf("server not connected: %+v", st)
		}
	}
	names := map[string]bool{}
	for _, tool := range m.Tools() {
		names[tool.Name] = true
		if tool.Parameters["type"] != "object" {
			t.Errorf("%s parameters are not an object schema: %v", tool.Name, tool.Parameters)
		}
	}
	if !names["skills_list"] || !names["mcp_docs_skills_list"] || names["mcp_docs_skill_view"] {
		t.Fatalf("tools = %v; want skills_list, mcp_docs_skills_list and no mcp_docs_skill_view (include filter)", names)
	}
	for _, name := range []string{"skills_list", "mcp_docs_skills_list"} {
		out := m.Call(ctx, name, "{}")
		if !strings.Contains(out, "interop-deploy") {
			t.Errorf("%s result lacks the fixture skill: %s", name, out)
		}
	}
	if out := m.Call(ctx, "skills_list", "{not json"); !strings.Contains(out, `"error"`) {
		t.Errorf("bad arguments not reported as error: %s", out)
	}
	if out := m.Call(ctx, "nope", "{}"); !strings.Contains(out, "unknown tool") {
		t.Errorf("unknown tool: %s", out)
	}

	var cmds []*exec.Cmd
	for _, c := range m.conns {
		cmds = append(cmds, c.cmd)
	}
	start := time.Now()
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	t.Logf("Close took %s", time.Since(start))
	for _, cmd := range cmds {
		if cmd.ProcessState == nil {
			t.Errorf("child %d not reaped", cmd.Process.Pid)
		}
		if runtime.GOOS != "windows" {
			if err := syscall.Kill(cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("child %d still exists: %v", cmd.Process.Pid, err)
			}
		}
	}
	log, err := os.ReadFile(filepath.Join(home, "logs", "mcp-stderr.log"))
	if err != nil || !strings.Contains(string(log), "starting MCP server 'docs'") {
		t.Errorf("stderr log missing header: %v\n%s", err, log)
	}
}

func TestFailuresReported(t *testing.T) {
	home := t.TempDir()
	m, err := Start(context.Background(), Options{
		HermesHome: home,
		Servers: []configmigrate.Server{
			{Name: "missing", Command: filepath.Join(home, "no-such-binary")},
			{Name: "badflags", Command: toolsBin, Args: []string{"--no-such-flag"}},
			{Name: "off", Command: toolsBin, Disabled: true},
		},
		ConfigProblems: []error{errors.New(`server "x" skipped: no command or url field`)},
		ConnectTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	got := map[string]Status{}
	for _, st := range m.Statuses() {
		got[st.Name] = st
	}
	for _, name := range []string{"missing", "badflags", ""} {
		if st := got[name]; st.Connected || st.Error == "" {
			t.Errorf("%q: want a reported failure, got %+v", name, st)
		}
	}
	if st := got["off"]; !st.Disabled {
		t.Errorf("disabled server not listed as disabled: %+v", st)
	}
	note := m.FailureNote()
	for _, want := range []string{"missing", "badflags", `server "x" skipped`} {
		if !strings.Contains(note, want) {
			t.Errorf("FailureNote lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(note, "off:") {
		t.Errorf("FailureNote mentions the disabled server:\n%s", note)
	}
	if len(m.Tools()) != 0 {
		t.Errorf("tools offered from failed servers: %v", m.Tools())
	}
}

// TestHTTP covers the streamable HTTP transport, headers, structured
// results and the per-server call timeout, against mcp-go's server on
// 127.0.0.1.
func TestHTTP(t *testing.T) {
	srv := server.NewMCPServer("web", "1.0.0")
	srv.AddTool(mcp.NewTool("echo-text", mcp.WithString("text", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	srv.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			return mcp.NewToolResultText("late"), nil
		}
	})
	h := server.NewStreamableHTTPServer(srv)
	var mu sync.Mutex
	var auth string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = r.Header.Get("Authorization")
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	m, err := Start(context.Background(), Options{
		Servers: []configmigrate.Server{{
			Name: "web", URL: ts.URL + "/mcp", ToolTimeoutSec: 0.3,
			Headers: []configmigrate.KeyValue{{Key: "Authorization", Value: configmigrate.ParseValue("Bearer ${WEB_TOKEN}")}},
		}},
		Getenv:         func(k string) string { return map[string]string{"WEB_TOKEN": "t0k"}[k] },
		ConnectTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if st := m.Statuses(); len(st) != 1 || !st[0].Connected || st[0].Transport != "http" {
		t.Fatalf("statuses = %+v", st)
	}
	out := m.Call(context.Background(), "mcp_web_echo_text", `{"text":"hi"}`)
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil || res["result"] != "hi" {
		t.Errorf("echo result = %s", out)
	}
	mu.Lock()
	if auth != "Bearer t0k" {
		t.Errorf("Authorization header = %q, want the ${WEB_TOKEN} reference expanded", auth)
	}
	mu.Unlock()
	start := time.Now()
	out = m.Call(context.Background(), "mcp_web_slow", `{}`)
	if !strings.Contains(out, "timed out after 300ms") || time.Since(start) > 5*time.Second {
		t.Errorf("slow call = %s after %s; want a timeout error after 300ms", out, time.Since(start))
	}
}
