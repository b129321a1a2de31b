// Package stdio serves an mcp-go MCPServer over newline-delimited JSON-RPC
// on a reader and a writer (the process's stdin and stdout).
//
// mcp-go's own stdio transport writes notifications on a separate goroutine
// (so progress can arrive after the response it belongs to), drops them past
// a 100-item buffer, runs tool calls on five workers, cancels in-flight calls
// when stdin closes, and keeps its session in a package variable. This loop
// drives the same MCPServer through HandleMessage and fixes all of that:
//
//   - one writer and one FIFO: a handler's notifications are written in
//     order and before its response; none are dropped;
//   - every request runs on its own goroutine, uncapped; initialize and
//     notifications run inline, in arrival order;
//   - notifications/cancelled cancels the call's context even when it
//     arrives in the same read as the request, and no response is written
//     for a cancelled call;
//   - on EOF, in-flight calls finish and their responses are written before
//     Serve returns;
//   - a line that is not JSON, or not UTF-8, gets a JSON-RPC parse error;
//     nothing but protocol is ever written, and every line written is
//     valid UTF-8 JSON;
//   - an id comes back exactly as the client wrote it (mcp-go would round
//     it through float64); ids are compared exactly, and one that is not a
//     string or a number is refused (see requestID);
//   - Options.Methods serves methods mcp-go does not know (protocol
//     extensions) in the loop itself, with the same concurrency,
//     cancellation and 2026-07-28 result metadata as mcp-go's own.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// JSON-RPC error codes used by the loop itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// Options tune Serve.
type Options struct {
	// Logger receives diagnostics; nil discards them. It must not write to
	// the protocol stream.
	Logger *slog.Logger
	// Methods serves requests by method name in this loop instead of in
	// the MCPServer, which answers methods it does not know with -32601
	// and offers no way to add any. A method listed here never reaches the
	// MCPServer, so listing one it does implement replaces it.
	// Notifications are never routed here.
	Methods map[string]MethodFunc
	// ServerInfo is stamped into the _meta of results from Methods for
	// 2026-07-28 requests, as mcp-go stamps its own; it should be the
	// server's name and version.
	ServerInfo mcp.Implementation
	// Ready, when set, is closed once the MCPServer is fully set up.
	// Requests for it other than initialize wait until then, so a server
	// may finish registering its tools while the handshake is under way;
	// requests served by Methods do not wait.
	Ready <-chan struct{}
	// Prepare, when set, is called (from several goroutines, so it must be
	// idempotent) before a request waits for Ready, so that a server may
	// start on demand what Ready waits for.
	Prepare func()
	// Session, when set, makes this Serve one stream of a session that
	// spans several (a Streamable HTTP session's POSTs): the stream shares
	// its negotiated state and its calls in flight (so ids, duplicates and
	// notifications/cancelled are per session), and Serve neither
	// registers nor unregisters it with the MCPServer, which is its
	// owner's job. Nil gives the stream a session of its own.
	Session *Session
}

// Serve reads requests from in and writes responses to out until in reaches
// EOF (then in-flight calls finish, their responses are written, and Serve
// returns nil) or ctx is cancelled (then in-flight calls are cancelled and
// Serve returns ctx's error once they have returned). A failure to write to
// out ends the connection with that error.
func Serve(ctx context.Context, srv *server.MCPServer, in io.Reader, out io.Writer, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &conn{
		srv:     srv,
		log:     log,
		out:     newOutput(out, log),
		methods: opts.Methods,
		info:    opts.ServerInfo,
		ready:   opts.Ready,
		prepare: opts.Prepare,
	}
	shared := opts.Session
	if shared == nil {
		shared = NewSession(newSessionID())
	}
	c.sess = &session{Session: shared, out: c.out}
	if opts.Session == nil {
		if err := srv.RegisterSession(ctx, c.sess); err != nil {
			return fmt.Errorf("register stdio session: %w", err)
		}
		defer srv.UnregisterSession(context.WithoutCancel(ctx), c.sess.id)
	}

	go c.out.run()
	// calls run under base, which also ends when the client can no longer
	// be written to: their answers could not be delivered.
	base, stopCalls := context.WithCancel(ctx)
	defer stopCalls()
	c.base = srv.WithContext(base, c.sess)

	readDone := make(chan error, 1)
	go func() { readDone <- c.readLoop(in) }()

	var err error
	select {
	case err = <-readDone:
	case <-ctx.Done():
		// The reader may be blocked in a read that only the peer can end;
		// it exits when in is closed, which the owner of in does.
		err = ctx.Err()
	case <-c.out.failed:
		// The client stopped reading (a closed pipe): nothing more can be
		// answered. The reader is left to in's owner, as above.
		err = fmt.Errorf("write to the client: %w", c.out.writeErr())
		stopCalls()
	}
	c.calls.Wait()
	c.out.close()
	<-c.out.done
	if err == nil {
		err = c.out.writeErr()
	}
	if err != nil && ctx.Err() == nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

type conn struct {
	srv  *server.MCPServer
	log  *slog.Logger
	out  *output
	sess *session
	base context.Context

	ready   <-chan struct{}
	prepare func()
	calls   sync.WaitGroup

	methods map[string]MethodFunc
	info    mcp.Implementation
}

// call is one request being served.
type call struct {
	cancel    context.CancelFunc
	cancelled bool // by the client; guarded by Session.callsMu
}

func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "stdio-" + hex.EncodeToString(b[:])
}

