package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// subcommand is one `hermes <name>` besides chat: its flags are parsed
// here, its work is done by run.
type subcommand struct {
	usage string
	run   func(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer, d deps) int
}

func subcommands() map[string]subcommand {
	return map[string]subcommand{
		"codex-runtime": {usage: codexRuntimeUsage, run: runCodexRuntime},
		"sessions":      {usage: sessionsUsage, run: runSessions},
		"tools":         {usage: toolsUsage, run: runTools},
	}
}

// runSubcommand parses the common flags and hands over; ok is false when
// name is not a subcommand.
func runSubcommand(ctx context.Context, name string, args []string, stdout, stderr io.Writer, d deps) (int, bool) {
	sc, ok := subcommands()[name]
	if !ok {
		return 0, false
	}
	fs := flag.NewFlagSet("hermes "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), sc.usage); fs.PrintDefaults() }
	return sc.run(ctx, fs, args, stdout, stderr, d), true
}

// parseSub parses fs and resolves the Hermes home; code is the exit code
// to return at once when done is true.
func parseSub(fs *flag.FlagSet, args []string, d *deps, stderr io.Writer, maxArgs int) (home string, rest []string, code int, done bool) {
	homeFlag := fs.Lookup("hermes-home")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", nil, exitOK, true
		}
		return "", nil, exitUsage, true
	}
	if fs.NArg() > maxArgs {
		fmt.Fprintf(stderr, "%s: unexpected argument %q (run with -h for help)\n", fs.Name(), fs.Arg(maxArgs))
		return "", nil, exitUsage, true
	}
	home, err := d.useHome(homeFlag.Value.String(), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return "", nil, exitUsage, true
	}
	return home, fs.Args(), exitOK, false
}

const codexRuntimeUsage = `Usage: hermes codex-runtime [status|on|off|auto|codex_app_server|migrate] [flags]

Shows or sets model.openai_runtime in config.yaml, as /codex-runtime does
in a chat:
  status (or nothing)       the current runtime and whether codex is installed
  on | codex_app_server     hand OpenAI turns to codex app-server; checks codex,
                            saves the setting and migrates the MCP servers into
                            codex's config.toml
  off | auto                back to Hermes' own runtime
  migrate                   only rewrite the Hermes-managed section of codex's
                            config.toml from config.yaml's mcp_servers

A server value that looks like a secret becomes a reference to an
environment variable in config.toml; --allow-literal-secrets (with on or
migrate) copies it as it is instead.

Flags:
`

func runCodexRuntime(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer, d deps) int {
	fs.String("hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes)")
	codexHome := fs.String("codex-home", "", "CODEX_HOME whose config.toml is migrated (default: $CODEX_HOME, else ~/.codex)")
	codexBin := fs.String("codex-bin", "", "codex binary (default: $CODEX_BIN, else codex on PATH)")
	toolsCmd := fs.String("hermes-tools-command", "", "hermes-tools-mcp binary written into codex's config (default: next to hermes, else on PATH)")
	literal := fs.Bool("allow-literal-secrets", false, "on, migrate: copy values that look like secrets into codex's config.toml as they are (by default they become environment references)")
	// The action may come before the flags, as people type it.
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	// An unknown action is refused before --help is honoured, so
	// `hermes codex-runtime <typo> --help` does not look like a command.
	if err := checkCodexAction(action); err != nil {
		fmt.Fprintf(stderr, "hermes codex-runtime: %v\n", err)
		return exitUsage
	}
	home, rest, code, done := parseSub(fs, args, &d, stderr, 1)
	if done {
		return code
	}
	if action == "" && len(rest) == 1 {
		action = rest[0]
		if err := checkCodexAction(action); err != nil {
			fmt.Fprintf(stderr, "hermes codex-runtime: %v\n", err)
			return exitUsage
		}
	}
	if *literal && !migrates(action) {
		fmt.Fprintf(stderr, "hermes codex-runtime: --allow-literal-secrets only applies to on and migrate, which write codex's config.toml\n")
		return exitUsage
	}
	sw := &runtimecfg.Switch{
		AllowLiteralSecrets: *literal,
		HermesHome:          home,
		Pin:                 d.pin,
		CodexHome:           *codexHome,
		CodexBinary:         *codexBin,
		HermesToolsCommand:  *toolsCmd,
		Getenv:              d.getenv,
		Environ:             d.environ,
	}
	var (
		msg string
		err error
		ok  = true
	)
	switch strings.ToLower(action) {
	case "migrate":
		msg, err = sw.Migrate(ctx)
	case "status":
		action = ""
		fallthrough
	default:
		var st runtimecfg.Status
		st, err = sw.Apply(ctx, action)
		msg, ok = st.Message, st.Success
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes codex-runtime: %v (usage: hermes codex-runtime [status|on|off|auto|migrate])\n", err)
		return exitUsage
	}
	fmt.Fprintln(stdout, strings.ReplaceAll(msg, "(start one with /new)", "(start one with hermes chat, or /new in a chat)"))
	if !ok {
		return exitFailure
	}
	return exitOK
}

