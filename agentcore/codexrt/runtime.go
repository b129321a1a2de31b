// Package codexrt is Hermes' codex runtime: codex app-server owns the agent
// loop and Hermes drives it through bridge, one codex thread per
// conversation, turning each codex turn into the agentcore.Result the native
// runtime produces too. Hermes' agent-loop tools (memory, todo,
// session_search) are offered to codex as dynamic tools and run in this
// process.
package codexrt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// FallbackHint tells the user how to leave the codex runtime when it keeps
// failing; every error a codex turn reports carries it.
const FallbackHint = "Fall back to default runtime with `/codex-runtime auto`."

// Selected reports whether the codex runtime handles this model config:
// only for the openai and openai-codex providers, and only when the user
// turned it on with `/codex-runtime on`. Any other provider keeps the
// native runtime whatever openai_runtime says, as in the Python Hermes.
func Selected(m runtimecfg.Model) bool {
	return runtimecfg.CodexProvider(m.Provider) && runtimecfg.Normalize(m.OpenAIRuntime) == runtimecfg.CodexAppServer
}

// Config configures a Runtime.
type Config struct {
	// Binary is the codex executable; empty means bridge.FindBinary("").
	Binary string
	// Args are extra `codex app-server` arguments (e.g. -c overrides).
	Args []string
	// Environ is the user's environment for codex; nil means os.Environ().
	// Codex must see the real HOME (its plugin marketplace and default
	// ~/.codex live there), so nothing is removed from it.
	Environ []string
	// CodexHome, when non-empty, is overlaid as CODEX_HOME: the only
	// variable Hermes changes in codex's environment.
	CodexHome string
	// HermesHome is where the dynamic tools keep their data (memories,
	// todo lists, state.db). Empty offers no dynamic tools.
	HermesHome string
	// SessionID is the Hermes session id, for the todo list and for
	// session_search to leave the current session out.
	SessionID string
	// Model and Provider are copied into results.
	Model, Provider string
	// Cwd is the thread's working directory; empty means ours.
	Cwd string
	// ExtraTools are more in-process tools to offer codex (delegate_task),
	// next to the agent-loop toolsets.
	ExtraTools []tooldef.Tool
	// ResumeThreadID resumes a stored codex thread on the first turn.
	ResumeThreadID string
	// Approver answers codex's command and patch approvals; nil declines
	// them all, which is the only safe answer without a user to ask.
	Approver bridge.Approver
	// ThreadParams and TurnParams are passed to bridge.SessionConfig.
	ThreadParams map[string]any
	TurnParams   map[string]any
	// OnEvent sees codex's notifications, for progress display.
	OnEvent func(bridge.Notification)
	// TurnTimeout and StartTimeout are the bridge's; 0 means its defaults.
	TurnTimeout, StartTimeout time.Duration
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// session is the part of *bridge.Session the runtime uses, so that tests
// can stand in for codex.
type session interface {
	RunTurn(ctx context.Context, input ...bridge.UserInput) bridge.TurnResult
	ThreadID() string
	Close() error
}

// Runtime is one conversation on codex. Its methods are safe for
// concurrent use; turns run one at a time.
type Runtime struct {
	cfg   Config
	tools []bridge.DynamicTool
	// newSession makes the codex session; replaced in tests.
	newSession func(resume string) (session, error)

	// hermesTools says codex starts hermes-tools (config.toml or Args),
	// with hermesToolsOff switched off there by the user.
	hermesTools    bool
	hermesToolsOff []string

	turnMu sync.Mutex // held for a whole turn
	mu     sync.Mutex
	sess   session
	resume string
	iters  int
	closed bool
}

// ErrClosed is returned by RunTurn after Close.
var ErrClosed = errors.New("codex runtime closed")

// New checks cfg and returns a Runtime; codex starts on the first turn.
func New(cfg Config) (*Runtime, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Binary == "" {
		bin, err := bridge.FindBinary("")
		if err != nil {
			return nil, fmt.Errorf("codex runtime: %w. %s", err, FallbackHint)
		}
		cfg.Binary = bin
	}
	r := &Runtime{cfg: cfg, resume: cfg.ResumeThreadID}
	if cfg.HermesHome != "" {
		sets := AgentToolsets(cfg.HermesHome, cfg.SessionID)
		if len(cfg.ExtraTools) > 0 {
			sets = append(sets, tooldef.Toolset{Name: "extra", Description: "in-process agent tools", Tools: cfg.ExtraTools})
		}
		tools, err := DynamicTools(sets, cfg.Logger)
		if err != nil {
			return nil, fmt.Errorf("codex runtime: %w", err)
		}
		r.tools = tools
		disabled, configured, err := configuredHermesTools(cfg)
		if err != nil {
			return nil, fmt.Errorf("codex runtime: %w", err)
		}
		r.hermesTools, r.hermesToolsOff = configured, disabled
		extra := oneToolPerName(configured, disabled, r.ToolNames())
		r.cfg.Args = append(slices.Clone(cfg.Args), extra...)
	}
	r.newSession = r.bridgeSession
	return r, nil
}

// ChildEnv is codex's environment: environ (the user's) with CODEX_HOME
// replaced by codexHome when that is non-empty.
func ChildEnv(environ []string, codexHome string) []string {
	if codexHome == "" {
		return environ
	}
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "CODEX_HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "CODEX_HOME="+codexHome)
}

func (r *Runtime) bridgeSession(resume string) (session, error) {
	environ := r.cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return bridge.NewSession(bridge.SessionConfig{
		Codex: bridge.Config{
			Binary: r.cfg.Binary,
			Args:   r.cfg.Args,
			Env:    ChildEnv(environ, r.cfg.CodexHome),
			Logger: r.cfg.Logger,
		},
		Cwd:            r.cfg.Cwd,
		ThreadParams:   r.cfg.ThreadParams,
		TurnParams:     r.cfg.TurnParams,
		ResumeThreadID: resume,
		DynamicTools:   r.tools,
		Approver:       r.cfg.Approver,
		OnEvent:        r.cfg.OnEvent,
		TurnTimeout:    r.cfg.TurnTimeout,
		StartTimeout:   r.cfg.StartTimeout,
	})
}

// OffersMCPTool reports whether the hermes-tools server codex starts
// offers tool (as far as its configuration says: a tool the server's own
// toolsets hide is not known here).
func (r *Runtime) OffersMCPTool(tool string) bool {
	return r.hermesTools && !slices.Contains(r.hermesToolsOff, tool)
}

// ToolNames are the dynamic tools offered to codex.
func (r *Runtime) ToolNames() []string {
	names := make([]string, len(r.tools))
	for i, t := range r.tools {
		names[i] = t.Name
	}
	return names
}

// ThreadID is the current codex thread, or "" before the first turn and
// after a retirement.
func (r *Runtime) ThreadID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sess != nil {
		if id := r.sess.ThreadID(); id != "" {
			return id
		}
	}
	return r.resume
}

