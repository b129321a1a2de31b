package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// TestSessionsList lists the sessions two chats recorded, and the empty
// and bad-argument cases, without ever creating state.db for a listing.
func TestSessionsList(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "one"}, fakechat.Reply{Text: "two"})
	defer fake.Close()
	home := newHome(t, fake, "")
	tools := buildTools(t)

	code, out, errOut := runCLI(t, testDeps(nil), "", "sessions", "list", "--hermes-home", home)
	if code != exitOK || out != "" || !strings.Contains(errOut, "no sessions yet") {
		t.Fatalf("empty home: exit %d stdout %q stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "state.db")); err == nil {
		t.Fatal("listing created state.db")
	}
	var ids []string
	for _, q := range []string{"first question", "second question"} {
		code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", q, "--hermes-home", home, "--hermes-tools-command", tools)
		if code != exitOK {
			t.Fatalf("chat: exit %d: %s", code, errOut)
		}
		m := regexp.MustCompile(`session (\S+) \(continue`).FindStringSubmatch(errOut)
		if m == nil {
			t.Fatalf("no session id in %q", errOut)
		}
		ids = append(ids, m[1])
	}
	code, out, errOut = runCLI(t, testDeps(nil), "", "sessions", "list", "--hermes-home", home)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "RUNTIME") || !strings.Contains(lines[0], "MESSAGES") {
		t.Fatalf("want a header and two sessions:\n%s", out)
	}
	// Newest first; each chat stored its question and answer.
	for i, id := range []string{ids[1], ids[0]} {
		f := strings.Fields(lines[i+1])
		if f[0] != id || f[len(f)-2] != "native" || f[len(f)-1] != "2" {
			t.Errorf("row %d = %q, want session %s on native with 2 messages", i, lines[i+1], id)
		}
	}
	// Sessions without a title show their first question, not "-".
	if !strings.Contains(lines[1], `"second question"`) || !strings.Contains(lines[2], `"first question"`) {
		t.Errorf("untitled sessions do not show their first question:\n%s", out)
	}
	code, out, _ = runCLI(t, testDeps(nil), "", "sessions", "list", "--limit", "1", "--json", "--hermes-home", home)
	if code != exitOK || !strings.Contains(out, `"id": "`+ids[1]+`"`) || strings.Contains(out, ids[0]) || !strings.Contains(out, `"message_count": 2`) {
		t.Errorf("--limit 1 --json: exit %d\n%s", code, out)
	}
	// An unknown id sends the user to the listing, in words, not Go names.
	code, _, errOut = runCLI(t, testDeps(nil), "", "chat", "-q", "x", "--resume", "nope", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitUsage || !strings.Contains(errOut, "no session nope") || !strings.Contains(errOut, "`hermes sessions list`") ||
		strings.Contains(errOut, "statedb") || strings.Contains(errOut, "CreateSession") {
		t.Errorf("--resume nope: exit %d stderr %q", code, errOut)
	}
	for _, args := range [][]string{{"sessions"}, {"sessions", "show"}, {"sessions", "list", "extra"}, {"sessions", "list", "--limit", "-1"}} {
		if code, _, errOut := runCLI(t, testDeps(nil), "", append(args, "--hermes-home", home)...); code != exitUsage || errOut == "" {
			t.Errorf("%q: exit %d stderr %q, want a usage error", args, code, errOut)
		}
	}
}

