package chatcli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/agent"
	"github.com/hermes-go/hermes/agentcore/goals"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/agentcore/statedb"
	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"

	"github.com/hermes-go/hermes/internal/termtext"
)

// ChatOptions are `hermes chat`'s flags.
type ChatOptions struct {
	Home
	// Query is -q: one question, answered on Out; empty for a
	// conversation read from In.
	Query        string
	ToolsCommand string
	Model        string
	Provider     string
	CodexBin     string
	CodexHome    string
	// YesCommands approves codex's command and patch approvals when no
	// terminal can ask.
	YesCommands bool
	// Resume continues the stored session with this id; NoHistory
	// records nothing in state.db.
	Resume    string
	NoHistory bool
	// Continue resumes the most recently active terminal session (the
	// Python Hermes' -c/--continue).
	Continue bool
	// Skills are preloaded into the system prompt.
	Skills []string
	// Toolsets narrows hermes-tools' toolsets (the Python Hermes' -t).
	Toolsets string
	// Reasoning is the reasoning_effort, already checked.
	Reasoning string
	Sys       System
}

// Chat is `hermes chat`: one question with Query, else a conversation on
// In until the user quits.
func Chat(ctx context.Context, o ChatOptions, std IO) error {
	d := o.Sys.withDefaults()
	stdin, stdout, stderr := std.In, std.Out, std.Err
	home, pin, err := d.useHome(o.Home, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "hermes: %v\n", err)
		return exit(ExitUsage)
	}
	// Everything the chat prints may carry text from a model, a tool, a
	// stored session or a config file: shown, never obeyed as terminal
	// control sequences.
	outText, errText := termtext.NewWriter(stdout), termtext.NewWriter(stderr)
	defer func() { _ = outText.Flush(); _ = errText.Flush() }()
	out := &syncWriter{w: outText}
	errw := &syncWriter{w: errText}
	lines := &lineSource{r: stdin, stop: make(chan struct{})}
	defer close(lines.stop)
	c := &cli{
		ctx: ctx, opts: o, sys: d, pin: pin, home: home, out: out, errw: errw, lines: lines,
		approver: &approver{out: errw, lines: lines, tty: d.IsTTY(stdin), allowNoTTY: o.YesCommands},
	}
	if o.Continue && o.Resume != "" {
		fmt.Fprintln(stderr, "hermes: --continue and --resume both pick the session to continue; use one")
		return exit(ExitUsage)
	}
	if o.Continue && o.NoHistory {
		fmt.Fprintln(stderr, "hermes: --continue needs the session history; drop --no-history")
		return exit(ExitUsage)
	}
	if o.Resume != "" && o.NoHistory {
		fmt.Fprintln(stderr, "hermes: --resume needs the session history; drop --no-history")
		return exit(ExitUsage)
	}
	if !o.NoHistory {
		// Chats are recorded in state.db beside the Python Hermes' own, so
		// session_search finds them and --resume can continue them. A
		// state.db this build cannot write (a newer Hermes schema, say)
		// costs the history, not the chat.
		store, err := statedb.Open(ctx, home, statedb.Options{})
		switch {
		case err != nil && (o.Resume != "" || o.Continue):
			fmt.Fprintf(stderr, "hermes: cannot resume: %v\n", err)
			return exit(ExitUsage)
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
	if o.Continue {
		lister, _ := c.store.(sessionLister)
		id, err := lastCLISession(ctx, lister)
		if err != nil {
			fmt.Fprintf(stderr, "hermes: --continue: %v\n", err)
			return exit(ExitUsage)
		}
		c.opts.Resume = id
	}
	if o.Query != "" {
		return exit(c.oneShot())
	}
	return exit(c.interactive())
}

// cli is one run of `hermes chat`.
type cli struct {
	ctx      context.Context
	opts     ChatOptions
	sys      System
	pin      hermeshome.Pin
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
	// usage and apiCalls add up the current conversation's turns for
	// /usage; /new starts them again.
	usage    agentcore.Usage
	apiCalls int
	// goal is the conversation's standing goal (/goal), read from
	// state.db when the conversation starts.
	goal         *goals.Manager
	goalSettings goals.Settings
}

func (c *cli) start() (*agent.Conversation, error) {
	toolsArgs, noTools := toolsetsArgs(c.opts.Toolsets, c.worker())
	conv, err := agent.Start(c.ctx, agent.Options{
		HermesHome: c.home, Model: c.opts.Model, Provider: c.opts.Provider,
		Getenv: c.sys.Getenv, Environ: c.sys.Environ(),
		Source: c.sys.Getenv("HERMES_SESSION_SOURCE"), Skills: c.opts.Skills,
		ReasoningEffort: c.opts.Reasoning, ToolsArgs: toolsArgs, SkipHermesTools: noTools,
		ToolsBinary: c.opts.ToolsCommand, CodexBinary: c.opts.CodexBin, CodexHome: c.opts.CodexHome,
		Approver: c.approver,
		Store:    c.store, SessionID: c.opts.Resume, Resume: c.opts.Resume != "",
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
		c.opts.Resume = ""
		c.loadGoal(conv)
	}
	return conv, err
}

// worker reports whether the kanban dispatcher started this process for a
// task.
func (c *cli) worker() bool { return strings.TrimSpace(c.sys.Getenv("HERMES_KANBAN_TASK")) != "" }

func (c *cli) oneShot() (code int) {
	if c.worker() {
		// The dispatcher reads a worker's exit status from the end of its
		// log when it did not start the process itself.
		defer func() { fmt.Fprintf(c.errw, "\n[kanban-worker-exit] rc=%d\n", code) }()
	}
	conv, err := c.start()
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: %v\n", err)
		return ExitUsage
	}
	defer c.closeConv(conv)
	if c.store != nil {
		c.errw.write(fmt.Sprintf("session %s (continue it with --resume %s)\n", conv.Meta().ID, conv.Meta().ID))
	}
	res, ok := c.turn(conv, c.opts.Query)
	switch {
	case ok:
		return 0
	case c.worker() && res.ErrorKind == agentcore.ErrorTransient:
		return ExitWorkerTransient
	case c.worker() && res.ErrorKind == agentcore.ErrorTerminal:
		return ExitWorkerTerminal
	}
	return ExitFailure
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

// interruptible runs run, letting Ctrl+C cancel it, and waits for it to
// return either way.
func (c *cli) interruptible(run func(context.Context) (agentcore.Result, error)) (agentcore.Result, error) {
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	var (
		res  agentcore.Result
		err  error
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		res, err = run(ctx)
	}()
	select {
	case <-done:
	case <-c.sys.Interrupts:
		cancel()
		c.errw.write("\n⏹ interrupted\n")
		<-done
	}
	return res, err
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
	stopSteer := c.steerDuringTurn(conv)
	res, err := c.interruptible(func(ctx context.Context) (agentcore.Result, error) {
		defer stopSteer()
		return conv.Turn(ctx, text)
	})
	c.mu.Lock()
	streamed := c.streamed
	c.mu.Unlock()
	c.usage.InputTokens += res.Usage.InputTokens
	c.usage.OutputTokens += res.Usage.OutputTokens
	c.usage.CacheReadTokens += res.Usage.CacheReadTokens
	c.usage.ReasoningTokens += res.Usage.ReasoningTokens
	c.usage.TotalTokens += res.Usage.TotalTokens
	c.apiCalls += res.APICalls
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
  /title [name]           show or set this session's title in state.db
  /usage                  token usage of this conversation so far
  /compress [focus]       summarise the older part of the conversation now (auxiliary.compression)
  /retry                  take back the last message and its answer, and send it again
  /undo                   take back the last message and its answer
  /model [name] [--provider name] [--global]
                          show the model, or switch this session to another one
                          (--global: and save it in config.yaml for every session)
  /goal [text|status|pause|resume|clear]
                          set a standing goal worked on across turns until a judge
                          model (auxiliary.goal_judge) says it is done
  /subgoal [text|remove N|clear]
                          add or manage extra criteria on the active goal
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
		return ExitUsage
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
			return 0
		case <-c.sys.Interrupts:
			if armed {
				c.out.write("\n")
				return 0
			}
			armed = true
			c.out.write("\n(press Ctrl+C again or type /quit to leave)\n")
			continue
		case m, ok := <-c.lines.c():
			if !ok {
				c.out.write("\n")
				return 0
			}
			line = m
		}
		armed = false
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "/") {
			c.converse(conv, line)
			continue
		}
		name, arg, _ := strings.Cut(line, " ")
		arg = strings.TrimSpace(arg)
		if c.codexCommand(conv, name, arg) {
			continue
		}
		switch name {
		case "/quit", "/exit", "/q":
			return 0
		case "/help", "/?":
			c.out.write(helpText + codexHelpText)
		case "/new", "/reset":
			c.closeConv(conv)
			next, err := c.start()
			if err != nil {
				fmt.Fprintf(c.errw, "hermes: cannot start a new conversation: %v\n", err)
				return ExitUsage
			}
			conv = next
			c.usage, c.apiCalls = agentcore.Usage{}, 0
			c.banner(conv)
		case "/title":
			c.title(conv, arg)
		case "/compress", "/compact":
			c.compress(conv, arg)
		case "/retry":
			c.retry(conv)
		case "/model", "/provider":
			c.model(conv, arg)
		case "/goal":
			c.goalCommand(conv, arg)
		case "/subgoal":
			c.subgoalCommand(arg)
		case "/usage":
			c.out.write(usageText(conv.Meta().Model, c.usage, c.apiCalls))
		case "/reload-mcp", "/reload_mcp":
			if conv = c.reloadMCP(conv); conv == nil {
				return ExitUsage
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
	c.opts.Resume = conv.Meta().ID
	next, err := c.start()
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /reload-mcp: %v\n", err)
		c.opts.Resume = ""
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
	if c.goal != nil && c.goal.Active() {
		// A goal set earlier, here or by the Python Hermes, goes on with
		// the next turn.
		c.out.write(c.goal.StatusLine() + "\n")
	}
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
		Pin:                c.pin,
		CodexHome:          c.opts.CodexHome,
		CodexBinary:        c.opts.CodexBin,
		HermesToolsCommand: c.opts.ToolsCommand,
		Getenv:             c.sys.Getenv,
		Environ:            c.sys.Environ,
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

	mu sync.Mutex
	// hook, when set, sees each line first and keeps those it handles
	// (a /steer typed during a codex turn).
	hook func(string) bool
}

// intercept sets (or, with nil, clears) the hook.
func (l *lineSource) intercept(fn func(string) bool) {
	l.mu.Lock()
	l.hook = fn
	l.mu.Unlock()
}

func (l *lineSource) hooked(line string) bool {
	l.mu.Lock()
	fn := l.hook
	l.mu.Unlock()
	return fn != nil && fn(line)
}

func (l *lineSource) c() <-chan string {
	l.once.Do(func() {
		l.ch = make(chan string)
		go func() {
			defer close(l.ch)
			sc := bufio.NewScanner(l.r)
			sc.Buffer(make([]byte, 64*1024), 1<<20)
			for sc.Scan() {
				if l.hooked(sc.Text()) {
					continue
				}
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

type sessionLister interface {
	ListSessions(ctx context.Context, limit int) ([]statedb.SessionSummary, error)
}

// lastCLISession is the most recently active session started from a
// terminal, by either program; gateway and cron sessions are not what
// "continue where I left off" means at a prompt.
func lastCLISession(ctx context.Context, store sessionLister) (string, error) {
	if store == nil {
		return "", errors.New("the session history is not available")
	}
	sessions, err := store.ListSessions(ctx, 0)
	if err != nil {
		return "", err
	}
	for _, s := range sessions {
		if s.Source == agent.Source {
			return s.ID, nil
		}
	}
	return "", errors.New("no earlier terminal session in state.db to continue; start one with `hermes chat`")
}

// usageText is /usage's report: the conversation's tokens by kind and the
// model calls that spent them.
func usageText(model string, u agentcore.Usage, calls int) string {
	if calls == 0 {
		return "No model calls in this conversation yet.\n"
	}
	return fmt.Sprintf("Session usage (%s):\n  input tokens:     %d\n  output tokens:    %d\n  cache read:       %d\n  reasoning tokens: %d\n  total tokens:     %d\n  API calls:        %d\n",
		model, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.ReasoningTokens, u.TotalTokens, calls)
}

type titleSetter interface {
	SetTitle(ctx context.Context, sessionID, title string) (string, error)
}

// title is /title: without a name it shows the session's title, with one
// it stores it in state.db, where both programs' session lists show it.
func (c *cli) title(conv *agent.Conversation, name string) {
	st, ok := c.store.(titleSetter)
	if !ok || c.store == nil {
		c.errw.write("/title needs the session history; this chat is not saved (--no-history or state.db unavailable)\n")
		return
	}
	if name == "" {
		if t := conv.Meta().Title; t != "" {
			c.out.write("Title: " + t + "\n")
		} else {
			c.out.write("This session has no title; set one with /title <name>\n")
		}
		return
	}
	t, err := st.SetTitle(c.ctx, conv.Meta().ID, name)
	if err != nil {
		fmt.Fprintf(c.errw, "hermes: /title: %v\n", err)
		return
	}
	conv.TitleSet(t)
	c.out.write("Title set: " + t + "\n")
}
