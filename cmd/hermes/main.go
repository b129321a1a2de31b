// Command hermes is the Hermes agent's terminal chat.
//
// Usage:
//
//	hermes chat [flags]              interactive chat (slash commands: /help)
//	hermes chat -q "question" [flags] one turn: the answer streams to stdout
//	hermes sessions list             stored sessions (ids for --resume)
//	hermes tools                     Hermes' tools and how to turn on hidden ones
//	hermes codex-runtime [action]    show/switch the codex runtime, migrate
//
// -p NAME picks a Hermes profile; the Python Hermes' kanban dispatcher can
// start this hermes as a worker (`hermes -p P --accept-hooks --skills S -m
// M chat -q "work kanban task T"`).
//
// The answer goes to stdout; progress (tool calls), notices and errors go to
// stderr, so `hermes chat -q ... > answer.txt` captures only the answer.
//
// Exit codes: 0 success (interactive: the user quit); 1 the turn failed (the
// reason on stderr); 2 bad flags or a conversation that cannot start (the
// message says what to fix).
//
// This file reads the flags; agentcore/chatcli does the work.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"github.com/hermes-go/hermes/agentcore/chatcli"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/internal/buildinfo"
	"github.com/hermes-go/hermes/internal/cliflag"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// version is set at release time with -ldflags "-X main.version=...".
var version = ""

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	// SIGTERM ends the program; SIGINT (Ctrl+C) is the user's interrupt
	// key and is handled by the chat loop, so it is not in this context.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	ints := make(chan os.Signal, 1)
	signal.Notify(ints, os.Interrupt)
	code := run(ctx, os.Args[1:], chatcli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}, chatcli.System{Interrupts: ints})
	signal.Stop(ints)
	stop()
	os.Exit(code)
}

// run is hermes with its arguments, terminal and world.
func run(ctx context.Context, args []string, std chatcli.IO, sys chatcli.System) int {
	// -p/--profile may stand anywhere, as in the Python Hermes.
	profile, args, err := hermeshome.TakeProfileFlag(args, hermeshome.FlagTakesValue(chatFlags(&chatcli.ChatOptions{}, io.Discard)))
	if err != nil {
		fmt.Fprintf(std.Err, "hermes: %v\n", err)
		return exitUsage
	}
	if len(args) > 0 {
		if sc, ok := subcommands[args[0]]; ok {
			fs := flag.NewFlagSet("hermes "+args[0], flag.ContinueOnError)
			fs.SetOutput(std.Err)
			fs.Usage = func() { fmt.Fprint(fs.Output(), sc.usage); fs.PrintDefaults() }
			dir := fs.String("hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes)")
			home := func() chatcli.Home { return chatcli.Home{Dir: *dir, Profile: profile} }
			return exitCode(std.Err, sc.run(ctx, fs, args[1:], home, std, sys))
		}
	}
	o, showVersion, err := parseChat(args, std.Err)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(std.Err, "hermes: %v\n", err)
		return exitUsage
	}
	if showVersion {
		fmt.Fprintf(std.Out, "hermes %s\n", buildinfo.Version(version))
		return exitOK
	}
	o.Profile, o.Sys = profile, sys
	return exitCode(std.Err, chatcli.Chat(ctx, o, std))
}

// exitCode is the exit status for a command's error: the status an
// *chatcli.ExitError carries (its failure is on stderr already), 1 for
// any other error, which is reported here.
func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	if e, ok := errors.AsType[*chatcli.ExitError](err); ok {
		return e.Code
	}
	fmt.Fprintf(stderr, "hermes: %v\n", err)
	return exitFailure
}

// listFlag collects a repeatable, comma-separated flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" && !slices.Contains(*l, part) {
			*l = append(*l, part)
		}
	}
	return nil
}

