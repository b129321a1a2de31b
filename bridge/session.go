package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
)

// Session defaults, those of the Python original where it has one.
const (
	DefaultTurnTimeout          = 600 * time.Second
	DefaultPostToolQuietTimeout = 90 * time.Second
	DefaultStartTimeout         = 30 * time.Second
	DefaultInterruptTimeout     = 5 * time.Second
)

// TrustedMCPServer is the MCP server whose elicitations a session accepts by
// default: Hermes's own tool callback.
const TrustedMCPServer = "hermes-tools"

// AuthHint is the error text for a failure that looks like an expired or
// invalid codex login.
const AuthHint = "Codex authentication failed — your ChatGPT/Codex login looks expired or invalid. " +
	"Run `codex login` to refresh, then retry. " +
	"(Fall back to default runtime with `/codex-runtime auto` if the issue persists.)"

const (
	// turnStartTimeout bounds turn/start, which codex answers at once.
	turnStartTimeout = 10 * time.Second
	// How much of codex's stderr goes into errors: a few lines in general,
	// more when codex died (the panic or fatal error is in there), more
	// still to search for signs of an authentication failure.
	errStderrLines  = 12
	deadStderrLines = 20
	authStderrLines = 40
	deadAuthLines   = 60
	// drainWait bounds the wait for messages codex sent before it exited.
	drainWait = time.Second
)

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
	closed   bool
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

// Start starts codex and the thread now rather than on the first RunTurn,
// and returns the thread id. It does nothing if they are running.
func (s *Session) Start(ctx context.Context) (string, error) {
	if err := s.acquire(ctx); err != nil {
		return "", err
	}
	defer s.release()
	if c, err := s.ensureStarted(ctx); err != nil {
		if c != nil {
			s.retire(c)
		}
		return "", fmt.Errorf("codex app-server startup failed: %w", err)
	}
	return s.ThreadID(), nil
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

// ensureStarted returns the running client, starting codex and the thread
// if needed.
func (s *Session) ensureStarted(ctx context.Context) (*Client, error) {
	s.mu.Lock()
	c := s.client
	s.mu.Unlock()
	if c != nil {
		select {
		case <-c.Done():
			// It died between turns; start over, resuming the thread.
			s.log.Warn("codex app-server had exited; restarting", "error", c.Err())
			s.retire(c)
		default:
			return c, nil
		}
	}

	ctx, cancel := context.WithTimeout(ctx, s.cfg.StartTimeout)
	defer cancel()
	cfg := s.cfg.Codex
	cfg.OnNotification = s.onNotification
	cfg.OnRequest = s.onRequest
	c, err := Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = c.Close()
		return nil, ErrSessionClosed
	}
	s.client = c
	resume := s.threadID
	s.mu.Unlock()

	caps := Capabilities{ExperimentalAPI: s.cfg.ExperimentalAPI || len(s.tools) > 0}
	if _, err := c.Initialize(ctx, s.cfg.ClientInfo, caps); err != nil {
		return c, err
	}
	params := maps.Clone(s.cfg.ThreadParams)
	if params == nil {
		params = map[string]any{}
	}
	if s.cfg.Cwd != "" {
		params["cwd"] = s.cfg.Cwd
	}
	method := "thread/start"
	if resume != "" {
		method = "thread/resume"
		params["threadId"] = resume
	} else if len(s.tools) > 0 {
		specs := make([]map[string]any, 0, len(s.cfg.DynamicTools))
		for _, t := range s.cfg.DynamicTools {
			specs = append(specs, t.spec())
		}
		params["dynamicTools"] = specs
	}
	var raw json.RawMessage
	if err := c.Call(ctx, method, params, &raw); err != nil {
		if resume != "" {
			// Do not insist on a thread codex cannot resume: the next
			// attempt starts a new one.
			s.mu.Lock()
			s.threadID = ""
			s.mu.Unlock()
		}
		return c, err
	}
	id, err := threadIDFrom(raw)
	if err != nil {
		return c, fmt.Errorf("%s: %w", method, err)
	}
	s.mu.Lock()
	s.threadID = id
	s.mu.Unlock()
	s.log.Info("codex thread ready", "method", method, "thread", id, "cwd", s.cfg.Cwd, "pid", c.PID())
	return c, nil
}

