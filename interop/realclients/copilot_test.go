//go:build unix

package realclients

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// copilotBin is GitHub Copilot CLI's native executable, from its Linux x64
// package (the @github/copilot wrapper is not pinned). On first run it
// unpacks its JavaScript and native runtime into ~/.cache/copilot, about a
// second's work and 235 MB, whose pkg folder the throwaway homes share
// (sharedCache).
const copilotBin = "@github/copilot-linux-x64/copilot"

// TestRealCopilotCLICallsMigratedTool: after `hermes-migrate --client
// github-copilot-cli`, the real Copilot CLI (headless -p) loads our entry
// from ~/.copilot/mcp-config.json, offers hermes-tools' skills_list to a
// model behind its bring-your-own-key OpenAI-compatible provider on
// 127.0.0.1, runs the call the fake model makes, sends the real result back
// and prints the final answer.
func TestRealCopilotCLICallsMigratedTool(t *testing.T) {
	npmFile(t, copilotBin) // skip before any work when it is not installed
	h := newClientHome(t)
	report := h.migrate(t, "github-copilot-cli")
	if !strings.Contains(report, "github-copilot-cli: wrote ~/.copilot/mcp-config.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}

	// Copilot CLI names an MCP tool <server>-<tool>; its permission rules
	// spell the same tool <server>(<tool>).
	const tool = "hermes-tools-skills_list"
	const final = "Hermes has the interop skills."
	model := newChatModel(t, nil, skillsScript(tool, `{}`, final)...)
	// --silent prints the agent's answer alone, without the tool-call
	// lines and usage summary.
	stdout := runCopilot(t, h, model, nil, "-p", "List the Hermes skills.", "--allow-tool=hermes-tools(skills_list)", "--silent")

	checkSkillsRoundTrip(t, "Copilot CLI", model.turns(), tool, "call_01")
	if strings.TrimSpace(stdout) != final {
		t.Errorf("copilot printed %q, want the model's answer %q", stdout, final)
	}
}

// runCopilot runs the pinned Copilot CLI as h's user with nothing but
// 127.0.0.1 reachable and returns its stdout; it fails t when the run
// fails or asked for anything else.
func runCopilot(t *testing.T, h *clientHome, model *chatModel, extraEnv []string, args ...string) string {
	t.Helper()
	bin := npmFile(t, copilotBin)
	h.sharedCache(t, ".cache/copilot/pkg")
	env := h.env(append([]string{
		// Bring your own key: with a provider base URL set Copilot CLI
		// needs no GitHub login and sends the agent's turns to
		// <base>/chat/completions (wire API "completions", the default
		// for type openai). A model name is required; one not in its
		// catalog gets default token limits.
		"COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_BASE_URL=" + model.fake.BaseURL(),
		"COPILOT_PROVIDER_API_KEY=sk-hermes-test",
		"COPILOT_MODEL=fake-model",
		// Offline: without it Copilot CLI 1.0.102 still connects to
		// api.github.com:443 twice per run, provider or not; with it,
		// it skips GitHub auth, telemetry, the GitHub MCP server and
		// auto-update.
		"COPILOT_OFFLINE=true",
		// Not seen to be needed under COPILOT_OFFLINE, but a launch
		// must not swap in a newer CLI from the package cache either.
		"COPILOT_AUTO_UPDATE=false",
	}, extraEnv...)...)
	stdout, stderr, err := h.runClient(t, env, bin, args...)
	t.Logf("copilot %q stdout:\n%s\nstderr:\n%s", args, stdout, stderr)
	checkOffline(t, h.proxy, model.unscripted())
	if err != nil || t.Failed() {
		// Its log names the MCP servers it started, their errors and the
		// hosts it tried; stderr has none of that.
		logs, _ := filepath.Glob(filepath.Join(h.home, ".copilot", "logs", "*.log"))
		for _, p := range logs {
			b, _ := os.ReadFile(p)
			t.Logf("%s:\n%s", p, b)
		}
	}
	if err != nil {
		t.Fatalf("copilot %q: %v", args, err)
	}
	return stdout
}

// TestRealCopilotCLIEntryFields pins what Copilot CLI 1.0.102 makes of the
// fields of an mcp-config.json entry, the facts behind the CopilotCLI row:
// variable references in env, command, args, cwd, url and headers; which
// of its own variables a server inherits; cwd; and timeout, read in
// milliseconds. A probe shell writes its environment, working directory
// and argument to files and exits; a remote entry points at a recorder on
// 127.0.0.1 that refuses it; the client carries on without both. Two more
// copies of hermes-tools answer tools/list 2 s late, one with a timeout of
// 1000 and one of 5000, and the migrated entry keeps hermes-migrate's.
func TestRealCopilotCLIEntryFields(t *testing.T) {
	npmFile(t, copilotBin) // skip before any work when it is not installed
	h := newClientHome(t)
	dump := filepath.Join(h.tmp, "probe")
	probeDir := filepath.Join(h.tmp, "probe-cwd")
	if err := os.Mkdir(probeDir, 0o755); err != nil {
		t.Fatal(err)
	}
	report := h.migrate(t, "github-copilot-cli")
	if !strings.Contains(report, "github-copilot-cli: wrote ~/.copilot/mcp-config.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	configPath := filepath.Join(h.home, ".copilot", "mcp-config.json")
	var cfg struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	b, err := os.ReadFile(configPath)
	if err != nil || json.Unmarshal(b, &cfg) != nil || cfg.MCPServers["hermes-tools"] == nil {
		t.Fatalf("mcp-config.json after migration (%v):\n%s", err, b)
	}

	remote := newRecorder(t, "copilot-probe")

	env := maps.Clone(envProbe)
	// Copilot CLI scrubs some variables from its own environment (a list
	// in its runtime: OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY,
	// GITHUB_TOKEN, ...; GH_TOKEN is not on it): a reference to one reads
	// as unset, so hermes-tools never gets OPENAI_API_KEY from it.
	env["E_OPENAI_KEY"] = "${OPENAI_API_KEY:-}"
	env["E_OPENAI_BASE"] = "${OPENAI_BASE_URL:-dflt}"
	env["E_GITHUB_TOKEN"] = "${GITHUB_TOKEN:-}"
	env["E_GH_TOKEN"] = "${GH_TOKEN:-}"
	env["E_ANTHROPIC_KEY"] = "${ANTHROPIC_API_KEY:-}"
	// hermes-tools behind a shell that holds back the client's tools/list
	// for 2 s: with a timeout of 1000 its tools must be missing, with
	// 5000 present, so timeout is milliseconds and covers discovery.
	// Copilot CLI leaves $line alone: its environment has no such name.
	slow := func(timeout int) map[string]any {
		return map[string]any{
			"type":    "stdio",
			"command": "/bin/sh",
			"args":    delayedArgs(h.toolsBin, "tools/list"),
			"tools":   []string{"*"},
			"timeout": timeout,
		}
	}
	cfg.MCPServers["tight"] = slow(1000)
	cfg.MCPServers["loose"] = slow(5000)
	cfg.MCPServers["probe"] = map[string]any{
		"type":    "stdio",
		"command": "${PROBE_SHELL}",
		"args":    []string{"-c", `env > "$0"; pwd > "$0.cwd"; printf %s "$1" > "$0.arg"; exit 1`, dump, "a-${PROBE_SET}-$PROBE_SET"},
		"cwd":     "${PROBE_DIR}",
		"env":     env,
		"tools":   []string{"*"},
	}
	cfg.MCPServers["remote"] = map[string]any{
		"type":    "http",
		"url":     remote.URL() + "/${PROBE_SET}/mcp",
		"headers": map[string]string{"Authorization": "Bearer ${PROBE_API_KEY:-}", "X-Probe": "$PROBE_SET"},
		"tools":   []string{"*"},
	}
	writeJSON(t, configPath, cfg)

	model := newChatModel(t, nil, fakechat.Reply{Text: "ok"})
	runCopilot(t, h, model, append(slices.Clone(probeClientEnv),
		"PROBE_SHELL=/bin/sh", "PROBE_DIR="+probeDir,
		// Scrubbed: the base URL names the fake, so that were Copilot
		// CLI to use it for anything, the request would show up as
		// unscripted.
		"OPENAI_API_KEY=sk-probe-openai", "OPENAI_BASE_URL="+model.fake.BaseURL(),
		// Under COPILOT_OFFLINE no GitHub login is tried with them,
		// but a classic ghp_ token in GITHUB_TOKEN ends the run at
		// start, so the probe's is fine-grained in form.
		"GITHUB_TOKEN=github_pat_probe", "GH_TOKEN=gho_probe",
		"ANTHROPIC_API_KEY=sk-ant-probe",
	), "-p", "hi")

	reqs := model.turns()
	if len(reqs) != 1 {
		t.Fatalf("the fake model got %d agent requests, want 1", len(reqs))
	}
	tools := reqs[0].ToolNames()
	for name, want := range map[string]bool{"hermes-tools": true, "loose": true, "tight": false} {
		if got := slices.Contains(tools, name+"-skills_list"); got != want {
			t.Errorf("%s-skills_list offered: %v, want %v (timeout %v); tools: %v", name, got, want, cfg.MCPServers[name]["timeout"], tools)
		}
	}

	got := serverEnv(t, dump, "Copilot CLI (command ${PROBE_SHELL})")
	want := map[string]string{
		"E_BRACE": "set-value", "E_MIXED": "a-set-value-b", "E_DEFAULT_SET": "set-value",
		"E_DEFAULT_UNSET": "dflt", "E_EMPTY_DEFAULT": "", "E_SECRET": "secret-value",
		// An unset ${VAR} without a default stays literal text, as in
		// Claude Code, hence ${VAR:-}; $VAR is a reference too.
		"E_UNSET": "${PROBE_UNSET}", "E_DOLLAR": "set-value", "E_DOLLAR_UNSET": "$PROBE_UNSET",
		// The server inherits the client's environment, secrets
		// included, but not what the client scrubbed from it.
		"PROBE_SET": "set-value", "PROBE_API_KEY": "secret-value",
		"OPENAI_API_KEY": absent, "E_OPENAI_KEY": "", "E_OPENAI_BASE": "dflt",
		"GITHUB_TOKEN": absent, "E_GITHUB_TOKEN": "", "GH_TOKEN": "gho_probe", "E_GH_TOKEN": "gho_probe",
		"ANTHROPIC_API_KEY": absent, "E_ANTHROPIC_KEY": "",
		// These four are the CopilotCLI row's scrubbed list
		// (configmigrate/clientsync/clients.go), which tells the user.
	}
	checkServerEnv(t, "env", got, exactly(want), env)
	if b, _ := os.ReadFile(dump + ".cwd"); strings.TrimSpace(string(b)) != probeDir {
		t.Errorf("cwd ${PROBE_DIR}: the server ran in %q, want %s", b, probeDir)
	}
	if b, _ := os.ReadFile(dump + ".arg"); string(b) != "a-set-value-set-value" {
		t.Errorf("args a-${PROBE_SET}-$PROBE_SET reached the server as %q", b)
	}

	remoteReqs := remote.requests()
	if len(remoteReqs) == 0 {
		t.Fatal("Copilot CLI never tried the remote entry")
	}
	for _, r := range remoteReqs {
		if r.URL.Path != "/set-value/mcp" || r.Header.Get("Authorization") != "Bearer secret-value" || r.Header.Get("X-Probe") != "set-value" {
			t.Errorf("remote request %s %s, Authorization %q, X-Probe %q: want /set-value/mcp, Bearer secret-value, set-value",
				r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Probe"))
		}
	}
}
