package codexrt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/hermes-go/hermes/internal/safefile"
)

// hermesToolsServer is the name hermes-migrate registers hermes-tools under
// in codex's config.toml.
const hermesToolsServer = "hermes-tools"

// oneToolPerName keeps each tool name reaching the model once. The agent
// offers memory, todo and session_search to codex in process (dynamic
// tools: they share the conversation's session id, and codex asks no
// approval for them, so a write works under approval_policy "never"); the
// hermes-tools MCP server codex starts from config.toml serves the same
// names, which other codex sessions still need. So for the agent's codex
// the server's copies are switched off with disabled_tools, added to what
// the user disabled there already.
//
// It returns the extra codex arguments for what configuredHermesTools
// found, none when hermes-tools is not configured for this codex: a -c on
// a server that does not exist would create a server with no command,
// which codex refuses.
func oneToolPerName(configured bool, disabled, dynamic []string) []string {
	if len(dynamic) == 0 || !configured {
		return nil
	}
	disabled = slices.Clone(disabled)
	for _, name := range dynamic {
		if !slices.Contains(disabled, name) {
			disabled = append(disabled, name)
		}
	}
	quoted := make([]string, len(disabled))
	for i, d := range disabled {
		quoted[i] = strconv.Quote(d)
	}
	return []string{"-c", "mcp_servers." + hermesToolsServer + ".disabled_tools=[" + strings.Join(quoted, ",") + "]"}
}

// configuredHermesTools reports whether codex will start hermes-tools (in
// config.toml, or defined by a -c of the runtime's arguments) and what the
// user disabled of it.
func configuredHermesTools(cfg Config) (disabled []string, ok bool, err error) {
	prefix := "mcp_servers." + hermesToolsServer
	for i, a := range cfg.Args {
		v, isConfig := strings.CutPrefix(a, "--config=")
		if !isConfig && (a == "-c" || a == "--config") && i+1 < len(cfg.Args) {
			v, isConfig = cfg.Args[i+1], true
		}
		if isConfig && (strings.HasPrefix(v, prefix+"=") || strings.HasPrefix(v, prefix+".")) {
			ok = true
		}
	}
	path := filepath.Join(codexHome(cfg), "config.toml")
	data, err := safefile.ReadUserFile(path, safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ok, nil
	}
	if err != nil {
		return nil, ok, err
	}
	var doc struct {
		MCPServers map[string]struct {
			Enabled       *bool    `toml:"enabled"`
			DisabledTools []string `toml:"disabled_tools"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		// codex will say what is wrong with its own file; the agent
		// only loses the deduplication.
		return nil, ok, nil
	}
	s, found := doc.MCPServers[hermesToolsServer]
	if !found {
		return nil, ok, nil
	}
	if s.Enabled != nil && !*s.Enabled {
		return nil, ok, nil
	}
	return s.DisabledTools, true, nil
}

// codexHome is where the codex the runtime starts reads config.toml.
func codexHome(cfg Config) string {
	if cfg.CodexHome != "" {
		return cfg.CodexHome
	}
	environ := cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	for _, kv := range slices.Backward(environ) {
		if v, ok := strings.CutPrefix(kv, "CODEX_HOME="); ok && v != "" {
			return v
		}
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".codex")
}