// chatFlags are chat's flags. The Python Hermes takes most of them before
// the command word as well as after it (`hermes -m M chat -q Q`), and its
// kanban dispatcher starts workers that way; so does this one.
func chatFlags(o *chatcli.ChatOptions, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hermes chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Query, "q", "", "ask one question, print the answer and exit")
	fs.StringVar(&o.Query, "query", "", "same as -q")
	fs.StringVar(&o.Dir, "hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes; -p picks a profile under it)")
	fs.StringVar(&o.ToolsCommand, "hermes-tools-command", "", "path of the hermes-tools-mcp binary (default: next to hermes, else on PATH)")
	fs.StringVar(&o.Model, "model", "", "model for this run (default: model.default in config.yaml)")
	fs.StringVar(&o.Model, "m", "", "same as --model")
	fs.StringVar(&o.Provider, "provider", "", "provider for this run (default: model.provider in config.yaml)")
	fs.StringVar(&o.Reasoning, "reasoning", "", "reasoning effort for models that take one: none, minimal, low, medium, high, xhigh")
	fs.Var((*listFlag)(&o.Skills), "skills", "skills to load into the conversation from the start (repeat, or comma-separate)")
	fs.Var((*listFlag)(&o.Skills), "s", "same as --skills")
	fs.StringVar(&o.Toolsets, "toolsets", "", "only these hermes-tools toolsets (comma-separated Hermes toolset names; composites such as hermes-cli mean all)")
	fs.StringVar(&o.Toolsets, "t", "", "same as --toolsets")
	fs.StringVar(&o.CodexBin, "codex-bin", "", "codex binary for the codex runtime (default: $CODEX_BIN, else codex on PATH)")
	fs.StringVar(&o.CodexHome, "codex-home", "", "CODEX_HOME for codex (default: $CODEX_HOME, else codex's ~/.codex)")
	fs.StringVar(&o.Resume, "resume", "", "continue the stored session with this id (ids are printed when a chat starts)")
	fs.BoolVar(&o.Continue, "continue", false, "continue the most recent terminal session")
	fs.BoolVar(&o.Continue, "c", false, "same as --continue")
	fs.BoolVar(&o.NoHistory, "no-history", false, "do not record this chat in $HERMES_HOME/state.db")
	fs.BoolVar(&o.YesCommands, "yes-commands", false, "without a terminal to ask, allow codex's command and patch approvals instead of denying them")
	fs.BoolVar(&o.YesCommands, "yolo", false, "same as --yes-commands")
	// Flags of the Python Hermes' command line that change nothing here,
	// accepted so its kanban dispatcher can start this hermes as a
	// worker: --accept-hooks (we run no shell hooks) and --cli (we have
	// no other interface).
	fs.Bool("accept-hooks", false, "accepted for the Python Hermes' kanban dispatcher; this hermes runs no shell hooks")
	fs.Bool("cli", false, "accepted for the Python Hermes' kanban dispatcher; this hermes has only the terminal interface")
	fs.Usage = func() { usage(fs.Output()); fs.PrintDefaults() }
	return fs
}

// parseChat reads `hermes [flags] chat [flags]`, or `hermes version`.
func parseChat(args []string, stderr io.Writer) (o chatcli.ChatOptions, showVersion bool, err error) {
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		return o, true, nil
	}
	fs := chatFlags(&o, stderr)
	// Flags before the command word, then the command.
	if len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" && args[0] != "-help" {
		if err := cliflag.Parse(fs, args); err != nil {
			return o, false, err
		}
		args = fs.Args()
	}
	if len(args) == 0 || args[0] != "chat" {
		// The Python Hermes' commands get the one line that helps, not
		// the usage of commands the user did not ask about.
		if len(args) > 0 && pythonHermesCommands[args[0]] {
			return o, false, fmt.Errorf("%q is a command of the Python Hermes (hermes-agent), which manages the kanban boards, the skills hub, profiles, config keys and scheduled jobs: run it with that hermes (the one hermes-agent installed, e.g. ~/.local/bin/hermes %s)", args[0], args[0])
		}
		usage(stderr)
		if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			return o, false, flag.ErrHelp
		}
		return o, false, fmt.Errorf("unknown command %q (commands: chat, sessions, tools, codex-runtime, version)", args[0])
	}
	if err := cliflag.Parse(fs, args[1:]); err != nil {
		return o, false, err
	}
	if fs.NArg() > 0 {
		return o, false, fmt.Errorf("unexpected argument %q (quote the question and pass it with -q)", fs.Arg(0))
	}
	if o.Reasoning, err = reasoningEffort(o.Reasoning); err != nil {
		return o, false, err
	}
	return o, false, nil
}