func checkCodexAction(action string) error {
	switch strings.ToLower(action) {
	case "status", "migrate":
		return nil
	}
	_, _, err := runtimecfg.ParseArg(action)
	if err != nil {
		return fmt.Errorf("unknown action %q: use status, on, off, auto or migrate", action)
	}
	return nil
}

// migrates says the action writes codex's config.toml.
func migrates(action string) bool {
	if strings.EqualFold(action, "migrate") {
		return true
	}
	v, show, err := runtimecfg.ParseArg(action)
	return err == nil && !show && v == runtimecfg.CodexAppServer
}

const sessionsUsage = `Usage: hermes sessions list [flags]

Lists the sessions in state.db (this program's chats and the Python
Hermes' own), newest first; continue one with hermes chat --resume <id>.

Flags:
`

func runSessions(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer, d deps) int {
	fs.String("hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes)")
	limit := fs.Int("limit", 20, "show at most this many sessions (0: all)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if action != "" && action != "list" {
		fmt.Fprintf(stderr, "hermes sessions: unknown action %q (the one action is list)\n", action)
		return exitUsage
	}
	home, rest, code, done := parseSub(fs, args, &d, stderr, 1)
	if done {
		return code
	}
	if action == "" && len(rest) == 1 {
		action = rest[0]
	}
	if action != "list" {
		fs.Usage()
		if action == "" {
			return exitUsage
		}
		fmt.Fprintf(stderr, "hermes sessions: unknown action %q (the one action is list)\n", action)
		return exitUsage
	}
	if *limit < 0 {
		fmt.Fprintln(stderr, "hermes sessions list: --limit must be 0 (all) or more")
		return exitUsage
	}
	// Listing must not create state.db in a home that has none.
	if _, err := os.Stat(filepath.Join(home, "state.db")); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "no sessions yet: %s has no state.db (hermes chat creates it)\n", home)
		if *asJSON {
			fmt.Fprintln(stdout, "[]")
		}
		return exitOK
	}
	// Listing reads: it neither creates nor upgrades the file.
	store, err := statedb.Open(ctx, home, statedb.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintf(stderr, "hermes sessions list: %v\n", err)
		return exitFailure
	}
	defer store.Close()
	for _, note := range store.Notes() {
		fmt.Fprintf(stderr, "note: %s\n", note)
	}
	list, err := store.ListSessions(ctx, *limit)
	if err != nil {
		fmt.Fprintf(stderr, "hermes sessions list: %v\n", err)
		return exitFailure
	}
	if *asJSON {
		type row struct {
			ID        string `json:"id"`
			Title     string `json:"title"`
			StartedAt string `json:"started_at"`
			Source    string `json:"source"`
			Runtime   string `json:"runtime"`
			Model     string `json:"model"`
			Messages  int    `json:"message_count"`
		}
		rows := []row{}
		for _, s := range list {
			rows = append(rows, row{s.ID, s.Title, s.StartedAt.UTC().Format("2006-01-02T15:04:05Z"), s.Source, s.Runtime, s.Model, s.Messages})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			fmt.Fprintf(stderr, "hermes sessions list: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	if len(list) == 0 {
		fmt.Fprintln(stderr, "no sessions yet")
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tSTARTED\tRUNTIME\tMESSAGES")
	for _, s := range list {
		title := s.Title
		if title == "" {
			title = "-"
		}
		// The Python Hermes records no runtime; its source (cli,
		// telegram...) says where the chat happened.
		rt := s.Runtime
		if rt == "" {
			rt = "hermes (" + s.Source + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", s.ID, title, s.StartedAt.Local().Format("2006-01-02 15:04"), rt, s.Messages)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "hermes sessions list: %v\n", err)
		return exitFailure
	}
	return exitOK
}

const toolsUsage = `Usage: hermes tools [flags]

Lists every Hermes tool hermes-tools-mcp can serve (what
hermes-tools-mcp doctor shows), then what to set to turn on each
hidden one.

Flags:
`

// doctorJSON is the part of hermes-tools-mcp doctor --json read here.
type doctorJSON struct {
	Tools []struct {
		Name    string `json:"name"`
		Toolset string `json:"toolset"`
		Enabled bool   `json:"enabled"`
		Reason  string `json:"reason"`
	} `json:"tools"`
}

func runTools(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer, d deps) int {
	fs.String("hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes)")
	toolsCmd := fs.String("hermes-tools-command", "", "path of the hermes-tools-mcp binary (default: next to hermes, else on PATH)")
	home, _, code, done := parseSub(fs, args, &d, stderr, 0)
	if done {
		return code
	}
	bin, err := agent.FindToolsBinary(*toolsCmd)
	if err != nil {
		fmt.Fprintf(stderr, "hermes tools: %v\n", err)
		return exitFailure
	}
	doctor := func(extra ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, bin, append([]string{"doctor", "--hermes-home", home}, extra...)...)
		cmd.Env = append(d.environ(), hermeshome.EnvVar+"="+home)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("%s doctor: %w: %s", bin, err, strings.TrimSpace(errb.String()))
		}
		return out, nil
	}
	table, err := doctor()
	if err != nil {
		fmt.Fprintf(stderr, "hermes tools: %v\n", err)
		return exitFailure
	}
	raw, err := doctor("--json")
	if err != nil {
		fmt.Fprintf(stderr, "hermes tools: %v\n", err)
		return exitFailure
	}
	var rep doctorJSON
	if err := json.Unmarshal(raw, &rep); err != nil {
		fmt.Fprintf(stderr, "hermes tools: %s doctor --json: %v\n", bin, err)
		return exitFailure
	}
	if _, err := stdout.Write(table); err != nil {
		return exitFailure
	}
	// One entry per toolset and reason: a backend missing for several
	// tools is one thing to set up.
	type fix struct{ toolset, reason string }
	var fixes []fix
	seen := map[fix]bool{}
	for _, t := range rep.Tools {
		f := fix{t.Toolset, t.Reason}
		if t.Enabled || t.Reason == "" || seen[f] {
			continue
		}
		seen[f] = true
		fixes = append(fixes, f)
	}
	if len(fixes) == 0 {
		fmt.Fprintln(stdout, "\nEvery tool is exposed.")
		return exitOK
	}
	fmt.Fprintln(stdout, "\nTo turn on what is hidden:")
	for _, f := range fixes {
		fmt.Fprintf(stdout, "  %s: %s\n", f.toolset, f.reason)
	}
	fmt.Fprintf(stdout, `
API keys go in the environment hermes-tools-mcp runs in: your shell for
hermes chat; for Claude, Codex and other MCP clients, the env section of
the client's server entry (hermes-migrate writes it). Settings go in
%s.
`, filepath.Join(home, hermeshome.ConfigFile))
	return exitOK
}
