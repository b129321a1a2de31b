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
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/internal/buildinfo"
	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"
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
	d := defaultDeps()
	d.interrupts = ints
	code := runDeps(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, d)
	signal.Stop(ints)
	stop()
	os.Exit(code)
}

// deps are the parts of the outside world a test replaces.
type deps struct {
	getenv  func(string) string
	environ func() []string
	// isTTY reports whether r is a terminal a person answers prompts on.
	isTTY func(r io.Reader) bool
	// interrupts delivers Ctrl+C; nil never fires.
	interrupts <-chan os.Signal

	// profile is -p/--profile from the command line; pin is how other
	// programs are pointed at the home chosen (set by useHome).
	profile hermeshome.ProfileFlag
	pin     hermeshome.Pin
}

// useHome resolves the Hermes home as the Python Hermes does (--hermes-home
// or HERMES_HOME, -p, the sticky active_profile) and loads the home's
// .env over the environment: from then on d reads that environment and
// hands it to everything it starts, HERMES_HOME included, as the original
// exports it. Problems with the .env are warnings on stderr.
func (d *deps) useHome(homeFlag string, stderr io.Writer) (string, error) {
	sel, err := hermeshome.Select(homeFlag, d.profile, d.getenv)
	if err != nil {
		return "", err
	}
	env := hermesenv.Load(sel.Home, d.environ())
	env.Set(hermeshome.EnvVar, sel.Home)
	for _, n := range append(sel.Notes, env.Notes...) {
		fmt.Fprintf(stderr, "hermes: warning: %s\n", n)
	}
	d.getenv, d.environ = env.Getenv, env.Environ
	d.pin = sel.Pin()
	return sel.Home, nil
}

func defaultDeps() deps {
	return deps{getenv: os.Getenv, environ: os.Environ, isTTY: isTerminal}
}

// isTerminal is a portable stand-in for isatty: a character device on stdin
// is a terminal for our purposes (pipes and files are not).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runDeps(ctx, args, stdin, stdout, stderr, defaultDeps())
}

