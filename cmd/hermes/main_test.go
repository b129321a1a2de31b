package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/agentcore/chatcli"
	"github.com/hermes-go/hermes/internal/sqlitestore"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// newHome writes a config.yaml pointing the openai provider at the fake.
func newHome(t *testing.T, fake *fakechat.Server, extra string) string {
	t.Helper()
	home := t.TempDir()
	cfg := "# my settings\nmodel:\n  default: test-model\n  provider: openai\n  base_url: " + fake.BaseURL() + "\n  api_key: k\n" + withoutTitles(extra)
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// withoutTitles turns the automatic session title off unless extra
// configures it: the title is a model call beside the chat's own, and it
// would take a reply scripted for a turn.
func withoutTitles(extra string) string {
	switch {
	case strings.Contains(extra, "title_generation:"):
		return extra
	case strings.Contains(extra, "auxiliary:\n"):
		return strings.Replace(extra, "auxiliary:\n", "auxiliary:\n  title_generation:\n    enabled: false\n", 1)
	}
	return extra + "auxiliary:\n  title_generation:\n    enabled: false\n"
}

// buildTools returns the real hermes-tools-mcp.
func buildTools(t *testing.T) string { return toolsbuild.ServerBinary(t) }

// testDeps isolates the run from the developer's environment.
func testDeps(env map[string]string) chatcli.System {
	return chatcli.System{
		Getenv: func(k string) string { return env[k] },
		Environ: func() []string {
			var out []string
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			return out
		},
		IsTTY: func(io.Reader) bool { return false },
	}
}

func runCLI(t *testing.T, d chatcli.System, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code = run(ctx, args, chatcli.IO{In: strings.NewReader(stdin), Out: &out, Err: &errb}, d)
	return code, out.String(), errb.String()
}

func TestOneShot(t *testing.T) {
	tests := []struct {
		name       string
		replies    []fakechat.Reply
		wantCode   int
		wantOut    string
		wantErrHas string
	}{
		{name: "streamed answer", replies: []fakechat.Reply{{Text: "Hello from the fake model."}}, wantCode: exitOK, wantOut: "Hello from the fake model.\n"},
		// llama.cpp/Ollama variants answer a streamed request with one
		// chat.completion JSON; the answer must still be printed.
		{name: "server ignores stream", replies: []fakechat.Reply{{IgnoreStream: true, Text: "Hello, unstreamed."}}, wantCode: exitOK, wantOut: "Hello, unstreamed.\n"},
		{name: "api error", replies: []fakechat.Reply{{Status: 400, ErrorMessage: "model test-model does not exist"}}, wantCode: exitFailure, wantErrHas: "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakechat.New(tt.replies...)
			defer fake.Close()
			home := newHome(t, fake, "")
			code, out, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "hi", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tt.wantCode, out, errOut)
			}
			if tt.wantOut != "" && out != tt.wantOut {
				t.Errorf("stdout %q, want %q", out, tt.wantOut)
			}
			if tt.wantErrHas != "" && !strings.Contains(errOut, tt.wantErrHas) {
				t.Errorf("stderr %q lacks %q", errOut, tt.wantErrHas)
			}
			if got := fake.Requests()[0].Messages(); fakechat.TextOf(got[len(got)-1]) != "hi" {
				t.Errorf("last message sent %v, want the user's question", got[len(got)-1])
			}
		})
	}
}

