//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/fakechat"
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
	model := newChatModel(t, nil,
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "call_01", Name: tool, Arguments: `{}`}}},
		fakechat.Reply{Text: final},
	)
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
	cli := npmFile(t, kimiMain)
	env := h.env(append([]string{
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
	stdout, stderr, err := h.runClient(t, env, nodeBinary(t), append([]string{cli}, args...)...)
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
	return stdout
}
