//go:build unix

package realclients

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeanthropic"
)

// TestRealClaudeCodeCallsMigratedTool: after `hermes-migrate --client
// claude-code`, the real Claude Code (print mode) loads our entry from
// ~/.claude.json, offers hermes-tools' tools to the model, runs the
// skills_list call the fake model makes, sends its real result back, and
// prints the model's final answer.
func TestRealClaudeCodeCallsMigratedTool(t *testing.T) {
	npmFile(t, claudeBin) // skip before any work when it is not installed
	h := newClientHome(t)
	report := h.migrate(t, "claude-code")
	if !strings.Contains(report, "claude-code: wrote ~/.claude.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}

	const tool = "mcp__hermes-tools__skills_list"
	const final = "Hermes has the interop skills."
	fake := fakeanthropic.New(t)
	fake.Enqueue(
		fakeanthropic.Reply{ToolUses: []fakeanthropic.ToolUse{{ID: "toolu_01", Name: tool, Input: `{}`}}},
		fakeanthropic.Reply{Text: final},
	)
	stdout := runClaude(t, h, fake, nil, "-p", "List the Hermes skills.", "--allowedTools", tool)

	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the fake model got %d requests, want 2 (tool call, then answer)", len(reqs))
	}
	if !slices.Contains(reqs[0].ToolNames(), tool) {
		t.Fatalf("Claude Code did not offer %s; tools: %v", tool, reqs[0].ToolNames())
	}
	results := reqs[1].ToolResults()
	if len(results) != 1 || results[0].ToolUseID != "toolu_01" || results[0].IsError {
		t.Fatalf("tool results sent back: %+v", results)
	}
	t.Logf("skills_list result: %s", results[0].Text)
	// The real server's answer: the skills in ~/.hermes/skills.
	for _, skill := range []string{"interop-alpha", "interop-notes", "interop-deploy"} {
		if !strings.Contains(results[0].Text, skill) {
			t.Errorf("skills_list result lacks %s:\n%s", skill, results[0].Text)
		}
	}
	if strings.TrimSpace(stdout) != final {
		t.Errorf("claude printed %q, want the model's answer %q", stdout, final)
	}
	// Claude Code keeps its own state in ~/.claude.json; our entry must
	// still be there after it rewrote the file.
	after, _ := os.ReadFile(filepath.Join(h.home, ".claude.json"))
	if !strings.Contains(string(after), `"hermes-tools"`) {
		t.Errorf("~/.claude.json lost the entry after the run:\n%s", after)
	}
}

// claudeBin is Claude Code's native binary in the npm package.
const claudeBin = "@anthropic-ai/claude-code/bin/claude.exe"

// runClaude runs the pinned Claude Code in print mode as h's user, with
// the model at fake and nothing else reachable, and returns its stdout.
// It fails t when the run fails or asked for anything unscripted.
func runClaude(t *testing.T, h *clientHome, fake *fakeanthropic.Server, extraEnv []string, args ...string) string {
	t.Helper()
	claude := npmFile(t, claudeBin)
	env := h.env(append([]string{
		"ANTHROPIC_BASE_URL=" + fake.URL(),
		"ANTHROPIC_API_KEY=sk-ant-hermes-test",
		// Offline: no update checks, telemetry, error reports, surveys or
		// other calls beside the model's. Without the first, Claude Code
		// connects to api.anthropic.com:443 even with a base URL set.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY=1",
		// Otherwise MCP tools are deferred behind a ToolSearch tool the
		// model must call first, and are not in the request's tools.
		"ENABLE_TOOL_SEARCH=false",
	}, extraEnv...)...)
	return h.runChecked(t, "claude", fake.Unexpected, env, claude, append(args, "--output-format", "text")...)
}