// threadIDFrom finds the thread id in a thread/start or thread/resume
// result. Codex versions have put it in different places; take the first
// of thread.id, thread.sessionId, sessionId, threadId.
func threadIDFrom(raw json.RawMessage) (string, error) {
	var r struct {
		Thread struct {
			ID        string `json:"id"`
			SessionID string `json:"sessionId"`
		} `json:"thread"`
		SessionID string `json:"sessionId"`
		ThreadID  string `json:"threadId"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("decode result: %w", err)
	}
	for _, id := range []string{r.Thread.ID, r.Thread.SessionID, r.SessionID, r.ThreadID} {
		if id != "" {
			return id, nil
		}
	}
	var keys []string
	var top map[string]json.RawMessage
	_ = json.Unmarshal(raw, &top)
	for k := range top {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return "", fmt.Errorf("codex returned no thread id (payload keys: %v)", keys)
}

// retire shuts c down if it is still the session's client.
func (s *Session) retire(c *Client) {
	s.mu.Lock()
	if s.client == c {
		s.client = nil
	}
	s.mu.Unlock()
	if err := c.Close(); err != nil {
		s.log.Debug("retired codex app-server", "error", err)
	}
}

// UserInput is one element of a turn's input.
type UserInput struct {
	// Type is "text", "image" (URL, https or data:) or "localImage" (a
	// path codex reads).
	Type string
	Text string
	URL  string
	Path string
}

// TextInput is text input.
func TextInput(text string) UserInput { return UserInput{Type: "text", Text: text} }

// ImageInput is an image by URL (https or data:).
func ImageInput(url string) UserInput { return UserInput{Type: "image", URL: url} }

// LocalImageInput is an image file codex reads itself.
func LocalImageInput(path string) UserInput { return UserInput{Type: "localImage", Path: path} }

// MarshalJSON writes codex's UserInput shapes.
func (u UserInput) MarshalJSON() ([]byte, error) {
	switch u.Type {
	case "text":
		return json.Marshal(map[string]any{"type": "text", "text": u.Text, "text_elements": []any{}})
	case "image":
		return json.Marshal(map[string]any{"type": "image", "url": u.URL})
	case "localImage":
		return json.Marshal(map[string]any{"type": "localImage", "path": u.Path})
	}
	return nil, fmt.Errorf("unknown user input type %q", u.Type)
}

// TurnResult is the outcome of RunTurn. Failures are reported in Err, never
// by panicking or by a second return value, so that a caller can always
// show the transcript gathered so far.
type TurnResult struct {
	// FinalText is the text of the turn's last agent message.
	FinalText string
	// Messages is the turn's transcript (see Projector), without codex's
	// echo of the input: the caller has that already.
	Messages []Message
	// ToolIterations counts completed tool-shaped items (commands, file
	// changes, MCP and dynamic tool calls).
	ToolIterations int
	// Interrupted is set when the turn did not run to its end: cancelled,
	// timed out, abandoned by the watchdog, or ended by codex as
	// interrupted or aborted.
	Interrupted bool
	// Err says why the turn failed; nil for a completed turn and for a
	// plain interruption. It is a *TurnError whose text is fit for the
	// user (redacted, with codex's stderr tail where that helps).
	Err error
	// Status is codex's final turn status ("completed", "interrupted",
	// "failed"), or "" when codex never reported one.
	Status   string
	TurnID   string
	ThreadID string
	// Usage is the token usage codex last reported in the turn, or nil.
	Usage *TokenUsage
	// ShouldRetire says codex looks unhealthy (dead, wedged, or its login
	// is broken). The session has already shut that codex down.
	ShouldRetire bool
}

// TokenUsage is codex's thread/tokenUsage/updated report.
type TokenUsage struct {
	// Total is the thread's cumulative usage; Last is the last model
	// request's.
	Total TokenBreakdown `json:"total"`
	Last  TokenBreakdown `json:"last"`
	// Turn is the sum of Last over the turn's reports: this turn's usage.
	Turn               TokenBreakdown `json:"-"`
	ModelContextWindow int64          `json:"modelContextWindow"`
}

// TokenBreakdown is a token count by kind.
type TokenBreakdown struct {
	TotalTokens           int64 `json:"totalTokens"`
	InputTokens           int64 `json:"inputTokens"`
	CachedInputTokens     int64 `json:"cachedInputTokens"`
	CacheWriteInputTokens int64 `json:"cacheWriteInputTokens"`
	OutputTokens          int64 `json:"outputTokens"`
	ReasoningOutputTokens int64 `json:"reasoningOutputTokens"`
}

func (b *TokenBreakdown) add(o TokenBreakdown) {
	b.TotalTokens += o.TotalTokens
	b.InputTokens += o.InputTokens
	b.CachedInputTokens += o.CachedInputTokens
	b.CacheWriteInputTokens += o.CacheWriteInputTokens
	b.OutputTokens += o.OutputTokens
	b.ReasoningOutputTokens += o.ReasoningOutputTokens
}

// TurnErrorKind classifies a failed turn.
type TurnErrorKind string

const (
	TurnErrStartup   TurnErrorKind = "startup"    // codex, initialize or thread/start failed
	TurnErrTurnStart TurnErrorKind = "turn-start" // turn/start failed or timed out
	TurnErrAuth      TurnErrorKind = "auth"       // codex's login looks expired or invalid
	TurnErrExited    TurnErrorKind = "exited"     // codex died mid-turn
	TurnErrSilent    TurnErrorKind = "silent"     // the post-tool watchdog fired
	TurnErrTimeout   TurnErrorKind = "timeout"    // the turn deadline passed
	TurnErrFailed    TurnErrorKind = "failed"     // codex ended the turn unsuccessfully
	TurnErrAborted   TurnErrorKind = "aborted"    // codex sent a <turn_aborted> marker
	TurnErrUsage     TurnErrorKind = "usage"      // the call was wrong: empty input, closed session
)

// TurnError is a failed turn.
type TurnError struct {
	Kind TurnErrorKind
	// Message is the user-facing text, redacted.
	Message string
	// Err is the underlying error, if any.
	Err error
}

func (e *TurnError) Error() string { return e.Message }
func (e *TurnError) Unwrap() error { return e.Err }

// turnAbortedMarkers end a turn when they appear in agent text: some codex
// builds tear a turn down that way without sending turn/completed.
var turnAbortedMarkers = []string{"<turn_aborted>", "<turn_aborted/>"}

// authFailureHints are substrings (lower case) of codex errors and stderr
// that mean its OAuth login is no longer valid. Deliberately specific: a
// false match sends the user to `codex login` for nothing.
var authFailureHints = []string{
	"invalid_grant", "invalid grant", "refresh token", "refresh_token", "token refresh", "token_refresh",
	"token has expired", "expired_token", "expired token", "not authenticated", "unauthenticated",
	"unauthorized", "401 unauthorized", "re-authenticate", "reauthenticate", "please log in",
	"please login", "auth profile", "no auth profile", "oauth",
}

func looksLikeAuthFailure(parts ...string) bool {
	hay := strings.ToLower(strings.Join(parts, " "))
	for _, h := range authFailureHints {
		if strings.Contains(hay, h) {
			return true
		}
	}
	return false
}

// stderrLines returns up to n of codex's last non-blank stderr lines.
func stderrLines(c *Client, n int) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, l := range c.tail.last(n) {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, " \t"))
		}
	}
	return out
}

// withStderr appends codex's redacted stderr tail to a message, which turns
// codex's opaque errors ("Internal error") into something diagnosable
// without leaking the credentials provider errors tend to quote.
func withStderr(c *Client, msg string, n int) string {
	lines := stderrLines(c, n)
	if len(lines) == 0 {
		return msg
	}
	return msg + "\ncodex stderr (last " + strconv.Itoa(len(lines)) + " lines):\n" + redact.String(strings.Join(lines, "\n"))
}

// errorText is an error's text without the stderr tail a *TerminatedError
// carries (it is added separately, once).
func errorText(err error) string {
	var te *TerminatedError
	if errors.As(err, &te) {
		return (&TerminatedError{Err: te.Err, Exited: te.Exited, ExitCode: te.ExitCode}).Error()
	}
	return err.Error()
}

// turnState is the running turn, shared by RunTurn and the notification and
// request handlers under Session.mu.
type turnState struct {
	id       string
	ctx      context.Context // ends with the turn; request handlers use it
	cancel   context.CancelFunc
	proj     *Projector
	messages []Message
	tools    int
	final    string
	echoSeen bool
	usage    *TokenUsage

	finished chan struct{} // closed by finish
	done     bool
	aborted  bool // by a <turn_aborted> marker
	status   string
	turnErr  json.RawMessage // turn.error of turn/completed
	lastErr  json.RawMessage // the last non-retried `error` notification

	// The post-tool watchdog runs while armed (a tool completed), no tool
	// is running and no request of codex's is waiting for us, and fires
	// after PostToolQuietTimeout without activity.
	armed        bool
	pending      int
	lastActivity time.Time
	wake         chan struct{} // capacity 1: re-evaluate the watchdog
}

func (t *turnState) finish() {
	if !t.done {
		t.done = true
		close(t.finished)
	}
}

func (t *turnState) signal() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// watchdogDue says whether the watchdog is running and when it fires.
func (t *turnState) watchdogDue(quiet time.Duration) (time.Time, bool) {
	if !t.armed || t.pending > 0 || t.proj.OpenToolItems() > 0 || t.done {
		return time.Time{}, false
	}
	return t.lastActivity.Add(quiet), true
}

// RunTurn sends input as a new turn and waits for it to end, answering
// codex's requests meanwhile. Cancelling ctx interrupts the turn (it then
// waits up to InterruptTimeout for codex to confirm); a ctx deadline counts
// as the turn timing out. Every outcome, startup failures included, is in
// the result.
func (s *Session) RunTurn(ctx context.Context, input ...UserInput) TurnResult {
	var res TurnResult
	if err := s.acquire(ctx); err != nil {
		if errors.Is(err, ErrSessionClosed) {
			res.Err = &TurnError{Kind: TurnErrUsage, Message: err.Error(), Err: err}
		} else {
			res.Interrupted = true
		}
		return res
	}
	defer s.release()
	if len(input) == 0 {
		res.Err = &TurnError{Kind: TurnErrUsage, Message: "codex turn: no input"}
		return res
	}

	s.mu.Lock()
	reused := s.client != nil
	s.mu.Unlock()
	c, err := s.ensureStarted(ctx)
	if err != nil {
		return s.startupFailed(ctx, c, err)
	}
	res = s.runTurn(ctx, c, input)
	if reused && res.TurnID == "" && res.ShouldRetire && errors.Is(res.Err, errGoneBeforeTurn) {
		// Codex died between turns and we only noticed at turn/start:
		// nothing of this turn happened, so start a new codex and try
		// once more.
		s.log.Warn("codex app-server had exited before the turn; restarting", "error", res.Err)
		if c, err = s.ensureStarted(ctx); err != nil {
			return s.startupFailed(ctx, c, err)
		}
		res = s.runTurn(ctx, c, input)
	}
	return res
}

// errGoneBeforeTurn marks a turn/start that failed because codex was gone.
var errGoneBeforeTurn = errors.New("codex app-server gone before the turn started")

func (s *Session) runTurn(ctx context.Context, c *Client, input []UserInput) TurnResult {
	res := TurnResult{ThreadID: s.ThreadID()}

	tctx, tcancel := context.WithCancel(context.Background())
	t := &turnState{
		ctx: tctx, cancel: tcancel, proj: NewProjector(),
		finished: make(chan struct{}), wake: make(chan struct{}, 1), lastActivity: time.Now(),
	}
	s.mu.Lock()
	s.turn = t
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.turn == t {
			s.turn = nil
		}
		s.mu.Unlock()
		tcancel()
	}()

	params := maps.Clone(s.cfg.TurnParams)
	if params == nil {
		params = map[string]any{}
	}
	params["threadId"] = res.ThreadID
	params["input"] = input
	var started struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	callCtx, cancelCall := context.WithTimeout(ctx, s.turnStartTimeout)
	err := c.Call(callCtx, "turn/start", params, &started)
	cancelCall()
	if err != nil {
		return s.turnStartFailed(ctx, c, t, res, err)
	}
	s.mu.Lock()
	if t.id == "" || started.Turn.ID != "" {
		// The response is authoritative; turn/started may have come first.
		t.id = started.Turn.ID
	}
	res.TurnID = t.id
	s.mu.Unlock()

	s.wait(ctx, c, t, &res)
	return res
}

func (s *Session) startupFailed(ctx context.Context, c *Client, err error) TurnResult {
	res := TurnResult{ThreadID: s.ThreadID()}
	switch {
	case errors.Is(err, ErrSessionClosed):
		res.Err = &TurnError{Kind: TurnErrUsage, Message: err.Error(), Err: err}
	case ctx.Err() != nil:
		// Cancelled while starting: nothing failed, but a half-started
		// codex is of no use.
		res.Interrupted = true
	case looksLikeAuthFailure(errorText(err), strings.Join(stderrLines(c, authStderrLines), "\n")):
		res.Err = &TurnError{Kind: TurnErrAuth, Message: AuthHint, Err: err}
		res.ShouldRetire = true
	default:
		res.Err = &TurnError{
			Kind:    TurnErrStartup,
			Message: withStderr(c, "codex app-server startup failed: "+redact.String(errorText(err)), errStderrLines),
			Err:     err,
		}
		res.ShouldRetire = true
	}
	if c != nil {
		s.retire(c)
	}
	return res
}

func (s *Session) turnStartFailed(ctx context.Context, c *Client, t *turnState, res TurnResult, err error) TurnResult {
	var rerr *RPCError
	switch {
	case ctx.Err() != nil:
		// The turn may have started anyway; if codex says so in time,
		// interrupt it so it does not run on unwatched.
		res.Interrupted = true
		if id := s.waitTurnID(t, s.cfg.InterruptTimeout); id != "" {
			res.TurnID = id
			s.interrupt(c, res.ThreadID, id)
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.Err = &TurnError{Kind: TurnErrTimeout, Message: "turn timed out before it started", Err: ctx.Err()}
		}
		return res
	case isDone(c.Done()):
		s.mu.Lock()
		seen := t.id != ""
		s.mu.Unlock()
		if !seen {
			err = fmt.Errorf("%w: %w", errGoneBeforeTurn, err)
		}
		return s.clientGone(c, res, err)
	case errors.As(err, &rerr):
		if looksLikeAuthFailure(rerr.Message, strings.Join(stderrLines(c, authStderrLines), "\n")) {
			res.Err = &TurnError{Kind: TurnErrAuth, Message: AuthHint, Err: err}
			// Codex is fine at the protocol level, but its token store
			// is not: a fresh codex after `codex login` is needed.
			res.ShouldRetire = true
		} else {
			res.Err = &TurnError{Kind: TurnErrTurnStart, Message: withStderr(c, "turn/start failed: "+err.Error(), errStderrLines), Err: err}
		}
	default:
		// No answer to a request codex answers at once: it is wedged.
		msg := withStderr(c, "turn/start timed out: "+redact.String(err.Error()), errStderrLines)
		kind := TurnErrTurnStart
		if looksLikeAuthFailure(strings.Join(stderrLines(c, authStderrLines), "\n")) {
			msg, kind = AuthHint, TurnErrAuth
		}
		res.Err = &TurnError{Kind: kind, Message: msg, Err: err}
		res.ShouldRetire = true
	}
	if res.ShouldRetire {
		s.retire(c)
	}
	return res
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// waitTurnID waits up to d for the turn id to become known.
func (s *Session) waitTurnID(t *turnState, d time.Duration) string {
	deadline := time.Now().Add(d)
	for {
		s.mu.Lock()
		id, done := t.id, t.done
		s.mu.Unlock()
		if id != "" || done || time.Now().After(deadline) {
			return id
		}
		select {
		case <-t.wake:
		case <-t.finished:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// interrupt asks codex to stop the turn; "no active turn" and other errors
// only mean there is nothing left to stop.
func (s *Session) interrupt(c *Client, threadID, turnID string) {
	if turnID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.InterruptTimeout)
	defer cancel()
	if err := c.Call(ctx, "turn/interrupt", map[string]string{"threadId": threadID, "turnId": turnID}, nil); err != nil {
		s.log.Debug("turn/interrupt", "turn", turnID, "error", err)
	}
}

// wait runs until the turn ends one way or another, then fills res.
func (s *Session) wait(ctx context.Context, c *Client, t *turnState, res *TurnResult) {
	deadline := time.NewTimer(s.cfg.TurnTimeout)
	defer deadline.Stop()
	watchdog := time.NewTimer(time.Hour)
	watchdog.Stop()
	defer watchdog.Stop()
	quiet := s.cfg.PostToolQuietTimeout

	// checkWatchdog re-arms the timer, or reports that it has fired.
	checkWatchdog := func() bool {
		s.mu.Lock()
		due, on := t.watchdogDue(quiet)
		s.mu.Unlock()
		if !on {
			return false
		}
		left := time.Until(due)
		if left <= 0 {
			return true
		}
		watchdog.Reset(left)
		return false
	}

	// ended settles a turn that ended just as something else happened: a
	// completed turn is reported as completed, however late the
	// cancellation or the timer that raced it.
	ended := func() bool {
		if isDone(t.finished) {
			s.settle(c, t, res)
			return true
		}
		return false
	}

	for {
		select {
		case <-t.finished:
			s.settle(c, t, res)
			return
		case <-c.Done():
			// Codex went away. What it sent before that is still being
			// delivered; if that includes the end of the turn, the turn
			// ended properly.
			select {
			case <-c.dispatched:
			case <-time.After(drainWait):
			}
			if isDone(t.finished) {
				s.settle(c, t, res)
				res.ShouldRetire = true
				s.retire(c)
				return
			}
			s.collect(t, res)
			*res = s.clientGone(c, *res, c.Err())
			return
		case <-ctx.Done():
			if ended() {
				return
			}
			s.interrupt(c, res.ThreadID, res.TurnID)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				s.timedOut(c, t, res, "turn timed out (context deadline)")
				return
			}
			res.Interrupted = true
			// Wait for codex to end the turn, so that the session is
			// clean for the next one and open items are final.
			timer := time.NewTimer(s.cfg.InterruptTimeout)
			select {
			case <-t.finished:
				timer.Stop()
				s.settle(c, t, res)
				res.Interrupted = true
				return
			case <-c.Done():
			case <-timer.C:
			}
			s.log.Warn("codex did not confirm the interrupt; retiring it", "turn", res.TurnID)
			s.collect(t, res)
			res.ShouldRetire = true
			s.retire(c)
			return
		case <-deadline.C:
			if ended() {
				return
			}
			s.interrupt(c, res.ThreadID, res.TurnID)
			s.timedOut(c, t, res, "turn timed out after "+seconds(s.cfg.TurnTimeout))
			return
		case <-t.wake:
			if checkWatchdog() {
				if !ended() {
					s.silent(c, t, res, quiet)
				}
				return
			}
		case <-watchdog.C:
			if checkWatchdog() {
				if !ended() {
					s.silent(c, t, res, quiet)
				}
				return
			}
		}
	}
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

func (s *Session) timedOut(c *Client, t *turnState, res *TurnResult, msg string) {
	s.collect(t, res)
	res.Interrupted = true
	res.Err = &TurnError{Kind: TurnErrTimeout, Message: withStderr(c, msg, errStderrLines)}
	// A turn that never finished is a strong sign codex is wedged in a
	// way the next turn should not inherit.
	res.ShouldRetire = true
	s.retire(c)
}

func (s *Session) silent(c *Client, t *turnState, res *TurnResult, quiet time.Duration) {
	s.interrupt(c, res.ThreadID, res.TurnID)
	s.collect(t, res)
	res.Interrupted = true
	res.Err = &TurnError{
		Kind:    TurnErrSilent,
		Message: "codex went silent for " + seconds(quiet.Round(time.Millisecond)) + " after a tool result; retiring app-server session.",
	}
	res.ShouldRetire = true
	s.retire(c)
}

// clientGone reports codex dying mid-turn.
func (s *Session) clientGone(c *Client, res TurnResult, cause error) TurnResult {
	res.ShouldRetire = true
	if errors.Is(cause, ErrClosed) {
		res.Err = &TurnError{Kind: TurnErrUsage, Message: ErrSessionClosed.Error(), Err: ErrSessionClosed}
		res.Interrupted = true
		return res
	}
	if looksLikeAuthFailure(strings.Join(stderrLines(c, deadAuthLines), "\n")) {
		res.Err = &TurnError{Kind: TurnErrAuth, Message: AuthHint, Err: cause}
	} else {
		msg := "codex app-server subprocess exited unexpectedly"
		var te *TerminatedError
		if errors.As(cause, &te) && te.Err != nil {
			msg += " (" + redact.String(te.Err.Error()) + ")"
		}
		res.Err = &TurnError{Kind: TurnErrExited, Message: withStderr(c, msg, deadStderrLines), Err: cause}
	}
	s.retire(c)
	return res
}

// collect moves what the turn gathered into res, closing open items.
func (s *Session) collect(t *turnState, res *TurnResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.finish() // late notifications are no longer this turn's
	// Approvals only come during a turn; items the turn left open would
	// otherwise stay here forever.
	clear(s.fileChanges)
	closing := t.proj.Close()
	t.messages = append(t.messages, closing.Messages...)
	if closing.HasFinalText {
		t.final = closing.FinalText
	}
	res.Messages = t.messages
	res.FinalText = t.final
	res.ToolIterations = t.tools
	res.Usage = t.usage
	res.Status = t.status
	if res.TurnID == "" {
		res.TurnID = t.id
	}
}

// settle reports a turn that codex ended (turn/completed or an abort
// marker).
func (s *Session) settle(c *Client, t *turnState, res *TurnResult) {
	s.collect(t, res)
	s.mu.Lock()
	aborted, status, turnErr, lastErr := t.aborted, t.status, t.turnErr, t.lastErr
	s.mu.Unlock()
	switch {
	case aborted:
		res.Interrupted = true
		res.Err = &TurnError{Kind: TurnErrAborted, Message: "codex reported turn_aborted"}
		// Codex may still think the turn is running.
		s.interrupt(c, res.ThreadID, res.TurnID)
	case status == "completed":
	case status == "interrupted":
		res.Interrupted = true
	default:
		detail := responsesError(turnErr)
		if detail == "" {
			detail = responsesError(lastErr)
		}
		if looksLikeAuthFailure(detail, strings.Join(stderrLines(c, authStderrLines), "\n")) {
			res.Err = &TurnError{Kind: TurnErrAuth, Message: AuthHint}
			res.ShouldRetire = true
			s.retire(c)
			return
		}
		msg := "turn ended status=" + orDefault(status, "unknown")
		if detail != "" {
			msg += ": " + redact.String(detail)
		}
		res.Err = &TurnError{Kind: TurnErrFailed, Message: withStderr(c, msg, errStderrLines)}
	}
}

// responsesError formats a codex TurnError object as "<code>: <message>",
// the code being codexErrorInfo (a string, or the single key of an object).
func responsesError(raw json.RawMessage) string {
	if jsonNull(raw) {
		return ""
	}
	var e struct {
		Message string          `json:"message"`
		Info    json.RawMessage `json:"codexErrorInfo"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return strings.TrimSpace(string(raw))
	}
	var code string
	if json.Unmarshal(e.Info, &code) != nil {
		var obj map[string]json.RawMessage
		if json.Unmarshal(e.Info, &obj) == nil {
			for k := range obj {
				code = k
			}
		}
	}
	switch {
	case code != "" && e.Message != "":
		return code + ": " + e.Message
	case e.Message != "":
		return e.Message
	case code != "":
		return code
	}
	return strings.TrimSpace(string(raw))
}