func (c *conn) readLoop(in io.Reader) error {
	r := bufio.NewReaderSize(in, ioBufSize)
	for {
		line, err := r.ReadBytes('\n')
		// Only JSON's own whitespace: bytes.TrimSpace would also take
		// U+0085 and U+00A0, and pass a line that is not JSON text.
		if trimmed := bytes.Trim(line, " \t\r\n"); len(trimmed) > 0 {
			c.dispatch(trimmed)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read request stream: %w", err)
		}
	}
}

// members are a message's top-level members by exact name. When a name
// repeats, the last one counts, as in encoding/json (and so in mcp-go).
// Exact names matter: encoding/json matches struct fields without regard
// to case, so mcp-go would take "ID" for the id; it is given only the
// members read here (see mcpLine), so both read the same message.
type members map[string]json.RawMessage

func (m members) has(name string) bool {
	v, ok := m[name]
	return ok && v != nil
}

// dispatch routes one line. It is the gate of the wire: what passes it is
// valid UTF-8 JSON with a usable id (or none), and only that reaches
// mcp-go or a method.
func (c *conn) dispatch(line []byte) {
	// JSON text must be UTF-8 (RFC 8259 §8.1), and encoding/json does not
	// check: it turns invalid bytes inside strings into U+FFFD. Replacing
	// would run a request other than the one sent (a path argument with a
	// different name, two distinct ids made equal), so the line is refused
	// instead, and nothing of it is echoed.
	if !utf8.Valid(line) {
		c.replyError(requestID{}, codeParseError, "Parse error: the line is not valid UTF-8; JSON text must be UTF-8")
		return
	}
	if !json.Valid(line) {
		c.replyError(requestID{}, codeParseError, "Parse error: the line is not valid JSON; send one JSON-RPC message per line")
		return
	}
	if line[0] == '[' {
		c.replyError(requestID{}, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per line")
		return
	}
	var m members
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		c.replyError(requestID{}, codeInvalidRequest, "Invalid Request: a message must be a JSON object")
		return
	}
	if !m.has("method") && (m.has("result") || m.has("error")) {
		// A reply to a server-to-client request; this server sends none,
		// and a reply is never answered, whatever its id.
		c.log.Debug("ignoring response to unknown server request", "id", string(m["id"]))
		return
	}
	var id requestID
	rawID, hasID := m["id"]
	if hasID {
		var err error
		if id, err = parseID(rawID); err != nil {
			c.replyError(requestID{}, codeInvalidRequest, "Invalid Request: id must be a string or a number")
			return
		}
	}
	var method string
	if raw, ok := m["method"]; !ok {
		c.replyError(id, codeInvalidRequest, "Invalid Request: missing method")
		return
	} else if json.Unmarshal(raw, &method) != nil {
		c.replyError(id, codeInvalidRequest, "Invalid Request: method must be a string")
		return
	}
	switch {
	case !hasID:
		c.notification(method, m)
	case method == string(mcp.MethodInitialize):
		// Inline, so a pipelined request never overtakes the handshake.
		c.respond(c.base, id, method, m)
	default:
		c.request(id, method, m)
	}
}

func (c *conn) notification(method string, m members) {
	if method == string(mcp.MethodNotificationCancelled) {
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
			Reason    string          `json:"reason"`
		}
		if json.Unmarshal(m["params"], &p) == nil && len(p.RequestID) > 0 {
			if id, err := parseID(p.RequestID); err == nil {
				c.cancel(id, p.Reason)
			}
		}
		// Not passed on: mcp-go knows requests by the internal ids it was
		// given, so the client's requestId would name nothing there, or
		// the wrong call. Our cancel ends the call's context, which
		// mcp-go's is derived from.
		return
	}
	c.handle(c.base, requestID{}, method, m)
}