type options struct {
	query       string
	hermesHome  string
	toolsCmd    string
	model       string
	provider    string
	codexBin    string
	codexHome   string
	yesCommands bool
	resume      string
	noHistory   bool
	showVersion bool
	// skills are preloaded into the system prompt (--skills, repeatable
	// and comma-separated, as the Python Hermes takes them).
	skills listFlag
	// toolsets narrows hermes-tools' toolsets (the Python Hermes' -t).
	toolsets  string
	reasoning string
	// Flags of the Python Hermes' command line that change nothing here,
	// accepted so its kanban dispatcher can start this hermes as a
	// worker: --accept-hooks (we run no shell hooks) and --cli (we have
	// no other interface). --yolo is --yes-commands.
	acceptHooks, cliOnly bool
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
func chatFlags(o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("hermes chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.query, "q", "", "ask one question, print the answer and exit")
	fs.StringVar(&o.query, "query", "", "same as -q")
	fs.StringVar(&o.hermesHome, "hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes; -p picks a profile under it)")
	fs.StringVar(&o.toolsCmd, "hermes-tools-command", "", "path of the hermes-tools-mcp binary (default: next to hermes, else on PATH)")
	fs.StringVar(&o.model, "model", "", "model for this run (default: model.default in config.yaml)")
	fs.StringVar(&o.model, "m", "", "same as --model")
	fs.StringVar(&o.provider, "provider", "", "provider for this run (default: model.provider in config.yaml)")
	fs.StringVar(&o.reasoning, "reasoning", "", "reasoning effort for models that take one: none, minimal, low, medium, high, xhigh")
	fs.Var(&o.skills, "skills", "skills to load into the conversation from the start (repeat, or comma-separate)")
	fs.Var(&o.skills, "s", "same as --skills")
	fs.StringVar(&o.toolsets, "toolsets", "", "only these hermes-tools toolsets (comma-separated Hermes toolset names; composites such as hermes-cli mean all)")
	fs.StringVar(&o.toolsets, "t", "", "same as --toolsets")
	fs.StringVar(&o.codexBin, "codex-bin", "", "codex binary for the codex runtime (default: $CODEX_BIN, else codex on PATH)")
	fs.StringVar(&o.codexHome, "codex-home", "", "CODEX_HOME for codex (default: $CODEX_HOME, else codex's ~/.codex)")
	fs.StringVar(&o.resume, "resume", "", "continue the stored session with this id (ids are printed when a chat starts)")
	fs.BoolVar(&o.noHistory, "no-history", false, "do not record this chat in $HERMES_HOME/state.db")
	fs.BoolVar(&o.yesCommands, "yes-commands", false, "without a terminal to ask, allow codex's command and patch approvals instead of denying them")
	fs.BoolVar(&o.yesCommands, "yolo", false, "same as --yes-commands")
	fs.BoolVar(&o.acceptHooks, "accept-hooks", false, "accepted for the Python Hermes' kanban dispatcher; this hermes runs no shell hooks")
	fs.BoolVar(&o.cliOnly, "cli", false, "accepted for the Python Hermes' kanban dispatcher; this hermes has only the terminal interface")
	fs.Usage = func() { usage(fs.Output()); fs.PrintDefaults() }
	return fs
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		o.showVersion = true
		return o, nil
	}
	fs := chatFlags(&o, stderr)
	// Flags before the command word, then the command.
	if len(args) > 0 && strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" && args[0] != "-help" {
		if err := fs.Parse(args); err != nil {
			return o, err
		}
		args = fs.Args()
	}
	if len(args) == 0 || args[0] != "chat" {
		// The Python Hermes' commands get the one line that helps, not
		// the usage of commands the user did not ask about.
		if len(args) > 0 && pythonHermesCommands[args[0]] {
			return o, fmt.Errorf("%q is a command of the Python Hermes (hermes-agent), which keeps the kanban boards and the skills hub: run it with that hermes (the one hermes-agent installed, e.g. ~/.local/bin/hermes %s)", args[0], args[0])
		}
		usage(stderr)
		if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			return o, flag.ErrHelp
		}
		return o, fmt.Errorf("unknown command %q (commands: chat, sessions, tools, codex-runtime, version)", args[0])
	}
	if err := fs.Parse(args[1:]); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (quote the question and pass it with -q)", fs.Arg(0))
	}
	var err error
	if o.reasoning, err = reasoningEffort(o.reasoning); err != nil {
		return o, err
	}
	return o, nil
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
// the tools send users to (kanban boards, the skills hub, profiles): they are
// answered with where to run them rather than "unknown command".
var pythonHermesCommands = map[string]bool{"kanban": true, "skills": true, "profile": true}

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

func runDeps(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, d deps) int {
	// -p/--profile may stand anywhere, as in the Python Hermes.
	var err error
	if d.profile, args, err = hermeshome.TakeProfileFlag(args, hermeshome.FlagTakesValue(chatFlags(&options{}, io.Discard))); err != nil {
		fmt.Fprintf(stderr, "hermes: %v\n", err)
		return exitUsage
	}
	if len(args) > 0 {
		if code, ok := runSubcommand(ctx, args[0], args[1:], stdout, stderr, d); ok {
			return code
		}
	}
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes: %v\n", err)
		return exitUsage
	}
	if o.showVersion {
		fmt.Fprintf(stdout, "hermes %s\n", buildinfo.Version(version))
		return exitOK
	}
	home, err := d.useHome(o.hermesHome, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "hermes: %v\n", err)
		return exitUsage
	}
	out := &syncWriter{w: stdout}
	errw := &syncWriter{w: stderr}
	lines := &lineSource{r: stdin, stop: make(chan struct{})}
	defer close(lines.stop)
	c := &cli{
		ctx: ctx, opts: o, deps: d, home: home, out: out, errw: errw, lines: lines,
		approver: &approver{out: errw, lines: lines, tty: d.isTTY(stdin), allowNoTTY: o.yesCommands},
	}
	if o.resume != "" && o.noHistory {
		fmt.Fprintln(stderr, "hermes: --resume needs the session history; drop --no-history")
		return exitUsage
	}
	if !o.noHistory {
		// Chats are recorded in state.db beside the Python Hermes' own, so
		// session_search finds them and --resume can continue them. A
		// state.db this build cannot write (a newer Hermes schema, say)
		// costs the history, not the chat.
		store, err := statedb.Open(ctx, home, statedb.Options{})
		switch {
		case err != nil && o.resume != "":
			fmt.Fprintf(stderr, "hermes: cannot resume: %v\n", err)
			return exitUsage
		case err != nil:
			fmt.Fprintf(errw, "⚠ this chat will not be saved: %v\n", err)
		default:
			for _, note := range store.Notes() {
				fmt.Fprintf(errw, "⚠ %s\n", note)
			}
			c.store = store
			defer store.Close()
		}
	}
	if o.query != "" {
		return c.oneShot()
	}
	return c.interactive()
}