// onNotification is the client's OnNotification: it feeds the running turn.
func (s *Session) onNotification(n Notification) {
	if s.cfg.OnEvent != nil {
		s.callOnEvent(n)
	}
	var p notificationParams
	if len(n.Params) > 0 {
		// A notification of a shape we do not know still counts as
		// activity below; its fields are just not used.
		_ = json.Unmarshal(n.Params, &p)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch n.Method {
	case "item/started", "item/completed":
		s.trackFileChange(n.Method, p.Item)
	case "serverRequest/resolved":
		if cancel := s.requests[compactJSON(p.RequestID)]; cancel != nil {
			cancel()
		}
	}
	t := s.turn
	if t == nil || t.done {
		return
	}
	if p.ThreadID != "" && s.threadID != "" && p.ThreadID != s.threadID {
		return
	}
	turnID := p.TurnID
	if turnID == "" && p.Turn != nil {
		turnID = p.Turn.ID
	}
	if turnID != "" {
		switch {
		case t.id == "" && n.Method == "turn/started":
			t.id = turnID
			t.signal()
		case t.id == "":
			return // a straggler from an earlier turn
		case turnID != t.id:
			return
		}
	}
	s.observe(t, n.Method, &p)
}

func (s *Session) callOnEvent(n Notification) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("codex OnEvent panicked", "method", n.Method, "panic", r)
		}
	}()
	s.cfg.OnEvent(n)
}

