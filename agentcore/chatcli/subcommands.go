package chatcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/internal/hermeshome"

	"github.com/hermes-go/hermes/internal/termtext"
)

// CodexRuntimeOptions are `hermes codex-runtime`'s action and flags.
type CodexRuntimeOptions struct {
	Home
	// Action is status (or empty), on, off, auto, codex_app_server or
	// migrate, already checked.
	Action       string
	CodexHome    string
	CodexBin     string
	ToolsCommand string
	// AllowLiteralSecrets (with on or migrate) copies values that look
	// like secrets into codex's config.toml as they are.
	AllowLiteralSecrets bool
	Sys                 System
}

// CodexRuntime shows or sets model.openai_runtime in config.yaml, as
// /codex-runtime does in a chat, or (migrate) only rewrites Hermes'
// managed section of codex's config.toml.
func CodexRuntime(ctx context.Context, o CodexRuntimeOptions, std IO) error {
	d := o.Sys.withDefaults()
	stdout, stderr := std.Out, std.Err
	home, pin, err := d.useHome(o.Home, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "hermes codex-runtime: %v\n", err)
		return exit(ExitUsage)
	}
	action := o.Action
	sw := &runtimecfg.Switch{
		AllowLiteralSecrets: o.AllowLiteralSecrets,
		HermesHome:          home,
		Pin:                 pin,
		CodexHome:           o.CodexHome,
		CodexBinary:         o.CodexBin,
		HermesToolsCommand:  o.ToolsCommand,
		Getenv:              d.Getenv,
		Environ:             d.Environ,
	}
	var (
		msg string
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
		// Only a word it does not know is a usage mistake; a config.yaml
		// it cannot read is said as it is.
		if _, _, perr := runtimecfg.ParseArg(action); perr != nil && action != "migrate" {
			fmt.Fprintf(stderr, "hermes codex-runtime: %v (usage: hermes codex-runtime [status|on|off|auto|migrate])\n", err)
			return exit(ExitUsage)
		}
		fmt.Fprintf(stderr, "hermes codex-runtime: %v\n", err)
		return exit(ExitFailure)
	}
	fmt.Fprintln(stdout, strings.ReplaceAll(msg, "(start one with /new)", "(start one with hermes chat, or /new in a chat)"))
	if !ok {
		return exit(ExitFailure)
	}
	return nil
}

// SessionsOptions are `hermes sessions list`'s flags.
type SessionsOptions struct {
	Home
	// Limit is how many sessions to show at most, 0 for all.
	Limit int
	JSON  bool
	Sys   System
}

// ListSessions lists the sessions in state.db (this program's chats and
// the Python Hermes' own), newest first.
func ListSessions(ctx context.Context, o SessionsOptions, std IO) error {
	d := o.Sys.withDefaults()
	stdout, stderr := std.Out, std.Err
	home, _, err := d.useHome(o.Home, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "hermes sessions: %v\n", err)
		return exit(ExitUsage)
	}
	// Listing must not create state.db in a home that has none.
	if _, err := os.Stat(filepath.Join(home, "state.db")); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "no sessions yet: %s has no state.db (hermes chat creates it)\n", home)
		if o.JSON {
			fmt.Fprintln(stdout, "[]")
		}
		return nil
	}
	// Listing reads: it neither creates nor upgrades the file.
	store, err := statedb.Open(ctx, home, statedb.Options{ReadOnly: true})
	if err != nil {
		fmt.Fprintf(stderr, "hermes sessions list: %v\n", err)
		return exit(ExitFailure)
	}
	defer store.Close()
	for _, note := range store.Notes() {
		fmt.Fprintf(stderr, "note: %s\n", note)
	}
	list, err := store.ListSessions(ctx, o.Limit)
	if err != nil {
		fmt.Fprintf(stderr, "hermes sessions list: %v\n", err)
		return exit(ExitFailure)
	}
	if o.JSON {
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
			return exit(ExitFailure)
		}
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(stderr, "no sessions yet")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tSTARTED\tRUNTIME\tMESSAGES")
	for _, s := range list {
		title := s.Title
		if title == "" {
			title = previewTitle(s.Preview)
		}
		// The Python Hermes records no runtime; its source (cli,
		// telegram...) says where the chat happened.
		rt := s.Runtime
		if rt == "" {
			rt = "hermes (" + s.Source + ")"
		}
		// Titles, ids and sources are stored text, written by any program
		// (or person) with the database: shown escaped, never obeyed.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\n", termtext.Line(s.ID), termtext.Line(title), s.StartedAt.Local().Format("2006-01-02 15:04"), termtext.Line(rt), s.Messages)
	}
	if err := tw.Flush(); err != nil {
		fmt.Fprintf(stderr, "hermes sessions list: %v\n", err)
		return exit(ExitFailure)
	}
	return nil
}

