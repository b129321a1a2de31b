// Package agent is one Hermes conversation: it picks the runtime the user's
// config.yaml selects (native by default, codex app-server when
// `/codex-runtime on` chose it for an OpenAI provider), owns that runtime and
// its subprocesses for the conversation's lifetime, keeps the history the
// native runtime needs between turns, and records the conversation in an
// agentcore.Store when one is given.
//
// The runtime is fixed when the conversation starts: a /codex-runtime change
// takes effect in the next conversation, as in the Python Hermes, because
// switching loops mid-conversation would strand the history of one runtime
// in the other.
//
// The package never prints; what the user should see (servers that failed
// to start, a store that cannot be written) is passed to Options.OnNotice.
package agent

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/codexrt"
	"github.com/hermes-go/hermes/agentcore/delegate"
	"github.com/hermes-go/hermes/agentcore/mcpclients"
	"github.com/hermes-go/hermes/agentcore/native"
	"github.com/hermes-go/hermes/agentcore/nudge"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/internal/configcheck"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/toolsbin"
	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/memory"
	"github.com/hermes-go/hermes/toolsets/tooldef"

	"github.com/hermes-go/hermes/internal/safefile"
)

// The runtimes a conversation can run on, as recorded in SessionMeta.Runtime.
const (
	RuntimeNative = "native"
	RuntimeCodex  = runtimecfg.CodexAppServer
)

// storeEndReason is the end_reason a conversation closed here gets, the
// one Hermes' own CLI records.
const storeEndReason = "cli_close"

// Source is the SessionMeta.Source of conversations started here.
const Source = "cli"

// DefaultSystemPrompt is sent on the native runtime when Options names none.
// Codex brings its own instructions, so it is not used there.
const DefaultSystemPrompt = "You are Hermes, a helpful assistant running in the user's terminal. " +
	"Use the tools you are given when they help; say so plainly when a tool you would need is unavailable."

// ErrClosed is returned by Turn after Close.
var ErrClosed = errors.New("conversation closed")