// reasoningEffort maps the Python Hermes' --reasoning levels to the
// reasoning_effort values OpenAI-compatible APIs (and codex) take: its
// "max" and "ultra" are the top level there, xhigh.
func reasoningEffort(level string) (string, error) {
	switch l := strings.ToLower(strings.TrimSpace(level)); l {
	case "", "none", "minimal", "low", "medium", "high", "xhigh":
		return l, nil
	case "max", "ultra":
		return "xhigh", nil
	}
	return "", fmt.Errorf("--reasoning %q: want none, minimal, low, medium, high, xhigh, max or ultra", level)
}

// pythonHermesCommands are the Python Hermes' commands that messages of
// the tools send users to (kanban boards, the skills hub, profiles, `hermes config set`): they are
// answered with where to run them rather than "unknown command".
var pythonHermesCommands = map[string]bool{"kanban": true, "skills": true, "profile": true, "config": true, "cron": true}

func usage(w io.Writer) {
	fmt.Fprint(w, `hermes is the Hermes agent's terminal chat.

Usage:
  hermes chat [flags]                 interactive chat (/help lists the commands)
  hermes chat -q "question" [flags]   answer one question and exit
  hermes sessions list                the stored sessions, newest first
  hermes tools                        every Hermes tool, and how to turn on the hidden ones
  hermes codex-runtime [status|on|off|auto|migrate]
                                      show or switch the codex app-server runtime
  hermes version

Run hermes <command> -h for a command's flags. -p NAME (--profile NAME),
anywhere on the line, runs in the Hermes profile NAME (~/.hermes/profiles/NAME;
"default" is the main home); without it, the profile ~/.hermes/active_profile
names, as in the Python Hermes. Keys in the home's .env are loaded first.

The model comes from config.yaml's model section (provider: openai,
openrouter, nous, deepseek, custom, ollama, llamacpp, lmstudio or vllm; the
key from OPENAI_API_KEY, OPENROUTER_API_KEY, NOUS_API_KEY or DEEPSEEK_API_KEY).
Each MCP server in mcp_servers gets connect_timeout seconds (default 10) to
answer; one that does not is skipped until /reload-mcp or the next chat.

Exit codes: 0 success; 1 the turn failed (reason on stderr); 2 bad flags or a
conversation that cannot start. Started by the Python Hermes' kanban
dispatcher (HERMES_KANBAN_TASK set), a failed model call exits 75 when it is
worth retrying later (rate limit, overload) and 78 when it is not (rejected
key, unknown model), and the last stderr line is [kanban-worker-exit] rc=N.

`)
}

// subcommand is one `hermes <name>` besides chat: run reads its flags
// into the command's options (fs has --hermes-home already: home is the
// Hermes home once they are parsed), runs it and returns its error.
type subcommand struct {
	usage string
	run   func(ctx context.Context, fs *flag.FlagSet, args []string, home func() chatcli.Home, std chatcli.IO, sys chatcli.System) error
}

var subcommands = map[string]subcommand{
	"codex-runtime": {usage: codexRuntimeUsage, run: codexRuntime},
	"sessions":      {usage: sessionsUsage, run: sessions},
	"tools":         {usage: toolsUsage, run: tools},
}

// parseSub parses a subcommand's flags, allowing at most maxArgs
// arguments after them; done says the command ends here with err (nil
// after -h).
func parseSub(fs *flag.FlagSet, args []string, stderr io.Writer, maxArgs int) (rest []string, done bool, err error) {
	if err := cliflag.Parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, true, nil
		}
		fmt.Fprintf(stderr, "hermes: %v\n", err)
		return nil, true, &chatcli.ExitError{Code: exitUsage}
	}
	if fs.NArg() > maxArgs {
		fmt.Fprintf(stderr, "%s: unexpected argument %q (run with -h for help)\n", fs.Name(), fs.Arg(maxArgs))
		return nil, true, &chatcli.ExitError{Code: exitUsage}
	}
	return fs.Args(), false, nil
}

