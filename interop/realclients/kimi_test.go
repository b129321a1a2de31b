//go:build unix

package realclients

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// kimiMain is Kimi Code's CLI, one bundled ES module run by Node.
const kimiMain = "@moonshot-ai/kimi-code/dist/main.mjs"

// TestRealKimiCodeCallsMigratedTool: after `hermes-migrate --client
// kimi-code`, the real Kimi Code CLI (headless -p) loads our entry from
// ~/.kimi-code/mcp.json, offers hermes-tools' skills_list to a model behind
// an OpenAI-compatible provider on 127.0.0.1 (no Moonshot login), runs the
// call the fake model makes, sends the real result back and prints the
// final answer.
func TestRealKimiCodeCallsMigratedTool(t *testing.T) {
	npmFile(t, kimiMain) // skip before any work when it is not installed
	h := newClientHome(t)
	report := h.migrate(t, "kimi-code")
	if !strings.Contains(report, "kimi-code: wrote ~/.kimi-code/mcp.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}

	// Kimi Code names an MCP tool mcp__<server>__<tool>.
	const tool = "mcp__hermes-tools__skills_list"
	const final = "Hermes has the interop skills."
	model := newChatModel(t, nil, skillsScript(tool, `{}`, final)...)
	// -p runs tools without asking; it refuses --yolo and --auto.
	stdout := runKimi(t, h, model, nil, "-p", "List the Hermes skills.")

	checkSkillsRoundTrip(t, "Kimi Code", model.turns(), tool, "call_01")
	if !strings.Contains(stdout, final) {
		t.Errorf("kimi printed %q, want the model's answer %q in it", stdout, final)
	}
}

// runKimi runs the pinned Kimi Code CLI as h's user with nothing but
// 127.0.0.1 reachable and returns its stdout; it fails t when the run
// fails or asked for anything else.
func runKimi(t *testing.T, h *clientHome, model *chatModel, extraEnv []string, args ...string) string {
	t.Helper()
	stdout, _ := runKimiOutput(t, h, model, extraEnv, args...)
	return stdout
}

// runKimiStderr is runKimi returning stderr, where Kimi Code warns.
func runKimiStderr(t *testing.T, h *clientHome, model *chatModel, extraEnv []string, args ...string) string {
	t.Helper()
	_, stderr := runKimiOutput(t, h, model, extraEnv, args...)
	return stderr
}

func runKimiOutput(t *testing.T, h *clientHome, model *chatModel, extraEnv []string, args ...string) (stdout, stderr string) {
	t.Helper()
	cli := npmFile(t, kimiMain)
	stdout, stderr, err := h.runClient(t, kimiEnv(h, model, extraEnv), nodeBinary(t), append([]string{cli}, args...)...)
	t.Logf("kimi %q stdout:\n%s\nstderr:\n%s", args, stdout, stderr)
	checkOffline(t, h.proxy, model.unscripted())
	if err != nil || t.Failed() {
		// Its log names the MCP servers it started and their errors;
		// stderr has none of that.
		logs, _ := filepath.Glob(filepath.Join(h.home, ".kimi-code", "logs", "*"))
		for _, p := range logs {
			b, _ := os.ReadFile(p)
			t.Logf("%s:\n%s", p, b)
		}
	}
	if err != nil {
		t.Fatalf("kimi %q: %v", args, err)
	}
	return stdout, stderr
}

// kimiEnv is the environment Kimi Code runs in: h's user, its model the
// fake, and nothing that leaves the machine.
func kimiEnv(h *clientHome, model *chatModel, extraEnv []string) []string {
	return h.env(append([]string{
		// Kimi Code's model from the environment (its env-model
		// config): with KIMI_MODEL_NAME set it adds a provider and a
		// default model alias of its own, so it runs without a
		// Moonshot login or a config.toml. Type openai speaks chat
		// completions to <base>/chat/completions.
		"KIMI_MODEL_NAME=fake-model",
		"KIMI_MODEL_API_KEY=sk-hermes-test",
		"KIMI_MODEL_PROVIDER_TYPE=openai",
		"KIMI_MODEL_BASE_URL=" + model.fake.BaseURL(),
		// Offline: without it Kimi Code 2.1.0 posts its events to
		// telemetry-logs.kimi.com:443 on every run.
		"KIMI_DISABLE_TELEMETRY=1",
		// Offline: without it every run checks code.kimi.com:443 for a
		// newer release; it also keeps a launch from swapping in one.
		"KIMI_CODE_NO_AUTO_UPDATE=1",
	}, extraEnv...)...)
}

// TestRealKimiCodeEntryFields pins what Kimi Code 2.1.0 makes of the fields
// of an mcp.json entry, the facts behind the KimiCode row: no variable
// reference is expanded anywhere (env, args, headers), a stdio server
// inherits the client's whole environment instead, cwd is honoured,
// startupTimeoutMs, in milliseconds, bounds start-up and tool discovery,
// toolTimeoutMs each call, and enabled false keeps a server off. A
// probe shell writes its environment, working directory and argument to
// files and exits; two remote entries point at a recorder on 127.0.0.1
// that refuses them; the client carries on without all three. Two more
// copies of hermes-tools answer tools/list 2 s late, one with a
// startupTimeoutMs of 1000 and one of 5000, a third answers the call the
// fake model makes 2 s late, with a toolTimeoutMs of 1000.
func TestRealKimiCodeEntryFields(t *testing.T) {
	npmFile(t, kimiMain) // skip before any work when it is not installed
	h := newClientHome(t)
	dump := filepath.Join(h.tmp, "probe")
	probeDir := filepath.Join(h.tmp, "probe-cwd")
	if err := os.Mkdir(probeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	report := h.migrate(t, "kimi-code")
	if !strings.Contains(report, "kimi-code: wrote ~/.kimi-code/mcp.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	configPath := filepath.Join(h.home, ".kimi-code", "mcp.json")
	var cfg struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	b, err := os.ReadFile(configPath)
	if err != nil || json.Unmarshal(b, &cfg) != nil || cfg.MCPServers["hermes-tools"] == nil {
		t.Fatalf("mcp.json after migration (%v):\n%s", err, b)
	}

	remote := newRecorder(t, "kimi-probe")

	// hermes-tools behind a shell that holds back the client's tools/list
	// for 2 s: with a startupTimeoutMs of 1000 its tools must be missing,
	// with 5000 present.
	slow := func(timeout int) map[string]any {
		return map[string]any{
			"transport":        "stdio",
			"command":          "/bin/sh",
			"args":             delayedArgs(h.toolsBin, "tools/list"),
			"startupTimeoutMs": timeout,
		}
	}
	cfg.MCPServers["tight"] = slow(1000)
	cfg.MCPServers["loose"] = slow(5000)
	// hermes-tools behind a shell that holds back a tools/call for 2 s,
	// with a toolTimeoutMs of 1000: the call must fail, so toolTimeoutMs
	// is milliseconds and covers each call.
	cfg.MCPServers["slowcall"] = map[string]any{
		"transport":     "stdio",
		"command":       "/bin/sh",
		"args":          delayedArgs(h.toolsBin, "tools/call"),
		"toolTimeoutMs": 1000,
	}
	// A server turned off stays off: its tools are not offered.
	cfg.MCPServers["off"] = map[string]any{"transport": "stdio", "command": h.toolsBin, "enabled": false}
	cfg.MCPServers["probe"] = map[string]any{
		"transport": "stdio",
		"command":   "/bin/sh",
		"args":      []string{"-c", `env > "$0"; pwd > "$0.cwd"; printf %s "$1" > "$0.arg"; exit 1`, dump, "a-${PROBE_SET}-$PROBE_SET"},
		"cwd":       probeDir,
		"env":       envProbe,
	}
	cfg.MCPServers["remote"] = map[string]any{
		"transport": "http",
		"url":       remote.URL() + "/literal/mcp",
		"headers":   map[string]string{"Authorization": "Bearer ${PROBE_API_KEY}", "X-Probe": "$PROBE_SET"},
	}
	// Kimi Code's own way to a secret header: Authorization from a
	// variable named in bearerTokenEnvVar.
	cfg.MCPServers["bearer"] = map[string]any{
		"transport":         "http",
		"url":               remote.URL() + "/bearer/mcp",
		"bearerTokenEnvVar": "PROBE_API_KEY",
	}
	writeJSON(t, configPath, cfg)

	model := newChatModel(t, nil,
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "call_slow", Name: "mcp__slowcall__skills_list", Arguments: `{}`}}},
		fakechat.Reply{Text: "ok"},
	)
	runKimi(t, h, model, probeClientEnv, "-p", "hi")

	reqs := model.turns()
	if len(reqs) != 2 {
		t.Fatalf("the fake model got %d agent requests, want 2", len(reqs))
	}
	tools := reqs[0].ToolNames()
	for name, want := range map[string]bool{"hermes-tools": true, "loose": true, "tight": false, "slowcall": true, "off": false} {
		if got := slices.Contains(tools, "mcp__"+name+"__skills_list"); got != want {
			t.Errorf("mcp__%s__skills_list offered: %v, want %v (%v); tools: %v", name, got, want, cfg.MCPServers[name], tools)
		}
	}
	var slowResult string
	for _, m := range reqs[1].Messages() {
		if m["role"] == "tool" && m["tool_call_id"] == "call_slow" {
			slowResult = fakechat.TextOf(m)
		}
	}
	t.Logf("slowcall result: %s", slowResult)
	if !strings.Contains(slowResult, "timed out") || strings.Contains(slowResult, "interop-alpha") {
		t.Errorf("a call 2 s late with toolTimeoutMs 1000 came back %q, want a timeout error\n%s", slowResult, reqs[1].Raw)
	}

	want := map[string]string{
		"PROBE_SET": "set-value", "PROBE_API_KEY": "secret-value",
		// The variables that name the model reach every server too.
		"KIMI_MODEL_API_KEY": "sk-hermes-test",
	}
	for k, v := range envProbe {
		want[k] = v // every value as written
	}
	checkServerEnv(t, "env", serverEnv(t, dump, "Kimi Code"), exactly(want), envProbe)
	if b, _ := os.ReadFile(dump + ".cwd"); strings.TrimSpace(string(b)) != probeDir {
		t.Errorf("cwd %s: the server ran in %q", probeDir, b)
	}
	if b, _ := os.ReadFile(dump + ".arg"); string(b) != "a-${PROBE_SET}-$PROBE_SET" {
		t.Errorf("args a-${PROBE_SET}-$PROBE_SET reached the server as %q", b)
	}

	remoteReqs := remote.requests()
	seen := map[string]bool{}
	for _, r := range remoteReqs {
		seen[r.URL.Path] = true
		switch r.URL.Path {
		case "/literal/mcp":
			if r.Header.Get("Authorization") != "Bearer ${PROBE_API_KEY}" || r.Header.Get("X-Probe") != "$PROBE_SET" {
				t.Errorf("remote request %s: Authorization %q, X-Probe %q: want both as written", r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Probe"))
			}
		case "/bearer/mcp":
			if r.Header.Get("Authorization") != "Bearer secret-value" {
				t.Errorf("remote request %s: Authorization %q, want Bearer secret-value", r.URL.Path, r.Header.Get("Authorization"))
			}
		default:
			t.Errorf("remote request to %s", r.URL.Path)
		}
	}
	if !seen["/literal/mcp"] || !seen["/bearer/mcp"] {
		t.Fatalf("Kimi Code did not try both remote entries; paths seen: %v", seen)
	}
}

// TestRealKimiCodeProjectEntry: `hermes-migrate --client kimi-code
// --project` writes .kimi-code/mcp.json in the project. Kimi Code skips a
// project's servers until the user trusts the folder once in its TUI (-p
// only warns, naming them); once trusted, started there headless, it loads
// the entry and calls skills_list, hermes-tools-mcp found by name on PATH
// as the project entry has it.
func TestRealKimiCodeProjectEntry(t *testing.T) {
	npmFile(t, kimiMain) // skip before any work when it is not installed
	h := newClientHome(t)
	report := h.migrate(t, "kimi-code", "--project="+h.work)
	if !strings.Contains(report, "kimi-code: wrote "+filepath.Join(h.work, ".kimi-code", "mcp.json")) {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".kimi-code", "mcp.json")); err == nil {
		t.Fatal("hermes-migrate --project also wrote the user file")
	}
	path := []string{"PATH=" + filepath.Dir(h.toolsBin) + ":/usr/bin:/bin"}

	const tool = "mcp__hermes-tools__skills_list"
	untrusted := newChatModel(t, nil, fakechat.Reply{Text: "done"})
	stderr := runKimiStderr(t, h, untrusted, path, "-p", "hi")
	if !strings.Contains(stderr, "this folder is not trusted; skipped 1 project-level MCP server: hermes-tools") {
		t.Errorf("kimi in an untrusted folder: stderr %q, want the warning that names hermes-tools", stderr)
	}
	if reqs := untrusted.turns(); len(reqs) != 1 || slices.Contains(reqs[0].ToolNames(), tool) {
		t.Fatalf("kimi in an untrusted folder: %d requests; want one without %s", len(reqs), tool)
	}

	trustKimiFolder(t, h)

	model := newChatModel(t, nil,
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "call_01", Name: tool, Arguments: `{}`}}},
		fakechat.Reply{Text: "done"},
	)
	runKimi(t, h, model, path, "-p", "List the Hermes skills.")
	checkSkillsRoundTrip(t, "Kimi Code", model.turns(), tool, "call_01")
}

