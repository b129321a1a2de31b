//go:build unix

package realclients

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clineBin is Cline CLI's native binary, from its Linux x64 package.
const clineBin = "@cline/cli-linux-x64/bin/cline"

// TestRealClineCLICallsMigratedTool: after `hermes-migrate --client
// cline-cli`, the real Cline CLI, its provider set to an OpenAI-compatible
// model on 127.0.0.1 with `cline auth` (no Cline account), runs a prompt
// headless: it loads our entry from ~/.cline/data/settings, offers
// hermes-tools' skills_list, runs the call the fake model makes, sends
// the real result back and prints the final answer.
func TestRealClineCLICallsMigratedTool(t *testing.T) {
	npmFile(t, clineBin) // skip before any work when it is not installed
	h := newClientHome(t)
	// Cline names an MCP tool <server>__<tool>.
	const tool = "hermes-tools__skills_list"
	const final = "Hermes has the interop skills."
	model := newChatModel(t, nil, skillsScript(tool, `{}`, final)...)
	report := h.migrate(t, "cline-cli")
	if !strings.Contains(report, "cline-cli: wrote ~/.cline/data/settings/cline_mcp_settings.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	writeClineGlobalSettings(t, h)
	runCline(t, h, model, "auth", "-p", "openai-compatible", "-k", "sk-hermes-test", "-m", "fake-model", "-b", model.fake.BaseURL())

	stdout := runCline(t, h, model, "List the Hermes skills.")

	checkSkillsRoundTrip(t, "Cline", model.turns(), tool, "call_01")
	if !strings.Contains(stdout, final) {
		t.Errorf("cline printed %q, want the model's answer %q in it", stdout, final)
	}
}

// writeClineGlobalSettings writes ~/.cline/data/settings/global-settings.json
// as a user who opted out of telemetry and self-update has it: without
// telemetryOptOut, Cline CLI 3.0.65 sends OpenTelemetry to
// otel.cline.bot:443 on every run; autoUpdateEnabled was not seen to
// matter here.
func writeClineGlobalSettings(t *testing.T, h *clientHome) {
	t.Helper()
	p := filepath.Join(h.home, ".cline", "data", "settings", "global-settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"telemetryOptOut": true, "autoUpdateEnabled": false}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runCline runs the pinned Cline CLI as h's user with nothing but
// 127.0.0.1 reachable and returns its stdout; it fails t when the run
// fails or asked for anything else.
func runCline(t *testing.T, h *clientHome, model *chatModel, args ...string) string {
	t.Helper()
	bin := npmFile(t, clineBin)
	// Offline: every run of Cline CLI 3.0.65 also asks its PostHog
	// feature flags of data.cline.bot:443, and no setting or cache stops
	// that (a fresh ~/.cline/cache/feature-flags.json did not). IS_TEST
	// is its test switch for exactly this: the bundle reads it in two
	// places, to swap the feature-flag client for one that asks nobody
	// and to let tests set flags, so it changes nothing else of the run.
	env := h.env("IS_TEST=true")
	return h.runChecked(t, "cline", model.unscripted, env, bin, args...)
}