// usageError reports a flag error of a subcommand on stderr.
func usageError(stderr io.Writer, format string, args ...any) error {
	fmt.Fprintf(stderr, format, args...)
	return &chatcli.ExitError{Code: exitUsage}
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

func codexRuntime(ctx context.Context, fs *flag.FlagSet, args []string, home func() chatcli.Home, std chatcli.IO, sys chatcli.System) error {
	o := chatcli.CodexRuntimeOptions{Sys: sys}
	fs.StringVar(&o.CodexHome, "codex-home", "", "CODEX_HOME whose config.toml is migrated (default: $CODEX_HOME, else ~/.codex)")
	fs.StringVar(&o.CodexBin, "codex-bin", "", "codex binary (default: $CODEX_BIN, else codex on PATH)")
	fs.StringVar(&o.ToolsCommand, "hermes-tools-command", "", "hermes-tools-mcp binary written into codex's config (default: next to hermes, else on PATH)")
	fs.BoolVar(&o.AllowLiteralSecrets, "allow-literal-secrets", false, "on, migrate: copy values that look like secrets into codex's config.toml as they are (by default they become environment references)")
	// The action may come before the flags, as people type it.
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		o.Action, args = args[0], args[1:]
	}
	// An unknown action is refused before --help is honoured, so
	// `hermes codex-runtime <typo> --help` does not look like a command.
	if err := checkCodexAction(o.Action); err != nil {
		return usageError(std.Err, "hermes codex-runtime: %v\n", err)
	}
	rest, done, err := parseSub(fs, args, std.Err, 1)
	if done {
		return err
	}
	if o.Action == "" && len(rest) == 1 {
		o.Action = rest[0]
		if err := checkCodexAction(o.Action); err != nil {
			return usageError(std.Err, "hermes codex-runtime: %v\n", err)
		}
	}
	if o.AllowLiteralSecrets && !migrates(o.Action) {
		return usageError(std.Err, "hermes codex-runtime: --allow-literal-secrets only applies to on and migrate, which write codex's config.toml\n")
	}
	o.Home = home()
	return chatcli.CodexRuntime(ctx, o, std)
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

func sessions(ctx context.Context, fs *flag.FlagSet, args []string, home func() chatcli.Home, std chatcli.IO, sys chatcli.System) error {
	o := chatcli.SessionsOptions{Sys: sys}
	fs.IntVar(&o.Limit, "limit", 20, "show at most this many sessions (0: all)")
	fs.BoolVar(&o.JSON, "json", false, "print JSON instead of a table")
	action := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		action, args = args[0], args[1:]
	}
	if action != "" && action != "list" {
		return usageError(std.Err, "hermes sessions: unknown action %q (the one action is list)\n", action)
	}
	rest, done, err := parseSub(fs, args, std.Err, 1)
	if done {
		return err
	}
	if action == "" && len(rest) == 1 {
		action = rest[0]
	}
	if action != "list" {
		fs.Usage()
		if action == "" {
			return &chatcli.ExitError{Code: exitUsage}
		}
		return usageError(std.Err, "hermes sessions: unknown action %q (the one action is list)\n", action)
	}
	if o.Limit < 0 {
		return usageError(std.Err, "hermes sessions list: --limit must be 0 (all) or more\n")
	}
	o.Home = home()
	return chatcli.ListSessions(ctx, o, std)
}

const toolsUsage = `Usage: hermes tools [flags]

Lists every Hermes tool hermes-tools-mcp can serve (what
hermes-tools-mcp doctor shows), then what to set to turn on each
hidden one.

Flags:
`

func tools(ctx context.Context, fs *flag.FlagSet, args []string, home func() chatcli.Home, std chatcli.IO, sys chatcli.System) error {
	o := chatcli.ToolsOptions{Sys: sys}
	fs.StringVar(&o.ToolsCommand, "hermes-tools-command", "", "path of the hermes-tools-mcp binary (default: next to hermes, else on PATH)")
	if _, done, err := parseSub(fs, args, std.Err, 0); done {
		return err
	}
	o.Home = home()
	return chatcli.Tools(ctx, o, std)
}