// observe applies one notification of the running turn. Called with s.mu
// held.
func (s *Session) observe(t *turnState, method string, p *notificationParams) {
	t.lastActivity = time.Now()
	pr := t.proj.project(method, p)
	if method == "item/completed" && !t.echoSeen && len(pr.Messages) == 1 && pr.Messages[0].Role == "user" {
		// Codex's echo of our own input.
		t.echoSeen = true
		pr.Messages = nil
	}
	t.messages = append(t.messages, pr.Messages...)
	switch {
	case pr.ToolIteration:
		t.tools++
		t.armed = true
		t.signal()
	case len(pr.Messages) > 0 || pr.HasFinalText:
		// The model is producing output again after the tool.
		t.armed = false
	}
	if pr.HasFinalText {
		t.final = pr.FinalText
		for _, m := range turnAbortedMarkers {
			if strings.Contains(pr.FinalText, m) {
				t.aborted = true
				t.finish()
			}
		}
	}
	switch method {
	case "turn/completed":
		if p.Turn != nil {
			t.status = p.Turn.Status
			t.turnErr = p.Turn.Error
		}
		t.finish()
	case "thread/tokenUsage/updated":
		if p.TokenUsage != nil {
			u := *p.TokenUsage
			if t.usage != nil {
				u.Turn = t.usage.Turn
			}
			u.Turn.add(u.Last)
			t.usage = &u
		}
	case "error":
		if !p.WillRetry {
			t.lastErr = p.Error
		}
	}
}

