package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Session defaults, those of the Python original where it has one.
const (
	DefaultTurnTimeout          = 600 * time.Second
	DefaultPostToolQuietTimeout = 90 * time.Second
	DefaultStartTimeout         = 30 * time.Second
	DefaultInterruptTimeout     = 5 * time.Second
)

// defaultIdleGrace is how long a turn may go on after codex reported its
// thread idle: turn/completed follows within milliseconds when all is well.
const defaultIdleGrace = 10 * time.Second

// TrustedMCPServer is the MCP server whose elicitations a session accepts by
// default: Hermes's own tool callback.
const TrustedMCPServer = "hermes-tools"

// SessionConfig configures a Session.
type SessionConfig struct {
	// Codex says how to start codex app-server. The session owns
	// OnNotification and OnRequest, which must be nil; its Logger is the
	// session's too.
	Codex Config
	// Cwd is the thread's working directory (thread/start cwd). Empty lets
	// codex use its own working directory.
	Cwd string
	// ClientInfo identifies us to codex; zero means
	// {"hermes", "Hermes Agent", "0.0.0"}.
	ClientInfo ClientInfo
	// ExperimentalAPI opts in to codex's experimental API. It is implied by
	// DynamicTools.
	ExperimentalAPI bool
	// ThreadParams are extra thread/start (and thread/resume) params, e.g.
	// "model", "approvalPolicy", "sandbox", "config",
	// "developerInstructions". cwd and dynamicTools are set from the fields
	// above.
	ThreadParams map[string]any
	// TurnParams are extra turn/start params sent with every turn, e.g.
	// "effort" or "sandboxPolicy".
	TurnParams map[string]any
	// ResumeThreadID resumes this codex thread (thread/resume) instead of
	// starting a new one.
	ResumeThreadID string
	// DynamicTools are offered to the model on a new thread. Codex stores
	// them with the thread, so a resumed thread keeps the tools it was
	// started with; a resumed session still needs them here to run calls.
	DynamicTools []DynamicTool
	// Approver answers command and file-change approvals; nil declines
	// them all.
	Approver Approver
	// TrustedMCPServers are the MCP servers whose elicitations (tool-call
	// approvals included) are accepted; nil means just TrustedMCPServer.
	// Every other server's are declined.
	TrustedMCPServers []string
	// OnEvent, if set, sees every notification from codex (for progress
	// display), in order, on the client's dispatch goroutine. It must not
	// block for long and must not call the Session.
	OnEvent func(Notification)

	// TurnTimeout bounds a turn; 0 means DefaultTurnTimeout.
	TurnTimeout time.Duration
	// PostToolQuietTimeout is how long codex may stay silent after a tool
	// result before the turn is abandoned as wedged; 0 means
	// DefaultPostToolQuietTimeout.
	PostToolQuietTimeout time.Duration
	// StartTimeout bounds spawning codex, initialize and thread/start; 0
	// means DefaultStartTimeout.
	StartTimeout time.Duration
	// InterruptTimeout bounds turn/interrupt and the wait for codex to end
	// the interrupted turn; 0 means DefaultInterruptTimeout.
	InterruptTimeout time.Duration
}

// Session is one codex thread for one Hermes session: it starts codex on
// first use, runs turns one at a time and answers codex's requests.
//
// If a turn reports ShouldRetire, the session has already shut its codex
// down; the next RunTurn starts a new codex and resumes the same thread
// (or starts a new thread if there was none yet, or resuming fails). A
// caller that wants a fresh thread instead closes the session and makes a
// new one.
type Session struct {
	cfg            SessionConfig
	log            *slog.Logger
	tools          map[string]DynamicTool
	trustedServers []string
	// turnSem is held by Start and RunTurn: one at a time.
	turnSem chan struct{}
	// turnStartTimeout is a field so that tests can shorten it.
	turnStartTimeout time.Duration
	// idleGrace is how long after codex reports the thread idle a turn
	// may go on without turn/completed; a field so that tests can
	// shorten it.
	idleGrace time.Duration

	mu       sync.Mutex
	client   *Client
	threadID string
	turn     *turnState
	// fileChanges holds change summaries of started fileChange items,
	// for approval prompts.
	fileChanges map[string]string
	// requests are the contexts of server requests being handled, by
	// request id, so that codex withdrawing one (serverRequest/resolved)
	// cancels its handler.
	requests map[string]context.CancelFunc
	// notices are messages for the user about what the session did on
	// its own (a thread it could not resume), for the next result.
	notices []string
	closed  bool
}

// ErrSessionClosed is returned by a Session after Close.
var ErrSessionClosed = errors.New("codex session closed")

// NewSession checks cfg and returns a session; codex is started by Start or
// the first RunTurn.
func NewSession(cfg SessionConfig) (*Session, error) {
	if cfg.Codex.Binary == "" {
		return nil, errors.New("codex session: Codex.Binary is empty (see FindBinary)")
	}
	if cfg.Codex.OnNotification != nil || cfg.Codex.OnRequest != nil {
		return nil, errors.New("codex session: Codex.OnNotification and Codex.OnRequest belong to the session; use OnEvent")
	}
	if cfg.TurnTimeout <= 0 {
		cfg.TurnTimeout = DefaultTurnTimeout
	}
	if cfg.PostToolQuietTimeout <= 0 {
		cfg.PostToolQuietTimeout = DefaultPostToolQuietTimeout
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.InterruptTimeout <= 0 {
		cfg.InterruptTimeout = DefaultInterruptTimeout
	}
	if cfg.ClientInfo == (ClientInfo{}) {
		cfg.ClientInfo = ClientInfo{Name: "hermes", Title: "Hermes Agent", Version: "0.0.0"}
	}
	log := cfg.Codex.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Session{
		cfg:              cfg,
		log:              log,
		tools:            make(map[string]DynamicTool, len(cfg.DynamicTools)),
		trustedServers:   cfg.TrustedMCPServers,
		turnSem:          make(chan struct{}, 1),
		turnStartTimeout: turnStartTimeout,
		idleGrace:        defaultIdleGrace,
		threadID:         cfg.ResumeThreadID,
		fileChanges:      make(map[string]string),
		requests:         make(map[string]context.CancelFunc),
	}
	if s.trustedServers == nil {
		s.trustedServers = []string{TrustedMCPServer}
	}
	for _, t := range cfg.DynamicTools {
		switch {
		case t.Name == "":
			return nil, errors.New("codex session: dynamic tool without a name")
		case t.Handler == nil:
			return nil, fmt.Errorf("codex session: dynamic tool %q has no handler", t.Name)
		}
		if _, dup := s.tools[t.Name]; dup {
			return nil, fmt.Errorf("codex session: dynamic tool %q declared twice", t.Name)
		}
		s.tools[t.Name] = t
	}
	return s, nil
}

// ThreadID is codex's id for the session's thread, or "" before it has one.
func (s *Session) ThreadID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.threadID
}

// PID is the process id of the running codex, or 0.
func (s *Session) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil {
		return 0
	}
	return s.client.PID()
}

// StderrTail is the redacted tail of the running codex's stderr, or "".
func (s *Session) StderrTail() string {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c == nil {
		return ""
	}
	return c.StderrTail()
}

func (s *Session) acquire(ctx context.Context) error {
	select {
	case s.turnSem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("codex session: %w", ctx.Err())
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		<-s.turnSem
		return ErrSessionClosed
	}
	return nil
}

func (s *Session) release() { <-s.turnSem }

// Close shuts codex down. A RunTurn in progress ends with ErrSessionClosed.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closed = true
	c := s.client
	s.client = nil
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close()
}
