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
	"strings"
	"sync"
	"syscall"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/internal/buildinfo"
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
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version" || args[0] == "-version") {
		o.showVersion = true
		return o, nil
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
	fs := flag.NewFlagSet("hermes chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.query, "q", "", "ask one question, print the answer and exit")
	fs.StringVar(&o.query, "query", "", "same as -q")
	fs.StringVar(&o.hermesHome, "hermes-home", "", "Hermes home directory (default: $HERMES_HOME, else ~/.hermes)")
	fs.StringVar(&o.toolsCmd, "hermes-tools-command", "", "path of the hermes-tools-mcp binary (default: next to hermes, else on PATH)")
	fs.StringVar(&o.model, "model", "", "model for this run (default: model.default in config.yaml)")
	fs.StringVar(&o.provider, "provider", "", "provider for this run (default: model.provider in config.yaml)")
	fs.StringVar(&o.codexBin, "codex-bin", "", "codex binary for the codex runtime (default: $CODEX_BIN, else codex on PATH)")
	fs.StringVar(&o.codexHome, "codex-home", "", "CODEX_HOME for codex (default: $CODEX_HOME, else codex's ~/.codex)")
	fs.StringVar(&o.resume, "resume", "", "continue the stored session with this id (ids are printed when a chat starts)")
	fs.BoolVar(&o.noHistory, "no-history", false, "do not record this chat in $HERMES_HOME/state.db")
	fs.BoolVar(&o.yesCommands, "yes-commands", false, "without a terminal to ask, allow codex's command and patch approvals instead of denying them")
	fs.Usage = func() { usage(fs.Output()); fs.PrintDefaults() }
	if err := fs.Parse(args[1:]); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (quote the question and pass it with -q)", fs.Arg(0))
	}
	return o, nil
}

// pythonHermesCommands are the Python Hermes' commands that messages of
// the tools send users to (kanban boards, the skills hub): they are
// answered with where to run them rather than "unknown command".
var pythonHermesCommands = map[string]bool{"kanban": true, "skills": true}

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

Run hermes <command> -h for a command's flags.

The model comes from config.yaml's model section (provider: openai,
openrouter, nous, deepseek, custom, ollama, llamacpp, lmstudio or vllm; the
key from OPENAI_API_KEY, OPENROUTER_API_KEY, NOUS_API_KEY or DEEPSEEK_API_KEY).
Each MCP server in mcp_servers gets connect_timeout seconds (default 10) to
answer; one that does not is skipped until /reload-mcp or the next chat.

Exit codes: 0 success; 1 the turn failed (reason on stderr); 2 bad flags or a
conversation that cannot start.

`)
}

func runDeps(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, d deps) int {
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
	home, err := hermeshome.Resolve(o.hermesHome, d.getenv)
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
	conv, err := agent.Start(c.ctx, agent.Options{
		HermesHome: c.home, Model: c.opts.model, Provider: c.opts.provider,
		Getenv: c.deps.getenv, Environ: c.deps.environ(),
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

func (c *cli) oneShot() int {
	conv, err := c.start()
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: %v\n", err)
		return exitUsage
	}
	defer c.closeConv(conv)
	if c.store != nil {
		c.errw.write(fmt.Sprintf("session %s (continue it with --resume %s)\n", conv.Meta().ID, conv.Meta().ID))
	}
	if _, ok := c.turn(conv, c.opts.query); !ok {
		return exitFailure
	}
	return exitOK
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
		HermesHomeExplicit: c.opts.hermesHome != "" || c.deps.getenv(hermeshome.EnvVar) != "",
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
