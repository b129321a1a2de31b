package clientsync

import (
	"slices"
	"strings"
	"testing"
)

func TestParseClient(t *testing.T) {
	for _, c := range Clients() {
		got, err := ParseClient(" " + strings.ToUpper(string(c)) + " ")
		if err != nil || got != c {
			t.Errorf("ParseClient(%q) = %q, %v", c, got, err)
		}
	}
	_, err := ParseClient("nope")
	want := `unknown MCP client "nope"; valid clients are codex, claude-desktop, claude-code, cursor, vscode, gemini, antigravity, cline, cline-cli, fx, github-copilot-cli, kilo-code, kimi-code, kiro-cli, mastracode, mcporter, opencode, pi, windsurf, zed, roo-code, lmstudio, goose, grok-build`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
	if _, err := Apply("nope", nil, nil, Options{}); err == nil {
		t.Error("Apply accepted an unknown client")
	}
}

func TestConfigPath(t *testing.T) {
	linux := Env{GOOS: "linux", Home: "/home/u"}
	xdg := Env{GOOS: "linux", Home: "/home/u", XDGConfigHome: "/cfg"}
	mac := Env{GOOS: "darwin", Home: "/Users/u"}
	win := Env{GOOS: "windows", Home: `C:\Users\u`, AppData: `C:\Users\u\AppData\Roaming\`}
	tests := []struct {
		client Client
		env    Env
		want   string
	}{
		{ClaudeDesktop, linux, "/home/u/.config/Claude/claude_desktop_config.json"},
		{ClaudeDesktop, xdg, "/cfg/Claude/claude_desktop_config.json"},
		{ClaudeDesktop, Env{GOOS: "linux", Home: "/home/u", XDGConfigHome: "rel"}, "/home/u/.config/Claude/claude_desktop_config.json"},
		{ClaudeDesktop, mac, "/Users/u/Library/Application Support/Claude/claude_desktop_config.json"},
		{ClaudeDesktop, win, `C:\Users\u\AppData\Roaming\Claude\claude_desktop_config.json`},
		{ClaudeCode, linux, "/home/u/.claude.json"},
		{ClaudeCode, mac, "/Users/u/.claude.json"},
		{ClaudeCode, win, `C:\Users\u\.claude.json`},
		{Cursor, linux, "/home/u/.cursor/mcp.json"},
		{Cursor, win, `C:\Users\u\.cursor\mcp.json`},
		{VSCode, linux, "/home/u/.config/Code/User/mcp.json"},
		{VSCode, xdg, "/cfg/Code/User/mcp.json"},
		{VSCode, mac, "/Users/u/Library/Application Support/Code/User/mcp.json"},
		{VSCode, win, `C:\Users\u\AppData\Roaming\Code\User\mcp.json`},
		{VSCode, Env{GOOS: "freebsd", Home: "/home/u/"}, "/home/u/.config/Code/User/mcp.json"},
		{Gemini, linux, "/home/u/.gemini/settings.json"},
		{Gemini, mac, "/Users/u/.gemini/settings.json"},
		{Gemini, win, `C:\Users\u\.gemini\settings.json`},
		{Antigravity, linux, "/home/u/.gemini/config/mcp_config.json"},
		{Cline, linux, "/home/u/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
		{Cline, mac, "/Users/u/Library/Application Support/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
		{Cline, win, `C:\Users\u\AppData\Roaming\Code\User\globalStorage\saoudrizwan.claude-dev\settings\cline_mcp_settings.json`},
		{ClineCLI, linux, "/home/u/.cline/data/settings/cline_mcp_settings.json"},
		{ClineCLI, withVar(linux, "CLINE_DIR", "/opt/cline"), "/opt/cline/data/settings/cline_mcp_settings.json"},
		{ClineCLI, withVar(withVar(linux, "CLINE_DIR", "/opt/cline"), "CLINE_DATA_DIR", "/d"), "/d/settings/cline_mcp_settings.json"},
		{ClineCLI, withVar(withVar(withVar(linux, "CLINE_DIR", "/opt/cline"), "CLINE_DATA_DIR", "/d"), "CLINE_MCP_SETTINGS_PATH", "/m/mcp.json"), "/m/mcp.json"},
		{FX, mac, "/Users/u/.fx/mcp.json"},
		{CopilotCLI, linux, "/home/u/.copilot/mcp-config.json"},
		{CopilotCLI, withVar(xdg, "COPILOT_HOME", "/c"), "/c/mcp-config.json"},
		{CopilotCLI, win, `C:\Users\u\.copilot\mcp-config.json`},
		{KiloCode, xdg, "/cfg/kilo/kilo.json"},
		{KiloCode, mac, "/Users/u/.config/kilo/kilo.json"},
		{KimiCode, withVar(linux, "KIMI_CODE_HOME", "/k"), "/k/mcp.json"},
		{KimiCode, linux, "/home/u/.kimi-code/mcp.json"},
		{KiroCLI, win, `C:\Users\u\.kiro\settings\mcp.json`},
		{MastraCode, linux, "/home/u/.mastracode/mcp.json"},
		{MCPorter, linux, "/home/u/.mcporter/mcporter.json"},
		{OpenCode, xdg, "/home/u/.config/opencode/opencode.jsonc"},
		{Pi, linux, "/home/u/.pi/agent/mcp.json"},
		{Pi, withVar(linux, "PI_CODING_AGENT_DIR", "/p"), "/p/mcp.json"},
		{Pi, withVar(linux, "PI_CODING_AGENT_DIR", " /p "), "/p/mcp.json"},
		{Pi, withVar(linux, "PI_CODING_AGENT_DIR", "~"), "/home/u/mcp.json"},
		{Pi, withVar(linux, "PI_CODING_AGENT_DIR", "~/pi/agent"), "/home/u/pi/agent/mcp.json"},
		{Windsurf, mac, "/Users/u/.codeium/windsurf/mcp_config.json"},
		{Zed, linux, "/home/u/.config/zed/settings.json"},
		{Zed, xdg, "/cfg/zed/settings.json"},
		{Zed, mac, "/Users/u/.config/zed/settings.json"},
		{Zed, win, `C:\Users\u\AppData\Roaming\Zed\settings.json`},
	}
	for _, tt := range tests {
		t.Run(string(tt.client)+"/"+tt.env.GOOS, func(t *testing.T) {
			got, err := ConfigPath(tt.client, tt.env)
			if err != nil || got != tt.want {
				t.Errorf("ConfigPath = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// withVar sets one more variable in env's Getenv.
func withVar(env Env, name, value string) Env {
	prev := env.Getenv
	env.Getenv = func(k string) string {
		if k == name {
			return value
		}
		if prev != nil {
			return prev(k)
		}
		return ""
	}
	return env
}

func TestProjectPath(t *testing.T) {
	for _, c := range Clients() {
		got, err := ProjectPath(c, "/p")
		if info, _ := Describe(c); info.Project == "" {
			if err == nil || !strings.Contains(err.Error(), "reads no project-level MCP config") {
				t.Errorf("%s: ProjectPath = %q, %v; want an error", c, got, err)
			}
			continue
		}
		if err != nil || !strings.HasPrefix(got, "/p/") {
			t.Errorf("%s: ProjectPath = %q, %v", c, got, err)
		}
	}
	if got, _ := ProjectPath(VSCode, "/p"); got != "/p/.vscode/mcp.json" {
		t.Errorf("vscode project file = %q", got)
	}
}

func TestParseClientAliases(t *testing.T) {
	for alias, want := range map[string]Client{"gemini-cli": Gemini, "kiro": KiroCLI, "kilocode": KiloCode, "github-copilot": VSCode, "cascade": Windsurf} {
		if got, err := ParseClient(alias); err != nil || got != want {
			t.Errorf("ParseClient(%q) = %q, %v; want %q", alias, got, err, want)
		}
	}
}

func TestConfigPathErrors(t *testing.T) {
	tests := []struct {
		client Client
		env    Env
		want   string
	}{
		{Cursor, Env{GOOS: "linux"}, `home directory "" is not an absolute path; set HOME`},
		{Cursor, Env{GOOS: "linux", Home: "home/u"}, "not an absolute path"},
		{Cursor, Env{GOOS: "windows", Home: "/home/u"}, "not an absolute path"},
		{VSCode, Env{GOOS: "windows", Home: `C:\Users\u`}, `%APPDATA% is "", not an absolute path; VS Code keeps its config under it, so set APPDATA`},
		{ClaudeDesktop, Env{GOOS: "windows", Home: `C:\Users\u`, AppData: "AppData"}, "set APPDATA"},
		{"nope", Env{GOOS: "linux", Home: "/h"}, "unknown MCP client"},
	}
	for _, tt := range tests {
		if got, err := ConfigPath(tt.client, tt.env); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ConfigPath(%s, %+v) = %q, %v; want an error containing %q", tt.client, tt.env, got, err, tt.want)
		}
	}
}

// TestRelativePathVariablesAreRefused: every variable of a client's own
// that moves its file (CODEX_HOME style), set to a relative path, is an
// error naming it, never a silent fall back to the default file, which
// the client would not read. XDG_* are the exception the XDG spec makes:
// a relative value there is ignored by every program that follows it.
func TestRelativePathVariablesAreRefused(t *testing.T) {
	checked := 0
	for _, c := range Clients() {
		var read []string
		_, _ = ConfigPath(c, Env{GOOS: "linux", Home: "/home/u", Getenv: func(k string) string {
			if !slices.Contains(read, k) {
				read = append(read, k)
			}
			return ""
		}})
		for _, v := range read {
			if strings.HasPrefix(v, "XDG_") {
				continue
			}
			checked++
			got, err := ConfigPath(c, withVar(Env{GOOS: "linux", Home: "/home/u"}, v, "rel/dir"))
			if err == nil || !strings.Contains(err.Error(), "$"+v+` is "rel/dir", not an absolute path`) {
				t.Errorf("%s with %s=rel/dir: ConfigPath = %q, %v; want an error naming %s", c, v, got, err, v)
			}
		}
	}
	if checked < 6 {
		t.Fatalf("only %d client variables found; the probe no longer sees them", checked)
	}
}

// TestOwnership walks the ownership rule through Apply.
func TestOwnership(t *testing.T) {
	user := []byte(`{"mcpServers": {"github": {"command": "mine"}, "hermes-tools": {"command": "/old/hermes-tools-mcp"}}}`)
	gh := fixtureServers["github"]
	tests := []struct {
		name             string
		opts             Options
		written, skipped string
	}{
		{"user definition wins", Options{}, "hermes-tools", "github"},
		{"owned from an earlier sync", Options{Owned: []string{"github"}}, "hermes-tools github", ""},
		{"overwrite", Options{Overwrite: true}, "hermes-tools github", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Apply(Gemini, user, []configServer{toolsServer, gh}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.Written, " "); got != tt.written {
				t.Errorf("written = %q, want %q", got, tt.written)
			}
			if got := strings.Join(res.Skipped, " "); got != tt.skipped {
				t.Errorf("skipped = %q, want %q", got, tt.skipped)
			}
			if strings.Contains(string(res.Output), `/old/`) {
				t.Errorf("hermes-tools was not replaced:\n%s", res.Output)
			}
		})
	}

	// An entry that already says what Hermes would write is left as the
	// user formatted it, even without ownership.
	first, err := Apply(Cursor, nil, []configServer{gh}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	std, err := Standardize(first.Output)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Apply(Cursor, std, []configServer{gh}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed || strings.Join(again.Written, " ") != "github" {
		t.Errorf("identical entry: changed=%v written=%q", again.Changed, again.Written)
	}
}

func TestApplyValidatesServers(t *testing.T) {
	if _, err := Apply(Cursor, nil, []configServer{{Command: "x"}}, Options{}); err == nil || !strings.Contains(err.Error(), "server 1 of 1 has no name") {
		t.Errorf("unnamed server: err = %v", err)
	}
	dup := []configServer{{Name: "a", Command: "x"}, {Name: "a", Command: "y"}}
	if _, err := Apply(Cursor, nil, dup, Options{}); err == nil || !strings.Contains(err.Error(), `server "a" is listed twice`) {
		t.Errorf("duplicate server: err = %v", err)
	}
}

// TestNothingToWrite keeps a missing file missing when no server can be
// registered.
func TestNothingToWrite(t *testing.T) {
	res, err := Apply(ClaudeDesktop, nil, []configServer{fixtureServers["linear"]}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.Output != nil {
		t.Errorf("changed=%v output=%q", res.Changed, res.Output)
	}
	res, err = Remove(Cursor, nil, []string{"x"})
	if err != nil || res.Changed || res.Output != nil {
		t.Errorf("Remove on a missing file: %+v, %v", res, err)
	}
}

// TestServerNotesCarried keeps the notes made while reading Hermes'
// config in each client's report, before the client's own.
func TestServerNotesCarried(t *testing.T) {
	s := configServer{Name: "n", Command: "/bin/n", Cwd: "/w", Notes: []string{"sampling (no equivalent)"}}
	res, err := Apply(Cursor, nil, []configServer{s}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"n: sampling (no equivalent)", "n: cwd dropped: Cursor has no working-directory setting; use absolute paths in command and args"}
	if strings.Join(res.Notes, "\n") != strings.Join(want, "\n") {
		t.Errorf("notes = %q, want %q", res.Notes, want)
	}
}

// TestHandWrittenHermesTools: a hermes-tools entry the user wrote is
// theirs, like any other; an outdated one Hermes wrote is replaced.
func TestHandWrittenHermesTools(t *testing.T) {
	tests := []struct {
		name   string
		client Client
		entry  string
		opts   Options
		ours   bool
	}{
		{"outdated, Hermes' shape", ClaudeDesktop, `{"command": "/old/bin/hermes-tools-mcp", "env": {"HERMES_HOME": "/old"}}`, Options{}, true},
		{"outdated, hand-filled key", ClaudeDesktop, `{"command": "/old/bin/hermes-tools-mcp", "env": {"FAL_KEY": "fal-x"}}`, Options{}, true},
		{"outdated, Windows binary", ClaudeDesktop, `{"command": "C:\\Hermes\\hermes-tools-mcp.exe"}`, Options{}, true},
		{"outdated, Gemini references", Gemini, `{"command": "/old/hermes-tools-mcp", "env": {"BROWSER_CDP_URL": "${BROWSER_CDP_URL}"}, "timeout": 600000}`, Options{}, true},
		{"own args", ClaudeDesktop, `{"command": "/opt/hermes/bin/hermes-tools-mcp", "args": ["--verbose"]}`, Options{}, false},
		{"own env", ClaudeDesktop, `{"command": "/opt/hermes/bin/hermes-tools-mcp", "env": {"MY_VAR": "1"}}`, Options{}, false},
		{"own command", ClaudeDesktop, `{"command": "python", "args": ["-m", "agent.transports.hermes_tools_mcp_server"]}`, Options{}, false},
		{"literal secret in Gemini", Gemini, `{"command": "/opt/hermes/bin/hermes-tools-mcp", "env": {"FAL_KEY": "fal-x"}}`, Options{}, false},
		{"key Hermes never writes", Cursor, `{"command": "/opt/hermes/bin/hermes-tools-mcp", "disabled": true}`, Options{}, false},
		{"own args, forced", ClaudeDesktop, `{"command": "/opt/hermes/bin/hermes-tools-mcp", "args": ["--verbose"]}`, Options{Overwrite: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(`{"mcpServers": {"hermes-tools": ` + tt.entry + `}}`)
			tt.opts.File = "/home/u/claude.json"
			res, err := Apply(tt.client, in, []configServer{toolsServer}, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			replaced := slices.Contains(res.Written, "hermes-tools")
			if replaced != tt.ours {
				t.Fatalf("replaced = %v, want %v; notes %q\n%s", replaced, tt.ours, res.Notes, res.Output)
			}
			if tt.ours {
				return
			}
			if res.Changed || !slices.Contains(res.Skipped, "hermes-tools") {
				t.Errorf("user's entry touched: changed=%v skipped=%q", res.Changed, res.Skipped)
			}
			want := "hermes-tools: left your own hermes-tools entry in /home/u/claude.json; rerun with --force to replace it"
			if !slices.Contains(res.Notes, want) {
				t.Errorf("notes %q lack %q", res.Notes, want)
			}
		})
	}
}

// TestRefFieldsAreKnown: a dialect's refFields names only kinds of field
// translation spells; a misspelt one would quietly turn references off.
func TestRefFieldsAreKnown(t *testing.T) {
	known := []string{"command", "args", "env", "header", "url", "cwd"}
	for c, d := range dialects {
		for _, f := range d.refFields {
			if !slices.Contains(known, f) {
				t.Errorf("%s: refFields holds %q, not one of %v", c, f, known)
			}
		}
	}
	kiro := dialects[KiroCLI]
	for field, want := range map[string]bool{"env TOKEN": true, "header Authorization": false, "args[0]": false, "command": false, "url": false} {
		if got := kiro.refsIn(field); got != want {
			t.Errorf("Kiro CLI refsIn(%q) = %v, want %v", field, got, want)
		}
	}
}