// cancel marks a call cancelled by the client. Our own map is filled before
// the call's goroutine starts, so a cancel that arrives in the same read as
// its request still finds it (mcp-go's map would not have it yet).
func (c *conn) cancel(id requestID, reason string) {
	c.sess.callsMu.Lock()
	cl := c.sess.inflight[id.key]
	if cl != nil {
		cl.cancelled = true
	}
	c.sess.callsMu.Unlock()
	if cl != nil {
		c.log.Debug("request cancelled by client", "id", id.String(), "reason", reason)
		cl.cancel()
	}
}

func (c *conn) request(id requestID, method string, m members) {
	ctx, cancel := context.WithCancel(c.base)
	cl := &call{cancel: cancel}
	c.sess.callsMu.Lock()
	_, dup := c.sess.inflight[id.key]
	if !dup {
		c.sess.inflight[id.key] = cl
	}
	c.sess.callsMu.Unlock()
	if dup {
		cancel()
		c.replyError(id, codeInvalidRequest, fmt.Sprintf("Invalid Request: id %s is already in use by a request in progress", id))
		return
	}
	c.calls.Add(1)
	go func() {
		defer c.calls.Done()
		defer cancel()
		if _, own := c.methods[method]; c.ready != nil && !own {
			if c.prepare != nil {
				c.prepare()
			}
			select {
			case <-c.ready:
			case <-ctx.Done():
				c.sess.callsMu.Lock()
				delete(c.sess.inflight, id.key)
				c.sess.callsMu.Unlock()
				return // cancelled, or the connection ended, before the server was ready
			}
		}
		body := c.handle(ctx, id, method, m)
		c.sess.callsMu.Lock()
		delete(c.sess.inflight, id.key)
		cancelled := cl.cancelled
		c.sess.callsMu.Unlock()
		if cancelled {
			// The spec says a receiver should not answer a cancelled request.
			return
		}
		if body != nil {
			c.out.send(reply{id: id, body: body})
		}
	}()
}

// respond handles a request inline and queues its response.
func (c *conn) respond(ctx context.Context, id requestID, method string, m members) {
	if body := c.handle(ctx, id, method, m); body != nil {
		c.out.send(reply{id: id, body: body})
	}
}

// handle runs one message through mcp-go, or a request through its entry
// in Options.Methods, and returns the response's body (its id is the
// caller's to add), nil for none. A panic outside a tool handler (tool
// panics are turned into error results closer to the tool) becomes an
// internal-error response instead of killing the server.
func (c *conn) handle(ctx context.Context, id requestID, method string, m members) (body any) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic while handling message", "panic", r, "stack", string(debug.Stack()))
			if id.valid() {
				body = errorBody{Code: codeInternalError, Message: fmt.Sprintf("Internal error: %v", r)}
			}
		}
	}()
	if fn, ok := c.methods[method]; ok && id.valid() {
		return c.serveMethod(ctx, fn, m)
	}
	var internal json.RawMessage
	if id.valid() {
		internal = internalID(id)
	}
	msg := c.srv.HandleMessage(ctx, mcpLine(m, internal))
	if msg == nil {
		return nil
	}
	return msg
}

// mcpLine is the message mcp-go is given: the members it reads, by their
// exact names, with the client's id replaced by an internal one (nil for a
// notification). The response's id is ours to write (see reply), so mcp-go
// never sees, converts or echoes the client's id.
func mcpLine(m members, id json.RawMessage) []byte {
	n := len(id) + 64
	for _, k := range [...]string{"jsonrpc", "method", "params"} {
		n += len(m[k])
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	add := func(name string, v json.RawMessage) {
		if v == nil {
			return
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = append(b, v...)
	}
	add("jsonrpc", m["jsonrpc"])
	add("id", id)
	add("method", m["method"])
	add("params", wrapProgressToken(m["params"]))
	return append(b, '}')
}

// wrapProgressToken hands mcp-go the request's progress token as a string
// holding the client's exact token, as internalID does for the id: mcp-go
// reads a numeric token into float64 and would echo it changed in
// notifications/progress (notificationLine turns it back). Params without
// a token, or that do not decode, pass as they are.
func wrapProgressToken(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"progressToken"`)) {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(p["_meta"], &meta) != nil || meta == nil {
		return params
	}
	tok, ok := meta["progressToken"]
	if !ok {
		return params
	}
	wrapped, err := json.Marshal(internalPrefix + string(bytes.TrimSpace(tok)))
	if err != nil {
		return params
	}
	meta["progressToken"] = wrapped
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return params
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

func (c *conn) replyError(id requestID, code int, message string) {
	c.out.enqueue(reply{id: id, body: errorBody{Code: code, Message: message}}) // from the reader
}

// errorBody is a JSON-RPC error object.
type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}
