//go:build unix

package realclients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// kiloBin is Kilo CLI's native binary, from its Linux x64 package.
const kiloBin = "@kilocode/cli-linux-x64/bin/kilo"

// TestRealKiloCallsMigratedTool: after `hermes-migrate --client kilo-code`,
// the real Kilo CLI (headless `kilo run`) loads our entry from
// ~/.config/kilo, offers hermes-tools' skills_list to a model behind an
// OpenAI-compatible provider on 127.0.0.1, runs the call the fake model
// makes, sends the real result back and prints the final answer.
func TestRealKiloCallsMigratedTool(t *testing.T) {
	npmFile(t, kiloBin) // skip before any work when it is not installed
	h := newClientHome(t)
	// Kilo, like OpenCode, names an MCP tool <server>_<tool>.
	const tool = "hermes-tools_skills_list"
	const final = "Hermes has the interop skills."
	// OpenCode's fake model serves Kilo too: Kilo 7.7.9 was not seen to
	// ask for a session title here, but its title agent has OpenCode's
	// prompt, so should it ask, the title request is answered aside and
	// the agent's turns still get the scripted replies in order.
	model := newChatModel(t, opencodeTitle, skillsScript(tool, `{}`, final)...)
	configPath := writeKiloUserConfig(t, h, model.fake.BaseURL())
	migrateKeepingProvider(t, h, "kilo-code", configPath, "~/.config/kilo/kilo.jsonc", model.fake.BaseURL())

	stdout := runKilo(t, h, model, nil, "run", "List the Hermes skills.")

	checkSkillsRoundTrip(t, "Kilo", model.turns(), tool, "call_01")
	if strings.TrimSpace(stdout) != final {
		t.Errorf("kilo printed %q, want the model's answer %q", stdout, final)
	}
}

// writeKiloUserConfig writes ~/.config/kilo/kilo.jsonc as a user of a
// self-hosted OpenAI-compatible model has it, with the model at baseURL;
// it returns the path. Such a user turns off the Kilo Gateway provider
// ("kilo"), as Kilo's own config docs show: while it is on, every run
// asks api.kilo.ai:443 for its model list (a 403 without a Kilo login),
// even with another provider's model chosen.
func writeKiloUserConfig(t *testing.T, h *clientHome, baseURL string) string {
	t.Helper()
	p := filepath.Join(h.home, ".config", "kilo", "kilo.jsonc")
	writeLocalModelConfig(t, p, map[string]any{
		"$schema":            "https://app.kilo.ai/config.json",
		"disabled_providers": []string{"kilo"},
	}, baseURL)
	return p
}

// runKilo runs the pinned Kilo CLI as h's user with nothing but 127.0.0.1
// reachable and returns its stdout; it fails t when the run fails or asked
// for anything else.
func runKilo(t *testing.T, h *clientHome, model *chatModel, extraEnv []string, args ...string) string {
	t.Helper()
	bin := npmFile(t, kiloBin)
	// Offline: no model list (the provider's model is declared in the
	// config; without KILO_DISABLE_MODELS_FETCH Kilo 7.7.9 asks
	// models.dev:443) and no PostHog telemetry (unless
	// KILO_TELEMETRY_LEVEL is set to something other than "all", every run
	// sends events to us.i.posthog.com:443); and, though this run was not
	// seen to need them, no self-update, default auth plugins or language
	// servers from npm, or session sharing.
	env := h.env(
		"KILO_DISABLE_MODELS_FETCH=true",
		"KILO_TELEMETRY_LEVEL=off",
		"KILO_DISABLE_AUTOUPDATE=true",
		"KILO_DISABLE_DEFAULT_PLUGINS=true",
		"KILO_DISABLE_LSP_DOWNLOAD=true",
		"KILO_DISABLE_SHARE=true",
	)
	env = append(env, extraEnv...)
	return h.runChecked(t, "kilo", model.unscripted, env, bin, args...)
}

// TestRealKiloEnvExpansion pins how Kilo CLI resolves variable references
// in a local server's environment, in the user's config and in a
// project's, what the server inherits, and where it runs: the facts
// behind the KiloCode row writing {env:VAR} in user files only, and no
// cwd. Each probe
// server writes its environment to a file, then becomes the real
// hermes-tools-mcp, so the run goes on as usual.
func TestRealKiloEnvExpansion(t *testing.T) {
	npmFile(t, kiloBin)
	h := newClientHome(t)
	model := newChatModel(t, opencodeTitle, fakechat.Reply{Text: "ok"})
	userConfig := writeKiloUserConfig(t, h, model.fake.BaseURL())
	probe := func(name string, env map[string]string) (dump string, entry map[string]any) {
		dump = filepath.Join(h.tmp, name+".env")
		return dump, map[string]any{"mcp": map[string]any{name: map[string]any{
			"type":        "local",
			"command":     []string{"/bin/sh", "-c", `{ env; echo "CWD=$(pwd -P)"; } > "$0"; exec "$1"`, dump, h.toolsBin},
			"environment": env,
		}}}
	}
	refs := map[string]string{
		"E_ENV":       "{env:PROBE_SET}",
		"E_ENV_UNSET": "{env:PROBE_UNSET}",
		"E_SECRET":    "{env:PROBE_API_KEY}",
		"E_DOLLAR":    "${PROBE_SET}",
	}
	userDump, user := probe("user-probe", refs)
	// Kilo's schema has cwd for a local server; the run shows whether
	// it is used.
	user["mcp"].(map[string]any)["user-probe"].(map[string]any)["cwd"] = h.tmp
	// Two project files, both read (the project root's kilo.json and
	// .kilo/kilo.json): one with references, one without.
	projectDump, project := probe("project-probe", refs)
	plainDump, plain := probe("plain-probe", map[string]string{"E_LIT": "literal"})
	files := map[string]map[string]any{
		filepath.Join(filepath.Dir(userConfig), "kilo.json"): user,
		filepath.Join(h.work, "kilo.json"):                   project,
		filepath.Join(h.work, ".kilo", "kilo.json"):          plain,
	}
	for p, cfg := range files {
		writeJSON(t, p, cfg)
	}
	// With --print-logs the log shows why a file was skipped
	// ("ConfigInvalidError skipped config due to error").
	runKilo(t, h, model, probeClientEnv, "run", "--print-logs", "hi")

	check := func(dump string, want map[string]string) {
		t.Helper()
		label := "Kilo, " + filepath.Base(dump)
		checkServerEnv(t, label, serverEnv(t, dump, label), exactly(want), nil)
	}
	check(userDump, map[string]string{
		// {env:VAR} is expanded in the user's config, an unset one to "";
		// ${VAR} is no reference.
		"E_ENV": "set-value", "E_ENV_UNSET": "", "E_SECRET": "secret-value", "E_DOLLAR": "${PROBE_SET}",
		// The server inherits Kilo's whole environment, secrets too.
		"PROBE_SET": "set-value", "PROBE_API_KEY": "secret-value",
		// cwd is accepted but not used: the server runs in the workspace.
		"CWD": h.work,
	})
	check(plainDump, map[string]string{"E_LIT": "literal", "PROBE_SET": "set-value"})
	// A project file with an {env:...} reference is dropped whole
	// ("environment references are not allowed in project config"), so a
	// reference written there would cost every server in it.
	if _, err := os.Stat(projectDump); err == nil {
		t.Errorf("Kilo started the server of a project file with {env:...} references")
	}
}
