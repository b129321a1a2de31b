package bridge

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// JSON-RPC error codes used on the wire. Codex itself answers most bad
// requests with CodeInvalidRequest, including unknown methods.
const (
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// ErrClosed is what Err reports, and what calls fail with, once Close has
// been called.
var ErrClosed = errors.New("codex app-server client closed")

// ErrMethodNotFound may be returned (or wrapped) by a RequestHandler for a
// server request it does not implement; the server then gets error -32601.
var ErrMethodNotFound = errors.New("method not found")

// RPCError is a JSON-RPC error response. Call returns it when codex answers
// with an error, and a RequestHandler may return one to choose the code sent
// back to codex.
type RPCError struct {
	// Method is the request's method; it is empty in handler replies.
	Method string
	Code   int64
	// Message is redacted when the error comes from codex, because codex
	// relays provider error bodies verbatim.
	Message string
	// Data is the optional structured detail, e.g. codex's
	// {"config_write_error_code": …}. It is not part of Error().
	Data json.RawMessage
}

func (e *RPCError) Error() string {
	if e.Method == "" {
		return fmt.Sprintf("codex app-server error %d: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("codex app-server %s: error %d: %s", e.Method, e.Code, e.Message)
}

// TerminatedError explains why the app-server went away without Close being
// called first: the child exited, or the connection broke.
type TerminatedError struct {
	// Err is the underlying cause: the child's wait error (an
	// *exec.ExitError), a protocol error from a malformed message, or a
	// client-side failure such as a notification backlog overflow.
	Err error
	// Exited reports whether the child had exited when the error was made;
	// ExitCode is its exit code then, or -1 if a signal ended it.
	Exited   bool
	ExitCode int
	// Stderr is the redacted tail of codex's stderr, most recent last.
	Stderr string
}

func (e *TerminatedError) Error() string {
	var b strings.Builder
	b.WriteString("codex app-server ")
	switch {
	case e.Exited && e.Err == nil:
		fmt.Fprintf(&b, "exited with status %d", e.ExitCode)
	case e.Exited:
		fmt.Fprintf(&b, "exited: %v", e.Err)
	default:
		fmt.Fprintf(&b, "connection failed: %v", e.Err)
	}
	if e.Stderr != "" {
		b.WriteString("; stderr tail:\n")
		b.WriteString(e.Stderr)
	}
	return b.String()
}

func (e *TerminatedError) Unwrap() error { return e.Err }
