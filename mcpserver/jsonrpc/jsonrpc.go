// Package jsonrpc is JSON-RPC 2.0 as the MCP transports speak it: the gate
// every incoming message passes (Parse), request ids (ID), the lines
// written back (AppendResult, AppendError), the calls in flight of a
// session (Calls), and what a transport needs of the server it carries
// (Opener, Session). The stdio loop and the Streamable HTTP handler share
// it, so both read a message, and answer it, the same way.
package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"unicode/utf8"
)

// JSON-RPC error codes.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// Session is one MCP session as a transport sees it. Handle serves one
// message; the notifications a request produces (progress) go to notify,
// in order, before Handle returns, and Handle returns the response line
// (ending in a newline), or nil when there is none (a notification, a
// reply). Handle is called from many goroutines at once. Close ends the
// session.
type Session interface {
	Handle(ctx context.Context, msg *Message, notify func(line []byte)) []byte
	Close()
}

// Opener opens sessions. reserve is how the server sends a session the
// notifications no request of its owns (resources/list_changed): it holds
// a place in the session's output at once, and the function it returns
// fills that place, exactly once (nil for nothing), so a notification
// sent while a call runs is written before that call's response.
type Opener interface {
	Open(ctx context.Context, id string, reserve func() func(line []byte)) (Session, error)
}

// Kind says what a message is.
type Kind int

const (
	// KindRequest has a method and a usable id, and is answered.
	KindRequest Kind = iota + 1
	// KindNotification has a method and no id, and is not answered.
	KindNotification
	// KindReply is a client's reply to a server request (result or error
	// without a method). This server sends none, so it is never answered.
	KindReply
)

// Message is a message that passed Parse.
type Message struct {
	Kind   Kind
	ID     ID // KindRequest only
	Method string
	// Params, Version and Result are the members params, jsonrpc and
	// result as sent, nil when absent.
	Params  json.RawMessage
	Version json.RawMessage
	Result  json.RawMessage
}

// Error is a JSON-RPC error: a message refused by Parse (with ID null
// unless the message's own id could be read), or what a MethodFunc
// returns to choose the error it is answered with.
type Error struct {
	ID      ID
	Code    int
	Message string
	// Data is sent as the error's data member unless nil.
	Data any
}

func (e *Error) Error() string { return e.Message }

// Line is the error response.
func (e *Error) Line() []byte { return AppendError(nil, e.ID, e.Code, e.Message, e.Data) }