// Options configure Start.
type Options struct {
	// HermesHome is the resolved Hermes home holding config.yaml.
	HermesHome string
	// Model and Provider, when non-empty, override model.default and
	// model.provider from config.yaml for this conversation.
	Model, Provider string
	// Getenv reads the environment (API keys, ${VAR} in mcp_servers);
	// nil means os.Getenv. Environ is the environment given to codex; nil
	// means os.Environ().
	Getenv  func(string) string
	Environ []string

	// ToolsBinary is the hermes-tools-mcp executable for the native
	// runtime; empty means FindToolsBinary(""). SkipHermesTools starts no
	// hermes-tools server at all (for embedding without Hermes' tools).
	ToolsBinary     string
	SkipHermesTools bool

	// CodexBinary and CodexHome are passed to the codex runtime (empty:
	// $CODEX_BIN or PATH, and the environment's CODEX_HOME).
	CodexBinary, CodexHome string
	// CodexArgs are extra `codex app-server` arguments (-c overrides).
	CodexArgs []string
	// Cwd is the codex thread's working directory; empty means ours.
	Cwd string
	// Approver answers codex's command and patch approvals; nil denies.
	Approver bridge.Approver

	// Store records the conversation; nil keeps nothing.
	Store agentcore.Store
	// SessionID names the conversation; empty generates one. With
	// Resume set, it is the stored session to continue (Store required).
	SessionID string
	Resume    bool

	// SystemPrompt replaces DefaultSystemPrompt on the native runtime.
	SystemPrompt string
	// Source is SessionMeta.Source; empty means Source ("cli"). A kanban
	// worker's sessions are "kanban" (HERMES_SESSION_SOURCE), which
	// session lists leave out.
	Source string
	// Skills are loaded into the conversation's instructions from the
	// start (the Python Hermes' --skills); an unknown one is an error.
	Skills []string
	// ReasoningEffort is the model's reasoning effort, when set.
	ReasoningEffort string
	// ToolsArgs are extra hermes-tools-mcp flags (e.g. --toolsets).
	ToolsArgs []string

	// OnText receives the assistant's text as it streams, on both
	// runtimes. OnToolCall is told about native tool calls before they
	// run; OnEvent sees every codex notification. None is called
	// concurrently with itself for one turn.
	OnText     func(delta string)
	OnToolCall func(call agentcore.ToolCall)
	OnEvent    func(bridge.Notification)
	// OnNotice receives things the user should know that are not part of
	// the answer: MCP servers that failed to start, a codex thread that
	// could not be resumed, records the store refused.
	OnNotice func(msg string)
	// OnProgress receives one-line progress reports while the
	// conversation starts (which MCP servers it is waiting for), so a
	// slow start is never silent.
	OnProgress func(msg string)

	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Conversation is one chat on one runtime. Turns run one at a time; Close
// may be called from any goroutine.
type Conversation struct {
	opts    Options
	meta    agentcore.SessionMeta
	store   agentcore.Store
	native  *native.Runtime
	codex   *codexrt.Runtime
	mcp     *mcpclients.Manager
	notices []string

	turnMu  sync.Mutex // serialises Turn
	history []agentcore.Message
	thread  string // codex thread id last stored

	// Nudges: every few turns a background review (on the native runtime)
	// saves what is worth remembering. reviews is nil when no review can
	// run (the codex runtime, for now).
	// Sub-agents for codex's delegate_task, started on first use.
	subOnce sync.Once
	subErr  error
	// instructions are the preloaded skills and, for a kanban worker,
	// the worker protocol: added to the system prompt (native) or the
	// developer instructions (codex).
	instructions string
	// memory is the saved-memory snapshot, read once (memorySnapshot).
	memoryOnce sync.Once
	memory     string
	// noNativeModel: config.yaml names no OpenAI-compatible model (a
	// ChatGPT login only), so reviews and sub-agents run on codex.
	noNativeModel bool
	subCfg        native.Config
	subMu         sync.Mutex
	subMCP        *mcpclients.Manager

	// mainCfg is the native runtime's model, which side tasks fall back
	// to when config.yaml gives them no route of their own.
	mainCfg native.Config
	cfgMu   sync.Mutex // guards mainCfg: side tasks read it beside turns
	// nativeOpts built c.native; /model rebuilds it with another model.
	nativeOpts native.Options
	// turn marks the native turn running, for a compression inside it.
	turn turnMarks

	// The generated title (maybeTitle) runs on bg, stopped by Close;
	// autoTitle is the title set since the conversation started, by it
	// or by the user (TitleSet).
	bg           sync.WaitGroup
	bgCtx        context.Context
	stopBG       context.CancelFunc
	titleStarted bool
	titleMu      sync.Mutex
	autoTitle    string

	counters    *nudge.Counters
	reviews     *nudge.Reviewer
	stopReviews context.CancelFunc

	closeOnce sync.Once
	closeErr  error
	closed    chan struct{}
}

// Start reads config.yaml, picks the runtime and starts what it needs: on
// native the MCP clients (hermes-tools-mcp and the user's mcp_servers), on
// codex nothing yet (codex starts with the first turn). An error means the
// conversation cannot run at all and says what to fix; servers that fail to
// start are not errors but notices.
func Start(ctx context.Context, opts Options) (*Conversation, error) {
	if opts.HermesHome == "" {
		return nil, errors.New("agent: HermesHome is required")
	}
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Resume && (opts.Store == nil || opts.SessionID == "") {
		return nil, errors.New("agent: resuming needs a Store and the SessionID to resume")
	}
	model, err := loadModel(opts.HermesHome)
	if err != nil {
		return nil, err
	}
	configured := model.Default != ""
	if opts.Model != "" {
		model.Default = opts.Model
	}
	if opts.Provider != "" {
		model.Provider = opts.Provider
	}
	c := &Conversation{opts: opts, store: opts.Store, closed: make(chan struct{})}
	c.bgCtx, c.stopBG = context.WithCancel(context.WithoutCancel(ctx))
	c.meta = agentcore.SessionMeta{
		ID: opts.SessionID, Source: cmp.Or(opts.Source, Source), Model: model.Default, Provider: model.Provider,
		Runtime: RuntimeNative, StartedAt: time.Now().UTC(),
	}
	if codexrt.Selected(model) {
		c.meta.Runtime = RuntimeCodex
	}
	// Instructions first: a conversation that cannot start (an unknown
	// --skills name) must not have reopened the session it was to resume.
	if c.instructions, err = c.loadInstructions(ctx); err != nil {
		return nil, err
	}
	if opts.Resume {
		meta, msgs, err := opts.Store.LoadSession(ctx, opts.SessionID)
		if err != nil {
			return nil, fmt.Errorf("resume session %s: %w", opts.SessionID, err)
		}
		if meta.ID != "" && meta.ID != opts.SessionID {
			c.notice(fmt.Sprintf("session %s was compressed by Hermes and goes on in session %s; continuing there", opts.SessionID, meta.ID))
			c.meta.ID = meta.ID
		}
		if err := opts.Store.ReopenSession(ctx, c.meta.ID); err != nil {
			c.notice(fmt.Sprintf("session %s could not be marked live again: %v", c.meta.ID, err))
		}
		if meta.Runtime != "" && meta.Runtime != c.meta.Runtime {
			c.notice(fmt.Sprintf("session %s ran on the %s runtime; it continues on %s (the configured runtime)", meta.ID, meta.Runtime, c.meta.Runtime))
		}
		c.meta.StartedAt, c.meta.Title = meta.StartedAt, meta.Title
		c.history = msgs
		if c.meta.Runtime == RuntimeCodex {
			c.thread = meta.CodexThreadID
		}
	}
	if c.meta.ID == "" {
		c.meta.ID = NewSessionID(time.Now())
	}

	if c.meta.Runtime == RuntimeCodex {
		err = c.startCodex()
	} else {
		err = c.startNative(ctx, model, configured)
	}
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	ncfg, err := nudge.LoadConfig(opts.HermesHome)
	if err != nil {
		c.notice(fmt.Sprintf("nudge settings ignored: %v", err))
		ncfg = nudge.DefaultConfig()
	}
	if !c.offersSkillManage() {
		// A skill review asks the model to call skill_manage: without it
		// the review spends model calls and saves nothing.
		ncfg.SkillInterval = 0
	}
	c.counters = nudge.New(ncfg)
	// A resumed conversation continues its count, as the original does.
	c.counters.Rehydrate(nudge.UserTurns(c.history))
	if c.store != nil && !opts.Resume {
		if err := c.store.CreateSession(ctx, c.meta); err != nil {
			// A conversation the store cannot hold is still worth having;
			// the user is told it will not be searchable or resumable.
			c.notice(fmt.Sprintf("this session will not be saved: %v", err))
			c.store = nil
		}
	}
	return c, nil
}

func loadModel(home string) (runtimecfg.Model, error) {
	path := filepath.Join(home, hermeshome.ConfigFile)
	doc, err := safefile.ReadUserFile(path, safefile.MaxConfigSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return runtimecfg.Model{}, err
	}
	m, err := runtimecfg.LoadModel(doc)
	if _, syntax := errors.AsType[*configcheck.SyntaxError](err); syntax {
		return m, fmt.Errorf("%s: %w", path, err)
	} else if err != nil {
		return m, fmt.Errorf("%s: %w (fix the model section)", path, err)
	}
	return m, nil
}

// startNative starts the MCP clients and the native runtime. configured says
// config.yaml names a model itself.
func (c *Conversation) startNative(ctx context.Context, model runtimecfg.Model, configured bool) error {
	o := c.opts
	cfg, err := native.LoadConfigProvider(o.HermesHome, o.Provider, o.Getenv)
	if err != nil && (o.Model == "" || configured) {
		return err
	}
	if err != nil {
		// LoadConfig refuses a config without a model, which is all that
		// was wrong here: the --model override supplies one, and the
		// endpoint comes from the provider table as LoadConfig would take it.
		cfg = native.Config{Model: model.Default, Provider: model.Provider,
			MaxTurns: native.DefaultMaxTurns, MaxRetries: native.DefaultMaxRetries}
		if cfg, err = cfg.Resolved(filepath.Join(o.HermesHome, hermeshome.ConfigFile), o.Getenv); err != nil {
			return err
		}
	}
	cfg.Model, cfg.Provider = model.Default, model.Provider
	c.cfgMu.Lock()
	c.mainCfg = cfg
	c.cfgMu.Unlock()

	servers, problems, err := mcpclients.ServersFromConfig(o.HermesHome)
	if err != nil {
		return fmt.Errorf("mcp_servers: %w", err)
	}
	cfg.ReasoningEffort = o.ReasoningEffort
	mo := mcpclients.Options{HermesHome: o.HermesHome, Servers: servers, ConfigProblems: problems, Getenv: o.Getenv,
		ToolsArgs: o.ToolsArgs, ToolsEnvVars: catalog.EnvVarNames()}
	if !o.SkipHermesTools {
		bin, err := FindToolsBinary(o.ToolsBinary)
		if err != nil {
			return err
		}
		mo.ToolsBinary = bin
	}
	c.progress(connectingLine(mo))
	c.mcp, err = mcpclients.Start(ctx, mo)
	if err != nil {
		return fmt.Errorf("start MCP clients: %w", err)
	}
	for _, st := range c.mcp.Statuses() {
		if !st.Connected && !st.Disabled {
			c.notice(fmt.Sprintf("MCP server %s skipped: %s; /reload-mcp or the next session tries again", st.Name, st.Error))
		}
	}
	var notes []string
	if n := c.mcp.FailureNote(); n != "" {
		notes = append(notes, n)
	}
	prompt := o.SystemPrompt
	if prompt == "" {
		prompt = DefaultSystemPrompt
	}
	if c.instructions != "" {
		prompt += "\n\n" + c.instructions
	}
	if snap := c.memorySnapshot(); snap != "" {
		prompt += "\n\n" + snap
	}
	// delegate_task runs sub-agents on the same tools, minus itself, on
	// the model config.yaml's delegation section names (the main one when
	// it names none).
	subCfg, err := native.DelegationConfig(o.HermesHome, cfg, o.Getenv)
	if err != nil {
		return fmt.Errorf("delegate_task: %w", err)
	}
	dt := delegate.Tool(delegate.Options{Run: delegate.NativeRunner(native.Options{Config: subCfg, Tools: c.mcp})})
	tools, err := delegate.ParentTools(c.mcp, dt)
	if err != nil {
		return fmt.Errorf("delegate_task: %w", err)
	}
	c.nativeOpts = native.Options{
		Config: cfg, Tools: tools, SystemPrompt: prompt, Notes: notes,
		OnText: o.OnText, OnToolCall: o.OnToolCall, BeforeCall: c.midTurnCompress,
	}
	c.native, err = native.New(c.nativeOpts)
	if err != nil {
		return fmt.Errorf("native runtime: %w", err)
	}
	// The review is a separate, silent turn over the same tools (memory
	// lives in hermes-tools), never streamed to the user, on the model
	// auxiliary.background_review names (the main one by default), as the
	// original runs its review fork; enabled: false there turns it off.
	if !native.AuxFlag(o.HermesHome, native.AuxBackgroundReview, "enabled", true) {
		return nil
	}
	reviewCfg, err := native.AuxiliaryConfig(o.HermesHome, native.AuxBackgroundReview, cfg, o.Getenv)
	if err != nil {
		return fmt.Errorf("background review: %w", err)
	}
	run, err := nudge.NativeRunner(native.Options{Config: reviewCfg, Tools: c.mcp, SystemPrompt: prompt})
	if err != nil {
		return err
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.stopReviews = cancel
	c.reviews = nudge.NewReviewer(rctx, run, func(out nudge.Outcome) {
		if out.Err != nil {
			c.notice(fmt.Sprintf("background review failed: %v", out.Err))
		}
	})
	return nil
}

func (c *Conversation) startCodex() error {
	o := c.opts
	onEvent := func(n bridge.Notification) {
		if o.OnText != nil && n.Method == "item/agentMessage/delta" {
			var p struct {
				Delta string `json:"delta"`
			}
			if json.Unmarshal(n.Params, &p) == nil && p.Delta != "" {
				o.OnText(p.Delta)
			}
		}
		if o.OnEvent != nil {
			o.OnEvent(n)
		}
	}
	rt, err := codexrt.New(codexrt.Config{
		Binary: o.CodexBinary, Args: o.CodexArgs, Environ: o.Environ, CodexHome: o.CodexHome,
		HermesHome: o.HermesHome, SessionID: c.meta.ID,
		Model: c.meta.Model, Provider: c.meta.Provider, Cwd: o.Cwd,
		ResumeThreadID: c.thread, Approver: o.Approver, OnEvent: onEvent, Logger: o.Logger,
		ThreadParams: developerInstructions(c.instructions, c.memorySnapshot()),
		TurnParams:   effortParam(o.ReasoningEffort),
		ExtraTools:   []tooldef.Tool{delegate.Tool(delegate.Options{Run: c.codexSubagent})},
	})
	if err != nil {
		return fmt.Errorf("codex runtime: %w (%s)", err, codexrt.FallbackHint)
	}
	c.codex = rt
	if !native.AuxFlag(o.HermesHome, native.AuxBackgroundReview, "enabled", true) {
		return nil
	}
	rctx, cancel := context.WithCancel(context.Background())
	c.stopReviews = cancel
	c.reviews = nudge.NewReviewer(rctx, c.codexReview, func(out nudge.Outcome) {
		if out.Err != nil {
			c.notice(fmt.Sprintf("background review failed: %v", out.Err))
		}
	})
	return nil
}

// offersSkillManage reports whether the model can call skill_manage: from
// hermes-tools over MCP on the native runtime, from the hermes-tools server
// codex starts on the codex runtime.
func (c *Conversation) offersSkillManage() bool {
	if c.codex != nil {
		return c.codex.OffersMCPTool(nudge.SkillTool)
	}
	if c.mcp == nil {
		return false
	}
	return slices.ContainsFunc(c.mcp.Tools(), func(t mcpclients.Tool) bool { return t.Name == nudge.SkillTool })
}

// memorySnapshot is the saved memory (MEMORY.md, USER.md) as the session
// starts, framed as Hermes frames it in its system prompt. It is read once
// per conversation: the memory tool's writes show in the next one.
func (c *Conversation) memorySnapshot() string {
	c.memoryOnce.Do(func() {
		snap, err := memory.Snapshot(c.opts.HermesHome, "")
		if err != nil {
			c.notice(fmt.Sprintf("saved memory left out of this session: %v", err))
		}
		c.memory = snap
	})
	return c.memory
}

// developerInstructions carries our instructions and the memory snapshot
// to codex, which keeps its own system prompt: as developer instructions,
// sent to the model with every turn of the thread.
func developerInstructions(parts ...string) map[string]any {
	text := strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "\n\n")
	if text == "" {
		return nil
	}
	return map[string]any{"developerInstructions": text}
}

// effortParam is codex's turn parameter for a reasoning effort.
func effortParam(effort string) map[string]any {
	if effort == "" {
		return nil
	}
	return map[string]any{"effort": effort}
}

// FindToolsBinary locates hermes-tools-mcp: override when non-empty, else
// next to the running executable (where a release installs it), else on
// PATH.
func FindToolsBinary(override string) (string, error) {
	p, err := toolsbin.Find(override)
	if err != nil {
		return "", fmt.Errorf("%w (--hermes-tools-command)", err)
	}
	return p, nil
}

// NewSessionID returns an id in the Python Hermes' shape
// (YYYYMMDD_HHMMSS_<6 hex>), sortable by start time.
func NewSessionID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return now.UTC().Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
}