// cli is one run of `hermes chat`.
type cli struct {
	ctx      context.Context
	opts     options
	deps     deps
	home     string
	out      *syncWriter
	errw     *syncWriter
	lines    *lineSource
	approver *approver
	store    agentcore.Store // nil: nothing recorded

	// streamed says the current turn printed answer text, so the final
	// response is not printed twice. Written by the runtime's callback
	// goroutine, read after the turn: the turn's end orders them.
	mu       sync.Mutex
	streamed bool
}

func (c *cli) start() (*agent.Conversation, error) {
	toolsArgs, noTools := toolsetsArgs(c.opts.toolsets, c.worker())
	conv, err := agent.Start(c.ctx, agent.Options{
		HermesHome: c.home, Model: c.opts.model, Provider: c.opts.provider,
		Getenv: c.deps.getenv, Environ: c.deps.environ(),
		Source: c.deps.getenv("HERMES_SESSION_SOURCE"), Skills: c.opts.skills,
		ReasoningEffort: c.opts.reasoning, ToolsArgs: toolsArgs, SkipHermesTools: noTools,
		ToolsBinary: c.opts.toolsCmd, CodexBinary: c.opts.codexBin, CodexHome: c.opts.codexHome,
		Approver: c.approver,
		Store:    c.store, SessionID: c.opts.resume, Resume: c.opts.resume != "",
		OnText: func(delta string) {
			c.mu.Lock()
			c.streamed = true
			c.mu.Unlock()
			c.out.write(delta)
		},
		OnToolCall: func(call agentcore.ToolCall) {
			c.errw.write(fmt.Sprintf("\n⚙ %s %s\n", call.Function.Name, oneLine(call.Function.Arguments)))
		},
		OnEvent: func(n bridge.Notification) {
			if line := codexProgress(n); line != "" {
				c.errw.write("\n" + line + "\n")
			}
		},
		OnNotice:   func(msg string) { c.errw.write("⚠ " + msg + "\n") },
		OnProgress: func(msg string) { c.errw.write(msg + "\n") },
	})
	if err == nil {
		// --resume applies to the first conversation only; /new starts a
		// fresh one.
		c.opts.resume = ""
	}
	return conv, err
}

// Exit codes of a kanban worker whose turn failed, as the Python Hermes'
// dispatcher reads them: a transient provider failure requeues the task
// without counting a failure; a terminal one blocks it at once.
const (
	exitWorkerTransient = 75
	exitWorkerTerminal  = 78
)

// worker reports whether the kanban dispatcher started this process for a
// task.
func (c *cli) worker() bool { return strings.TrimSpace(c.deps.getenv("HERMES_KANBAN_TASK")) != "" }

func (c *cli) oneShot() (code int) {
	if c.worker() {
		// The dispatcher reads a worker's exit status from the end of its
		// log when it did not start the process itself.
		defer func() { fmt.Fprintf(c.errw, "\n[kanban-worker-exit] rc=%d\n", code) }()
	}
	conv, err := c.start()
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: %v\n", err)
		return exitUsage
	}
	defer c.closeConv(conv)
	if c.store != nil {
		c.errw.write(fmt.Sprintf("session %s (continue it with --resume %s)\n", conv.Meta().ID, conv.Meta().ID))
	}
	res, ok := c.turn(conv, c.opts.query)
	switch {
	case ok:
		return exitOK
	case c.worker() && res.ErrorKind == agentcore.ErrorTransient:
		return exitWorkerTransient
	case c.worker() && res.ErrorKind == agentcore.ErrorTerminal:
		return exitWorkerTerminal
	}
	return exitFailure
}