func TestToolCallIntoHermesTools(t *testing.T) {
	fake := fakechat.New(
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "call_1", Name: "skills_list", Arguments: `{}`}}},
		fakechat.Reply{Text: "You have interop skills."},
	)
	defer fake.Close()
	home := newHome(t, fake, "")
	if err := os.CopyFS(home, os.DirFS("../hermes-tools-mcp/testdata/home")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "which skills?", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK || out != "You have interop skills.\n" {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "⚙ skills_list") {
		t.Errorf("stderr does not show the tool call: %q", errOut)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages()
	last := msgs[len(msgs)-1]
	if last["role"] != "tool" || !strings.Contains(fakechat.TextOf(last), "interop-alpha") {
		t.Errorf("tool result sent to the model = %v, want skills_list output naming interop-alpha", last)
	}
}

func TestInteractive(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "first answer"}, fakechat.Reply{Text: "second answer"})
	defer fake.Close()
	home := newHome(t, fake, "mcp_servers:\n  broken:\n    command: /nonexistent/mcp-server\n")
	stdin := "hello\n/help\nand again\n/quit\nnever read\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d; stdout %q stderr %q", code, out, errOut)
	}
	for _, want := range []string{"test-model (openai) on the native runtime", "first answer\n", "/codex-runtime [arg]", "second answer\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "MCP server broken skipped") {
		t.Errorf("the failed server is not reported: %q", errOut)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var texts []string
	for _, m := range reqs[1].Messages() {
		texts = append(texts, m["role"].(string)+":"+fakechat.TextOf(m))
	}
	joined := strings.Join(texts, "|")
	if !strings.Contains(joined, "user:hello|assistant:first answer|user:and again") {
		t.Errorf("second turn did not carry the history: %s", joined)
	}
	if !strings.Contains(fakechat.TextOf(reqs[0].Messages()[0]), "broken") {
		t.Errorf("the model was not told about the failed server: %v", reqs[0].Messages()[0])
	}
}

func TestCodexRuntimeCommand(t *testing.T) {
	tests := []struct {
		name    string
		cmd     string
		wantOut string
		wantCfg string // substring config.yaml must (still) have
	}{
		{name: "show", cmd: "/codex-runtime", wantOut: "codex CLI: not installed (install with: npm i -g @openai/codex", wantCfg: "# my settings"},
		{name: "on without codex", cmd: "/codex-runtime on", wantOut: "Cannot enable codex_app_server runtime", wantCfg: "# my settings"},
		{name: "off", cmd: "/codex-runtime off", wantOut: "openai_runtime already set to auto", wantCfg: "# my settings"},
		{name: "bad arg", cmd: "/codex-runtime sideways", wantOut: "", wantCfg: "# my settings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakechat.New()
			defer fake.Close()
			home := newHome(t, fake, "")
			code, out, errOut := runCLI(t, testDeps(nil), tt.cmd+"\n", "chat", "--hermes-home", home,
				"--hermes-tools-command", buildTools(t), "--codex-bin", "/nonexistent/codex")
			if code != exitOK {
				t.Fatalf("exit %d; stderr %q", code, errOut)
			}
			if tt.wantOut != "" && !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout lacks %q:\n%s\nstderr: %s", tt.wantOut, out, errOut)
			}
			if tt.wantOut == "" && !strings.Contains(errOut, "usage: /codex-runtime") {
				t.Errorf("bad argument not explained: %q", errOut)
			}
			cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
			if !strings.Contains(string(cfg), tt.wantCfg) || strings.Contains(string(cfg), "codex_app_server") {
				t.Errorf("config.yaml after %s:\n%s", tt.cmd, cfg)
			}
		})
	}
}

func TestStartFailures(t *testing.T) {
	home := t.TempDir() // no config.yaml: no model
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no model", []string{"chat", "-q", "hi", "--hermes-home", home, "--hermes-tools-command", "/bin/true"}, "no model configured"},
		{"tools missing", []string{"chat", "-q", "hi", "--hermes-home", home, "--model", "m", "--provider", "ollama", "--hermes-tools-command", "/nonexistent/hermes-tools-mcp"}, "--hermes-tools-command"},
		{"--model without a key", []string{"chat", "-q", "hi", "--hermes-home", home, "--model", "m", "--hermes-tools-command", "/bin/true"}, "provider openai needs OPENAI_API_KEY (or model.api_key in " + filepath.Join(home, "config.yaml") + ")"},
		{"bad flag", []string{"chat", "--nope"}, "unknown flag --nope (run hermes chat -h for the flags)"},
		{"mistyped flag", []string{"chat", "--modle", "x"}, `unknown flag --modle: did you mean "--model"?`},
		{"stray arg", []string{"chat", "hello"}, "quote the question"},
		{"unknown command", []string{"talk"}, "unknown command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, testDeps(nil), "", tt.args...)
			if code != exitUsage || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d stderr %q; want %d and %q", code, errOut, exitUsage, tt.wantErr)
			}
		})
	}
}

