package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/configmigrate/migrate"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// TestList: list finds the clients present, reads their hermes-tools entry
// (binary, version, stale paths) and which Hermes servers are synced.
func TestList(t *testing.T) {
	e := newTestEnv(t)
	home := e.env["HOME"]
	// A hermes-tools-mcp that answers --version.
	if err := os.WriteFile(e.toolsBin, []byte("#!/bin/sh\necho 'hermes-tools-mcp 9.9.9'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  gh:\n    command: npx\n  other:\n    command: other-mcp\n")
	if code, _, stderr := e.run(t, "--client", "cursor,codex", "--user-servers", "--no-plugins"); code != exitOK {
		t.Fatalf("sync: %s", stderr)
	}
	// Claude Code points at a binary that is gone; Zed at something else;
	// Windsurf is installed but has no config yet; VS Code is absent.
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"mcpServers": {"hermes-tools": {"type": "stdio", "command": "/gone/hermes-tools-mcp"}, "gh": {"command": "old"}}}`), 0o644)
	zed := filepath.Join(home, ".config", "zed", "settings.json")
	os.MkdirAll(filepath.Dir(zed), 0o755)
	os.WriteFile(zed, []byte("// zed\n{\"context_servers\": {\"hermes-tools\": {\"source\": \"custom\", \"command\": \"/usr/bin/python3\"}}}"), 0o644)
	os.MkdirAll(filepath.Join(home, ".codeium", "windsurf"), 0o755)

	code, out, stderr := e.list(t, "--json")
	if code != exitOK {
		t.Fatalf("list: exit %d %s", code, stderr)
	}
	var list []migrate.ListedClient
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]migrate.ListedClient{}
	for _, c := range list {
		got[c.Client] = c
	}
	type want struct {
		tools, version, stale string
		servers               map[string]clientsync.SyncState
	}
	wants := map[string]want{
		"codex":       {tools: e.toolsBin, version: "9.9.9", servers: map[string]clientsync.SyncState{"gh": "synced", "other": "synced"}},
		"cursor":      {tools: e.toolsBin, version: "9.9.9", servers: map[string]clientsync.SyncState{"gh": "synced", "other": "synced"}},
		"claude-code": {tools: "/gone/hermes-tools-mcp", stale: "no such file", servers: map[string]clientsync.SyncState{"gh": "differs", "other": "missing"}},
		"zed":         {tools: "/usr/bin/python3", stale: "not hermes-tools-mcp", servers: map[string]clientsync.SyncState{"gh": "missing", "other": "missing"}},
		"windsurf":    {servers: map[string]clientsync.SyncState{"gh": "missing", "other": "missing"}},
	}
	if len(got) != len(wants) {
		t.Errorf("listed %d clients, want %d:\n%s", len(got), len(wants), out)
	}
	for name, w := range wants {
		c, ok := got[name]
		if !ok {
			t.Errorf("%s not listed:\n%s", name, out)
			continue
		}
		var tools, version, stale string
		if c.HermesTools != nil {
			tools, version, stale = c.HermesTools.Command, c.HermesTools.Version, c.HermesTools.Stale
		}
		if tools != w.tools || version != w.version || stale != w.stale {
			t.Errorf("%s: hermes-tools %q version %q stale %q; want %q %q %q", name, tools, version, stale, w.tools, w.version, w.stale)
		}
		for s, st := range w.servers {
			if c.Servers[s] != st {
				t.Errorf("%s: server %s is %q, want %q", name, s, c.Servers[s], st)
			}
		}
	}
	if got["windsurf"].Exists {
		t.Error("windsurf has no config file yet, but exists is true")
	}

	code, out, _ = e.list(t)
	for _, line := range []string{
		"claude-code: " + filepath.Join(home, ".claude.json"),
		"  hermes-tools: /gone/hermes-tools-mcp (stale: no such file; run hermes-migrate --client claude-code)",
		"  hermes-tools: " + e.toolsBin + " (version 9.9.9)",
		"  server gh: differs",
		"windsurf: " + filepath.Join(home, ".codeium", "windsurf", "mcp_config.json") + " (no config file yet)",
	} {
		if code != exitOK || !strings.Contains(out, line+"\n") {
			t.Errorf("list output lacks %q:\n%s", line, out)
		}
	}
}

func (e *testEnv) list(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	base := []string{"list", "--codex-home", e.codexHome, "--hermes-home", e.hermesHome}
	code := run(t.Context(), append(base, args...), &out, &errb, e.deps())
	return code, out.String(), errb.String()
}

// TestListRealBinary: list asks the real hermes-tools-mcp for its version.
func TestListRealBinary(t *testing.T) {
	bin := toolsbuild.ServerBinary(t)
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	want := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "hermes-tools-mcp "))
	e := newTestEnv(t)
	// Installed side by side with hermes-migrate, as the real one is.
	if err := os.Remove(e.toolsBin); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, e.toolsBin); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := e.run(t, "--client", "cursor"); code != exitOK {
		t.Fatalf("sync: %s", stderr)
	}
	code, js, stderr := e.list(t, "--json")
	var list []migrate.ListedClient
	// codex is listed too: its home exists, without a config.toml.
	if code != exitOK || json.Unmarshal([]byte(js), &list) != nil || len(list) != 2 || list[0].Client != "codex" || list[0].Exists {
		t.Fatalf("list: exit %d %s\n%s", code, stderr, js)
	}
	if ht := list[1].HermesTools; ht == nil || ht.Command != e.toolsBin || ht.Version != want || want == "" || ht.Stale != "" {
		t.Errorf("hermes-tools = %+v, want %s version %q", ht, e.toolsBin, want)
	}
}

// TestDescribeToolsStale: each reason an entry's command is stale names
// what is actually wrong; a path that does not exist is "no such file"
// whatever its name.
// TestListClientNotLocated: a client whose file cannot be located (its
// own variable set to a relative path) is listed with the reason, and the
// other clients are listed all the same; a run without --client names it
// with the reason too.
func TestListClientNotLocated(t *testing.T) {
	e := newTestEnv(t)
	home := e.env["HOME"]
	e.env["PI_CODING_AGENT_DIR"] = "relative/agent"
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)

	code, out, stderr := e.list(t)
	for _, line := range []string{
		"cursor: " + filepath.Join(home, ".cursor", "mcp.json") + " (no config file yet)",
		"pi: (config file not located)",
		`  error: $PI_CODING_AGENT_DIR is "relative/agent", not an absolute path`,
	} {
		if code != exitOK || !strings.Contains(out, line) {
			t.Errorf("list (exit %d, %s) lacks %q:\n%s", code, stderr, line, out)
		}
	}
}
