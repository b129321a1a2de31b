//go:build unix

package realclients

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// Pi reads MCP servers only through the pi-mcp-adapter extension, which
// imports the @earendil-works/* packages (since its 2.6.0): it does not
// load in a Pi published as @mariozechner/pi-coding-agent, so the two are
// pinned together.
const (
	piJS         = "@earendil-works/pi-coding-agent/dist/cli.js"
	piMCPAdapter = "pi-mcp-adapter"
)

// TestRealPiCallsMigratedTool: after `hermes-migrate --client pi`, the real
// Pi (print mode) with pi-mcp-adapter loads our entry from
// ~/.pi/agent/mcp.json; the fake model behind an OpenAI-compatible
// provider on 127.0.0.1 calls hermes-tools' skills_list through the
// adapter's mcp proxy tool (the adapter's default: one tool instead of
// every server's), Pi runs it against the real hermes-tools-mcp, sends the
// real result back and prints the final answer.
func TestRealPiCallsMigratedTool(t *testing.T) {
	npmFile(t, piJS) // skip before any work when it is not installed
	h := newClientHome(t)
	// The adapter names a tool <server>_<tool>; the proxy tool takes that
	// name and the tool's arguments.
	const tool = "hermes-tools_skills_list"
	const final = "Hermes has the interop skills."
	model := newChatModel(t, nil, skillsScript("mcp", `{"tool":"`+tool+`","args":{}}`, final)...)
	setUpPi(t, h, model)
	report := h.migrate(t, "pi")
	if !strings.Contains(report, "pi: wrote ~/.pi/agent/mcp.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}

	stdout := runPi(t, h, model, nil, "-p", "List the Hermes skills.")

	checkSkillsRoundTrip(t, "Pi", model.turns(), "mcp", "call_01")
	if strings.TrimSpace(stdout) != final {
		t.Errorf("pi printed %q, want the model's answer %q", stdout, final)
	}
}

// setUpPi sets Pi up as a user of a self-hosted OpenAI-compatible model
// has it: ~/.pi/agent/models.json declares the provider at model's URL and
// settings.json makes it the default. Then `pi install <dir>` adds
// pi-mcp-adapter from the pinned package's directory: Pi records a local
// path in settings.json and loads the package in place, so nothing is
// fetched (`pi install npm:pi-mcp-adapter` would run npm).
func setUpPi(t *testing.T, h *clientHome, model *chatModel) {
	t.Helper()
	dir := filepath.Join(h.home, ".pi", "agent")
	files := map[string]any{
		"models.json": map[string]any{
			"providers": map[string]any{
				"local": map[string]any{
					"baseUrl": model.fake.BaseURL(),
					"api":     "openai-completions",
					"apiKey":  "sk-hermes-test",
					"models":  []any{map[string]any{"id": "fake-model", "name": "Fake model"}},
				},
			},
		},
		"settings.json": map[string]any{
			"defaultProvider": "local",
			"defaultModel":    "fake-model",
		},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, v := range files {
		writeJSON(t, filepath.Join(dir, name), v)
	}
	runPi(t, h, model, nil, "install", npmFile(t, piMCPAdapter))
	settings, err := os.ReadFile(filepath.Join(dir, "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(settings), piMCPAdapter) || !strings.Contains(string(settings), `"defaultModel": "fake-model"`) {
		t.Fatalf("pi install left settings.json without the adapter or the user's model:\n%s", settings)
	}
}

// runPi runs the pinned Pi as h's user, with the model at model and
// nothing else reachable, and returns its stdout. It fails t when the run
// fails or asked for anything else.
func runPi(t *testing.T, h *clientHome, model *chatModel, extraEnv []string, args ...string) string {
	t.Helper()
	cli := npmFile(t, piJS)
	env := h.env(append([]string{
		// Offline: no refresh of the built-in providers' model catalogs,
		// no version or package update check, no install telemetry and no
		// download of fd or rg for the find and grep tools. Pi 0.86.1 in
		// print mode was not seen to make any of these requests without it
		// (the provider is declared in models.json, the adapter is a local
		// path, and the version check and telemetry run in interactive
		// mode), so this guards against a later version that does.
		"PI_OFFLINE=1",
	}, extraEnv...)...)
	return h.runChecked(t, "pi", model.unscripted, env, nodeBinary(t), append([]string{cli}, args...)...)
}

// TestRealPiEnvExpansion pins how pi-mcp-adapter resolves the variable
// references in a stdio server's env, and which of Pi's own variables the
// server inherits (TestRealClientEnvExpansion does the same for other
// clients): these facts decide the reference syntax hermes-migrate writes
// for Pi. The probe server is a shell that writes its environment to a
// file; Pi carries on without it.
func TestRealPiEnvExpansion(t *testing.T) {
	npmFile(t, piJS)
	h := newClientHome(t)
	env := maps.Clone(envProbe)
	// The adapter's other spellings, and its secret commands: a value
	// starting with ! is run by a shell, !! escapes that.
	env["E_PS"] = "$env:PROBE_SET"
	env["E_BRACE_ENV"] = "{env:PROBE_SET}"
	env["E_BANG"] = "!echo ran"
	env["E_BANG_ESCAPED"] = "!!lit"
	want := map[string]string{
		"E_BRACE": "set-value", "E_MIXED": "a-set-value-b",
		// No defaults: ${VAR:-x} is not a reference, and stays as text.
		"E_DEFAULT_SET": "${PROBE_SET:-dflt}", "E_DEFAULT_UNSET": "${PROBE_UNSET:-dflt}", "E_EMPTY_DEFAULT": "${PROBE_UNSET:-}",
		// An unset ${VAR} becomes empty; $VAR is not a reference.
		"E_UNSET": "", "E_DOLLAR": "$PROBE_SET", "E_DOLLAR_UNSET": "$PROBE_UNSET",
		"E_SECRET": "secret-value",
		"E_PS":     "set-value", "E_BRACE_ENV": "set-value",
		"E_BANG": "ran", "E_BANG_ESCAPED": "!lit",
		// The server inherits Pi's whole environment.
		"PROBE_SET": "set-value", "PROBE_API_KEY": "secret-value",
	}
	dump := filepath.Join(h.tmp, "probe-env")
	probe := map[string]any{
		"command": "/bin/sh",
		"args":    []string{"-c", `env > "$0"; exit 1`, dump},
		"env":     env,
	}
	model := newChatModel(t, nil, fakechat.Reply{Text: "ok"})
	setUpPi(t, h, model)
	writeJSON(t, filepath.Join(h.home, ".pi", "agent", "mcp.json"), map[string]any{"mcpServers": map[string]any{"probe": probe}})
	runPi(t, h, model, probeClientEnv, "-p", "hi")
	checkServerEnv(t, "pi", serverEnv(t, dump, "Pi"), exactly(want), env)
}
