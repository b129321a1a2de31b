package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
)

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
	// Notices tell the user what the session did on its own to keep
	// going: a thread it could not resume and replaced, a turn it ended
	// because codex never reported the end.
	Notices []string
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

// turnStartTimeout bounds turn/start, which codex answers at once.
const turnStartTimeout = 10 * time.Second

// RunTurn sends input as a new turn and waits for it to end, answering
// codex's requests meanwhile. Cancelling ctx interrupts the turn (it then
// waits up to InterruptTimeout for codex to confirm); a ctx deadline counts
// as the turn timing out. Every outcome, startup failures included, is in
// the result.
func (s *Session) RunTurn(ctx context.Context, input ...UserInput) (res TurnResult) {
	if err := s.acquire(ctx); err != nil {
		if errors.Is(err, ErrSessionClosed) {
			res.Err = &TurnError{Kind: TurnErrUsage, Message: err.Error(), Err: err}
		} else {
			res.Interrupted = true
		}
		return res
	}
	defer s.release()
	defer func() { res.Notices = append(s.takeNotices(), res.Notices...) }()
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
	res = s.runTurn(ctx, c, "turn/start", s.turnStartParams(input))
	if reused && res.TurnID == "" && res.ShouldRetire && errors.Is(res.Err, errGoneBeforeTurn) {
		// Codex died between turns and we only noticed at turn/start:
		// nothing of this turn happened, so start a new codex and try
		// once more.
		s.log.Warn("codex app-server had exited before the turn; restarting", "error", res.Err)
		if c, err = s.ensureStarted(ctx); err != nil {
			return s.startupFailed(ctx, c, err)
		}
		res = s.runTurn(ctx, c, "turn/start", s.turnStartParams(input))
	}
	return res
}

// turnStartParams are turn/start's params but for threadId, which runTurn
// sets.
func (s *Session) turnStartParams(input []UserInput) map[string]any {
	params := maps.Clone(s.cfg.TurnParams)
	if params == nil {
		params = map[string]any{}
	}
	params["input"] = input
	return params
}

// errGoneBeforeTurn marks a turn/start that failed because codex was gone.
var errGoneBeforeTurn = errors.New("codex app-server gone before the turn started")

// runTurn calls method (turn/start, or review/start and
// thread/compact/start, which run a turn too) on the session's thread and
// waits for the turn it starts.
func (s *Session) runTurn(ctx context.Context, c *Client, method string, params map[string]any) TurnResult {
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

	params["threadId"] = res.ThreadID
	var started struct {
		Turn struct {
			ID string `json:"id"`
		} `json:"turn"`
	}
	callCtx, cancelCall := context.WithTimeout(ctx, s.turnStartTimeout)
	err := s.callLoaded(callCtx, c, method, params, &started)
	cancelCall()
	if err != nil {
		return s.turnStartFailed(ctx, c, t, res, method, err)
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

	// Codex has been seen to leave out turn/completed after tool calls;
	// the items then say the turn is over. answered: the model gave its
	// answer after a tool (the watchdog then ends the turn rather than
	// failing it); idleAt: codex reported the thread idle, which it does
	// just before turn/completed, so the turn ends after a grace period
	// even with no tool involved.
	answered bool
	idleAt   time.Time
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
		src := turnErr
		detail := responsesError(src)
		if detail == "" {
			src = lastErr
			detail = responsesError(src)
		}
		// The code comes from the error the message does.
		code, httpStatus := errorInfo(src)
		if looksLikeAuthFailure(detail, strings.Join(stderrLines(c, authStderrLines), "\n")) {
			res.Err = &TurnError{Kind: TurnErrAuth, Message: AuthHint, Code: code, HTTPStatus: httpStatus}
			res.ShouldRetire = true
			s.retire(c)
			return
		}
		if text, ok := strings.CutPrefix(detail, usageLimitCode+": "); ok {
			// Codex's own words say when; its stderr says nothing more.
			res.Err = &TurnError{Kind: TurnErrLimit, Message: usageLimitMessage(redact.String(text), time.Now())}
			return
		}
		msg := "turn ended status=" + orDefault(status, "unknown")
		if detail != "" {
			msg += ": " + redact.String(detail)
		}
		res.Err = &TurnError{Kind: TurnErrFailed, Message: withStderr(c, msg, errStderrLines), Code: code, HTTPStatus: httpStatus}
	}
}
