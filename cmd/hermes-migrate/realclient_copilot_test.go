//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/fakechat"
)

// copilotBin is GitHub Copilot CLI's native executable, from its Linux x64
// package (the @github/copilot wrapper is not pinned). On first run it
// unpacks its JavaScript and native runtime into ~/.cache/copilot, about a
// second's work in each throwaway home.
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
	model := newCopilotModel(t,
		fakechat.Reply{ToolCalls: []fakechat.ToolCall{{ID: "call_01", Name: tool, Arguments: `{}`}}},
		fakechat.Reply{Text: final},
	)
	// --silent prints the agent's answer alone, without the tool-call
	// lines and usage summary.
	stdout := runCopilot(t, h, model, "-p", "List the Hermes skills.", "--allow-tool=hermes-tools(skills_list)", "--silent")

	reqs := model.turns()
	if len(reqs) != 2 {
		t.Fatalf("the fake model got %d agent requests, want 2 (tool call, then answer)", len(reqs))
	}
	if !slices.Contains(reqs[0].ToolNames(), tool) {
		t.Fatalf("Copilot CLI did not offer %s; tools: %v", tool, reqs[0].ToolNames())
	}
	var result string
	var results int
	for _, m := range reqs[1].Messages() {
		if m["role"] == "tool" {
			results++
			if m["tool_call_id"] == "call_01" {
				result = fakechat.TextOf(m)
			}
		}
	}
	if results != 1 || result == "" {
		t.Fatalf("tool results sent back: %d, for call_01: %q\n%s", results, result, reqs[1].Raw)
	}
	t.Logf("skills_list result: %s", result)
	// The real server's answer: the skills in ~/.hermes/skills.
	for _, skill := range []string{"interop-alpha", "interop-notes", "interop-deploy"} {
		if !strings.Contains(result, skill) {
			t.Errorf("skills_list result lacks %s:\n%s", skill, result)
		}
	}
	if strings.TrimSpace(stdout) != final {
		t.Errorf("copilot printed %q, want the model's answer %q", stdout, final)
	}
}

// copilotModel is the fake model behind Copilot CLI's provider: the
// agent's requests get the scripted replies in order, and any request
// beyond them (Copilot documents background requests to the same model
// for prompt refinement and session naming, not seen in these runs) an
// error and a place in unexpected, so a new side request fails the test
// with its body instead of taking a scripted reply.
type copilotModel struct {
	fake *fakechat.Server

	mu         sync.Mutex
	script     []fakechat.Reply
	agent      []fakechat.Request
	unexpected []string
}

func newCopilotModel(t *testing.T, script ...fakechat.Reply) *copilotModel {
	t.Helper()
	m := &copilotModel{fake: fakechat.New(), script: script}
	t.Cleanup(m.fake.Close)
	m.fake.SetHandler(m.reply)
	return m
}

func (m *copilotModel) reply(r fakechat.Request) fakechat.Reply {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.agent) == len(m.script) {
		m.unexpected = append(m.unexpected, string(r.Raw))
		return fakechat.Reply{Status: 500, ErrorMessage: "the test scripted no reply for this request"}
	}
	m.agent = append(m.agent, r)
	return m.script[len(m.agent)-1]
}

func (m *copilotModel) turns() []fakechat.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.agent)
}

func (m *copilotModel) unscripted() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.unexpected)
}

// runCopilot runs the pinned Copilot CLI as h's user with nothing but
// 127.0.0.1 reachable and returns its stdout; it fails t when the run
// fails or asked for anything else.
func runCopilot(t *testing.T, h *clientHome, model *copilotModel, args ...string) string {
	t.Helper()
	bin := npmFile(t, copilotBin)
	env := h.env(
		// Bring your own key: with a provider base URL set Copilot CLI
		// needs no GitHub login and sends the agent's turns to
		// <base>/chat/completions (wire API "completions", the default
		// for type openai). A model name is required; one not in its
		// catalog gets default token limits.
		"COPILOT_PROVIDER_TYPE=openai",
		"COPILOT_PROVIDER_BASE_URL="+model.fake.BaseURL(),
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
	)
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