// connectingLine says which MCP servers the start waits for and how
// long at most, or "" when there are none.
func connectingLine(mo mcpclients.Options) string {
	var names []string
	if mo.ToolsBinary != "" {
		names = append(names, mcpclients.HermesToolsName)
	}
	longest := mcpclients.DefaultConnectTimeout
	for _, s := range mo.Servers {
		if s.Disabled {
			continue
		}
		names = append(names, s.Name)
		if d := time.Duration(s.StartupTimeoutSec * float64(time.Second)); d > longest {
			longest = d
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("connecting to MCP servers: %s (at most %s)…", strings.Join(names, ", "), longest)
}

func (c *Conversation) progress(msg string) {
	if msg != "" && c.opts.OnProgress != nil {
		c.opts.OnProgress(msg)
	}
}

func (c *Conversation) notice(msg string) {
	c.notices = append(c.notices, msg)
	if c.opts.OnNotice != nil {
		c.opts.OnNotice(msg)
	}
}

// Meta describes the conversation (id, runtime, model).
func (c *Conversation) Meta() agentcore.SessionMeta {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	m := c.meta
	m.CodexThreadID = c.thread
	c.titleMu.Lock()
	if c.autoTitle != "" {
		m.Title = c.autoTitle
	}
	c.titleMu.Unlock()
	return m
}

// Notices are the notices given so far (also passed to OnNotice).
func (c *Conversation) Notices() []string {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	return append([]string(nil), c.notices...)
}

// MCPStatuses are the MCP servers' outcomes on the native runtime (nil on
// codex, which runs its own MCP clients).
func (c *Conversation) MCPStatuses() []mcpclients.Status {
	if c.mcp == nil {
		return nil
	}
	return c.mcp.Statuses()
}

// History is the transcript so far on the native runtime (on codex the
// thread holds it; only resumed messages are kept here).
func (c *Conversation) History() []agentcore.Message {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	return append([]agentcore.Message(nil), c.history...)
}

// Turn sends the user's text and waits for the answer. Cancelling ctx
// interrupts the turn (Result.Interrupted). Failures of the turn itself are
// in the Result (Error, Completed); the error is for a call that cannot run
// (closed conversation, empty text).
func (c *Conversation) Turn(ctx context.Context, text string) (agentcore.Result, error) {
	c.turnMu.Lock()
	defer c.turnMu.Unlock()
	select {
	case <-c.closed:
		return agentcore.Result{}, ErrClosed
	default:
	}
	var (
		res   agentcore.Result
		err   error
		added []agentcore.Message
	)
	c.turn = turnMarks{}
	if c.codex != nil {
		res, err = c.codex.RunTurn(ctx, text)
		if err != nil {
			return res, fmt.Errorf("codex turn: %w", err)
		}
		added = res.Messages
		// codex keeps the thread; the copy here feeds the background
		// reviews, which run natively and need the transcript.
		c.history = append(c.history, res.Messages...)
	} else {
		c.autoCompress(ctx, text)
		// The turn's request is the message after the history; a
		// compression during the turn moves both marks.
		c.turn.recorded, c.turn.request = len(c.history), len(c.history)
		res, err = c.native.RunTurn(ctx, c.history, text)
		if err != nil {
			return res, fmt.Errorf("native turn: %w", err)
		}
		// Messages is the whole conversation; keeping it, even after a
		// failed turn, lets the next turn see what the user asked.
		if len(res.Messages) >= c.turn.recorded {
			added = res.Messages[c.turn.recorded:]
			c.history = res.Messages
		}
	}
	res.SessionID = c.meta.ID
	c.record(ctx, res, added)
	c.nudge(res, append(c.turn.stored, added...))
	c.maybeTitle(res)
	return res, nil
}

// SideTask runs one side request (a goal verdict, a title, a summary) on
// the model auxiliary.<task> in config.yaml routes it to, or on the main
// model when it names none, as the original routes its side tasks. It
// does not touch the conversation.
func (c *Conversation) SideTask(ctx context.Context, task string, req native.SideRequest) (string, error) {
	c.cfgMu.Lock()
	main, noNative := c.mainCfg, false
	c.cfgMu.Unlock()
	if main.Model == "" {
		cfg, err := native.LoadConfig(c.opts.HermesHome, c.opts.Getenv)
		// OpenAI's API without a key is a ChatGPT login for codex, not
		// a model this program can call.
		noNative = err != nil || (cfg.APIKey == "" && cfg.BaseURL == native.DefaultBaseURL)
		if err == nil {
			main = cfg
		}
	}
	cfg, err := native.AuxiliaryConfig(c.opts.HermesHome, task, main, c.opts.Getenv)
	if err != nil {
		return "", err
	}
	if noNative && (cfg.BaseURL == "" || (cfg.BaseURL == main.BaseURL && cfg.APIKey == main.APIKey)) {
		if c.codex == nil {
			return "", fmt.Errorf("%s needs a model it can reach: set auxiliary.%s (provider, model, base_url, api_key) in config.yaml", task, task)
		}
		// No route of its own and only a ChatGPT login: the side task
		// runs on a throwaway codex thread, as reviews do.
		res, err := c.onCodex(ctx, c.meta.ID+"-"+task, req.System+"\n\n"+req.User)
		if err != nil {
			return "", err
		}
		if res.Error != "" {
			return "", errors.New(res.Error)
		}
		return res.FinalResponse, nil
	}
	text, _, err := native.Complete(ctx, cfg, req)
	return text, err
}

// TitleSet tells the conversation the title the session was given (by
// /title), which Meta reports from then on and which no generated title
// replaces.
func (c *Conversation) TitleSet(title string) {
	c.titleMu.Lock()
	c.autoTitle = title
	c.titleMu.Unlock()
}

// codexSubagent runs one delegated task for codex. Sub-agents run on the
// native runtime (codex owns its own loop and cannot nest one), so they need
// an OpenAI-compatible model in config.yaml; without one the task fails with
// that message and codex carries on. Their MCP clients start on the first
// delegation and stop with the conversation.
func (c *Conversation) codexSubagent(ctx context.Context, goal, taskContext string) (agentcore.Result, error) {
	cfg, mgr, err := c.nativeSide(ctx)
	if err != nil && c.noNativeModel {
		return c.onCodex(ctx, c.meta.ID+"-sub", delegate.SubagentPrompt+"\n\n"+delegate.UserMessage(goal, taskContext))
	}
	if err != nil {
		return agentcore.Result{}, err
	}
	subCfg, err := native.DelegationConfig(c.opts.HermesHome, cfg, c.opts.Getenv)
	if err != nil {
		return agentcore.Result{}, fmt.Errorf("delegate_task: %w", err)
	}
	return delegate.NativeRunner(native.Options{Config: subCfg, Tools: mgr})(ctx, goal, taskContext)
}

// codexReview runs a background memory/skill review for a codex
// conversation; like sub-agents, reviews run on the native runtime.
func (c *Conversation) codexReview(ctx context.Context, history []agentcore.Message, prompt string) (agentcore.Result, error) {
	cfg, mgr, err := c.nativeSide(ctx)
	if err != nil && c.noNativeModel {
		return c.onCodex(ctx, c.meta.ID, conversationText(history)+prompt)
	}
	if err != nil {
		return agentcore.Result{}, err
	}
	if cfg, err = native.AuxiliaryConfig(c.opts.HermesHome, native.AuxBackgroundReview, cfg, c.opts.Getenv); err != nil {
		return agentcore.Result{}, fmt.Errorf("background review: %w", err)
	}
	run, err := nudge.NativeRunner(native.Options{Config: cfg, Tools: mgr, SystemPrompt: DefaultSystemPrompt})
	if err != nil {
		return agentcore.Result{}, err
	}
	return run(ctx, history, prompt)
}

// onCodex runs one turn on a throwaway codex thread (ephemeral: codex keeps
// no rollout of it) with the conversation's codex setup and in-process
// tools, for reviews and sub-agents when only a ChatGPT login is
// configured, as the original switches its review fork to codex. A
// sub-agent gets no delegate_task, so it stays a leaf.
func (c *Conversation) onCodex(ctx context.Context, sessionID, text string) (agentcore.Result, error) {
	o := c.opts
	params := map[string]any{"ephemeral": true}
	maps.Copy(params, developerInstructions(c.memorySnapshot()))
	rt, err := codexrt.New(codexrt.Config{
		Binary: o.CodexBinary, Args: o.CodexArgs, Environ: o.Environ, CodexHome: o.CodexHome,
		HermesHome: o.HermesHome, SessionID: sessionID, Model: c.meta.Model, Provider: c.meta.Provider, Cwd: o.Cwd,
		Approver: o.Approver, Logger: o.Logger, ThreadParams: params,
	})
	if err != nil {
		return agentcore.Result{}, err
	}
	defer rt.Close()
	return rt.RunTurn(ctx, text)
}

// conversationText renders history for a codex thread that did not see it:
// what the user and the assistant said, and which tools ran.
func conversationText(history []agentcore.Message) string {
	if len(history) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The conversation so far:\n\n")
	for _, m := range history {
		switch {
		case m.Role == "user" || (m.Role == "assistant" && m.Content != ""):
			fmt.Fprintf(&b, "%s: %s\n\n", m.Role, m.Content)
		case m.Role == "assistant":
			for _, tc := range m.ToolCalls {
				fmt.Fprintf(&b, "assistant called %s(%s)\n\n", tc.Function.Name, tc.Function.Arguments)
			}
		}
	}
	b.WriteString("---\n\n")
	return b.String()
}

// nativeSide starts, once, what a codex conversation needs to run native
// turns beside codex: the model config and MCP clients (hermes-tools and
// the user's servers). They stop with the conversation.
func (c *Conversation) nativeSide(ctx context.Context) (native.Config, *mcpclients.Manager, error) {
	c.subOnce.Do(func() {
		o := c.opts
		cfg, err := native.LoadConfig(o.HermesHome, o.Getenv)
		if err != nil {
			c.subErr = fmt.Errorf("this runs on the native runtime, which needs a model provider it can reach (model.provider with its key variable, or model.base_url and api_key): %w", err)
			c.noNativeModel = true
			return
		}
		if cfg.APIKey == "" && cfg.BaseURL == native.DefaultBaseURL {
			// OpenAI's API without a key cannot answer: this user has a
			// ChatGPT login for codex and no API key.
			c.subErr = errors.New("this runs on the native runtime, which needs an API key (model.api_key or OPENAI_API_KEY) for OpenAI's API")
			c.noNativeModel = true
			return
		}
		servers, problems, err := mcpclients.ServersFromConfig(o.HermesHome)
		if err != nil {
			c.subErr = err
			return
		}
		cfg.ReasoningEffort = o.ReasoningEffort
		// Sub-agents and reviews are not the kanban run's owner: the
		// original marks them so that the board refuses their changes.
		mo := mcpclients.Options{HermesHome: o.HermesHome, Servers: servers, ConfigProblems: problems, Getenv: o.Getenv,
			ToolsArgs: o.ToolsArgs, ToolsEnvVars: catalog.EnvVarNames(), DelegatedChild: true}
		if !o.SkipHermesTools {
			if mo.ToolsBinary, err = FindToolsBinary(o.ToolsBinary); err != nil {
				c.subErr = err
				return
			}
		}
		mgr, err := mcpclients.Start(context.WithoutCancel(ctx), mo)
		if err != nil {
			c.subErr = err
			return
		}
		c.subMu.Lock()
		c.subMCP = mgr
		c.subMu.Unlock()
		c.subCfg = cfg
	})
	if c.subErr != nil {
		return native.Config{}, nil, c.subErr
	}
	return c.subCfg, c.subMCP, nil
}

// reviewGrace bounds how long Close waits for a background review.
const reviewGrace = 30 * time.Second

// nudge counts the turn and starts a background review when one is due.
func (c *Conversation) nudge(res agentcore.Result, added []agentcore.Message) {
	if c.counters == nil {
		return
	}
	due := c.counters.AfterTurn(res, nudge.CalledTools(added))
	if !due.Any() || c.reviews == nil {
		return
	}
	if _, err := c.reviews.Start(c.history, due); err != nil {
		c.notice(fmt.Sprintf("background review not started: %v", err))
	}
}

// record stores what the turn added. Store failures are notices: the answer
// already reached the user and must not be lost over bookkeeping.
func (c *Conversation) record(ctx context.Context, res agentcore.Result, added []agentcore.Message) {
	// The turn's ctx may be cancelled by an interrupt, yet what happened
	// before it still belongs in the record.
	ctx = context.WithoutCancel(ctx)
	for _, n := range res.Notes {
		c.notice(n)
	}
	if c.codex != nil {
		tid := c.codex.ThreadID()
		if tid == "" {
			tid = res.CodexThreadID
		}
		if tid != "" && tid != c.thread {
			if c.thread != "" {
				c.notice(fmt.Sprintf("codex thread %s could not be continued; this conversation goes on in a new thread %s", c.thread, tid))
			}
			c.thread = tid
			if c.store != nil {
				if err := c.store.SetCodexThread(ctx, c.meta.ID, tid); err != nil {
					c.notice(fmt.Sprintf("could not save the codex thread id: %v", err))
				}
			}
		}
	}
	if c.store != nil && len(added) > 0 {
		if err := c.store.AppendMessages(ctx, c.meta.ID, added); err != nil {
			c.notice(fmt.Sprintf("could not save this turn: %v", err))
		}
	}
}

// Close stops the runtime and every subprocess (codex, MCP servers). It is
// safe to call more than once and while a turn runs (the turn then fails).
// The Store is the caller's and stays open.
func (c *Conversation) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		var errs []error
		// A title on its way is given titleGrace, then cancelled.
		timer := time.AfterFunc(titleGrace, c.stopBG)
		c.bg.Wait()
		timer.Stop()
		c.stopBG()
		if c.reviews != nil {
			// A running review is given reviewGrace to finish (it is what
			// keeps the memory current), then cancelled: it must not
			// outlive the MCP clients it uses.
			timer := time.AfterFunc(reviewGrace, c.stopReviews)
			if err := c.reviews.Close(); err != nil {
				errs = append(errs, err)
			}
			timer.Stop()
			c.stopReviews()
		}
		if c.codex != nil {
			if err := c.codex.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close codex: %w", err))
			}
		}
		if c.mcp != nil {
			if err := c.mcp.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close MCP clients: %w", err))
			}
		}
		c.subMu.Lock()
		sub := c.subMCP
		c.subMu.Unlock()
		if sub != nil {
			if err := sub.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close sub-agent MCP clients: %w", err))
			}
		}
		if c.store != nil {
			// Recorded as Hermes' CLI records a chat it closes; a later
			// --resume reopens it. The Store is the caller's, still open.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if err := c.store.EndSession(ctx, c.meta.ID, storeEndReason); err != nil {
				errs = append(errs, fmt.Errorf("record the end of session %s: %w", c.meta.ID, err))
			}
			cancel()
		}
		c.closeErr = errors.Join(errs...)
	})
	return c.closeErr
}