func TestInterruptThenExit(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "partial", Hang: true})
	defer fake.Close()
	home := newHome(t, fake, "")
	ints := make(chan os.Signal)
	d := testDeps(nil)
	d.Interrupts = ints
	pr, pw := io.Pipe()
	defer pw.Close()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t)}, chatcli.IO{In: pr, Out: &out, Err: &errb}, d)
	}()
	if _, err := io.WriteString(pw, "tell me\n"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return strings.Contains(out.String(), "partial") })
	ints <- os.Interrupt // interrupts the turn
	waitFor(t, func() bool { return strings.Contains(errb.String(), "interrupted") })
	ints <- os.Interrupt // arms the exit at the prompt
	ints <- os.Interrupt // exits
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("hermes did not exit after two Ctrl+C at the prompt")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNewStartsFresh(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "a1"}, fakechat.Reply{Text: "a2"})
	defer fake.Close()
	home := newHome(t, fake, "")
	code, out, errOut := runCLI(t, testDeps(nil), "remember me\n/new\nwho?\n/bogus\n", "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	if n := strings.Count(out, "on the native runtime · session"); n != 2 {
		t.Errorf("%d banners, want 2 (one per conversation):\n%s", n, out)
	}
	if !strings.Contains(errOut, "unknown command /bogus") {
		t.Errorf("unknown command not reported: %q", errOut)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, m := range reqs[1].Messages() {
		if strings.Contains(fakechat.TextOf(m), "remember me") {
			t.Errorf("the new conversation still carries the old history: %v", reqs[1].Messages())
		}
	}
}

// A codex that only answers --version is enough for /codex-runtime on: the
// switch is saved (comments kept), the migration runs, and the next
// conversation (/new) is on the codex runtime.
func TestCodexRuntimeOnWithFakeCodex(t *testing.T) {
	fake := fakechat.New()
	defer fake.Close()
	home := newHome(t, fake, "")
	codex := filepath.Join(t.TempDir(), "codex")
	script := "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 'codex-cli 0.169.0'; exit 0; fi\necho 'fake codex: no app-server' >&2\nexit 1\n"
	if err := os.WriteFile(codex, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	codexHome := t.TempDir()
	code, out, errOut := runCLI(t, testDeps(nil), "/codex-runtime on\n/new\n", "chat", "--hermes-home", home,
		"--hermes-tools-command", buildTools(t), "--codex-bin", codex, "--codex-home", codexHome)
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, errOut)
	}
	for _, want := range []string{"openai_runtime: auto → codex_app_server", "codex CLI: 0.169.0", "Effective from the next session", "(openai) on the codex_app_server runtime"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	cfg, _ := os.ReadFile(filepath.Join(home, "config.yaml"))
	if !strings.Contains(string(cfg), "# my settings") || !strings.Contains(string(cfg), "openai_runtime: codex_app_server") {
		t.Errorf("config.yaml:\n%s", cfg)
	}
	if _, err := os.Stat(filepath.Join(codexHome, "config.toml")); err != nil {
		t.Errorf("migration did not write config.toml: %v", err)
	}
}

// A chat is recorded in state.db and --resume continues it: the second
// run's model request carries the first run's exchange.
func TestResumeFromStateDB(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "The capital is Paris."}, fakechat.Reply{Text: "About 2 million people."})
	defer fake.Close()
	home := newHome(t, fake, "")
	tools := buildTools(t)
	code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "Capital of France?", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	m := regexp.MustCompile(`session (\S+) \(continue it with --resume`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no session id reported: %q", errOut)
	}
	if _, err := os.Stat(filepath.Join(home, "state.db")); err != nil {
		t.Fatalf("state.db not written: %v", err)
	}
	code, out, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "How many people live there?", "--resume", m[1], "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || out != "About 2 million people.\n" {
		t.Fatalf("resume: exit %d stdout %q stderr %q", code, out, errOut)
	}
	var texts []string
	for _, msg := range fake.Requests()[1].Messages() {
		texts = append(texts, fakechat.TextOf(msg))
	}
	joined := strings.Join(texts, "|")
	if !strings.Contains(joined, "Capital of France?|The capital is Paris.|How many people live there?") {
		t.Errorf("resumed request lacks the earlier exchange: %q", joined)
	}
	if code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "x", "--resume", "nope", "--no-history", "--hermes-home", home); code != exitUsage || !strings.Contains(errOut, "--no-history") {
		t.Errorf("--resume with --no-history: exit %d %q", code, errOut)
	}
}

