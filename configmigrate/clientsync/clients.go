package clientsync

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// dialect is one row of the client table: where a client keeps its MCP
// servers and how it spells an entry. Every client-specific fact lives
// here; the README's client table is generated from these rows
// (TestReadmeClientTable), so the two cannot drift apart.
type dialect struct {
	client  Client
	display string
	// aliases are other spellings the CLI accepts (add-mcp's agent ids).
	aliases []string
	// format names the file's syntax: JSON, JSONC, YAML or TOML.
	format string
	// rootKey holds the servers object at the top level of the file.
	rootKey string
	// comments and trailingCommas say what the client's own parser
	// accepts; a file that has more still gets edited, with a note.
	comments, trailingCommas bool

	// user is the user-level file; alternates, when one exists, is used
	// instead (a client that reads either name).
	user       func(p pathEnv) (string, error)
	alternates func(p pathEnv) []string
	// project is the project-level file, relative to the project root
	// (slash-separated); empty when the client reads none.
	project string

	// ref spells a reference to an environment variable; nil when the
	// client cannot expand variables at all.
	ref func(name string) string
	// refSyntax is ref for people, "" for none.
	refSyntax string
	// refUserOnly says the client expands references in its user-level
	// file only: a project file is written as for a client with none.
	refUserOnly bool
	// refFields lists the kinds of field the client expands references
	// in ("command", "args", "env", "header", "url", "cwd"); nil means
	// every field. Elsewhere it takes the text as written.
	refFields []string
	// envWholeRef says the client expands a reference in an env value
	// only when it is the whole value ("${VAR}", not "Bearer ${VAR}").
	envWholeRef bool
	// bangCommand says a leading ! in an env or header value makes the
	// client run the rest as a shell command, and !! stands for a literal
	// ! (pi-mcp-adapter's secret commands).
	bangCommand bool
	// refDefault spells ${VAR:-default}; nil when the client has no
	// defaults, and the reference is then written without one.
	refDefault func(name, def string) string
	// expands reports whether literal text would be read as a variable
	// reference by the client, which cannot be escaped in any of them.
	expands func(lit string) bool

	// Entry shape. typeKey names the transport field ("type",
	// "transport"); stdioType, httpType and sseType are its values, ""
	// where the client wants none.
	typeKey                      string
	stdioType, httpType, sseType string
	// urlKey names the remote URL ("url", "serverUrl").
	urlKey string
	// envKey names the environment map ("env", "environment").
	envKey string
	// commandArray writes command and args as one array (OpenCode).
	commandArray bool
	// commandKey names the executable ("command", Goose's "cmd").
	commandKey string
	// alwaysArgs writes args even when empty.
	alwaysArgs bool
	// offSwitch names the boolean in last that registers a server turned
	// off ("enabled", Cline's "disabled"); without one a server disabled
	// in Hermes is not registered.
	offSwitch string
	// scrubbed are variables the client removes from its own
	// environment before it starts a server or expands a reference, so
	// neither a reference to one nor its pass-through reaches the server.
	scrubbed []string
	// inheritsEnv says a stdio server gets the client's whole
	// environment: a client without references still hands the server
	// a variable of the same name.
	inheritsEnv bool
	// bearerKey names a field that holds the name of a variable the
	// client sends as "Authorization: Bearer <value>" to a remote server
	// (Kimi Code's bearerTokenEnvVar): how a client without references
	// still gets a token without its value in the file.
	bearerKey string
	// includeKey and excludeKey name the per-server tool lists (the
	// tools offered, the tools withheld); "" when the client has none.
	includeKey, excludeKey string
	// startupKey names a start-up timeout, in the unit of timeoutKey;
	// without one a start-up timeout is dropped.
	startupKey string
	// nameField repeats the server's name in its entry (Goose).
	nameField bool
	// nameKeys names a list of variables the client passes to the server
	// by name from its own environment (Goose's env_keys): how a client
	// without reference syntax still gets a secret without its value.
	nameKeys string
	// first and last are constant fields leading and ending every entry
	// ("source": "custom", "enabled": true).
	first, last object
	// timeoutKey names a per-request timeout, in milliseconds unless
	// timeoutSeconds; timeoutDefault, when set, is written for a server
	// without a timeout (an entry the client rejects without one).
	timeoutKey     string
	timeoutSeconds bool
	timeoutDefault int64
	cwd            bool
	remote         bool
	// gemini picks the transport by key (httpUrl or url) and has tool
	// filters.
	gemini bool

	// section, when set, says Hermes' entries in the file are one
	// section Hermes owns whole, rewritten at once, rather than entries
	// edited one by one beside the user's (codex's managed block): Job
	// runs the section's hooks and keeps no ownership record for it,
	// and Apply and Remove refuse the client. The entry fields above do
	// not apply to such a client.
	section *section
	// homeVar is the client's own variable naming the directory its
	// user file is in: while it is set, the file is found without the
	// user's home directory.
	homeVar string
	// envNote is the README's env reference column for a client that
	// passes secrets some way of its own.
	envNote string

	// source names where the row's facts come from, for the README.
	source string
}

