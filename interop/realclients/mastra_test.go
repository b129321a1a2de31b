//go:build unix

package realclients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// mastraCLI is Mastra Code's CLI, pinned in .ci/npm-noscripts: its
// onnxruntime-node dependency's install script downloads from
// api.nuget.org, and Mastra Code runs without it (local embeddings only).
const mastraCLI = "mastracode/dist/cli.js"

// TestRealMastraCodeCallsMigratedTool: after `hermes-migrate --client
// mastracode`, the real Mastra Code CLI (headless -p) loads our entry from
// ~/.mastracode/mcp.json, offers hermes-tools' skills_list to a model
// behind a custom OpenAI-compatible provider on 127.0.0.1, runs the call
// the fake model makes and sends the real result back.
func TestRealMastraCodeCallsMigratedTool(t *testing.T) {
	npmFileIn(t, "npm-noscripts", mastraCLI) // skip before any work when it is not installed
	h := newClientHome(t)
	report := h.migrate(t, "mastracode")
	if !strings.Contains(report, "mastracode: wrote ~/.mastracode/mcp.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}

	// Mastra Code names an MCP tool <server>_<tool>.
	const tool = "hermes-tools_skills_list"
	const final = "Hermes has the interop skills."
	model := newChatModel(t, nil, skillsScript(tool, `{}`, final)...)
	stdout := runMastra(t, h, model, nil, "-p", "List the Hermes skills.")

	checkSkillsRoundTrip(t, "Mastra Code", model.turns(), tool, "call_01")
	if !strings.Contains(stdout, final) {
		t.Errorf("mastracode printed %q, want the model's answer %q in it", stdout, final)
	}
}

// runMastra runs the pinned Mastra Code CLI headless as h's user, its
// model the fake behind a custom provider, with nothing but 127.0.0.1
// reachable, and returns its stdout; it fails t when the run fails or
// asked for anything else.
func runMastra(t *testing.T, h *clientHome, model *chatModel, extraEnv []string, args ...string) string {
	t.Helper()
	cli := npmFileIn(t, "npm-noscripts", mastraCLI)
	// Its settings live in $XDG_DATA_HOME/mastracode. The model is named
	// through the mode defaults, as <provider>/<model> of a custom
	// provider: `-m` checks the name against a catalog fetched from
	// models.dev and api.netlify.com, and 0.32.1 then misreads a custom
	// provider's catalog id. The observer and reflector of its memory run
	// after a long conversation only, but are pinned to the fake too.
	const id = "fake/fake-model"
	settings := map[string]any{
		"models": map[string]any{
			"modeDefaults":           map[string]string{"build": id, "plan": id, "fast": id},
			"subagentModels":         map[string]string{"default": id},
			"observerModelOverride":  id,
			"reflectorModelOverride": id,
		},
		"customProviders": []map[string]any{{
			"name": "fake", "url": model.fake.BaseURL(), "apiKey": "sk-hermes-test", "models": []string{"fake-model"},
		}},
	}
	writeJSON(t, filepath.Join(h.home, ".local", "share", "mastracode", "settings.json"), settings)
	env := h.env(append([]string{
		// Node's fetch ignores HTTPS_PROXY unless told: without it a
		// request to another host would bypass the test's refusing
		// proxy instead of being caught there.
		"NODE_USE_ENV_PROXY=1",
		"MASTRA_TELEMETRY_DISABLED=1",
	}, extraEnv...)...)
	stdout, stderr, err := h.runClient(t, env, nodeBinary(t), append([]string{cli}, args...)...)
	t.Logf("mastracode %q stdout:\n%s\nstderr:\n%s", args, stdout, stderr)
	checkOffline(t, h.proxy, model.unscripted())
	if err != nil {
		t.Fatalf("mastracode %q: %v", args, err)
	}
	return stdout
}

// TestRealMastraCodeEntryFields pins what Mastra Code 0.32.1 makes of an
// mcp.json entry, the facts behind the MastraCode row: ${VAR},
// ${VAR:-default} and $VAR are expanded in env, url and headers (an unset
// one to "" or its default), never in command or args; a stdio server does
// not inherit the client's environment, so a secret must be referenced;
// the server carries on without a probe that exits and a remote that
// refuses it.
func TestRealMastraCodeEntryFields(t *testing.T) {
	npmFileIn(t, "npm-noscripts", mastraCLI) // skip before any work when it is not installed
	h := newClientHome(t)
	dump := filepath.Join(h.tmp, "probe-env")

	remote := newRecorder(t, "mastra-probe")

	cfg := map[string]any{"mcpServers": map[string]any{
		"probe": map[string]any{
			"command": "/bin/sh",
			"args":    []string{"-c", `env > "$0"; printf %s "$1" > "$0.arg"; exit 1`, dump, "a-${PROBE_SET}-$PROBE_SET"},
			"env":     envProbe,
		},
		"remote": map[string]any{
			"url":     remote.URL() + "/${PROBE_SET}/mcp",
			"headers": map[string]string{"Authorization": "Bearer ${PROBE_API_KEY}", "X-Probe": "$PROBE_SET"},
		},
	}}
	writeJSON(t, filepath.Join(h.home, ".mastracode", "mcp.json"), cfg)

	model := newChatModel(t, nil, fakechat.Reply{Text: "ok"})
	runMastra(t, h, model, append([]string{"PROBE_INHERIT=inherited-value"}, probeClientEnv...), "-p", "hi")

	want := map[string]string{
		"E_BRACE": "set-value", "E_MIXED": "a-set-value-b", "E_DEFAULT_SET": "set-value",
		"E_DEFAULT_UNSET": "dflt", "E_EMPTY_DEFAULT": "", "E_UNSET": "", "E_DOLLAR": "set-value",
		"E_DOLLAR_UNSET": "", "E_SECRET": "secret-value",
		// Not inherited: only what the entry names reaches the server.
		"PROBE_SET": absent, "PROBE_API_KEY": absent, "PROBE_INHERIT": absent,
	}
	checkServerEnv(t, "env", serverEnv(t, dump, "Mastra Code"), exactly(want), envProbe)
	if b, _ := os.ReadFile(dump + ".arg"); string(b) != "a-${PROBE_SET}-$PROBE_SET" {
		t.Errorf("args a-${PROBE_SET}-$PROBE_SET reached the server as %q, want it as written", b)
	}

	remoteReqs := remote.requests()
	if len(remoteReqs) == 0 {
		t.Fatal("Mastra Code never tried the remote entry")
	}
	for _, r := range remoteReqs {
		if r.URL.Path != "/set-value/mcp" || r.Header.Get("Authorization") != "Bearer secret-value" || r.Header.Get("X-Probe") != "set-value" {
			t.Errorf("remote request %s, Authorization %q, X-Probe %q: want /set-value/mcp, Bearer secret-value, set-value",
				r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Probe"))
		}
	}
}

// TestRealMastraCodeProjectEntry: `hermes-migrate --client mastracode
// --project` writes .mastracode/mcp.json in the project; Mastra Code,
// started there headless, loads it and calls skills_list, hermes-tools-mcp
// found by name on PATH as the project entry has it.
func TestRealMastraCodeProjectEntry(t *testing.T) {
	npmFileIn(t, "npm-noscripts", mastraCLI) // skip before any work when it is not installed
	h := newClientHome(t)
	report := h.migrate(t, "mastracode", "--project="+h.work)
	if !strings.Contains(report, "mastracode: wrote "+filepath.Join(h.work, ".mastracode", "mcp.json")) {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	if _, err := os.Stat(filepath.Join(h.home, ".mastracode", "mcp.json")); err == nil {
		t.Fatal("hermes-migrate --project also wrote the user file")
	}
	const tool = "hermes-tools_skills_list"
	model := newChatModel(t, nil, skillsScript(tool, `{}`, "done")...)
	runMastra(t, h, model, []string{"PATH=" + filepath.Dir(h.toolsBin) + ":/usr/bin:/bin"}, "-p", "List the Hermes skills.")
	checkSkillsRoundTrip(t, "Mastra Code", model.turns(), tool, "call_01")
}
