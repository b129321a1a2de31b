package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
)

// AuthHint is the error text for a failure that looks like an expired or
// invalid codex login.
const AuthHint = "Codex authentication failed — your ChatGPT/Codex login looks expired or invalid. " +
	"Run `codex login` to refresh, then retry. " +
	"(Fall back to default runtime with `/codex-runtime auto` if the issue persists.)"

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
	TurnErrLimit     TurnErrorKind = "limit"      // the account's usage limit is reached
)

// TurnError is a failed turn.
type TurnError struct {
	Kind TurnErrorKind
	// Message is the user-facing text, redacted.
	Message string
	// Err is the underlying error, if any.
	Err error
	// Code is codex's codexErrorInfo for a turn it failed
	// ("internalServerError", "httpConnectionFailed", ...), and
	// HTTPStatus the model API's status when codex reports one.
	Code       string
	HTTPStatus int
}

func (e *TurnError) Error() string { return e.Message }
func (e *TurnError) Unwrap() error { return e.Err }

// How much of codex's stderr goes into errors: a few lines in general,
// more when codex died (the panic or fatal error is in there), more
// still to search for signs of an authentication failure.
const (
	errStderrLines  = 12
	deadStderrLines = 20
	authStderrLines = 40
	deadAuthLines   = 60
)

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

func (s *Session) turnStartFailed(ctx context.Context, c *Client, t *turnState, res TurnResult, method string, err error) TurnResult {
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
			res.Err = &TurnError{Kind: TurnErrTurnStart, Message: withStderr(c, method+" failed: "+err.Error(), errStderrLines), Err: err}
		}
	default:
		// No answer to a request codex answers at once: it is wedged.
		msg := withStderr(c, method+" timed out: "+redact.String(err.Error()), errStderrLines)
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

// errorInfo is a codex TurnError object's codexErrorInfo: its code (a
// string, or the key of a one-key object) and the httpStatusCode such an
// object carries.
func errorInfo(raw json.RawMessage) (code string, status int) {
	if jsonNull(raw) {
		return "", 0
	}
	var e struct {
		Info json.RawMessage `json:"codexErrorInfo"`
	}
	if json.Unmarshal(raw, &e) != nil || jsonNull(e.Info) {
		return "", 0
	}
	if json.Unmarshal(e.Info, &code) == nil {
		return code, 0
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(e.Info, &obj) == nil && len(obj) == 1 {
		for k, v := range obj {
			code = k
			var detail struct {
				Status int `json:"httpStatusCode"`
			}
			if json.Unmarshal(v, &detail) == nil {
				status = detail.Status
			}
		}
	}
	return code, status
}

// responsesError formats a codex TurnError object as "<code>: <message>",
// the code being codexErrorInfo (a string, or the single key of an object).
func responsesError(raw json.RawMessage) string {
	if jsonNull(raw) {
		return ""
	}
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return strings.TrimSpace(string(raw))
	}
	code, _ := errorInfo(raw)
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