// previewTitle stands for a missing title: the first user message,
// quoted, on one line, cut at 40 characters ("-" when there is none).
func previewTitle(preview string) string {
	p := strings.Join(strings.Fields(preview), " ")
	if p == "" {
		return "-"
	}
	if r := []rune(p); len(r) > 40 {
		p = string(r[:39]) + "…"
	}
	return strconv.Quote(p)
}

// doctorJSON is the part of hermes-tools-mcp doctor --json read here.
type doctorJSON struct {
	Tools []struct {
		Name    string `json:"name"`
		Toolset string `json:"toolset"`
		Enabled bool   `json:"enabled"`
		Reason  string `json:"reason"`
	} `json:"tools"`
}

// ToolsOptions are `hermes tools`'s flags.
type ToolsOptions struct {
	Home
	ToolsCommand string
	Sys          System
}

// Tools lists every Hermes tool hermes-tools-mcp can serve (what
// hermes-tools-mcp doctor shows), then what to set to turn on each hidden
// one.
func Tools(ctx context.Context, o ToolsOptions, std IO) error {
	d := o.Sys.withDefaults()
	stdout, stderr := std.Out, std.Err
	home, _, err := d.useHome(o.Home, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "hermes tools: %v\n", err)
		return exit(ExitUsage)
	}
	bin, err := agent.FindToolsBinary(o.ToolsCommand)
	if err != nil {
		fmt.Fprintf(stderr, "hermes tools: %v\n", err)
		return exit(ExitFailure)
	}
	doctor := func(extra ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, bin, append([]string{"doctor", "--hermes-home", home}, extra...)...)
		cmd.Env = append(d.Environ(), hermeshome.EnvVar+"="+home)
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
		return exit(ExitFailure)
	}
	raw, err := doctor("--json")
	if err != nil {
		fmt.Fprintf(stderr, "hermes tools: %v\n", err)
		return exit(ExitFailure)
	}
	var rep doctorJSON
	if err := json.Unmarshal(raw, &rep); err != nil {
		fmt.Fprintf(stderr, "hermes tools: %s doctor --json: %v\n", bin, err)
		return exit(ExitFailure)
	}
	if _, err := io.WriteString(stdout, termtext.Text(string(table))); err != nil {
		return exit(ExitFailure)
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
		return nil
	}
	fmt.Fprintln(stdout, "\nTo turn on what is hidden:")
	for _, f := range fixes {
		fmt.Fprintf(stdout, "  %s: %s\n", termtext.Line(f.toolset), termtext.Text(f.reason))
	}
	fmt.Fprintf(stdout, `
API keys go in %s (the Python Hermes' `+"`hermes config set NAME value`"+` writes
there): hermes-tools-mcp reads it itself, whichever client starts it (Claude
Desktop, Codex, Cursor, hermes chat), and its values win over the environment.
Settings go in %s.
`, filepath.Join(home, ".env"), filepath.Join(home, hermeshome.ConfigFile))
	return nil
}