// TestCodexRuntimeSubcommand drives `hermes codex-runtime` against a fake
// codex: status, on (which migrates), migrate alone, off, and refusals.
func TestCodexRuntimeSubcommand(t *testing.T) {
	fake := fakechat.New()
	defer fake.Close()
	home := newHome(t, fake, "mcp_servers:\n  docs:\n    command: docs-server\n")
	codex := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 'codex-cli 0.169.0'; exit 0; fi\necho 'fake codex: no app-server' >&2\nexit 1\n"
	if err := os.WriteFile(codex, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	codexHome := t.TempDir()
	toml := filepath.Join(codexHome, "config.toml")
	common := []string{"--hermes-home", home, "--codex-bin", codex, "--codex-home", codexHome, "--hermes-tools-command", buildTools(t)}
	steps := []struct {
		args     []string
		wantCode int
		wantOut  []string
		wantCfg  string
	}{
		{[]string{"status"}, exitOK, []string{"openai_runtime: auto", "codex CLI: OK 0.169.0"}, "provider: openai\n"},
		{[]string{"migrate"}, exitOK, []string{"Migrated 1 MCP server(s):", "  - docs"}, "provider: openai\n"},
		{[]string{"on"}, exitOK, []string{"openai_runtime: auto → codex_app_server", "start one with hermes chat"}, "openai_runtime: codex_app_server"},
		{nil, exitOK, []string{"openai_runtime: codex_app_server"}, "openai_runtime: codex_app_server"},
		{[]string{"off"}, exitOK, []string{"openai_runtime: codex_app_server → auto"}, "openai_runtime: auto"},
		{[]string{"sideways"}, exitUsage, nil, "openai_runtime: auto"},
	}
	for _, st := range steps {
		code, out, errOut := runCLI(t, testDeps(nil), "", append(append([]string{"codex-runtime"}, st.args...), common...)...)
		if code != st.wantCode {
			t.Fatalf("%q: exit %d, want %d; stdout %q stderr %q", st.args, code, st.wantCode, out, errOut)
		}
		for _, w := range st.wantOut {
			if !strings.Contains(out, w) {
				t.Errorf("%q: stdout lacks %q:\n%s", st.args, w, out)
			}
		}
		cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
		if !strings.Contains(string(cfg), st.wantCfg) || !strings.Contains(string(cfg), "# my settings") {
			t.Errorf("%q: config.yaml lacks %q:\n%s", st.args, st.wantCfg, cfg)
		}
		if st.args != nil && st.args[0] == "migrate" {
			b, err := os.ReadFile(toml)
			if err != nil || !strings.Contains(string(b), "`hermes codex-runtime migrate` regenerates this section") || !strings.Contains(string(b), "[mcp_servers.docs]") {
				t.Errorf("migrate wrote %q, %v", b, err)
			}
		}
	}
	code, out, errOut := runCLI(t, testDeps(nil), "", "codex-runtime", "on", "--hermes-home", home, "--codex-bin", "/nonexistent/codex")
	if code != exitFailure || !strings.Contains(out, "Cannot enable codex_app_server runtime: codex CLI not installed (install with: npm i -g @openai/codex") {
		t.Errorf("on without codex: exit %d, want %d; stdout %q stderr %q", code, exitFailure, out, errOut)
	}
	code, out, errOut = runCLI(t, testDeps(nil), "", "codex-runtime", "status", "--hermes-home", home, "--codex-bin", "/nonexistent/codex")
	if code != exitOK || !strings.Contains(out, "codex CLI: not installed") || strings.Contains(out, "no such file") || strings.Contains(out, "executable file") {
		t.Errorf("status without codex: exit %d; stdout %q stderr %q", code, out, errOut)
	}
	// Without codex, migrate still writes the block and says once, in one
	// line, why plugins were not looked up.
	code, out, errOut = runCLI(t, testDeps(nil), "", "codex-runtime", "migrate", "--hermes-home", home, "--codex-home", codexHome, "--hermes-tools-command", buildTools(t))
	lower := strings.ToLower(out)
	if code != exitOK || strings.Count(out, "plugin discovery skipped") != 1 || strings.Count(lower, "not installed")+strings.Count(lower, "not found") != 1 {
		t.Errorf("migrate without codex: exit %d; want the missing codex said once; stdout %q stderr %q", code, out, errOut)
	}
	code, _, errOut = runCLI(t, testDeps(nil), "", "codex-runtime", "bogus", "--hermes-home", home)
	if code != exitUsage || !strings.Contains(errOut, "use status, on, off, auto or migrate") {
		t.Errorf("unknown action: exit %d stderr %q", code, errOut)
	}
}

// TestCodexRuntimeSecrets: a server with a secret in its arguments is left
// out with advice naming --allow-literal-secrets, which the shell command
// takes (and the chat's /codex-runtime names with that command); a secret
// in env is migrated as a reference with a note, not called skipped.
func TestCodexRuntimeSecrets(t *testing.T) {
	fake := fakechat.New()
	defer fake.Close()
	const secret = "sk-live-0123456789abcdefABCDEF"
	home := newHome(t, fake, "mcp_servers:\n  leaky:\n    command: leaky-server\n    args: [--token, "+secret+"]\n"+
		"  fetch:\n    command: uvx\n    args: [mcp-server-fetch]\n    env:\n      FETCH_API_KEY: "+secret+"\n")
	codex := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 'codex-cli 0.169.0'; exit 0; fi\necho 'fake codex: no app-server' >&2\nexit 1\n"
	if err := os.WriteFile(codex, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	codexHome := t.TempDir()
	toml := filepath.Join(codexHome, "config.toml")
	common := []string{"--hermes-home", home, "--codex-bin", codex, "--codex-home", codexHome, "--hermes-tools-command", buildTools(t)}

	code, out, errOut := runCLI(t, testDeps(nil), "", append([]string{"codex-runtime", "migrate"}, common...)...)
	b, _ := os.ReadFile(toml)
	if code != exitOK || !strings.Contains(out, "server leaky not registered") || !strings.Contains(out, "rerun with --allow-literal-secrets") ||
		!strings.Contains(out, "  - fetch\n      note: env FETCH_API_KEY") || strings.Contains(out, "fetch (skipped") || strings.Contains(string(b), secret) {
		t.Fatalf("migrate: exit %d stdout %q stderr %q\nconfig.toml:\n%s", code, out, errOut, b)
	}
	// The advice is followed as written.
	code, out, errOut = runCLI(t, testDeps(nil), "", append([]string{"codex-runtime", "migrate", "--allow-literal-secrets"}, common...)...)
	b, _ = os.ReadFile(toml)
	if code != exitOK || strings.Contains(out, "not registered") || !strings.Contains(string(b), "[mcp_servers.leaky]") || !strings.Contains(string(b), secret) {
		t.Errorf("migrate --allow-literal-secrets: exit %d stdout %q stderr %q\nconfig.toml:\n%s", code, out, errOut, b)
	}
	code, _, errOut = runCLI(t, testDeps(nil), "", append([]string{"codex-runtime", "off", "--allow-literal-secrets"}, common...)...)
	if code != exitUsage || !strings.Contains(errOut, "only applies to on and migrate") {
		t.Errorf("off --allow-literal-secrets: exit %d stderr %q", code, errOut)
	}

	// In a chat the advice names the shell command that takes the flag.
	code, out, errOut = runCLI(t, testDeps(nil), "/codex-runtime on\n/quit\n", append([]string{"chat"}, common...)...)
	if code != exitOK || !strings.Contains(out, "server leaky not registered") || !strings.Contains(out, "run `hermes codex-runtime migrate --allow-literal-secrets` in a shell") ||
		strings.Contains(out, "rerun with --allow-literal-secrets") {
		t.Errorf("/codex-runtime on: exit %d stdout %q stderr %q", code, out, errOut)
	}
}

// TestTools runs `hermes tools` on the real hermes-tools-mcp: the doctor
// table, then one line per thing to set up.
func TestTools(t *testing.T) {
	home := t.TempDir()
	code, out, errOut := runCLI(t, testDeps(nil), "", "tools", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"TOOL", "web_search", "hidden", "To turn on what is hidden:", "  image_gen: image generation needs FAL_KEY", "hermes-tools-mcp reads it itself, whichever client starts it"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "  vision: "); n != 1 {
		t.Errorf("the vision backend is listed %d times, want once:\n%s", n, out)
	}
	if code, _, errOut := runCLI(t, testDeps(nil), "", "tools", "--hermes-home", home, "--hermes-tools-command", "/nonexistent/hermes-tools-mcp"); code != exitFailure || !strings.Contains(errOut, "hermes-tools") {
		t.Errorf("missing binary: exit %d %q", code, errOut)
	}
}