// toolsetsArgs turns the Python Hermes' -t/--toolsets list into
// hermes-tools' --toolsets: the names hermes-tools has (the two share
// toolset names) are kept, the others (terminal, file, ...) are tools this
// hermes does not have; a composite such as hermes-cli, or "all", means
// no narrowing. A worker always keeps kanban, its way to report back.
// none says no hermes-tools toolset is left.
func toolsetsArgs(list string, worker bool) (args []string, none bool) {
	if strings.TrimSpace(list) == "" {
		return nil, false
	}
	known := map[string]bool{}
	for _, ts := range catalog.All() {
		known[ts.Name] = true
	}
	var keep []string
	for _, name := range strings.Split(list, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		switch {
		case name == "all" || strings.HasPrefix(name, "hermes-"):
			return nil, false
		case known[name] && !slices.Contains(keep, name):
			keep = append(keep, name)
		}
	}
	if worker && !slices.Contains(keep, "kanban") {
		keep = append(keep, "kanban")
	}
	if len(keep) == 0 {
		return nil, true
	}
	return []string{"--toolsets", strings.Join(keep, ",")}, false
}

func (c *cli) closeConv(conv *agent.Conversation) {
	if err := conv.Close(); err != nil {
		fmt.Fprintf(c.errw, "hermes: %v\n", err)
	}
}

// turn runs one turn, letting Ctrl+C interrupt it, prints the answer and
// any failure, and reports whether the turn succeeded.
func (c *cli) turn(conv *agent.Conversation, text string) (agentcore.Result, bool) {
	c.mu.Lock()
	c.streamed = false
	c.mu.Unlock()
	tctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	var (
		res  agentcore.Result
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		res, err = conv.Turn(tctx, text)
	}()
	select {
	case <-done:
	case <-c.deps.interrupts:
		cancel()
		c.errw.write("\n⏹ interrupted\n")
		<-done
	}
	c.mu.Lock()
	streamed := c.streamed
	c.mu.Unlock()
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: %v\n", err)
		return res, false
	}
	if !streamed && res.FinalResponse != "" {
		c.out.write(res.FinalResponse)
		streamed = true
	}
	if streamed {
		c.out.write("\n")
	}
	switch {
	case res.Error != "":
		fmt.Fprintf(c.errw, "hermes: turn failed: %s\n", res.Error)
		return res, false
	case res.Interrupted:
		fmt.Fprintln(c.errw, "hermes: turn interrupted")
		return res, false
	case !res.Completed:
		fmt.Fprintln(c.errw, "hermes: the turn ended without a complete answer")
		return res, false
	}
	return res, true
}

const helpText = `Commands:
  /help                   show this help
  /new                    start a fresh conversation (re-reads config.yaml)
  /reload-mcp             reconnect the MCP servers in config.yaml (the conversation goes on)
  /codex-runtime [arg]    show or set the OpenAI runtime: auto|codex_app_server|on|off
                          (saved to config.yaml; effective from the next conversation)
  /quit                   leave (also /exit, Ctrl+D, or Ctrl+C twice at the prompt)
Ctrl+C during an answer interrupts it.
`

func (c *cli) interactive() int {
	conv, err := c.start()
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: %v\n", err)
		return exitUsage
	}
	defer func() { c.closeConv(conv) }()
	c.banner(conv)
	armed := false // a Ctrl+C at the prompt arms the exit; a second one exits
	for {
		c.out.write("› ")
		var line string
		select {
		case <-c.ctx.Done():
			c.out.write("\n")
			return exitOK
		case <-c.deps.interrupts:
			if armed {
				c.out.write("\n")
				return exitOK
			}
			armed = true
			c.out.write("\n(press Ctrl+C again or type /quit to leave)\n")
			continue
		case m, ok := <-c.lines.c():
			if !ok {
				c.out.write("\n")
				return exitOK
			}
			line = m
		}
		armed = false
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "/") {
			c.turn(conv, line)
			continue
		}
		name, arg, _ := strings.Cut(line, " ")
		arg = strings.TrimSpace(arg)
		switch name {
		case "/quit", "/exit", "/q":
			return exitOK
		case "/help", "/?":
			c.out.write(helpText)
		case "/new", "/reset":
			c.closeConv(conv)
			next, err := c.start()
			if err != nil {
				fmt.Fprintf(c.errw, "hermes: cannot start a new conversation: %v\n", err)
				return exitUsage
			}
			conv = next
			c.banner(conv)
		case "/reload-mcp", "/reload_mcp":
			if conv = c.reloadMCP(conv); conv == nil {
				return exitUsage
			}
		case "/codex-runtime":
			c.codexRuntime(arg)
		default:
			fmt.Fprintf(c.errw, "unknown command %s (/help lists the commands)\n", name)
		}
	}
}