// trustKimiFolder records h.work as trusted, the record Kimi Code 2.1.0's
// TUI writes when the user answers its first question in a new project,
// "Trust this folder?", with Trust: ~/.kimi-code/workspace-trust/
// wd_<folder name>_<first 12 hex digits of the path's SHA-256>, holding
// the path and the time (seen by answering it in a terminal by hand). The
// test writes it instead of driving the TUI because the TUI, once started,
// also asks api.kimi.com and code.kimi.com for things -p never needs.
func trustKimiFolder(t *testing.T, h *clientHome) {
	t.Helper()
	if filepath.Base(h.work) != "work" {
		t.Fatalf("the record's name is made for a folder named work, not %s", h.work)
	}
	sum := sha256.Sum256([]byte(h.work))
	p := filepath.Join(h.home, ".kimi-code", "workspace-trust", "wd_work_"+hex.EncodeToString(sum[:])[:12])
	writeJSON(t, p, map[string]any{"root": h.work, "trustedAt": time.Now().UnixMilli()})
}

// TestRealKimiCodeRemoteBearer: a Hermes server reached over HTTP with
// "Authorization: Bearer ${VAR}" is registered for Kimi Code, which cannot
// expand references, as bearerTokenEnvVar: VAR. The real hermes-tools-mcp
// serves it on 127.0.0.1 behind that token; Kimi Code, started with VAR
// set, authenticates, offers its skills_list and sends back the real
// result, and the file holds the variable's name, never the token.
func TestRealKimiCodeRemoteBearer(t *testing.T) {
	npmFile(t, kimiMain) // skip before any work when it is not installed
	h := newClientHome(t)
	const token = "remote-token-7c41"
	url := listenTools(t, h, token)
	yaml := "mcp_servers:\n  remote-tools:\n    url: " + url + "\n" +
		"    headers:\n      Authorization: \"Bearer ${REMOTE_TOOLS_TOKEN}\"\n"
	if err := os.WriteFile(filepath.Join(h.home, ".hermes", "config.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	report := h.migrate(t, "kimi-code", "--user-servers")
	if !strings.Contains(report, "remote-tools: reads REMOTE_TOOLS_TOKEN from the environment Kimi Code is started from") {
		t.Errorf("hermes-migrate report does not say where the token comes from:\n%s", report)
	}
	written, err := os.ReadFile(filepath.Join(h.home, ".kimi-code", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(written, &cfg); err != nil || strings.Contains(string(written), token) ||
		cfg.MCPServers["remote-tools"]["bearerTokenEnvVar"] != "REMOTE_TOOLS_TOKEN" {
		t.Fatalf("mcp.json (%v): want remote-tools with bearerTokenEnvVar REMOTE_TOOLS_TOKEN and no token:\n%s", err, written)
	}

	const tool = "mcp__remote-tools__skills_list"
	const final = "The remote Hermes has the interop skills."
	model := newChatModel(t, nil, skillsScript(tool, `{}`, final)...)
	runKimi(t, h, model, []string{"REMOTE_TOOLS_TOKEN=" + token}, "-p", "List the Hermes skills.")
	checkSkillsRoundTrip(t, "Kimi Code", model.turns(), tool, "call_01")
}

// listenTools serves the real hermes-tools-mcp over Streamable HTTP on a
// free 127.0.0.1 port, with h's Hermes home and token required, and
// returns its /mcp URL; the server stops with the test.
func listenTools(t *testing.T, h *clientHome, token string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, h.toolsBin, "--listen", "127.0.0.1:0", "--toolsets", "skills", "--log-level", "info")
	cmd.Env = h.env("HERMES_HOME="+filepath.Join(h.home, ".hermes"), "HERMES_MCP_TOKEN="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	found := make(chan string, 1)
	var log strings.Builder
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		cmd.Wait()
		close(found)
	}()
	select {
	case url, ok := <-found:
		if !ok {
			t.Fatalf("hermes-tools-mcp --listen exited before serving: %s", log.String())
		}
		return url
	case <-time.After(30 * time.Second):
		t.Fatal("hermes-tools-mcp --listen did not say where it serves within 30 s")
	}
	return ""
}

// listeningRE is hermes-tools-mcp's line naming the address it serves.
var listeningRE = regexp.MustCompile(`serving MCP on (http://127\.0\.0\.1:\d+/mcp)`)
