package clientsync

import (
	"slices"
	"testing"
)

// entrySchema is what a client's documentation (or, where it has none,
// add-mcp 2.4.0's writer) says an entry may hold, written down
// independently of the dialect table so a wrong row shows up as a test
// failure rather than as a golden file that agrees with it.
type entrySchema struct {
	source string
	// keys are the keys an entry may have.
	keys []string
	// typeKey and types: the transport field and its allowed values.
	typeKey string
	types   []string
	// commandArray: command is one array of strings (OpenCode's shape).
	commandArray bool
	// constant fields every entry carries.
	constant map[string]any
}

var std = []string{"command", "args", "env", "url", "headers"}

var schemas = map[Client]entrySchema{
	ClaudeDesktop: {source: "modelcontextprotocol.io/quickstart/user", keys: std},
	ClaudeCode:    {source: "code.claude.com/docs/en/mcp", keys: append(std, "type"), typeKey: "type", types: []string{"stdio", "http", "sse"}},
	Cursor:        {source: "cursor.com/docs/context/mcp", keys: std},
	VSCode:        {source: "code.visualstudio.com/docs/copilot/reference/mcp-configuration", keys: append(std, "type", "cwd"), typeKey: "type", types: []string{"stdio", "http", "sse"}},
	Gemini:        {source: "gemini-cli docs/tools/mcp-server.md", keys: append(std, "httpUrl", "cwd", "timeout", "includeTools", "excludeTools")},
	Antigravity:   {source: "add-mcp 2.4.0 dist/agents", keys: []string{"command", "args", "env", "serverUrl", "headers"}},
	Cline: {source: "docs.cline.bot/mcp/configuring-mcp-servers", keys: append(std, "type", "disabled", "autoApprove"),
		typeKey: "type", types: []string{"streamableHttp", "sse"}, constant: map[string]any{"disabled": false}},
	ClineCLI: {source: "add-mcp 2.4.0 dist/agents", keys: append(std, "type", "disabled"),
		typeKey: "type", types: []string{"streamableHttp", "sse"}, constant: map[string]any{"disabled": false}},
	FX: {source: "add-mcp 2.4.0 dist/agents", keys: []string{"type", "command", "environment", "url", "headers", "enabled"},
		typeKey: "type", types: []string{"local", "http", "sse"}, commandArray: true, constant: map[string]any{"enabled": true}},
	CopilotCLI: {source: "docs.github.com Copilot CLI mcp-config.json; Copilot CLI 1.0.102 schemas/api.schema.json McpServerConfigStdio/Http", keys: append(std, "type", "tools", "cwd", "timeout"),
		typeKey: "type", types: []string{"local", "stdio", "http", "sse"}},
	KiloCode: {source: "Kilo CLI 7.7.9's config schema (OpenCode's; add-mcp 2.4.0 agrees)", keys: []string{"type", "command", "cwd", "environment", "url", "headers", "oauth", "enabled", "timeout"},
		typeKey: "type", types: []string{"local", "remote"}, commandArray: true, constant: map[string]any{"enabled": true}},
	KimiCode: {source: "Kimi Code 2.1.0 dist/main.mjs (agent-core-v2 mcpCore/config-schema.ts)",
		keys: append(std, "transport", "cwd", "enabled", "deferred", "startupTimeoutMs", "toolTimeoutMs", "enabledTools", "disabledTools",
			"executor", "runtime_id", "auth", "bearerTokenEnvVar"),
		typeKey: "transport", types: []string{"stdio", "http", "sse"}},
	KiroCLI:    {source: "kiro.dev/docs/cli/mcp/configuration", keys: append(std, "timeout", "disabled")},
	MastraCode: {source: "add-mcp 2.4.0 dist/agents", keys: std},
	MCPorter:   {source: "add-mcp 2.4.0 dist/agents", keys: append(std, "type"), typeKey: "type", types: []string{"http", "sse"}},
	OpenCode: {source: "opencode.ai/docs/mcp-servers", keys: []string{"type", "command", "environment", "url", "headers", "enabled", "timeout"},
		typeKey: "type", types: []string{"local", "remote"}, commandArray: true, constant: map[string]any{"enabled": true}},
	Pi: {source: "pi-mcp-adapter 2.36.0 README (Server Options)", keys: append(std, "cwd", "requestTimeoutMs", "disabled"),
		constant: map[string]any{"disabled": false}},
	Windsurf: {source: "docs.windsurf.com/windsurf/cascade/mcp", keys: []string{"command", "args", "env", "serverUrl", "headers"}},
	Zed:      {source: "zed.dev/docs/ai/mcp", keys: append(std, "source"), constant: map[string]any{"source": "custom"}},
	Goose: {source: "block.github.io/goose/docs/getting-started/using-extensions (config.yaml extensions: name, cmd, args, envs, type stdio/streamable_http/sse, uri, headers, enabled, timeout, description)",
		keys:    []string{"name", "description", "cmd", "args", "envs", "type", "uri", "headers", "enabled", "timeout", "env_keys", "bundled"},
		typeKey: "type", types: []string{"stdio", "streamable_http", "sse"}, constant: map[string]any{"enabled": true}},
	RooCode: {source: "docs.roocode.com/features/mcp/using-mcp-in-roo", keys: append(std, "type", "cwd", "disabled", "alwaysAllow"),
		typeKey: "type", types: []string{"stdio", "streamable-http", "sse"}, constant: map[string]any{"disabled": false}},
	LMStudio:  {source: "lmstudio.ai/docs/app/mcp (Cursor's notation)", keys: std},
	GrokBuild: {source: "add-mcp 2.4.0 dist/agents (grok-build: codex-style [mcp_servers.<name>] command, args, env, url, headers, tool_timeout_sec)", keys: append(std, "tool_timeout_sec")},
}

// checkSchema checks every entry Hermes wrote (the fixture servers) in doc
// against the client's documented entry schema.
func checkSchema(t *testing.T, client Client, doc map[string]any) {
	t.Helper()
	sc, ok := schemas[client]
	if !ok {
		t.Fatalf("no documented schema for %s; add one to schemas with its source", client)
	}
	servers, _ := doc[dialects[client].rootKey].(map[string]any)
	for name, raw := range servers {
		if _, ours := fixtureServers[name]; !ours {
			continue
		}
		entry, ok := raw.(map[string]any)
		if !ok {
			t.Errorf("%s: entry %s is %T, want an object (%s)", client, name, raw, sc.source)
			continue
		}
		for k, v := range entry {
			if !slices.Contains(sc.keys, k) {
				t.Errorf("%s: entry %s has key %q, which %s does not document", client, name, k, sc.source)
			}
			if s, _ := v.(string); k == sc.typeKey && !slices.Contains(sc.types, s) {
				t.Errorf("%s: entry %s has %s %v, want one of %v (%s)", client, name, k, v, sc.types, sc.source)
			}
		}
		for k, want := range sc.constant {
			if on, ok := want.(bool); ok && fixtureServers[name].Disabled {
				want = !on // the documented switch, turned off
			}
			if entry[k] != want {
				t.Errorf("%s: entry %s has %s = %v, want %v (%s)", client, name, k, entry[k], want, sc.source)
			}
		}
		if n, ok := entry["name"]; ok && n != name {
			t.Errorf("%s: entry %s names itself %v", client, name, n)
		}
		if cmd, ok := entry["command"]; ok {
			_, isArray := cmd.([]any)
			if isArray != sc.commandArray {
				t.Errorf("%s: entry %s's command is %T (%s)", client, name, cmd, sc.source)
			}
		}
	}
}