// reloadMCP reconnects the MCP servers by continuing the same stored
// session in a new conversation, which reads mcp_servers afresh; servers
// are connected when a conversation starts, so this is the one way to
// reach a server that was down. It returns the new conversation, or nil
// (the old one still open) when it could not start.
func (c *cli) reloadMCP(conv *agent.Conversation) *agent.Conversation {
	if c.store == nil {
		c.errw.write("/reload-mcp needs the session history to carry the conversation over; without it, /new starts a fresh conversation with the servers reconnected\n")
		return conv
	}
	c.closeConv(conv)
	c.opts.resume = conv.Meta().ID
	next, err := c.start()
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /reload-mcp: %v\n", err)
		c.opts.resume = ""
		// The old conversation is closed; a fresh one keeps the chat going.
		if next, err = c.start(); err != nil {
			fmt.Fprintf(c.errw, "hermes: cannot start a new conversation: %v\n", err)
			return nil
		}
	}
	c.banner(next)
	return next
}

func (c *cli) banner(conv *agent.Conversation) {
	m := conv.Meta()
	prov := m.Provider
	if prov == "" {
		prov = "auto"
	}
	c.out.write(fmt.Sprintf("Hermes · %s (%s) on the %s runtime · session %s\nType /help for commands, /quit to leave.\n", m.Model, prov, m.Runtime, m.ID))
}

const (
	// literalSecretsHint ends configmigrate's message about a secret
	// that cannot become a reference.
	literalSecretsHint   = "rerun with --allow-literal-secrets"
	literalSecretsInChat = "run `hermes codex-runtime migrate --allow-literal-secrets` in a shell"
)

func (c *cli) codexRuntime(arg string) {
	sw := &runtimecfg.Switch{
		HermesHome:         c.home,
		Pin:                c.deps.pin,
		CodexHome:          c.opts.codexHome,
		CodexBinary:        c.opts.codexBin,
		HermesToolsCommand: c.opts.toolsCmd,
		Getenv:             c.deps.getenv,
		Environ:            c.deps.environ,
	}
	st, err := sw.Apply(c.ctx, arg)
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /codex-runtime: %v (usage: %s)\n", err, runtimecfg.Usage)
		return
	}
	// The migration's advice names a flag of the shell commands; in a
	// chat it has to say which command takes it.
	c.out.write(strings.ReplaceAll(st.Message, literalSecretsHint, literalSecretsInChat) + "\n")
}

// syncWriter serialises writes from the turn's callbacks, the approval
// prompt and the loop.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) write(str string) { _, _ = io.WriteString(s, str) }

// lineSource reads input lines on one goroutine, shared by the chat prompt
// and the approval prompt so neither steals the other's input. Reading
// starts on first use, so a one-shot run without approvals never touches
// stdin. The goroutine ends at end of input or when stop closes; a Read
// blocked on a terminal cannot be cancelled, so in that case it ends with
// the process.
type lineSource struct {
	r    io.Reader
	stop chan struct{}
	once sync.Once
	ch   chan string
}

func (l *lineSource) c() <-chan string {
	l.once.Do(func() {
		l.ch = make(chan string)
		go func() {
			defer close(l.ch)
			sc := bufio.NewScanner(l.r)
			sc.Buffer(make([]byte, 64*1024), 1<<20)
			for sc.Scan() {
				select {
				case l.ch <- sc.Text():
				case <-l.stop:
					return
				}
			}
		}()
	})
	return l.ch
}

// next returns the next line, io.EOF at end of input, or ctx's error.
func (l *lineSource) next(ctx context.Context) (string, error) {
	select {
	case s, ok := <-l.c():
		if !ok {
			return "", io.EOF
		}
		return s, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
