package clientsync

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
)

// TestTranslate is the translation table: one server, what each client
// gets. want holds the entry as compact JSON, or "skip: <reason part>"
// when the server is not registered; notes lists substrings every one of
// which must appear in some note (nil: no notes at all).
func TestTranslate(t *testing.T) {
	type expect struct {
		want  string
		notes []string
	}
	all := func(e expect) map[Client]expect {
		m := map[Client]expect{}
		for _, c := range entryClients() {
			m[c] = e
		}
		return m
	}
	tests := []struct {
		name   string
		server configServer
		want   map[Client]expect
	}{
		{
			name: "reference with a default",
			server: configServer{Command: "/bin/srv", Env: []configmigrate.KeyValue{
				kv("LEVEL", configmigrate.ParseValue("${LOG_LEVEL:-info}")),
				kv("URL", configmigrate.ParseValue("http://${HOST:-localhost}:8080")),
			}},
			want: map[Client]expect{
				ClaudeDesktop: {
					want:  `{"command": "/bin/srv"}`,
					notes: []string{"env LEVEL, URL not written"},
				},
				ClaudeCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"LEVEL": "${LOG_LEVEL:-info}", "URL": "http://${HOST:-localhost}:8080"}}`,
					notes: []string{"reads LOG_LEVEL, HOST from the environment"},
				},
				Cursor: {
					want:  `{"command": "/bin/srv", "env": {"LEVEL": "${env:LOG_LEVEL}", "URL": "http://${env:HOST}:8080"}}`,
					notes: []string{"the default in ${LOG_LEVEL:-...}, ${HOST:-...} was dropped: Cursor has no default values", "reads LOG_LEVEL, HOST"},
				},
				VSCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"LEVEL": "${env:LOG_LEVEL}", "URL": "http://${env:HOST}:8080"}}`,
					notes: []string{"the default in ${LOG_LEVEL:-...}, ${HOST:-...} was dropped", "reads LOG_LEVEL, HOST"},
				},
				Gemini: {
					want:  `{"command": "/bin/srv", "env": {"LEVEL": "${LOG_LEVEL:-info}", "URL": "http://${HOST:-localhost}:8080"}}`,
					notes: []string{"reads LOG_LEVEL, HOST"},
				},
				Pi: {
					want:  `{"command": "/bin/srv", "env": {"LEVEL": "${LOG_LEVEL}", "URL": "http://${HOST}:8080"}, "disabled": false}`,
					notes: []string{"the default in ${LOG_LEVEL:-...}, ${HOST:-...} was dropped: Pi has no default values", "reads LOG_LEVEL, HOST"},
				},
			},
		},
		{
			// Set or not where hermes-migrate runs, every one is written:
			// an unset one becomes "" in the clients that expand it.
			name:   "pass-through variables, some unset",
			server: configServer{Command: "/bin/srv", EnvVars: []string{"BROWSER_CDP_URL", "FAL_KEY"}},
			want: map[Client]expect{
				ClaudeDesktop: {
					want:  `{"command": "/bin/srv"}`,
					notes: []string{"env BROWSER_CDP_URL, FAL_KEY not written"},
				},
				ClaudeCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"BROWSER_CDP_URL": "${BROWSER_CDP_URL:-}", "FAL_KEY": "${FAL_KEY:-}"}}`,
					notes: []string{"passes BROWSER_CDP_URL, FAL_KEY through"},
				},
				Cursor: {
					want:  `{"command": "/bin/srv", "env": {"BROWSER_CDP_URL": "${env:BROWSER_CDP_URL}", "FAL_KEY": "${env:FAL_KEY}"}}`,
					notes: []string{"passes BROWSER_CDP_URL, FAL_KEY through"},
				},
				VSCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"BROWSER_CDP_URL": "${env:BROWSER_CDP_URL}", "FAL_KEY": "${env:FAL_KEY}"}}`,
					notes: []string{"passes BROWSER_CDP_URL, FAL_KEY through"},
				},
				Gemini: {
					want:  `{"command": "/bin/srv", "env": {"BROWSER_CDP_URL": "${BROWSER_CDP_URL}", "FAL_KEY": "${FAL_KEY}"}}`,
					notes: []string{"passes BROWSER_CDP_URL, FAL_KEY through"},
				},
			},
		},
		{
			name:   "stdio minimal",
			server: configServer{Command: "/bin/srv"},
			want: map[Client]expect{
				ClaudeDesktop: {want: `{"command": "/bin/srv"}`},
				ClaudeCode:    {want: `{"type": "stdio", "command": "/bin/srv"}`},
				Cursor:        {want: `{"command": "/bin/srv"}`},
				VSCode:        {want: `{"type": "stdio", "command": "/bin/srv"}`},
				Gemini:        {want: `{"command": "/bin/srv"}`},
			},
		},
		{
			name:   "relative command in Claude Desktop",
			server: configServer{Command: "npx", Args: []string{"-y", "pkg"}},
			want: map[Client]expect{
				ClaudeDesktop: {want: `{"command": "npx", "args": ["-y", "pkg"]}`, notes: []string{"the command is looked up on PATH"}},
				Cursor:        {want: `{"command": "npx", "args": ["-y", "pkg"]}`},
			},
		},
		{
			name: "env literal, reference, prefixed and embedded references",
			server: configServer{Command: "/bin/srv", Env: []configmigrate.KeyValue{
				kv("PLAIN", lit("v")),
				kv("TOKEN", configmigrate.Value{Ref: "GH_TOKEN"}),
				kv("AUTH", configmigrate.ParseValue("Bearer ${API_KEY}")),
				kv("DSN", configmigrate.ParseValue("postgres://u:${PGPASS}@db/x")),
			}},
			want: map[Client]expect{
				ClaudeDesktop: {
					want:  `{"command": "/bin/srv", "env": {"PLAIN": "v"}}`,
					notes: []string{"env TOKEN, AUTH, DSN not written: Claude Desktop cannot read environment variables", "add them to the entry by hand"},
				},
				ClaudeCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"PLAIN": "v", "TOKEN": "${GH_TOKEN:-}", "AUTH": "Bearer ${API_KEY:-}", "DSN": "postgres://u:${PGPASS:-}@db/x"}}`,
					notes: []string{"reads GH_TOKEN, API_KEY, PGPASS from the environment Claude Code is started from"},
				},
				Cursor: {
					want:  `{"command": "/bin/srv", "env": {"PLAIN": "v", "TOKEN": "${env:GH_TOKEN}", "AUTH": "Bearer ${env:API_KEY}", "DSN": "postgres://u:${env:PGPASS}@db/x"}}`,
					notes: []string{"reads GH_TOKEN, API_KEY, PGPASS from the environment Cursor is started from"},
				},
				VSCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"PLAIN": "v", "TOKEN": "${env:GH_TOKEN}", "AUTH": "Bearer ${env:API_KEY}", "DSN": "postgres://u:${env:PGPASS}@db/x"}}`,
					notes: []string{"reads GH_TOKEN, API_KEY, PGPASS from the environment VS Code"},
				},
				Gemini: {
					want:  `{"command": "/bin/srv", "env": {"PLAIN": "v", "TOKEN": "${GH_TOKEN}", "AUTH": "Bearer ${API_KEY}", "DSN": "postgres://u:${PGPASS}@db/x"}}`,
					notes: []string{"reads GH_TOKEN, API_KEY, PGPASS from the environment Gemini CLI"},
				},
			},
		},
		{
			name:   "pass-through variables",
			server: configServer{Command: "/bin/srv", Env: []configmigrate.KeyValue{kv("HOME_DIR", lit("/h"))}, EnvVars: []string{"HTTPS_PROXY", "HOME_DIR", "bad-name"}},
			want: map[Client]expect{
				ClaudeDesktop: {
					want:  `{"command": "/bin/srv", "env": {"HOME_DIR": "/h"}}`,
					notes: []string{"env HTTPS_PROXY not written", `pass-through variable "bad-name" is not a valid name`},
				},
				ClaudeCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"HOME_DIR": "/h", "HTTPS_PROXY": "${HTTPS_PROXY:-}"}}`,
					notes: []string{"passes HTTPS_PROXY through from the environment Claude Code is started from", "bad-name"},
				},
				Cursor: {
					want:  `{"command": "/bin/srv", "env": {"HOME_DIR": "/h", "HTTPS_PROXY": "${env:HTTPS_PROXY}"}}`,
					notes: []string{"passes HTTPS_PROXY through", "bad-name"},
				},
				VSCode: {
					want:  `{"type": "stdio", "command": "/bin/srv", "env": {"HOME_DIR": "/h", "HTTPS_PROXY": "${env:HTTPS_PROXY}"}}`,
					notes: []string{"passes HTTPS_PROXY through", "bad-name"},
				},
				Gemini: {
					want:  `{"command": "/bin/srv", "env": {"HOME_DIR": "/h", "HTTPS_PROXY": "${HTTPS_PROXY}"}}`,
					notes: []string{"passes HTTPS_PROXY through", "bad-name"},
				},
			},
		},
		{
			name:   "working directory",
			server: configServer{Command: "/bin/srv", Cwd: "/work"},
			want: map[Client]expect{
				ClaudeDesktop: {want: `{"command": "/bin/srv"}`, notes: []string{"cwd dropped: Claude Desktop has no working-directory setting"}},
				ClaudeCode:    {want: `{"type": "stdio", "command": "/bin/srv"}`, notes: []string{"cwd dropped: Claude Code"}},
				Cursor:        {want: `{"command": "/bin/srv"}`, notes: []string{"cwd dropped: Cursor"}},
				VSCode:        {want: `{"type": "stdio", "command": "/bin/srv", "cwd": "/work"}`},
				Gemini:        {want: `{"command": "/bin/srv", "cwd": "/work"}`},
			},
		},
		{
			name:   "references in args",
			server: configServer{Command: "/bin/srv", Args: []string{"--root", "${HOME}/data", "$PORT"}},
			want: map[Client]expect{
				ClaudeDesktop: {want: "skip: args[1] refers to $HOME, which Claude Desktop cannot expand"},
				ClaudeCode:    {want: `{"type": "stdio", "command": "/bin/srv", "args": ["--root", "${HOME:-}/data", "${PORT:-}"]}`, notes: []string{"reads HOME, PORT"}},
				Cursor:        {want: `{"command": "/bin/srv", "args": ["--root", "${env:HOME}/data", "${env:PORT}"]}`, notes: []string{"reads HOME, PORT"}},
				VSCode:        {want: `{"type": "stdio", "command": "/bin/srv", "args": ["--root", "${env:HOME}/data", "${env:PORT}"]}`, notes: []string{"reads HOME, PORT"}},
				Gemini:        {want: `{"command": "/bin/srv", "args": ["--root", "${HOME}/data", "${PORT}"]}`, notes: []string{"reads HOME, PORT"}},
				Pi:            {want: `{"command": "/bin/srv", "args": ["--root", "${HOME}/data", "${PORT}"], "disabled": false}`, notes: []string{"reads HOME, PORT"}},
			},
		},
		{
			name:   "reference in command or cwd",
			server: configServer{Command: "${TOOLS}/srv", Cwd: "${HOME}"},
			want: map[Client]expect{
				ClaudeDesktop: {want: "skip: command refers to $TOOLS"},
				VSCode:        {want: `{"type": "stdio", "command": "${env:TOOLS}/srv", "cwd": "${env:HOME}"}`, notes: []string{"reads TOOLS, HOME"}},
				Gemini:        {want: `{"command": "${TOOLS}/srv", "cwd": "${HOME}"}`, notes: []string{"reads TOOLS, HOME"}},
			},
		},
		{
			name:   "literal text a client would expand",
			server: configServer{Command: "/bin/srv", Args: []string{"${1}", "cost=$5", "a$price"}},
			want: map[Client]expect{
				ClaudeDesktop: {want: `{"command": "/bin/srv", "args": ["${1}", "cost=$5", "a$price"]}`},
				ClaudeCode:    {want: `{"type": "stdio", "command": "/bin/srv", "args": ["${1}", "cost=$5", "a$price"]}`, notes: []string{"args[0] contain text that Claude Code reads as a variable reference"}},
				VSCode:        {want: `{"type": "stdio", "command": "/bin/srv", "args": ["${1}", "cost=$5", "a$price"]}`, notes: []string{"args[0] contain text that VS Code reads"}},
				Gemini:        {want: `{"command": "/bin/srv", "args": ["${1}", "cost=$5", "a$price"]}`, notes: []string{"args[0], args[2] contain text that Gemini CLI reads as a variable reference"}},
				// pi-mcp-adapter's names are word characters: ${1} is one.
				Pi: {want: `{"command": "/bin/srv", "args": ["${1}", "cost=$5", "a$price"], "disabled": false}`, notes: []string{"args[0] contain text that Pi reads as a variable reference"}},
			},
		},
		{
			name:   "pi-mcp-adapter: a reference in command",
			server: configServer{Command: "${TOOLS}/srv"},
			want: map[Client]expect{
				Pi: {want: "skip: command refers to $TOOLS, which Pi cannot expand"},
			},
		},
		{
			name:   "pi-mcp-adapter: a leading ! in env",
			server: configServer{Command: "/bin/srv", Args: []string{"!a"}, Env: []configmigrate.KeyValue{kv("A", lit("!x")), kv("B", lit("a!")), kv("C", configmigrate.ParseValue("!${T}")), kv("D", lit("!!y"))}},
			want: map[Client]expect{
				Pi: {want: `{"command": "/bin/srv", "args": ["!a"], "env": {"A": "!!x", "B": "a!", "C": "!!${T}", "D": "!!!y"}, "disabled": false}`, notes: []string{"reads T"}},
			},
		},
		{
			name:   "pi-mcp-adapter's own reference spellings",
			server: configServer{Command: "/bin/srv", Args: []string{"$env:HOME", "{env:HOME}", "$env:", "{env:}", "cost=$5"}},
			want: map[Client]expect{
				Pi: {want: `{"command": "/bin/srv", "args": ["$env:HOME", "{env:HOME}", "$env:", "{env:}", "cost=$5"], "disabled": false}`, notes: []string{"args[0], args[1] contain text that Pi reads as a variable reference"}},
			},
		},
		{
			name: "streamable HTTP with headers",
			server: configServer{URL: "https://mcp.example.com/mcp", Headers: []configmigrate.KeyValue{
				kv("Authorization", configmigrate.ParseValue("Bearer ${TOKEN}")),
				kv("X-Team", lit("core")),
			}},
			want: map[Client]expect{
				ClaudeDesktop: {want: "skip: a remote server cannot be registered in claude_desktop_config.json; add its URL as a custom connector"},
				ClaudeCode:    {want: `{"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN:-}", "X-Team": "core"}}`, notes: []string{"reads TOKEN"}},
				Cursor:        {want: `{"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}", "X-Team": "core"}}`, notes: []string{"reads TOKEN"}},
				VSCode:        {want: `{"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}", "X-Team": "core"}}`, notes: []string{"reads TOKEN"}},
				Gemini:        {want: `{"httpUrl": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}", "X-Team": "core"}}`, notes: []string{"reads TOKEN"}},
			},
		},
		{
			name:   "legacy SSE",
			server: configServer{URL: "http://localhost:9000/sse", SSE: true},
			want: map[Client]expect{
				ClaudeDesktop: {want: "skip: a remote server"},
				ClaudeCode:    {want: `{"type": "sse", "url": "http://localhost:9000/sse"}`},
				Cursor:        {want: `{"url": "http://localhost:9000/sse"}`},
				VSCode:        {want: `{"type": "sse", "url": "http://localhost:9000/sse"}`},
				Gemini:        {want: `{"url": "http://localhost:9000/sse"}`},
			},
		},
		{
			name:   "timeouts",
			server: configServer{Command: "/bin/srv", ToolTimeoutSec: 120.5, StartupTimeoutSec: 30},
			want: map[Client]expect{
				ClaudeDesktop: {want: `{"command": "/bin/srv"}`, notes: []string{"timeouts dropped: Claude Desktop has no per-server timeout"}},
				ClaudeCode:    {want: `{"type": "stdio", "command": "/bin/srv"}`, notes: []string{"MCP_TIMEOUT and MCP_TOOL_TIMEOUT"}},
				Cursor:        {want: `{"command": "/bin/srv"}`, notes: []string{"timeouts dropped: Cursor"}},
				VSCode:        {want: `{"type": "stdio", "command": "/bin/srv"}`, notes: []string{"timeouts dropped: VS Code"}},
				Gemini:        {want: `{"command": "/bin/srv", "timeout": 120500}`, notes: []string{"startup timeout dropped: Gemini CLI"}},
				OpenCode:      {want: `{"type": "local", "command": ["/bin/srv"], "timeout": 120500, "enabled": true}`, notes: []string{"startup timeout dropped: OpenCode"}},
				// Seconds, rounded up.
				Goose:     {want: `{"name": "srv", "description": "", "type": "stdio", "cmd": "/bin/srv", "args": [], "timeout": 121, "enabled": true}`, notes: []string{"startup timeout dropped: Goose"}},
				GrokBuild: {want: `{"command": "/bin/srv", "tool_timeout_sec": 121}`, notes: []string{"startup timeout dropped: Grok Build"}},
			},
		},
		{
			name:   "no timeout",
			server: configServer{Command: "/bin/srv"},
			want: map[Client]expect{
				// Goose's documented entry always has one: its default.
				Goose:    {want: `{"name": "srv", "description": "", "type": "stdio", "cmd": "/bin/srv", "args": [], "timeout": 300, "enabled": true}`},
				Gemini:   {want: `{"command": "/bin/srv"}`},
				KiloCode: {want: `{"type": "local", "command": ["/bin/srv"], "enabled": true}`},
			},
		},
		{
			name:   "tool approval",
			server: configServer{Command: "/bin/srv", ApproveTools: true},
			want: map[Client]expect{
				ClaudeCode: {want: `{"type": "stdio", "command": "/bin/srv"}`, notes: []string{"tool approval not carried over: Claude Code asks before tool calls"}},
				Gemini:     {want: `{"command": "/bin/srv"}`, notes: []string{`"trust": true would skip confirmation`}},
			},
		},
		{
			name:   "tool filters",
			server: configServer{Command: "/bin/srv", EnabledTools: []string{"a", "b"}, DisabledTools: []string{"c"}},
			want: map[Client]expect{
				ClaudeCode: {want: `{"type": "stdio", "command": "/bin/srv"}`, notes: []string{"tool filters dropped: Claude Code has no per-server tool list"}},
				Cursor:     {want: `{"command": "/bin/srv"}`, notes: []string{"tool filters dropped: Cursor"}},
				Gemini:     {want: `{"command": "/bin/srv", "includeTools": ["a", "b"], "excludeTools": ["c"]}`},
			},
		},
		{
			name:   "no parallel tool calls",
			server: configServer{URL: "https://x", ParallelToolCalls: new(false)},
			want: map[Client]expect{
				VSCode: {want: `{"type": "http", "url": "https://x"}`, notes: []string{"VS Code has no setting to keep it from calling this server's tools concurrently"}},
			},
		},
		{
			name:   "parallel tool calls allowed",
			server: configServer{URL: "https://x", ParallelToolCalls: new(true)},
			want:   map[Client]expect{VSCode: {want: `{"type": "http", "url": "https://x"}`}},
		},
		{
			name:   "disabled",
			server: configServer{Command: "/bin/srv", Disabled: true},
			want: func() map[Client]expect {
				m := all(expect{want: "skip: disabled in Hermes"})
				// Clients with an on/off switch get the entry turned off.
				m[OpenCode] = expect{want: `{"type": "local", "command": ["/bin/srv"], "enabled": false}`, notes: []string{`registered turned off ({"enabled": false})`}}
				m[FX] = expect{want: `{"type": "local", "command": ["/bin/srv"], "enabled": false}`, notes: []string{"turned off"}}
				m[KiloCode] = expect{want: `{"type": "local", "command": ["/bin/srv"], "enabled": false}`, notes: []string{"turned off"}}
				m[Cline] = expect{want: `{"command": "/bin/srv", "disabled": true}`, notes: []string{`({"disabled": true})`}}
				m[Pi] = expect{want: `{"command": "/bin/srv", "disabled": true}`, notes: []string{`({"disabled": true})`}}
				m[ClineCLI] = expect{want: `{"command": "/bin/srv", "disabled": true}`, notes: []string{"turned off"}}
				m[RooCode] = expect{want: `{"command": "/bin/srv", "disabled": true}`, notes: []string{"turned off"}}
				m[KimiCode] = expect{want: `{"transport": "stdio", "command": "/bin/srv", "enabled": false}`, notes: []string{"turned off"}}
				m[Goose] = expect{want: `{"name": "srv", "description": "", "type": "stdio", "cmd": "/bin/srv", "args": [], "timeout": 300, "enabled": false}`, notes: []string{"turned off"}}
				return m
			}(),
		},
		{
			name:   "neither command nor url",
			server: configServer{Env: []configmigrate.KeyValue{kv("A", lit("b"))}},
			want:   all(expect{want: "skip: has neither a command nor a url"}),
		},
		{
			name:   "command wins over url",
			server: configServer{Command: "/bin/srv", URL: "https://x", Headers: []configmigrate.KeyValue{kv("A", lit("b"))}},
			want: map[Client]expect{
				Cursor: {want: `{"command": "/bin/srv"}`, notes: []string{"url dropped: the server has a command", "headers dropped"}},
			},
		},
		{
			name:   "stdio settings on a remote server",
			server: configServer{URL: "https://x", Args: []string{"a"}, Cwd: "/w"},
			want: map[Client]expect{
				Gemini: {want: `{"httpUrl": "https://x"}`, notes: []string{"command settings (args, env, cwd) dropped"}},
			},
		},
		{
			name:   "duplicate and unnamed env entries",
			server: configServer{Command: "/bin/srv", Env: []configmigrate.KeyValue{kv("A", lit("1")), kv("A", lit("2")), kv("", lit("3"))}},
			want: map[Client]expect{
				VSCode: {want: `{"type": "stdio", "command": "/bin/srv", "env": {"A": "1"}}`, notes: []string{"env A is set twice; the first value was written", "env entry without a name was dropped"}},
			},
		},
		{
			name:   "escaping",
			server: configServer{Command: `C:\Tools\srv.exe`, Args: []string{`say "hi"`, "<&>", "tab\there", "ünï"}},
			want: map[Client]expect{
				Cursor: {want: `{"command": "C:\\Tools\\srv.exe", "args": ["say \"hi\"", "<&>", "tab\there", "ünï"]}`},
			},
		},
	}
	tests = append(tests, struct {
		name   string
		server configServer
		want   map[Client]expect
	}{
		// Kimi Code hands a server its own environment and expands no
		// reference (TestRealKimiCodeEntryFields): a variable of the same
		// name needs no entry, another name is left to the user; its
		// start-up timeout and tool lists are its own keys.
		name: "inherited environment, start-up timeout, tool lists",
		server: configServer{Command: "/bin/srv", EnvVars: []string{"FAL_KEY"}, StartupTimeoutSec: 20, ToolTimeoutSec: 1.5,
			EnabledTools: []string{"a"}, DisabledTools: []string{"b"},
			Env: []configmigrate.KeyValue{kv("GITHUB_TOKEN", configmigrate.ParseValue("${GITHUB_TOKEN}")), kv("TOKEN", configmigrate.ParseValue("${GH_TOKEN}"))}},
		want: map[Client]expect{
			KimiCode: {want: `{"transport": "stdio", "command": "/bin/srv", "toolTimeoutMs": 1500, "startupTimeoutMs": 20000, "enabledTools": ["a"], "disabledTools": ["b"], "enabled": true}`,
				notes: []string{"gets GITHUB_TOKEN, FAL_KEY from the environment Kimi Code is started from", "env TOKEN not written"}},
		},
	}, struct {
		name   string
		server configServer
		want   map[Client]expect
	}{
		// Kimi Code sends the variable named in bearerTokenEnvVar as a
		// Bearer token (TestRealKimiCodeEntryFields): the one header form
		// it can take without the value in the file. Header names are
		// case-insensitive; the first Authorization decides.
		name: "bearer token from a variable",
		server: configServer{URL: "https://mcp.example.com/mcp", Headers: []configmigrate.KeyValue{
			kv("authorization", configmigrate.ParseValue("bearer ${API_TOKEN:-none}")),
			kv("X-Team", configmigrate.ParseValue("core")),
			kv("Authorization", configmigrate.ParseValue("Basic abc")),
		}},
		want: map[Client]expect{
			KimiCode: {want: `{"transport": "http", "url": "https://mcp.example.com/mcp", "bearerTokenEnvVar": "API_TOKEN", "headers": {"X-Team": "core"}, "enabled": true}`,
				notes: []string{"reads API_TOKEN from the environment Kimi Code is started from", "the default in ${API_TOKEN:-...} was dropped", "header Authorization is set twice; the first value was written"}},
			ClaudeCode: {want: `{"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"authorization": "bearer ${API_TOKEN:-none}", "X-Team": "core"}}`,
				notes: []string{"header Authorization is set twice"}},
		},
	}, struct {
		name   string
		server configServer
		want   map[Client]expect
	}{
		// Another scheme, or the token inside a longer value, is not a
		// Bearer token from a variable: the header is the user's to fill
		// in, as for a client with no references at all.
		// MCPorter expands a reference in env only as the whole value
		// (TestRealMCPorterEntryFields), anywhere in args; an unset one
		// without a default in args would make it refuse the file.
		name: "whole-value references in env",
		server: configServer{Command: "/bin/srv", Args: []string{"--home=${HOME_DIR}"}, Env: []configmigrate.KeyValue{
			kv("TOKEN", configmigrate.ParseValue("${API_TOKEN}")),
			kv("AUTH", configmigrate.ParseValue("Bearer ${API_TOKEN}")),
			kv("LEVEL", configmigrate.ParseValue("${LOG_LEVEL:-info}")),
		}},
		want: map[Client]expect{
			MCPorter: {want: `{"command": "/bin/srv", "args": ["--home=${HOME_DIR:-}"], "env": {"TOKEN": "${API_TOKEN:-}", "LEVEL": "${LOG_LEVEL:-info}"}}`,
				notes: []string{"env AUTH not written: MCPorter expands a variable in env only as the whole value", "reads HOME_DIR, API_TOKEN, LOG_LEVEL"}},
		},
	}, struct {
		name   string
		server configServer
		want   map[Client]expect
	}{
		name: "authorization that is not a bearer reference",
		server: configServer{URL: "https://mcp.example.com/mcp", Headers: []configmigrate.KeyValue{
			kv("Authorization", configmigrate.ParseValue("Token ${API_TOKEN}")),
		}},
		want: map[Client]expect{
			KimiCode: {want: `{"transport": "http", "url": "https://mcp.example.com/mcp", "enabled": true}`,
				notes: []string{"headers Authorization not written: Kimi Code cannot read environment variables", "later syncs keep them"}},
			Zed: {want: `{"source": "custom", "url": "https://mcp.example.com/mcp"}`,
				notes: []string{"headers Authorization not written: Zed cannot read environment variables"}},
		},
	})
	for _, tt := range tests {
		for client, exp := range tt.want {
			t.Run(tt.name+"/"+string(client), func(t *testing.T) {
				s := tt.server
				s.Name = "srv"
				tr := translate(dialects[client], s)
				notes := append(tr.keepHand(dialects[client], nil, nil), tr.notes...)
				entry, skip := tr.entry, tr.skip
				if reason, ok := strings.CutPrefix(exp.want, "skip: "); ok {
					if !strings.Contains(skip, reason) {
						t.Fatalf("skip = %q, want it to contain %q", skip, reason)
					}
					if entry != nil {
						t.Errorf("a skipped server still produced %s", render(entry, layout{inline: true}))
					}
					return
				}
				if skip != "" {
					t.Fatalf("skipped: %s", skip)
				}
				if got := render(entry, layout{inline: true}); got != exp.want {
					t.Errorf("entry\n got %s\nwant %s", got, exp.want)
				}
				if exp.notes == nil && len(notes) > 0 {
					t.Errorf("unexpected notes: %q", notes)
				}
				for _, want := range exp.notes {
					found := false
					for _, n := range notes {
						found = found || strings.Contains(n, want)
					}
					if !found {
						t.Errorf("no note contains %q; notes: %q", want, notes)
					}
				}
			})
		}
	}
}