// Errorf returns an *Error with a formatted message.
func Errorf(code int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MethodFunc serves one request of a method. params is the request's
// params member as sent (nil when absent or null). The result is encoded
// as the response's result and must encode as a JSON object. An *Error
// (found with errors.As) chooses the JSON-RPC error; any other error is
// answered as an internal error.
//
// ctx is cancelled when the client cancels the request or the connection
// ends; no response is written then. It carries the request's protocol
// information as mcp-go would: server.IsModernRequest and
// server.RequestProtocolVersion work on it.
type MethodFunc func(ctx context.Context, params json.RawMessage) (any, error)

// Encoded is a MethodFunc result that is already encoded: one compact JSON
// object on one line (no raw line breaks). It is written as it is, which
// spares a large result a second encoding pass; the method vouches for it.
type Encoded []byte

// Parse is the gate of the wire: what passes it is valid UTF-8 JSON, one
// object, with a usable id (or none) and a string method. Members are
// read by their exact names (encoding/json would match "ID" for "id");
// when a name repeats, the last one counts, as in encoding/json. The
// message's members alias line.
func Parse(line []byte) (*Message, *Error) {
	// JSON text must be UTF-8 (RFC 8259 §8.1), and encoding/json does not
	// check: it turns invalid bytes inside strings into U+FFFD. Replacing
	// would run a request other than the one sent (a path argument with a
	// different name, two distinct ids made equal), so the line is refused
	// instead, and nothing of it is echoed.
	if !utf8.Valid(line) {
		return nil, &Error{Code: CodeParseError, Message: "Parse error: the line is not valid UTF-8; JSON text must be UTF-8"}
	}
	if !json.Valid(line) {
		return nil, &Error{Code: CodeParseError, Message: "Parse error: the line is not valid JSON; send one JSON-RPC message per line"}
	}
	line = bytes.TrimLeft(line, " \t\r\n")
	if line[0] == '[' {
		return nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: JSON-RPC batches are not supported; send one message per line"}
	}
	if line[0] != '{' {
		return nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: a message must be a JSON object"}
	}
	var rawID, rawMethod, rawError json.RawMessage
	msg := &Message{}
	for name, value := range Members(line) {
		switch name {
		case "jsonrpc":
			msg.Version = value
		case "id":
			rawID = value
		case "method":
			rawMethod = value
		case "params":
			msg.Params = value
		case "result":
			msg.Result = value
		case "error":
			rawError = value
		}
	}
	if rawMethod == nil && (msg.Result != nil || rawError != nil) {
		msg.Kind = KindReply
		return msg, nil
	}
	if rawID != nil {
		id, err := ParseID(rawID)
		if err != nil {
			return nil, &Error{Code: CodeInvalidRequest, Message: "Invalid Request: id must be a string or a number"}
		}
		msg.ID = id
	}
	if rawMethod == nil {
		return nil, &Error{ID: msg.ID, Code: CodeInvalidRequest, Message: "Invalid Request: missing method"}
	}
	method, ok := decodeString(rawMethod)
	if !ok {
		return nil, &Error{ID: msg.ID, Code: CodeInvalidRequest, Message: "Invalid Request: method must be a string"}
	}
	msg.Method = method
	msg.Kind = KindNotification
	if rawID != nil {
		msg.Kind = KindRequest
	}
	return msg, nil
}

// Members yields the members of a JSON object, by name (unescaped) and
// value (as it appears in obj). obj must be valid JSON; anything but an
// object yields nothing.
func Members(obj []byte) func(yield func(string, json.RawMessage) bool) {
	return func(yield func(string, json.RawMessage) bool) {
		i := skipSpace(obj, 0)
		if i >= len(obj) || obj[i] != '{' {
			return
		}
		i++
		for {
			i = skipSpace(obj, i)
			if i >= len(obj) || obj[i] != '"' {
				return // '}': the end
			}
			end := skipString(obj, i)
			name, ok := decodeString(obj[i:end])
			if !ok {
				return
			}
			i = skipSpace(obj, end)
			i = skipSpace(obj, i+1) // the colon
			vend := skipValue(obj, i)
			if !yield(name, obj[i:vend]) {
				return
			}
			i = skipSpace(obj, vend)
			if i >= len(obj) || obj[i] != ',' {
				return
			}
			i++
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value starting at b[i], in
// valid JSON.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	default: // a number or a literal
		for ; i < len(b); i++ {
			switch b[i] {
			case ' ', '\t', '\r', '\n', ',', '}', ']':
				return i
			}
		}
		return i
	}
}

// decodeString reads a JSON string token. Most have no escapes and are
// taken as they are.
func decodeString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// ID is a request's id as the client sent it. ParseID is the one place ids
// are read and AppendID the one place they are written; nothing else looks
// inside one.
//
// The rule:
//
//   - A string or a number is an id. It is written back as the exact token
//     the client sent (after the line has been checked to be valid UTF-8
//     JSON), never through a float64: 9007199254740993 and 2^70 come back
//     digit for digit.
//   - Two ids are the same id (for "already in use" and for
//     notifications/cancelled) when they are the same string after JSON
//     unescaping ("a" and "\u0061"), or the same number by exact decimal
//     value (1, 1.0, 1e0 and 10e-1 are one id; 9007199254740992 and
//     9007199254740993 are two). A string is never the same as a number:
//     "1" and 1 are two ids. JSON-RPC says ids should not have fractional
//     parts and MCP says integers; a fractional or exponent-form number is
//     still accepted and echoed as sent.
//   - An object, array or boolean is not an id: the request is answered with
//     -32600 and id null. So is null, which MCP forbids as a request id
//     (and which could not be told apart from the null of an error about
//     an unreadable id).
//
// Escaped lone surrogates ("\ud800") decode to U+FFFD, as everywhere in
// encoding/json, so such a string is the same id as "\ufffd"; it is still
// echoed as sent.
type ID struct {
	raw json.RawMessage // the token as sent; nil for "no usable id"
	key string          // equal exactly for the same id
}

// Valid reports whether the id can be answered with (and is not null).
func (id ID) Valid() bool { return id.raw != nil }

// Raw is the token as the client sent it, nil for none.
func (id ID) Raw() json.RawMessage { return id.raw }

// Key is equal for the same id, and only for it.
func (id ID) Key() string { return id.key }

// String is for logs and error messages; the wire uses AppendID.
func (id ID) String() string {
	if id.raw == nil {
		return "null"
	}
	return string(id.raw)
}

var errBadID = errors.New("id must be a string or a number")

// ParseID reads the id member of a request. raw is the member's value as
// it appears in a line already checked to be valid UTF-8 JSON.
func ParseID(raw json.RawMessage) (ID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ID{}, errBadID
	}
	switch c := raw[0]; {
	case c == '"':
		s, ok := decodeString(raw)
		if !ok {
			return ID{}, errBadID
		}
		return ID{raw: raw, key: "s:" + s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		key, ok := numberKey(raw)
		if !ok {
			return ID{}, errBadID
		}
		return ID{raw: raw, key: key}, nil
	default: // null, true, false, an object or an array
		return ID{}, errBadID
	}
}

// AppendID writes an id to an outgoing line: the client's token, or null
// when the request had no usable id.
func AppendID(b []byte, id ID) []byte {
	if id.raw == nil {
		return append(b, "null"...)
	}
	return append(b, id.raw...)
}

// numberKey is the exact decimal value of a JSON number token, normalised
// to "n:[-]digits e exponent" with no leading or trailing zeros in digits,
// so equal values give equal keys without any floating point. The exponent
// is arbitrary precision: 1e999999999999999999999 is a (silly) id, not an
// overflow.
func numberKey(tok []byte) (string, bool) {
	i := 0
	neg := false
	if i < len(tok) && tok[i] == '-' {
		neg = true
		i++
	}
	start := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	intPart := tok[start:i]
	if len(intPart) == 0 || (len(intPart) > 1 && intPart[0] == '0') {
		return "", false
	}
	var frac []byte
	if i < len(tok) && tok[i] == '.' {
		i++
		start = i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		frac = tok[start:i]
		if len(frac) == 0 {
			return "", false
		}
	}
	exp := new(big.Int)
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		start = i
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		digits := i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		if i == digits {
			return "", false
		}
		if _, ok := exp.SetString(string(tok[start:i]), 10); !ok {
			return "", false
		}
	}
	if i != len(tok) {
		return "", false
	}
	if len(frac) == 0 && exp.Sign() == 0 && !neg {
		// The common case, a plain non-negative integer: no trailing
		// zeros to move into the exponent unless there are any.
		if intPart[len(intPart)-1] != '0' {
			return "n:" + string(intPart) + "e0", true
		}
	}
	digits := make([]byte, 0, len(intPart)+len(frac))
	digits = append(append(digits, intPart...), frac...)
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	digits = bytes.TrimLeft(digits, "0")
	if len(digits) == 0 {
		return "n:0", true // -0, 0.0 and 0e7 are all zero
	}
	trimmed := bytes.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	sign := ""
	if neg {
		sign = "-"
	}
	return "n:" + sign + string(trimmed) + "e" + exp.String(), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// AppendResult appends the line of a success response whose result is
// already encoded (one compact JSON value without line breaks).
func AppendResult(b []byte, id ID, result []byte) []byte {
	return AppendResponse(b, id, "result", result)
}

// AppendResponse appends a response line whose member (result or error)
// is already encoded.
func AppendResponse(b []byte, id ID, member string, value []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = AppendID(b, id)
	b = append(b, ',', '"')
	b = append(b, member...)
	b = append(b, '"', ':')
	b = append(b, value...)
	return Finish(append(b, "}\n"...))
}

// errorObject is a JSON-RPC error object.
type errorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// AppendError appends the line of an error response; data is left out
// when nil.
func AppendError(b []byte, id ID, code int, message string, data any) []byte {
	enc, err := Encode(errorObject{Code: code, Message: message, Data: data})
	if err != nil {
		// Data that does not encode (a NaN, a channel) is dropped rather
		// than losing the answer.
		enc, _ = Encode(errorObject{Code: code, Message: message})
	}
	return AppendResponse(b, id, "error", enc)
}

// Encode encodes v compactly without HTML escaping, as every line the
// server writes: escaping only makes what models read (code, markup)
// harder to read.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Finish makes a line fit for the wire: every line written is valid UTF-8.
// Input is checked and encoding/json writes strings as valid UTF-8; only a
// pre-encoded value (a tool's raw structured content) can carry invalid
// bytes, and outside strings our JSON is ASCII, so they are inside strings
// and replacing them keeps the line valid JSON.
func Finish(line []byte) []byte {
	if !utf8.Valid(line) {
		return bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	return line
}

// Calls are the requests in flight of one session, by id, across the
// streams that carry it (a Streamable HTTP session's POSTs): an id in use
// is refused, and notifications/cancelled on any stream finds the call.
type Calls struct {
	mu sync.Mutex
	m  map[string]*Call
}

// Call is one request in flight.
type Call struct {
	cancel   context.CancelFunc
	byClient bool // guarded by Calls.mu
}

// Begin registers a request, with a context of its own under ctx that a
// cancel ends. ok is false when its id is in use by a request in flight.
// The record is in place before the request's goroutine starts, so a
// cancel read right after its request still finds it.
func (c *Calls) Begin(ctx context.Context, id ID) (_ context.Context, _ *Call, ok bool) {
	ctx, cancel := context.WithCancel(ctx)
	cl := &Call{cancel: cancel}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.m[id.key]; dup {
		cancel()
		return nil, nil, false
	}
	if c.m == nil {
		c.m = map[string]*Call{}
	}
	c.m[id.key] = cl
	return ctx, cl, true
}

// InUseError is the answer to a request whose id is in use.
func InUseError(id ID) *Error {
	return &Error{ID: id, Code: CodeInvalidRequest, Message: "Invalid Request: id " + id.String() + " is already in use by a request in progress"}
}

// End forgets a request and releases its context. It reports whether the
// client cancelled it: the spec says a cancelled request is not answered.
func (c *Calls) End(id ID, cl *Call) (cancelledByClient bool) {
	c.mu.Lock()
	if c.m[id.key] == cl {
		delete(c.m, id.key)
	}
	cancelled := cl.byClient
	c.mu.Unlock()
	cl.cancel()
	return cancelled
}

// Cancel cancels the request the client names in notifications/cancelled
// (its params as sent); false when none of that id is in flight.
func (c *Calls) Cancel(params json.RawMessage) bool {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return false
	}
	id, err := ParseID(p.RequestID)
	if err != nil {
		return false
	}
	c.mu.Lock()
	cl := c.m[id.key]
	if cl != nil {
		cl.byClient = true
	}
	c.mu.Unlock()
	if cl != nil {
		cl.cancel()
	}
	return cl != nil
}

// CancelAll cancels every request in flight, as when the session ends.
func (c *Calls) CancelAll() {
	c.mu.Lock()
	cls := make([]*Call, 0, len(c.m))
	for _, cl := range c.m {
		cls = append(cls, cl)
	}
	c.mu.Unlock()
	for _, cl := range cls {
		cl.cancel()
	}
}
