//go:build unix

package realclients

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// opencodeBin is OpenCode's native binary, from its Linux x64 package: the
// opencode-ai wrapper lists platform packages the registry here does not
// serve, so npm ci cannot install it.
const opencodeBin = "opencode-linux-x64/bin/opencode"

// opencodeTitle answers the session-title request OpenCode (and Kilo,
// its fork) sends the same model beside the agent's turns.
func opencodeTitle(r fakechat.Request) (fakechat.Reply, bool) {
	msgs := r.Messages()
	if len(msgs) > 0 && msgs[0]["role"] == "system" && strings.HasPrefix(fakechat.TextOf(msgs[0]), opencodeTitlePrompt) {
		return fakechat.Reply{Text: "Hermes skills"}, true
	}
	return fakechat.Reply{}, false
}

const opencodeTitlePrompt = "You are a title generator."

// TestRealOpenCodeCallsMigratedTool: after `hermes-migrate --client
// opencode`, the real OpenCode (headless `opencode run`) loads our entry
// from ~/.config/opencode, offers hermes-tools' skills_list to a model
// behind an OpenAI-compatible provider on 127.0.0.1, runs the call the fake
// model makes, sends the real result back and prints the final answer.
func TestRealOpenCodeCallsMigratedTool(t *testing.T) {
	npmFile(t, opencodeBin) // skip before any work when it is not installed
	h := newClientHome(t)
	// OpenCode names an MCP tool <server>_<tool>.
	const tool = "hermes-tools_skills_list"
	const final = "Hermes has the interop skills."
	model := newChatModel(t, opencodeTitle, skillsScript(tool, `{}`, final)...)
	configPath := writeOpenCodeUserConfig(t, h, model.fake.BaseURL())
	migrateKeepingProvider(t, h, "opencode", configPath, "~/.config/opencode/opencode.jsonc", model.fake.BaseURL())

	stdout := runOpenCode(t, h, model, "run", "List the Hermes skills.")

	checkSkillsRoundTrip(t, "OpenCode", model.turns(), tool, "call_01")
	if strings.TrimSpace(stdout) != final {
		t.Errorf("opencode printed %q, want the model's answer %q", stdout, final)
	}
}

// writeOpenCodeUserConfig writes ~/.config/opencode/opencode.jsonc as a
// user of a self-hosted OpenAI-compatible model has it, with the model at
// baseURL; it returns the path.
func writeOpenCodeUserConfig(t *testing.T, h *clientHome, baseURL string) string {
	t.Helper()
	p := filepath.Join(h.home, ".config", "opencode", "opencode.jsonc")
	writeLocalModelConfig(t, p, map[string]any{"$schema": "https://opencode.ai/config.json"}, baseURL)
	seedOpenCodeConfigDeps(t, filepath.Dir(p))
	return p
}

// writeLocalModelConfig writes an OpenCode-style config (OpenCode's own,
// or Kilo's, which forks it) at p: fields plus a model at baseURL behind
// an OpenAI-compatible provider, after a comment of the user's.
func writeLocalModelConfig(t *testing.T, p string, fields map[string]any, baseURL string) {
	t.Helper()
	cfg := map[string]any{
		"autoupdate": false,
		"share":      "disabled",
		"model":      "local/fake-model",
		"provider": map[string]any{
			"local": map[string]any{
				"npm":     "@ai-sdk/openai-compatible",
				"name":    "Local model",
				"options": map[string]any{"baseURL": baseURL, "apiKey": "sk-hermes-test"},
				"models":  map[string]any{"fake-model": map[string]any{"name": "Fake model", "tool_call": true}},
			},
		},
	}
	maps.Copy(cfg, fields)
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, p, append([]byte(userComment+"\n"), b...))
}

// userComment opens the configs writeLocalModelConfig writes.
const userComment = "// The user's own settings, which must survive the migration."

// migrateKeepingProvider runs `hermes-migrate --client client`, which must
// report writing shown (path as the report spells it), and checks that
// the user's comment and provider in path survive it.
func migrateKeepingProvider(t *testing.T, h *clientHome, client, path, shown, baseURL string) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	report := h.migrate(t, client)
	if !strings.Contains(report, client+": wrote "+shown) {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{userComment, `"baseURL": "` + baseURL + `"`} {
		if !strings.Contains(string(after), keep) {
			t.Fatalf("%s lost %s in the migration; before:\n%s\nafter:\n%s", filepath.Base(path), keep, before, after)
		}
	}
}

// seedOpenCodeConfigDeps leaves a config directory as OpenCode's first
// online run leaves it. On every start OpenCode installs its plugin SDK,
// @opencode-ai/plugin, into each config directory in the background
// (GET https://registry.npmjs.org/@opencode-ai%2fplugin); it skips that
// when node_modules exists and package-lock.json already lists every
// dependency of package.json. Without this, the run still succeeds (the
// failed install only logs a warning), but the offline guard sees two
// CONNECTs to registry.npmjs.org:443.
func seedOpenCodeConfigDeps(t *testing.T, dir string) {
	t.Helper()
	const dep = `{"@opencode-ai/plugin": "1.18.33"}`
	files := map[string]string{
		"package.json":      `{"dependencies": ` + dep + `}`,
		"package-lock.json": `{"lockfileVersion": 3, "packages": {"": {"dependencies": ` + dep + `}}}`,
	}
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runOpenCode runs the pinned OpenCode as h's user with nothing but
// 127.0.0.1 reachable and returns its stdout; it fails t when the run
// fails or asked for anything else.
func runOpenCode(t *testing.T, h *clientHome, model *chatModel, args ...string) string {
	t.Helper()
	bin := npmFile(t, opencodeBin)
	// Offline: no model list (the provider's model is declared in the
	// config; without OPENCODE_DISABLE_MODELS_FETCH OpenCode 1.18.33 asks
	// models.opencode.ai:443), and, though this run was not seen to need
	// them, no self-update, default auth plugins or language servers from
	// npm, or session sharing.
	env := h.env(
		"OPENCODE_DISABLE_AUTOUPDATE=true",
		"OPENCODE_DISABLE_MODELS_FETCH=true",
		"OPENCODE_DISABLE_DEFAULT_PLUGINS=true",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=true",
		"OPENCODE_DISABLE_SHARE=true",
	)
	return h.runChecked(t, "opencode", model.unscripted, env, bin, args...)
}
