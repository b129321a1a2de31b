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
//   - a line that is not JSON gets a JSON-RPC parse error; nothing but
//     protocol is ever written;
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
		srv:      srv,
		log:      log,
		out:      newOutput(out, log),
		inflight: map[string]*call{},
		methods:  opts.Methods,
		info:     opts.ServerInfo,
		ready:    opts.Ready,
		prepare:  opts.Prepare,
	}
	c.sess = &session{id: newSessionID(), out: c.out}
	if err := srv.RegisterSession(ctx, c.sess); err != nil {
		return fmt.Errorf("register stdio session: %w", err)
	}
	defer srv.UnregisterSession(context.WithoutCancel(ctx), c.sess.id)

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

	ready    <-chan struct{}
	prepare  func()
	calls    sync.WaitGroup
	mu       sync.Mutex
	inflight map[string]*call // by canonical request id

	methods map[string]MethodFunc
	info    mcp.Implementation
}

// call is one request being served.
type call struct {
	cancel    context.CancelFunc
	cancelled bool // by the client; guarded by conn.mu
}

func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "stdio-" + hex.EncodeToString(b[:])
}

func (c *conn) readLoop(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
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

// envelope is just enough of a message to route it.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (c *conn) dispatch(line []byte) {
	if !json.Valid(line) {
		c.replyError(nil, codeParseError, "Parse error: the line is not valid JSON; send one JSON-RPC message per line")
		return
	}
	if line[0] == '[' {
		c.replyError(nil, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per line")
		return
	}
	var env envelope
	if line[0] != '{' || json.Unmarshal(line, &env) != nil {
		c.replyError(nil, codeInvalidRequest, "Invalid Request: a message must be a JSON object")
		return
	}
	id := env.ID
	if isNull(id) {
		id = nil
	}
	var method string
	if env.Method != nil && json.Unmarshal(env.Method, &method) != nil {
		c.replyError(id, codeInvalidRequest, "Invalid Request: method must be a string")
		return
	}
	switch {
	case method == "" && id != nil && (env.Result != nil || env.Error != nil):
		// A reply to a server-to-client request; this server sends none.
		c.log.Debug("ignoring response to unknown server request", "id", string(id))
	case method == "":
		c.replyError(id, codeInvalidRequest, "Invalid Request: missing method")
	case id == nil:
		c.notification(method, line)
	case method == string(mcp.MethodInitialize):
		// Inline, so a pipelined request never overtakes the handshake.
		c.respond(c.base, id, method, line)
	default:
		c.request(id, method, line)
	}
}

func (c *conn) notification(method string, line []byte) {
	if method == string(mcp.MethodNotificationCancelled) {
		var n struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
				Reason    string          `json:"reason"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &n) == nil && len(n.Params.RequestID) > 0 {
			c.cancel(n.Params.RequestID, n.Params.Reason)
		}
	}
	c.handle(c.base, nil, "", line)
}

// cancel marks a call cancelled by the client. Our own map is filled before
// the call's goroutine starts, so a cancel that arrives in the same read as
// its request still finds it (mcp-go's map would not have it yet).
func (c *conn) cancel(rawID json.RawMessage, reason string) {
	key := canonicalID(rawID)
	c.mu.Lock()
	cl := c.inflight[key]
	if cl != nil {
		cl.cancelled = true
	}
	c.mu.Unlock()
	if cl != nil {
		c.log.Debug("request cancelled by client", "id", key, "reason", reason)
		cl.cancel()
	}
}

func (c *conn) request(id json.RawMessage, method string, line []byte) {
	key := canonicalID(id)
	ctx, cancel := context.WithCancel(c.base)
	cl := &call{cancel: cancel}
	c.mu.Lock()
	_, dup := c.inflight[key]
	if !dup {
		c.inflight[key] = cl
	}
	c.mu.Unlock()
	if dup {
		cancel()
		c.replyError(id, codeInvalidRequest, fmt.Sprintf("Invalid Request: id %s is already in use by a request in progress", key))
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
				c.mu.Lock()
				delete(c.inflight, key)
				c.mu.Unlock()
				return // cancelled, or the connection ended, before the server was ready
			}
		}
		resp := c.handle(ctx, id, method, line)
		c.mu.Lock()
		delete(c.inflight, key)
		cancelled := cl.cancelled
		c.mu.Unlock()
		if cancelled {
			// The spec says a receiver should not answer a cancelled request.
			return
		}
		if resp != nil {
			c.out.send(resp)
		}
	}()
}

// respond handles a request inline and queues its response.
func (c *conn) respond(ctx context.Context, id json.RawMessage, method string, line []byte) {
	if resp := c.handle(ctx, id, method, line); resp != nil {
		c.out.send(resp)
	}
}

// handle runs one message through mcp-go, or a request through its entry
// in Options.Methods. A panic outside a tool handler (tool panics are
// turned into error results closer to the tool) becomes an internal-error
// response instead of killing the server.
func (c *conn) handle(ctx context.Context, id json.RawMessage, method string, line []byte) (resp any) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic while handling message", "panic", r, "stack", string(debug.Stack()))
			if id != nil {
				resp = errorResponse(id, codeInternalError, fmt.Sprintf("Internal error: %v", r))
			}
		}
	}()
	if fn, ok := c.methods[method]; ok && id != nil {
		return c.serveMethod(ctx, id, fn, line)
	}
	msg := c.srv.HandleMessage(ctx, line)
	if msg == nil {
		return nil
	}
	return msg
}

func (c *conn) replyError(id json.RawMessage, code int, message string) {
	c.out.enqueue(errorResponse(id, code, message)) // from the reader
}

type rpcError struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	} `json:"error"`
}

func errorResponse(id json.RawMessage, code int, message string) rpcError {
	e := rpcError{JSONRPC: mcp.JSONRPC_VERSION, ID: id}
	if e.ID == nil {
		e.ID = json.RawMessage("null")
	}
	e.Error.Code = code
	e.Error.Message = message
	return e
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// canonicalID makes request ids comparable: 7 and 7.0 are the same number,
// "7" is a different (string) id.
func canonicalID(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] != '"' {
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			if f, err := n.Float64(); err == nil {
				return fmt.Sprintf("%g", f)
			}
		}
	}
	return string(raw)
}