const (
	formatYAML = "YAML"
	formatTOML = "TOML"
)

// pathEnv builds paths for one OS from an Env.
type pathEnv struct {
	Env
	win bool
}

func (p pathEnv) join(elem ...string) string {
	if p.win {
		for i := range elem {
			elem[i] = strings.TrimRight(elem[i], `\/`)
		}
		return strings.Join(elem, `\`)
	}
	return path.Join(elem...)
}

func (p pathEnv) home(elem ...string) string { return p.join(append([]string{p.Home}, elem...)...) }

// refsIn reports whether the client expands references in field, a
// field name as translation spells it ("args[2]", "env TOKEN").
func (d *dialect) refsIn(field string) bool {
	if d.refFields == nil {
		return true
	}
	kind, _, _ := strings.Cut(field, " ")
	kind, _, _ = strings.Cut(kind, "[")
	return slices.Contains(d.refFields, kind)
}

// dir is the value of a client's own home variable (CODEX_HOME style)
// when it is set, else the default under home.
func (p pathEnv) dir(variable string, def ...string) (string, error) {
	if v, err := p.pathVar(variable); v != "" || err != nil {
		return v, err
	}
	return p.home(def...), nil
}

// pathVar is the value of a client's path variable, "" when it is unset
// or empty. A relative value is refused, not ignored: the client resolves
// it against whatever directory it starts in, which hermes-migrate cannot
// know, and the default file would be one the client does not read.
func (p pathEnv) pathVar(variable string) (string, error) {
	if p.Getenv == nil {
		return "", nil
	}
	v := p.Getenv(variable)
	if v == "" || isAbs(v, p.win) {
		return v, nil
	}
	return "", fmt.Errorf("$%s is %q, not an absolute path: the client resolves it against the directory it starts in, so which file it reads cannot be known here; set %s to an absolute path, or unset it", variable, v, variable)
}

func (p pathEnv) appData(who string) (string, error) {
	if !isAbs(p.AppData, true) {
		return "", fmt.Errorf("%%APPDATA%% is %q, not an absolute path; %s keeps its config under it, so set APPDATA", p.AppData, who)
	}
	return p.AppData, nil
}

// configHome is $XDG_CONFIG_HOME, or ~/.config when it is unset or
// relative (the XDG spec says to ignore a relative value).
func (p pathEnv) configHome() string {
	if isAbs(p.XDGConfigHome, false) {
		return p.XDGConfigHome
	}
	return p.home(".config")
}

// app is the per-user application data directory: Application Support
// on macOS, %APPDATA% on Windows, the XDG config home elsewhere.
func (p pathEnv) app(who string, elem ...string) (string, error) {
	var base string
	switch p.GOOS {
	case "darwin":
		base = p.home("Library", "Application Support")
	case "windows":
		var err error
		if base, err = p.appData(who); err != nil {
			return "", err
		}
	default:
		base = p.configHome()
	}
	return p.join(append([]string{base}, elem...)...), nil
}

func under(elem ...string) func(p pathEnv) (string, error) {
	return func(p pathEnv) (string, error) { return p.home(elem...), nil }
}

// dollarBrace matches how Claude Code, Cursor and VS Code find
// variables: any "${...}".
func dollarBrace(lit string) bool { return strings.Contains(lit, "${") }

// dollarVarRE matches how Gemini CLI, Copilot CLI and Mastra Code find
// variables: $NAME or ${...}.
var dollarVarRE = regexp.MustCompile(`\$(\{|[A-Za-z_])`)

func braceEnv(lit string) bool { return strings.Contains(lit, "{env:") }

// piVarRE matches how pi-mcp-adapter finds variables: ${NAME}, $env:NAME
// and {env:NAME}, NAME being word characters.
var piVarRE = regexp.MustCompile(`\$\{\w+\}|\$env:\w|\{env:\w+\}`)

func neverExpands(string) bool { return false }

func dollarRef(n string) string             { return "${" + n + "}" }
func emptyDefaultRef(n string) string       { return "${" + n + ":-}" }
func dollarDefaultRef(n, def string) string { return "${" + n + ":-" + def + "}" }
func envRef(n string) string                { return "${env:" + n + "}" }

// stdEntry is the shape most clients share: command, args, env; url and
// headers for remote servers, no transport field.
func stdEntry(d dialect) *dialect {
	if d.urlKey == "" {
		d.urlKey = "url"
	}
	if d.envKey == "" {
		d.envKey = "env"
	}
	if d.commandKey == "" {
		d.commandKey = "command"
	}
	if d.rootKey == "" {
		d.rootKey = "mcpServers"
	}
	if d.format == "" {
		d.format = "JSON"
		if d.comments {
			d.format = "JSONC"
		}
	}
	if d.expands == nil {
		d.expands = neverExpands
	}
	return &d
}

// dialects is the client table, read-only after initialisation. Where
// sources disagree (reference/mcp-clients.md §4) the choice and its
// source are named in the row.
var dialects = map[Client]*dialect{
	Codex: {
		client: Codex, display: "Codex", format: formatTOML, rootKey: "mcp_servers",
		user: codexConfig, homeVar: codexHomeVar, project: ".codex/config.toml",
		envNote: "none: secrets passed by name (`env_vars`, `bearer_token_env_var`)",
		section: codexSection,
		source:  "developers.openai.com/codex/config-reference; the Python Hermes' codex runtime migration (the managed block's markers)",
	},
	ClaudeDesktop: stdEntry(dialect{
		client: ClaudeDesktop, display: "Claude Desktop",
		user: func(p pathEnv) (string, error) {
			// No official Linux build; the community builds use the
			// XDG config home.
			return p.app("Claude Desktop", "Claude", "claude_desktop_config.json")
		},
		source: "modelcontextprotocol.io/quickstart/user",
	}),
	ClaudeCode: stdEntry(dialect{
		client: ClaudeCode, display: "Claude Code",
		user:    under(".claude.json"),
		project: ".mcp.json",
		// Claude Code 2.1.331 hands an unset ${VAR} to the server as the
		// text "${VAR}" (TestRealClientEnvExpansion); ${VAR:-} makes it
		// "", as Hermes' own runtime does.
		ref: emptyDefaultRef, refSyntax: "${VAR:-}, ${VAR:-default}",
		refDefault: dollarDefaultRef,
		expands:    dollarBrace, typeKey: "type", stdioType: "stdio", httpType: "http", sseType: "sse", remote: true,
		source: "code.claude.com/docs/en/mcp",
	}),
	Cursor: stdEntry(dialect{
		client: Cursor, display: "Cursor",
		user: under(".cursor", "mcp.json"), project: ".cursor/mcp.json",
		ref: envRef, refSyntax: "${env:VAR}",
		expands: dollarBrace, remote: true,
		source: "cursor.com/docs/context/mcp",
	}),
	VSCode: stdEntry(dialect{
		client: VSCode, display: "VS Code", aliases: []string{"github-copilot"},
		rootKey:  "servers",
		comments: true, trailingCommas: true,
		user: func(p pathEnv) (string, error) {
			return p.app("VS Code", "Code", "User", "mcp.json")
		},
		project: ".vscode/mcp.json",
		ref:     envRef, refSyntax: "${env:VAR}",
		expands: dollarBrace, typeKey: "type", stdioType: "stdio", httpType: "http", sseType: "sse", cwd: true, remote: true,
		source: "code.visualstudio.com/docs/copilot/reference/mcp-configuration",
	}),
	Gemini: stdEntry(dialect{
		client: Gemini, display: "Gemini CLI", aliases: []string{"gemini-cli"},
		comments: true,
		user:     under(".gemini", "settings.json"), project: ".gemini/settings.json",
		// Gemini CLI 0.61.0 expands an unset variable to "" and keeps
		// from the server every variable named like a secret (KEY,
		// TOKEN, AUTH, ...) or valued like one, unless the entry's env
		// names it (TestRealClientEnvExpansion): so every pass-through
		// variable is written, set or not.
		ref: dollarRef, refSyntax: "$VAR, ${VAR}, ${VAR:-default}",
		refDefault: dollarDefaultRef,
		expands:    dollarVarRE.MatchString, cwd: true, remote: true, gemini: true,
		includeKey: "includeTools", excludeKey: "excludeTools",
		timeoutKey: "timeout",
		source:     "github.com/google-gemini/gemini-cli docs/tools/mcp-server.md",
	}),
	Antigravity: stdEntry(dialect{
		client: Antigravity, display: "Antigravity",
		// add-mcp 2.4.0's path; older pages say ~/.gemini/antigravity/.
		user:   under(".gemini", "config", "mcp_config.json"),
		urlKey: "serverUrl", remote: true,
		source: "add-mcp 2.4.0 (dist/agents); expansion undocumented, so none",
	}),
	Cline: stdEntry(dialect{
		client: Cline, display: "Cline", aliases: []string{"cline-vscode"},
		user: func(p pathEnv) (string, error) {
			return p.app("Cline", "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
		},
		typeKey: "type", httpType: "streamableHttp", sseType: "sse",
		last: object{{"disabled", false}}, offSwitch: "disabled",
		remote: true,
		source: "docs.cline.bot/mcp/configuring-mcp-servers; add-mcp 2.4.0",
	}),
	ClineCLI: stdEntry(dialect{
		client: ClineCLI, display: "Cline CLI",
		// Cline CLI 3.0.65 (TestRealClineCLICallsMigratedTool) reads
		// $CLINE_MCP_SETTINGS_PATH (the whole path), else
		// settings/cline_mcp_settings.json under $CLINE_DATA_DIR, else
		// under $CLINE_DIR/data or ~/.cline/data (its bundled code).
		user: func(p pathEnv) (string, error) {
			if f, err := p.pathVar("CLINE_MCP_SETTINGS_PATH"); f != "" || err != nil {
				return f, err
			}
			data, err := p.pathVar("CLINE_DATA_DIR")
			if data == "" && err == nil {
				var dir string
				dir, err = p.dir("CLINE_DIR", ".cline")
				data = p.join(dir, "data")
			}
			if err != nil {
				return "", err
			}
			return p.join(data, "settings", "cline_mcp_settings.json"), nil
		},
		typeKey: "type", httpType: "streamableHttp", sseType: "sse",
		last: object{{"disabled", false}}, offSwitch: "disabled",
		remote: true,
		source: "Cline CLI 3.0.65, run by TestRealClineCLICallsMigratedTool; add-mcp 2.4.0 (dist/agents)",
	}),
	FX: stdEntry(dialect{
		client: FX, display: "fx",
		user:    under(".fx", "mcp.json"),
		rootKey: "mcp", envKey: "environment", commandArray: true,
		typeKey: "type", stdioType: "local", httpType: "http", sseType: "sse",
		last: object{{"enabled", true}}, offSwitch: "enabled",
		remote: true,
		source: "add-mcp 2.4.0 (dist/agents)",
	}),
	CopilotCLI: stdEntry(dialect{
		client: CopilotCLI, display: "GitHub Copilot CLI",
		// $COPILOT_HOME, else ~/.copilot (docs.github.com; `copilot
		// help environment` and `copilot mcp --help` in 1.0.102, which
		// ignores $XDG_CONFIG_HOME/mcp-config.json, add-mcp's path). The
		// project file is Claude Code's .mcp.json, which Copilot CLI
		// reads too: write it with --client claude-code.
		user: func(p pathEnv) (string, error) {
			dir, err := p.dir("COPILOT_HOME", ".copilot")
			return p.join(dir, "mcp-config.json"), err
		},
		// Copilot CLI 1.0.102 (TestRealCopilotCLIEntryFields) expands
		// ${VAR}, ${VAR:-default} and $VAR in command, args, env, cwd,
		// url and headers, but hands an unset ${VAR} over as the text
		// "${VAR}": so ${VAR:-}, and $NAME in literal text is a
		// reference.
		ref: emptyDefaultRef, refSyntax: "${VAR:-}, ${VAR:-default}",
		refDefault: dollarDefaultRef, expands: dollarVarRE.MatchString,
		// Its mcp add writes "local", the schema takes "stdio" as well.
		typeKey: "type", stdioType: "stdio", httpType: "http", sseType: "sse",
		last: object{{"tools", []string{"*"}}},
		// timeout is milliseconds, for tool discovery and each call.
		timeoutKey: "timeout", cwd: true, remote: true,
		// Removed from the environment a server gets and references
		// read (TestRealCopilotCLIEntryFields probes each).
		scrubbed: []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL"},
		source:   "docs.github.com/copilot/how-tos/use-copilot-agents/use-copilot-cli; Copilot CLI 1.0.102 schemas/api.schema.json (McpServerConfigStdio, McpServerConfigHttp)",
	}),
	KiloCode: stdEntry(dialect{
		client: KiloCode, display: "Kilo Code", aliases: []string{"kilo", "kilocode"},
		comments: true, trailingCommas: true,
		// Kilo CLI 7.7.9 (TestRealKiloCallsMigratedTool,
		// TestRealKiloEnvExpansion) reads every one of config.json,
		// kilo.json, kilo.jsonc, opencode.json and opencode.jsonc in
		// $XDG_CONFIG_HOME/kilo, and kilo.json in a project's root or
		// .kilo/. It expands {env:VAR} in the user's files, but drops a
		// whole project file that has one ("environment references are
		// not allowed in project config"), so references are written at
		// user level only (refUserOnly); a server inherits Kilo's
		// environment besides. It accepts cwd but runs the server in the
		// workspace, so cwd is not written.
		user: func(p pathEnv) (string, error) {
			return p.join(p.configHome(), "kilo", "kilo.json"), nil
		},
		alternates: func(p pathEnv) []string {
			return []string{p.join(p.configHome(), "kilo", "kilo.jsonc")}
		},
		project: "kilo.json",
		rootKey: "mcp", envKey: "environment", commandArray: true,
		typeKey: "type", stdioType: "local", httpType: "remote", sseType: "remote",
		last: object{{"enabled", true}}, offSwitch: "enabled",
		ref: func(n string) string { return "{env:" + n + "}" }, refSyntax: "{env:VAR} (user file only)",
		refUserOnly: true, expands: braceEnv, inheritsEnv: true,
		timeoutKey: "timeout", remote: true,
		source: "Kilo CLI 7.7.9, run by TestRealKiloCallsMigratedTool and TestRealKiloEnvExpansion (OpenCode's schema, which it forks; add-mcp 2.4.0 agrees)",
	}),
	KimiCode: stdEntry(dialect{
		client: KimiCode, display: "Kimi Code", aliases: []string{"kimi"},
		user: func(p pathEnv) (string, error) {
			dir, err := p.dir("KIMI_CODE_HOME", ".kimi-code")
			return p.join(dir, "mcp.json"), err
		},
		project: ".kimi-code/mcp.json",
		typeKey: "transport", stdioType: "stdio", httpType: "http", sseType: "sse",
		// Kimi Code expands no reference anywhere in an entry; a stdio
		// server inherits its whole environment instead
		// (TestRealKimiCodeEntryFields), so ref stays nil; a remote
		// server's "Authorization: Bearer ${VAR}" becomes
		// bearerTokenEnvVar (TestRealKimiCodeRemoteBearer).
		inheritsEnv: true, bearerKey: "bearerTokenEnvVar",
		last: object{{"enabled", true}}, offSwitch: "enabled",
		includeKey: "enabledTools", excludeKey: "disabledTools",
		timeoutKey: "toolTimeoutMs", startupKey: "startupTimeoutMs", cwd: true, remote: true,
		source: "Kimi Code 2.1.0, run by TestRealKimiCodeCallsMigratedTool and TestRealKimiCodeEntryFields (its mcp.json schema: transport stdio/http/sse, cwd, enabled, toolTimeoutMs and startupTimeoutMs in ms)",
	}),
	KiroCLI: stdEntry(dialect{
		client: KiroCLI, display: "Kiro CLI", aliases: []string{"kiro"},
		user: under(".kiro", "settings", "mcp.json"), project: ".kiro/settings/mcp.json",
		ref: dollarRef, refSyntax: "${VAR} (env only)", refFields: []string{"env"}, expands: dollarBrace,
		timeoutKey: "timeout", remote: true,
		source: "kiro.dev/docs/cli/mcp/configuration",
	}),
	MastraCode: stdEntry(dialect{
		client: MastraCode, display: "Mastra Code", aliases: []string{"mastra"},
		user: under(".mastracode", "mcp.json"), project: ".mastracode/mcp.json",
		// Mastra Code 0.32.1 (TestRealMastraCodeEntryFields) expands
		// ${VAR}, ${VAR:-default} and $VAR in env, url and headers, an
		// unset one to "" or its default, and runs command and args as
		// written; a stdio server gets nothing of its environment but
		// what the entry names. It reads command, args, env, url and
		// headers only: no cwd, timeout or switch to turn a server off.
		ref: dollarRef, refDefault: dollarDefaultRef, refSyntax: "${VAR}, ${VAR:-default} (env, url, headers)",
		refFields: []string{"env", "header", "url"}, expands: dollarVarRE.MatchString,
		remote: true,
		source: "Mastra Code 0.32.1, run by TestRealMastraCodeCallsMigratedTool and TestRealMastraCodeEntryFields (@mastra/code-sdk mcp/config.js); add-mcp 2.4.0",
	}),
	MCPorter: stdEntry(dialect{
		client: MCPorter, display: "MCPorter",
		user: under(".mcporter", "mcporter.json"),
		alternates: func(p pathEnv) []string {
			return []string{p.home(".mcporter", "mcporter.jsonc")}
		},
		project: "config/mcporter.json",
		typeKey: "type", httpType: "http", sseType: "sse",
		// MCPorter 0.12.3 (TestRealMCPorterEntryFields) expands ${VAR}
		// and ${VAR:-default} anywhere in command, args, url and
		// headers, but in env only as the whole value, and hands a stdio
		// server its whole environment; an unset ${VAR} without a default
		// in args or url makes it refuse the whole file, so ${VAR:-} is
		// written.
		ref: emptyDefaultRef, refDefault: dollarDefaultRef, refSyntax: "${VAR:-}, ${VAR:-default} (whole value in env)",
		envWholeRef: true, inheritsEnv: true, expands: dollarBrace,
		remote: true,
		source: "MCPorter 0.12.3, run by TestRealMCPorterCallsMigratedTool and TestRealMCPorterEntryFields (dist/env.js, dist/runtime/transport.js); add-mcp 2.4.0",
	}),
	OpenCode: stdEntry(dialect{
		client: OpenCode, display: "OpenCode",
		comments: true, trailingCommas: true,
		// add-mcp ignores XDG_CONFIG_HOME here; so does hermes-migrate.
		user: under(".config", "opencode", "opencode.jsonc"),
		alternates: func(p pathEnv) []string {
			return []string{p.home(".config", "opencode", "opencode.json")}
		},
		project: "opencode.jsonc",
		rootKey: "mcp", envKey: "environment", commandArray: true,
		typeKey: "type", stdioType: "local", httpType: "remote", sseType: "remote",
		last: object{{"enabled", true}}, offSwitch: "enabled",
		ref: func(n string) string { return "{env:" + n + "}" }, refSyntax: "{env:VAR}",
		expands: braceEnv, timeoutKey: "timeout", remote: true,
		source: "opencode.ai/docs/config#variables, opencode.ai/docs/mcp-servers",
	}),
	Pi: stdEntry(dialect{
		client: Pi, display: "Pi", aliases: []string{"pi-agent"},
		user: func(p pathEnv) (string, error) {
			// pi-mcp-adapter 2.36.0 (agent-dir.ts) trims the value and
			// reads "~" and "~/..." as the home directory.
			trimmed := p
			if p.Getenv != nil {
				v := strings.TrimSpace(p.Getenv("PI_CODING_AGENT_DIR"))
				switch {
				case v == "~":
					return p.home("mcp.json"), nil
				case strings.HasPrefix(v, "~/"):
					return p.home(v[2:], "mcp.json"), nil
				}
				trimmed.Getenv = func(k string) string { return strings.TrimSpace(p.Getenv(k)) }
			}
			dir, err := trimmed.dir("PI_CODING_AGENT_DIR", ".pi", "agent")
			return p.join(dir, "mcp.json"), err
		},
		project: ".pi/mcp.json",
		// pi-mcp-adapter 2.36.0 (README "Server Options", utils.ts
		// interpolateEnvVars) expands ${VAR}, $env:VAR and {env:VAR} in
		// args, env, cwd, url and headers, an unset one to "", and has no
		// defaults: ${VAR:-x} stays text (TestRealPiEnvExpansion). It runs
		// command as written (server-manager.ts), and an env or header
		// value starting with ! as a shell command. A stdio server
		// inherits Pi's whole environment besides. Only a literal
		// disabled: true turns a server off.
		ref: dollarRef, refSyntax: "${VAR}, $env:VAR, {env:VAR}", expands: piVarRE.MatchString,
		refFields: []string{"args", "env", "header", "url", "cwd"}, bangCommand: true,
		cwd:  true,
		last: object{{"disabled", false}}, offSwitch: "disabled",
		timeoutKey: "requestTimeoutMs", remote: true,
		source: "pi-mcp-adapter 2.36.0 README (Server Options); add-mcp 2.4.0",
	}),
	Windsurf: stdEntry(dialect{
		client: Windsurf, display: "Windsurf", aliases: []string{"codeium", "cascade"},
		user:   under(".codeium", "windsurf", "mcp_config.json"),
		urlKey: "serverUrl",
		ref:    envRef, refSyntax: "${env:VAR}", expands: dollarBrace,
		remote: true,
		source: "docs.windsurf.com/windsurf/cascade/mcp",
	}),
	Zed: stdEntry(dialect{
		client: Zed, display: "Zed",
		rootKey:  "context_servers",
		comments: true, trailingCommas: true,
		// zed.dev/docs/configuring-zed: ~/.config/zed on macOS and
		// Linux (add-mcp's Application Support path is not read).
		user: func(p pathEnv) (string, error) {
			if p.GOOS == "windows" {
				return p.app("Zed", "Zed", "settings.json")
			}
			if p.GOOS == "darwin" {
				return p.home(".config", "zed", "settings.json"), nil
			}
			return p.join(p.configHome(), "zed", "settings.json"), nil
		},
		project: ".zed/settings.json",
		first:   object{{"source", "custom"}},
		remote:  true,
		source:  "zed.dev/docs/ai/mcp",
	}),
	// Two clients add-mcp 2.4.0 does not know.
	RooCode: stdEntry(dialect{
		client: RooCode, display: "Roo Code", aliases: []string{"roo", "roo-cline"},
		user: func(p pathEnv) (string, error) {
			return p.app("Roo Code", "Code", "User", "globalStorage", "rooveterinaryinc.roo-cline", "settings", "mcp_settings.json")
		},
		project: ".roo/mcp.json",
		typeKey: "type", httpType: "streamable-http", sseType: "sse",
		last: object{{"disabled", false}}, offSwitch: "disabled",
		cwd: true, remote: true,
		source: "docs.roocode.com/features/mcp/using-mcp-in-roo (mcpServers: command, args, env, cwd, disabled; type streamable-http/sse, url, headers); expansion undocumented, so none",
	}),
	LMStudio: stdEntry(dialect{
		client: LMStudio, display: "LM Studio", aliases: []string{"lm-studio"},
		user:   under(".lmstudio", "mcp.json"),
		remote: true,
		source: "lmstudio.ai/docs/app/mcp (mcp.json in Cursor's notation: mcpServers, command, args, env, url, headers)",
	}),
	Goose: stdEntry(dialect{
		client: Goose, display: "Goose", format: formatYAML, rootKey: "extensions",
		user: func(p pathEnv) (string, error) {
			switch p.GOOS {
			case "windows":
				return p.app("Goose", "Block", "goose", "config", "config.yaml")
			case "darwin":
				return p.home(".config", "goose", "config.yaml"), nil
			}
			return p.join(p.configHome(), "goose", "config.yaml"), nil
		},
		commandKey: "cmd", alwaysArgs: true, envKey: "envs", urlKey: "uri", nameKeys: "env_keys", refSyntax: "env_keys: [VAR] (same name only)",
		typeKey: "type", stdioType: "stdio", httpType: "streamable_http", sseType: "sse",
		nameField: true, first: object{{"description", ""}},
		// Goose's documented entry always has timeout, in seconds; 300 is
		// its default.
		timeoutKey: "timeout", timeoutSeconds: true, timeoutDefault: 300,
		last: object{{"enabled", true}}, offSwitch: "enabled",
		remote: true,
		source: "block.github.io/goose/docs/getting-started/using-extensions; add-mcp 2.4.0",
	}),
	GrokBuild: stdEntry(dialect{
		client: GrokBuild, display: "Grok Build", aliases: []string{"grok"}, format: formatTOML, rootKey: "mcp_servers",
		user: func(p pathEnv) (string, error) {
			dir, err := p.dir("GROK_HOME", ".grok")
			return p.join(dir, "config.toml"), err
		},
		project:    ".grok/config.toml",
		timeoutKey: "tool_timeout_sec", timeoutSeconds: true,
		remote: true,
		source: "add-mcp 2.4.0 (dist/agents: codex-style [mcp_servers.<name>] tables, tool_timeout_sec in seconds)",
	}),
}