// trackFileChange keeps the change summaries of running fileChange items
// for approval prompts, whose params carry no paths. Called with s.mu held.
func (s *Session) trackFileChange(method string, raw json.RawMessage) {
	if len(raw) == 0 || !strings.Contains(string(raw), `"fileChange"`) {
		return
	}
	var it struct {
		Type    string           `json:"type"`
		ID      string           `json:"id"`
		Changes []wireFileChange `json:"changes"`
	}
	if json.Unmarshal(raw, &it) != nil || it.Type != "fileChange" || it.ID == "" {
		return
	}
	if method == "item/started" {
		s.fileChanges[it.ID] = fileChangeSummary(it.Changes)
	} else {
		delete(s.fileChanges, it.ID)
	}
}

func compactJSON(raw json.RawMessage) string {
	return strings.TrimSpace(string(raw))
}

// onRequest is the client's OnRequest.
func (s *Session) onRequest(ctx context.Context, req *ServerRequest) (any, error) {
	var h RequestHandler
	switch req.Method {
	case "item/commandExecution/requestApproval":
		h = s.handleCommandApproval
	case "item/fileChange/requestApproval":
		h = s.handleFileChangeApproval
	case "item/permissions/requestApproval":
		h = s.handlePermissionsApproval
	case "mcpServer/elicitation/request":
		h = s.handleElicitation
	case "item/tool/call":
		h = s.handleToolCall
	default:
		s.log.Warn("unsupported codex server request", "method", req.Method)
		return nil, ErrMethodNotFound
	}
	ctx, done := s.beginRequest(ctx, req)
	defer done()
	return h(ctx, req)
}

// beginRequest ties a server request to the running turn: the watchdog
// waits while it is pending, and its context ends with the turn or when
// codex withdraws it.
func (s *Session) beginRequest(ctx context.Context, req *ServerRequest) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	t := s.turn
	stop := func() bool { return false }
	counted := t != nil && !t.done
	if counted {
		t.pending++
		stop = context.AfterFunc(t.ctx, cancel)
	}
	s.requests[req.ID] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.requests, req.ID)
		if counted {
			t.pending--
			t.lastActivity = time.Now()
			t.signal()
		}
		s.mu.Unlock()
		stop()
		cancel()
	}
}