// TestDeadMCPServerDoesNotHoldTheChat starts a chat with an MCP server
// that is a real process which reads its stdin and never answers: the
// chat says what it waits for, skips the server after its connect_timeout
// with a one-line warning, shows the banner, and /reload-mcp tries the
// server again while the conversation goes on.
func TestDeadMCPServerDoesNotHoldTheChat(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "first answer"}, fakechat.Reply{Text: "second answer"})
	defer fake.Close()
	home := newHome(t, fake, "mcp_servers:\n  dead:\n    command: sh\n    args: [\"-c\", \"cat >/dev/null\"]\n    connect_timeout: 1\n")
	stdin := "hello\n/reload-mcp\nand again\n/quit\n"
	start := time.Now()
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	elapsed := time.Since(start)
	if code != exitOK {
		t.Fatalf("exit %d; stdout %q stderr %q", code, out, errOut)
	}
	for _, want := range []string{"connecting to MCP servers: hermes-tools, dead", "MCP server \"dead\" failed during initialize: no answer within 1s"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "⚠ MCP server dead skipped"); n != 2 {
		t.Errorf("%d skip warnings, want one per connection attempt (start and /reload-mcp):\n%s", n, errOut)
	}
	ids := regexp.MustCompile(`session (\S+)\n`).FindAllStringSubmatch(out, -1)
	if len(ids) != 2 || ids[0][1] != ids[1][1] {
		t.Fatalf("want two banners for the same session (start, /reload-mcp); stdout:\n%s", out)
	}
	// Two connection attempts of 1 s each, plus the rest of the chat.
	if elapsed > 8*time.Second {
		t.Errorf("chat took %s with a dead server whose connect_timeout is 1s", elapsed)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var texts []string
	for _, m := range reqs[1].Messages() {
		texts = append(texts, fakechat.TextOf(m))
	}
	if !strings.Contains(strings.Join(texts, "|"), "hello|first answer|and again") {
		t.Errorf("the conversation did not survive /reload-mcp: %q", texts)
	}
}

// TestMissingProviderKey: a hosted provider without its key stops the chat
// before any request, naming the variable and config.yaml; the endpoint
// (redirected to a fake, as a user would with OPENROUTER_BASE_URL) sees
// nothing.
func TestMissingProviderKey(t *testing.T) {
	for _, tt := range []struct {
		name  string
		model string
		args  []string
	}{
		{"configured", "model:\n  default: m\n  provider: openrouter\n", nil},
		{"--provider", "model:\n  default: m\n  provider: ollama\n", []string{"--provider", "openrouter"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := fakechat.New(fakechat.Reply{Text: "should not be asked"})
			defer fake.Close()
			home := t.TempDir()
			path := filepath.Join(home, "config.yaml")
			if err := os.WriteFile(path, []byte(tt.model), 0o600); err != nil {
				t.Fatal(err)
			}
			env := map[string]string{"OPENROUTER_BASE_URL": fake.BaseURL(), "OPENAI_API_KEY": "not-for-openrouter"}
			args := append([]string{"chat", "-q", "hi", "--hermes-home", home, "--hermes-tools-command", buildTools(t)}, tt.args...)
			code, out, errOut := runCLI(t, testDeps(env), "", args...)
			want := "provider openrouter needs OPENROUTER_API_KEY (or model.api_key in " + path + ")"
			if code != exitUsage || out != "" || !strings.Contains(errOut, want) {
				t.Errorf("exit %d stdout %q stderr %q; want exit %d and %q", code, out, errOut, exitUsage, want)
			}
			if n := len(fake.Requests()); n != 0 {
				t.Errorf("the provider got %d requests; want none", n)
			}
		})
	}
}

// TestPythonHermesCommands: the Python Hermes' commands get the one line
// saying where to run them, not this hermes' usage first.
func TestPythonHermesCommands(t *testing.T) {
	for _, args := range [][]string{{"kanban"}, {"skills", "list"}} {
		code, out, errOut := runCLI(t, testDeps(nil), "", args...)
		if code != exitUsage || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "command of the Python Hermes") {
			t.Errorf("%q: exit %d stdout %q stderr %q; want one line saying where to run it", args, code, out, errOut)
		}
	}
}