// ToolIterations is the number of tool calls codex completed over all
// turns, for the skill nudge counter (agentcore.Result has no field for it).
func (r *Runtime) ToolIterations() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.iters
}

// Close shuts codex down. It is safe to call more than once.
func (r *Runtime) Close() error {
	r.mu.Lock()
	s := r.sess
	r.sess, r.closed = nil, true
	r.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close()
}

// RunTurn sends userText to codex and waits for the turn. Every outcome of
// the turn, failures included, is in the Result (Error says what went
// wrong and how to fall back); the error is non-nil only when the call
// itself is wrong (closed runtime, empty input). Messages start with the
// user message, once, followed by codex's projected transcript.
//
// A turn that codex marked as needing retirement closes the codex session,
// so the next turn starts a fresh codex and thread instead of riding one
// that is dead, wedged or logged out; any other failure keeps the thread.
func (r *Runtime) RunTurn(ctx context.Context, userText string) (agentcore.Result, error) {
	if strings.TrimSpace(userText) == "" {
		return agentcore.Result{}, errors.New("codex runtime: empty user message; type something to send")
	}
	r.turnMu.Lock()
	defer r.turnMu.Unlock()
	s, err := r.current()
	if err != nil {
		return agentcore.Result{}, err
	}
	tr := s.RunTurn(ctx, bridge.TextInput(userText))
	res := r.result(userText, tr)
	res.ToolIterations = tr.ToolIterations
	res.Notes = append(approvalNotes(res.Messages), tr.Notices...)

	r.mu.Lock()
	r.iters += tr.ToolIterations
	if tr.ThreadID != "" {
		r.resume = tr.ThreadID
	}
	// A failed turn (a model error, a usage limit) keeps the thread: the
	// next turn resumes it with the conversation so far. Only what the
	// bridge says makes codex unusable (it died, is wedged, its login
	// failed, a deadline interrupted it) retires the session.
	retire := tr.ShouldRetire
	if retire && r.sess == s {
		r.sess = nil
		// A fresh session starts a new thread: the old one may be what
		// broke, and the bridge only resumes within one session.
		r.resume = ""
	}
	r.mu.Unlock()
	if retire {
		if err := s.Close(); err != nil {
			r.cfg.Logger.Warn("closing retired codex session", "err", err)
		}
	}
	return res, nil
}

func (r *Runtime) current() (session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.sess != nil {
		return r.sess, nil
	}
	s, err := r.newSession(r.resume)
	if err != nil {
		return nil, fmt.Errorf("codex runtime: %w. %s", err, FallbackHint)
	}
	r.sess = s
	return s, nil
}

// result maps a codex turn to Hermes' run result (hermes-original.md
// §3.4): api_calls is 1 for a turn codex started, 0 when it never got that
// far, as the Python Hermes counts an exception.
func (r *Runtime) result(userText string, tr bridge.TurnResult) agentcore.Result {
	res := agentcore.Result{
		FinalResponse: tr.FinalText,
		Messages:      append([]agentcore.Message{{Role: "user", Content: userText}}, tr.Messages...),
		Interrupted:   tr.Interrupted,
		Model:         r.cfg.Model,
		Provider:      r.cfg.Provider,
		SessionID:     r.cfg.SessionID,
		CodexThreadID: tr.ThreadID,
		CodexTurnID:   tr.TurnID,
	}
	if tr.TurnID != "" {
		res.APICalls = 1
	}
	if tr.Err != nil {
		msg := tr.Err.Error()
		if !strings.Contains(msg, "/codex-runtime auto") {
			// On its own line: msg may end in codex's stderr tail.
			msg += "\n" + FallbackHint
		}
		res.Error = msg
		res.ErrorKind = classifyTurnError(tr.Err)
		if res.FinalResponse == "" {
			res.FinalResponse = "Codex app-server turn failed: " + msg
		}
	}
	res.Partial = tr.Interrupted || tr.Err != nil
	res.Completed = !res.Partial
	if u := tr.Usage; u != nil {
		t := u.Turn
		res.Usage = agentcore.Usage{
			InputTokens:     t.InputTokens,
			OutputTokens:    t.OutputTokens,
			CacheReadTokens: t.CachedInputTokens,
			ReasoningTokens: t.ReasoningOutputTokens,
			TotalTokens:     t.TotalTokens,
		}
		if res.TotalTokens == 0 {
			res.TotalTokens = t.InputTokens + t.OutputTokens
		}
	}
	return res
}