// TestNotesNeverHoldValues guards the promise that a configured value,
// which may be a secret, never reaches a note.
func TestNotesNeverHoldValues(t *testing.T) {
	const secret = "s3cr3t-${NOPE}-$ALSO"
	s := configServer{
		Name: "leaky", Command: "/bin/srv",
		Args:    []string{"--token=" + secret},
		Env:     []configmigrate.KeyValue{kv("K", lit(secret)), kv("R", configmigrate.ParseValue("x ${V}"))},
		Headers: []configmigrate.KeyValue{kv("H", lit(secret))},
		URL:     "https://h/?k=" + secret,
		Cwd:     "/" + secret,
	}
	for _, c := range entryClients() {
		for _, remote := range []bool{false, true} {
			s := s
			if remote {
				s.Command = ""
			}
			res, err := Apply(c, nil, []configServer{s}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range res.Notes {
				if strings.Contains(n, "s3cr3t") {
					t.Errorf("%s: note leaks a value: %s", c, n)
				}
			}
		}
	}
}

// TestTimeoutNotesMatchEntries is the rule behind every client's timeout:
// a server's timeout is written in the client's unit, or a note says it was
// dropped, never both and never neither; and a note never claims a client
// lacks a timeout its entry carries.
func TestTimeoutNotesMatchEntries(t *testing.T) {
	for _, sec := range []float64{0, 0.2, 45, 120.5} {
		for _, c := range entryClients() {
			d := dialects[c]
			tr := translate(d, configServer{Name: "srv", Command: "/bin/srv", ToolTimeoutSec: sec})
			var got any
			written := false
			for _, f := range tr.entry {
				if f.key == d.timeoutKey {
					got, written = f.val, true
				}
			}
			dropped := false
			for _, n := range tr.notes {
				dropped = dropped || strings.Contains(n, "timeouts dropped")
			}
			switch {
			case written && dropped:
				t.Errorf("%s, timeout %v: entry has %s = %v and a note says timeouts were dropped", c, sec, d.timeoutKey, got)
			case sec > 0 && !written && !dropped:
				t.Errorf("%s, timeout %v: neither written nor reported dropped", c, sec)
			case sec == 0 && dropped:
				t.Errorf("%s: no timeout set, yet a note says it was dropped", c)
			case sec > 0 && written:
				want := int64(math.Round(sec * 1000))
				if d.timeoutSeconds {
					want = max(1, int64(math.Ceil(sec)))
				}
				if got != want {
					t.Errorf("%s, timeout %vs: wrote %s = %v, want %d (the user's value in the client's unit)", c, sec, d.timeoutKey, got, want)
				}
			case sec == 0 && written && got != d.timeoutDefault:
				t.Errorf("%s: no timeout set, yet wrote %s = %v", c, d.timeoutKey, got)
			}
		}
	}
}

// TestValuePartsRebuildTheValue is valueParts' rule: the literal runs and
// references it splits a value into spell the value again, in order, for
// any number of references anywhere in it (two in one argument once
// panicked), and every client translates such a value.
func TestValuePartsRebuildTheValue(t *testing.T) {
	values := []string{
		"plain", "${A}", "a-${A}-b-${B}-c", "${A}${B}${C}", "x${A:-d1}y${B:-}z${C}",
		"${A}-tail", "head-${A}", "$${A}}", "${A:-has-${B}}",
	}
	// And generated ones: literal runs and references at random.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		var b strings.Builder
		for range rng.IntN(6) {
			switch rng.IntN(3) {
			case 0:
				b.WriteString([]string{"a", "-", "/x:", " ", "$", "}", "{"}[rng.IntN(7)])
			case 1:
				fmt.Fprintf(&b, "${V%d}", rng.IntN(3))
			default:
				fmt.Fprintf(&b, "${V%d:-d%d}", rng.IntN(3), rng.IntN(2))
			}
		}
		values = append(values, b.String())
	}
	for _, v := range values {
		var got strings.Builder
		for _, p := range stringParts(v) {
			switch {
			case p.ref == "":
				got.WriteString(p.lit)
			case p.hasDef:
				fmt.Fprintf(&got, "${%s:-%s}", p.ref, p.def)
			default:
				fmt.Fprintf(&got, "${%s}", p.ref)
			}
		}
		if got.String() != v {
			t.Errorf("valueParts(%q) spells %q", v, got.String())
		}
	}
	server := configServer{Name: "multi", Command: "/bin/x", Args: []string{"a-${A}-b-${B}-c", "${A}${B}${C}"}}
	for _, c := range entryClients() {
		if _, err := Apply(c, nil, []configServer{server}, Options{}); err != nil {
			t.Errorf("%s: %v", c, err)
		}
	}
}