// TestUsageNamesEveryCodexAction: the help lists every action
// `hermes codex-runtime` accepts, and each is accepted.
func TestUsageNamesEveryCodexAction(t *testing.T) {
	code, _, errOut := runCLI(t, testDeps(nil), "", "--help")
	const line = "hermes codex-runtime [status|on|off|auto|migrate]"
	if code != exitOK || !strings.Contains(errOut, line) {
		t.Fatalf("exit %d; help lacks %q:\n%s", code, line, errOut)
	}
	for _, a := range []string{"status", "on", "off", "auto", "migrate"} {
		if err := checkCodexAction(a); err != nil {
			t.Errorf("the help names %q but it is refused: %v", a, err)
		}
	}
}

// TestContinueLastSession: -c/--continue picks the most recent terminal
// session from state.db without naming it.
func TestContinueLastSession(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "Noted: 42."}, fakechat.Reply{Text: "It was 42."})
	defer fake.Close()
	home := newHome(t, fake, "")
	tools := buildTools(t)
	if code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "-q", "Remember 42.", "--hermes-home", home, "--hermes-tools-command", tools); code != exitOK {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	code, out, errOut := runCLI(t, testDeps(nil), "", "chat", "-c", "-q", "What number?", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || out != "It was 42.\n" {
		t.Fatalf("continue: exit %d stdout %q stderr %q", code, out, errOut)
	}
	var texts []string
	for _, msg := range fake.Requests()[1].Messages() {
		texts = append(texts, fakechat.TextOf(msg))
	}
	if joined := strings.Join(texts, "|"); !strings.Contains(joined, "Remember 42.|Noted: 42.|What number?") {
		t.Errorf("continued request lacks the earlier exchange: %q", joined)
	}
	empty := newHome(t, fake, "")
	if code, _, errOut := runCLI(t, testDeps(nil), "", "chat", "--continue", "-q", "x", "--hermes-home", empty, "--hermes-tools-command", tools); code != exitUsage || !strings.Contains(errOut, "no earlier terminal session") {
		t.Errorf("--continue with no sessions: exit %d %q", code, errOut)
	}
}

// TestUsageCommand: /usage adds up the conversation's tokens and calls,
// and /new starts the count again.
func TestUsageCommand(t *testing.T) {
	fake := fakechat.New(
		fakechat.Reply{Text: "one", Usage: &fakechat.Usage{PromptTokens: 10, CompletionTokens: 3}},
		fakechat.Reply{Text: "two", Usage: &fakechat.Usage{PromptTokens: 20, CompletionTokens: 4, CachedTokens: 5}},
	)
	defer fake.Close()
	home := newHome(t, fake, "")
	stdin := "first\nsecond\n/usage\n/new\n/usage\n/quit\n"
	code, out, errOut := runCLI(t, testDeps(nil), stdin, "chat", "--no-history", "--hermes-home", home, "--hermes-tools-command", buildTools(t))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"input tokens:     30", "output tokens:    7", "cache read:       5", "total tokens:     37", "API calls:        2", "No model calls in this conversation yet."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// TestTitleCommand: /title stores the title in state.db's sessions row the
// way Hermes does (title_source user) and refuses one another session has.
func TestTitleCommand(t *testing.T) {
	fake := fakechat.New(fakechat.Reply{Text: "one"}, fakechat.Reply{Text: "two"})
	defer fake.Close()
	home := newHome(t, fake, "")
	tools := buildTools(t)
	code, out, errOut := runCLI(t, testDeps(nil), "hello\n/title  Release plan\n/quit\n", "chat", "--hermes-home", home, "--hermes-tools-command", tools)
	if code != exitOK || !strings.Contains(out, "Title set: Release plan") {
		t.Fatalf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	_, _, errOut = runCLI(t, testDeps(nil), "hello\n/title Release plan\n/quit\n", "chat", "--hermes-home", home, "--hermes-tools-command", tools)
	if !strings.Contains(errOut, `title "Release plan" is already used by session`) {
		t.Errorf("duplicate title not refused: %q", errOut)
	}
	db, err := sqlitestore.Open(context.Background(), filepath.Join(home, "state.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	var src string
	if err := db.QueryRowContext(context.Background(), "SELECT COUNT(*), MAX(title_source) FROM sessions WHERE title = 'Release plan'").Scan(&n, &src); err != nil || n != 1 || src != "user" {
		t.Errorf("sessions with the title: %d, source %q, err %v", n, src, err)
	}
}
