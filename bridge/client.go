package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/hermes-go/hermes/internal/redact"
)

// Defaults for the zero values in Config.
const (
	DefaultStderrLines             = 500
	DefaultShutdownGrace           = 3 * time.Second
	DefaultMaxPendingNotifications = 1 << 16
)

// exitWait bounds how long a broken connection waits for the child's exit
// status before reporting without it; codex exits promptly once its stdout or
// stdin is gone, so this only matters for a wedged child.
const exitWait = 2 * time.Second

// stderrDrain is how long we wait for the last stderr lines after the child
// has exited. Grandchildren that inherited stderr can hold the pipe open
// forever, so this cannot be unbounded.
const stderrDrain = 250 * time.Millisecond

// Config describes how to start codex app-server and where its traffic goes.
type Config struct {
	// Binary is the codex executable (see FindBinary). Required.
	Binary string
	// Args are appended after "app-server": e.g. "-c", "key=value"
	// overrides, or "--disable", "<feature>".
	Args []string
	// Env is codex's complete environment; nil inherits ours. The caller
	// composes it. Codex should see the user's real HOME (it looks for the
	// personal plugin marketplace at ~/.agents/plugins/marketplace.json and
	// for ~/.codex by default) with CODEX_HOME overlaid when Hermes manages a
	// separate codex home. RUST_LOG controls how much codex logs to stderr.
	Env []string
	// Dir is codex's working directory; empty means ours.
	Dir string

	// Logger receives diagnostics (codex's stderr at debug level, protocol
	// errors, handler panics). Nil discards them.
	Logger *slog.Logger

	// OnNotification receives every server notification, one at a time and
	// in the order codex sent them, on a goroutine owned by the Client. It
	// may call the Client (Call included) but must return: later
	// notifications queue up behind it (see MaxPendingNotifications), and
	// Close waits for it.
	OnNotification func(Notification)
	// OnRequest answers server→client requests (approvals, item/tool/call,
	// …). Each request runs on its own goroutine, started only after every
	// notification received before it has been passed to OnNotification,
	// and its return value is sent back as the reply. Nil answers every
	// request with error -32601. Codex waits for the answer, so a handler
	// must return eventually; its ctx ends when the Client closes.
	OnRequest RequestHandler

	// StderrLines is how many of codex's most recent stderr lines are kept
	// for StderrTail and error messages; 0 means DefaultStderrLines.
	StderrLines int
	// ShutdownGrace is how long Close waits after closing codex's stdin
	// before sending SIGTERM, and again before SIGKILL; 0 means
	// DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// MaxPendingNotifications bounds the queue of messages waiting for
	// OnNotification. Reading from codex never blocks on the subscriber: a
	// blocked read loop would also stall responses to Call, and a subscriber
	// that calls the Client would deadlock. When the queue overflows the
	// subscriber is hopelessly behind, and dropping messages would silently
	// corrupt whatever it builds from them, so the Client fails instead
	// (Done closes, Err explains). 0 means DefaultMaxPendingNotifications.
	MaxPendingNotifications int
}

// Notification is a server→client notification.
type Notification struct {
	Method string
	// Params is the raw params object, or nil when codex sent none.
	Params json.RawMessage
	// EmittedAtMs is codex's emittedAtMs envelope field (Unix milliseconds),
	// or 0 when absent.
	EmittedAtMs int64
}

// ServerRequest is a server→client request awaiting an answer.
type ServerRequest struct {
	// ID is the JSON text of codex's request id, e.g. `0` or `"abc"`. Codex
	// numbers its requests from 0 independently of ours; ids are only
	// meaningful to match serverRequest/resolved notifications.
	ID     string
	Method string
	Params json.RawMessage
}

// RequestHandler answers a server request. The result is marshalled as the
// reply's "result"; an error becomes a JSON-RPC error reply: an *RPCError
// keeps its code, ErrMethodNotFound becomes -32601, anything else -32603 with
// the redacted error text as message.
type RequestHandler func(ctx context.Context, req *ServerRequest) (result any, err error)

// RequestMux routes server requests by method; unknown methods get -32601.
type RequestMux map[string]RequestHandler

// Handle implements RequestHandler.
func (m RequestMux) Handle(ctx context.Context, req *ServerRequest) (any, error) {
	h, ok := m[req.Method]
	if !ok || h == nil {
		return nil, ErrMethodNotFound
	}
	return h(ctx, req)
}

// Client is a running codex app-server and the JSON-RPC connection to it.
// All methods are safe for concurrent use.
type Client struct {
	cfg  Config
	log  *slog.Logger
	cmd  *exec.Cmd
	conn *jsonrpc2.Conn
	// stream records why reading stopped, which jsonrpc2 only logs.
	stream *recordingStream
	stdin  *os.File // our end; closing it is the polite "please exit"
	stdout *os.File
	stderr *os.File
	tail   *ringBuffer
	inbox  *inbox

	// ctx lives until Close; handlers and the dispatcher run under it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	exited     chan struct{} // closed after waitErr is set
	waitErr    error
	stderrDone chan struct{}
	// dispatched is closed when the dispatcher has delivered its last
	// message: after Done, everything codex sent has been seen.
	dispatched chan struct{}

	failMu  sync.Mutex
	failErr error         // first client-side failure, e.g. overflow
	failed  chan struct{} // closed with failErr

	done    chan struct{} // closed after err is set
	errMu   sync.Mutex
	err     error
	closing chan struct{}

	closeOnce sync.Once
	closeErr  error

	initMu      sync.Mutex
	initialized bool
}

// Start spawns `<cfg.Binary> app-server <cfg.Args...>` and connects to it.
// ctx is only consulted before spawning: like a dialer's, it does not bound
// the Client's life, which lasts until Close. The caller must call Close,
// even after Done, to reap the child and release its goroutines.
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	if cfg.Binary == "" {
		return nil, errors.New("start codex app-server: Config.Binary is empty (see FindBinary)")
	}
	if cfg.StderrLines <= 0 {
		cfg.StderrLines = DefaultStderrLines
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = DefaultShutdownGrace
	}
	if cfg.MaxPendingNotifications <= 0 {
		cfg.MaxPendingNotifications = DefaultMaxPendingNotifications
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}

	// Our own pipes rather than exec's StdinPipe & co.: we decide when each
	// end closes (stdout and stderr must outlive Wait for the final lines,
	// and closing them is what unblocks the readers if grandchildren keep
	// the write ends open), and exec starts no copying goroutines.
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	stdinR, stdinW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	stdoutR, stdoutW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}
	stderrR, stderrW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start codex app-server: %w", err)
	}

	cmd := exec.Command(cfg.Binary, append([]string{"app-server"}, cfg.Args...)...)
	cmd.Env = cfg.Env
	cmd.Dir = cfg.Dir
	cmd.Stdin = stdinR
	cmd.Stdout = stdoutW
	cmd.Stderr = stderrW
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("start codex app-server %q: %w", cfg.Binary, err)
	}
	// The child has its copies; ours would keep the pipes from ever
	// reporting EOF.
	_ = stdinR.Close()
	_ = stdoutW.Close()
	_ = stderrW.Close()

	lctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		cfg:        cfg,
		log:        log,
		cmd:        cmd,
		stdin:      stdinW,
		stdout:     stdoutR,
		stderr:     stderrR,
		tail:       newRingBuffer(cfg.StderrLines),
		inbox:      newInbox(cfg.MaxPendingNotifications),
		ctx:        lctx,
		cancel:     cancel,
		exited:     make(chan struct{}),
		stderrDone: make(chan struct{}),
		dispatched: make(chan struct{}),
		failed:     make(chan struct{}),
		done:       make(chan struct{}),
		closing:    make(chan struct{}),
	}
	log.Debug("codex app-server started", "pid", cmd.Process.Pid, "binary", cfg.Binary, "args", cfg.Args)

	c.wg.Add(4)
	go func() {
		defer c.wg.Done()
		c.waitErr = cmd.Wait()
		if killOrphans(cmd.Process.Pid) {
			log.Warn("killed processes codex app-server left behind", "pgid", cmd.Process.Pid)
		}
		close(c.exited)
	}()
	go func() {
		defer c.wg.Done()
		defer close(c.stderrDone)
		readStderr(stderrR, c.tail, log)
	}()

	c.stream = newRecordingStream(jsonrpc2.NewPlainObjectStream(stdio{r: stdoutR, w: stdinW}))
	c.conn = jsonrpc2.NewConn(lctx, c.stream, connHandler{c}, jsonrpc2.SetLogger(slogPrintf{log}))
	go func() {
		defer c.wg.Done()
		defer close(c.dispatched)
		c.dispatch()
	}()
	go func() {
		defer c.wg.Done()
		c.supervise()
	}()
	return c, nil
}

// stdio joins codex's stdout and stdin into the ReadWriteCloser jsonrpc2
// wants. Close closes only stdin: that asks codex to exit, while stdout stays
// readable so that its last messages and its EOF still arrive.
type stdio struct {
	r *os.File
	w *os.File
}

func (s stdio) Read(p []byte) (int, error)  { return s.r.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.w.Write(p) }
func (s stdio) Close() error                { return s.w.Close() }

// recordingStream remembers the first read error. jsonrpc2 closes the
// connection on any read error (EOF, or one malformed line) but reports the
// cause only to its logger.
type recordingStream struct {
	jsonrpc2.ObjectStream
	once     sync.Once
	readErr  error
	readDone chan struct{}
}

func newRecordingStream(s jsonrpc2.ObjectStream) *recordingStream {
	return &recordingStream{ObjectStream: s, readDone: make(chan struct{})}
}

func (s *recordingStream) ReadObject(v any) error {
	err := s.ObjectStream.ReadObject(v)
	if err != nil {
		s.once.Do(func() {
			s.readErr = err
			close(s.readDone)
		})
	}
	return err
}

// slogPrintf adapts jsonrpc2's Printf logger to slog.
type slogPrintf struct{ log *slog.Logger }

func (l slogPrintf) Printf(format string, v ...any) {
	l.log.Warn(redact.String(strings.TrimSpace(fmt.Sprintf(format, v...))))
}

// connHandler is called by jsonrpc2 on its read goroutine for every incoming
// request and notification. It must not block (feasibility §2.4): it only
// queues, in arrival order.
type connHandler struct{ c *Client }

func (h connHandler) Handle(_ context.Context, _ *jsonrpc2.Conn, r *jsonrpc2.Request) {
	var params json.RawMessage
	if r.Params != nil {
		params = *r.Params
	}
	it := inboxItem{id: r.ID}
	if r.Notif {
		n := &Notification{Method: r.Method, Params: params}
		for _, f := range r.ExtraFields {
			if f.Name == "emittedAtMs" {
				n.EmittedAtMs = jsonInt(f.Value)
			}
		}
		it.note = n
	} else {
		idText, _ := json.Marshal(r.ID)
		it.req = &ServerRequest{ID: string(idText), Method: r.Method, Params: params}
	}
	if !h.c.inbox.push(it) {
		h.c.fail(fmt.Errorf("more than %d notifications waiting for OnNotification; the subscriber is too slow",
			h.c.cfg.MaxPendingNotifications))
	}
}

func jsonInt(v any) int64 {
	switch n := v.(type) {
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i
		}
		if f, err := n.Float64(); err == nil {
			return int64(f)
		}
	case float64:
		return int64(n)
	}
	return 0
}

// dispatch delivers queued messages in order until the inbox is drained after
// the connection ended, or until Close.
func (c *Client) dispatch() {
	for {
		it, ok := c.inbox.take(c.ctx)
		if !ok {
			return
		}
		switch {
		case it.note != nil:
			c.deliver(*it.note)
		case it.req != nil:
			select {
			case <-c.conn.DisconnectNotify():
				// No reply could be sent; the request died with codex.
				continue
			default:
			}
			c.wg.Add(1)
			go func() {
				defer c.wg.Done()
				c.serve(it.req, it.id)
			}()
		}
	}
}

func (c *Client) deliver(n Notification) {
	if c.cfg.OnNotification == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("codex notification subscriber panicked", "method", n.Method, "panic", p)
		}
	}()
	c.cfg.OnNotification(n)
}

// serve runs the request handler and replies. Every request gets exactly one
// reply, because codex blocks the turn until it does.
func (c *Client) serve(req *ServerRequest, id jsonrpc2.ID) {
	result, err := c.runHandler(req)
	var raw json.RawMessage
	if err == nil {
		raw, err = json.Marshal(result)
		if err != nil {
			err = fmt.Errorf("marshal result of %s: %w", req.Method, err)
		}
	}
	if err != nil {
		rerr := replyError(req.Method, err)
		c.log.Debug("codex server request failed", "method", req.Method, "id", req.ID, "code", rerr.Code, "error", rerr.Message)
		err = c.conn.ReplyWithError(c.ctx, id, rerr)
	} else {
		err = c.conn.Reply(c.ctx, id, raw)
	}
	if err != nil && !errors.Is(err, jsonrpc2.ErrClosed) {
		c.log.Warn("reply to codex server request failed", "method", req.Method, "id", req.ID, "error", err)
	}
}

func (c *Client) runHandler(req *ServerRequest) (result any, err error) {
	if c.cfg.OnRequest == nil {
		return nil, ErrMethodNotFound
	}
	defer func() {
		if p := recover(); p != nil {
			c.log.Error("codex request handler panicked", "method", req.Method, "panic", p)
			result, err = nil, fmt.Errorf("handler for %s panicked", req.Method)
		}
	}()
	return c.cfg.OnRequest(c.ctx, req)
}

func replyError(method string, err error) *jsonrpc2.Error {
	var rerr *RPCError
	switch {
	case errors.As(err, &rerr):
		out := &jsonrpc2.Error{Code: rerr.Code, Message: rerr.Message}
		if len(rerr.Data) > 0 {
			d := json.RawMessage(rerr.Data)
			out.Data = &d
		}
		return out
	case errors.Is(err, ErrMethodNotFound):
		return &jsonrpc2.Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
	default:
		// Codex may show this to the model, and a failing tool's error can
		// quote whatever secret it was handling.
		return &jsonrpc2.Error{Code: CodeInternalError, Message: redact.String(err.Error())}
	}
}

// fail records a client-side fatal error and drops the connection.
func (c *Client) fail(err error) {
	c.failMu.Lock()
	defer c.failMu.Unlock()
	if c.failErr != nil {
		return
	}
	c.failErr = err
	close(c.failed)
	c.log.Error("codex app-server client failed", "error", err)
}

// supervise closes Done with the first reason the client stopped working.
func (c *Client) supervise() {
	select {
	case <-c.closing:
	case <-c.failed:
	case <-c.stream.readDone:
	case <-c.exited:
	}
	select {
	case <-c.failed:
		// Closing the connection closes codex's stdin, so codex exits by
		// itself; Close still reaps it. Done here rather than in fail,
		// which runs on jsonrpc2's read goroutine.
		_ = c.conn.Close()
	default:
	}
	err := c.terminationError()
	c.errMu.Lock()
	c.err = err
	c.errMu.Unlock()
	close(c.done)
	if !errors.Is(err, ErrClosed) {
		c.log.Warn("codex app-server stopped", "error", err)
	}
	// No more messages will be read once reading stopped; let the
	// dispatcher finish what is queued. (Close covers the other cases.)
	select {
	case <-c.stream.readDone:
	case <-c.closing:
	}
	c.inbox.close()
}

func (c *Client) terminationError() error {
	// Several events are usually ready at once (Close closes stdin, so
	// codex exits and stdout ends); the cause is the first in this order.
	select {
	case <-c.closing:
		return ErrClosed
	default:
	}
	te := &TerminatedError{}
	select {
	case <-c.failed:
		te.Err = c.failErr
	default:
		if rerr := c.readErr(); rerr != nil && !isEOF(rerr) {
			te.Err = fmt.Errorf("protocol error: %w", rerr)
		}
	}
	// For an EOF or an exit, the exit status is the real story: wait for it
	// (and for the last stderr lines), but not forever.
	if te.Err == nil {
		select {
		case <-c.exited:
		case <-time.After(exitWait):
		case <-c.closing:
			return ErrClosed
		}
	}
	select {
	case <-c.exited:
		te.Exited = true
		te.ExitCode = c.cmd.ProcessState.ExitCode()
		if te.Err == nil {
			te.Err = c.waitErr // nil for a clean exit nobody asked for
		}
		select {
		case <-c.stderrDone:
		case <-time.After(stderrDrain):
		}
	default:
		if te.Err == nil {
			te.Err = fmt.Errorf("stdout closed: %w", io.EOF)
		}
	}
	te.Stderr = c.tail.tail(errTailLines)
	return te
}

func (c *Client) readErr() error {
	select {
	case <-c.stream.readDone:
		return c.stream.readErr
	default:
		return nil
	}
}

func isEOF(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, os.ErrClosed)
}

// Done is closed when the client stops working: codex exited, the connection
// broke, or Close was called.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is nil while Done is open. Afterwards it is ErrClosed if Close came
// first, else a *TerminatedError with the exit status and the redacted tail
// of codex's stderr.
func (c *Client) Err() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// StderrTail returns the retained tail of codex's stderr (Config.StderrLines
// lines, most recent last), redacted.
func (c *Client) StderrTail() string { return c.tail.tail(0) }

// PID is the process id of the codex child.
func (c *Client) PID() int { return c.cmd.Process.Pid }

// Call sends a request and waits for its response, decoding the result into
// result (a pointer, or nil to discard it). Nil params are sent as {}: codex
// rejects requests without params. An error reply is returned as *RPCError.
//
// If ctx ends first, Call returns its error; the request has still been sent
// and codex keeps working on it (interrupt a turn with turn/interrupt).
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	if params == nil {
		params = struct{}{}
	}
	err := c.conn.Call(ctx, method, params, result)
	return c.wrapError(ctx, method, err)
}

// Notify sends a notification. Nil params are sent as {}.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("codex app-server %s: %w", method, err)
	}
	if params == nil {
		params = struct{}{}
	}
	err := c.conn.Notify(ctx, method, params)
	return c.wrapError(ctx, method, err)
}

func (c *Client) wrapError(ctx context.Context, method string, err error) error {
	if err == nil {
		return nil
	}
	var jerr *jsonrpc2.Error
	if errors.As(err, &jerr) {
		rerr := &RPCError{Method: method, Code: jerr.Code, Message: redact.String(jerr.Message)}
		if jerr.Data != nil {
			rerr.Data = append(json.RawMessage(nil), *jerr.Data...)
		}
		return rerr
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return fmt.Errorf("codex app-server %s: %w", method, err)
	}
	if errors.Is(err, jsonrpc2.ErrClosed) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) {
		// The connection is gone; the interesting part is why, which
		// Done/Err know once the exit status is in.
		select {
		case <-c.done:
			return fmt.Errorf("codex app-server %s: %w", method, c.Err())
		case <-ctx.Done():
			return fmt.Errorf("codex app-server %s: connection lost (%v): %w", method, err, ctx.Err())
		}
	}
	return fmt.Errorf("codex app-server %s: %w", method, err)
}

// ClientInfo identifies the client in initialize. Name becomes codex's
// originator header and user-agent prefix.
type ClientInfo struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// Capabilities are the initialize capabilities; they are fixed for the life
// of the connection.
type Capabilities struct {
	// ExperimentalAPI unlocks experimental methods and fields (e.g.
	// thread/start dynamicTools).
	ExperimentalAPI bool `json:"experimentalApi,omitempty"`
	// OptOutNotificationMethods lists exact notification methods codex
	// should not send.
	OptOutNotificationMethods []string `json:"optOutNotificationMethods,omitempty"`
}

// InitializeResult is codex's answer to initialize.
type InitializeResult struct {
	UserAgent      string `json:"userAgent"`
	CodexHome      string `json:"codexHome"`
	PlatformFamily string `json:"platformFamily"`
	PlatformOS     string `json:"platformOs"`
}

// Initialize performs the handshake: the initialize request, then the
// initialized notification. It may succeed only once per Client.
func (c *Client) Initialize(ctx context.Context, info ClientInfo, caps Capabilities) (InitializeResult, error) {
	c.initMu.Lock()
	defer c.initMu.Unlock()
	if c.initialized {
		return InitializeResult{}, errors.New("codex app-server: already initialized")
	}
	params := struct {
		ClientInfo   ClientInfo   `json:"clientInfo"`
		Capabilities Capabilities `json:"capabilities"`
	}{info, caps}
	var res InitializeResult
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return InitializeResult{}, err
	}
	if err := c.Notify(ctx, "initialized", nil); err != nil {
		return InitializeResult{}, err
	}
	c.initialized = true
	return res, nil
}

// Close shuts codex down and reaps it: it closes codex's stdin (codex exits
// by itself then), waits ShutdownGrace, sends SIGTERM to codex's process
// group, waits again, then sends SIGKILL. It returns once the child is reaped
// and every goroutine of the Client has ended. The result is nil when codex
// exited with status 0, else an error saying how it ended (a
// *TerminatedError). Close is idempotent and safe to call from several
// goroutines at once, but not from OnNotification or a RequestHandler: it
// waits for those to return.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { c.closeErr = c.shutdown() })
	return c.closeErr
}

func (c *Client) shutdown() error {
	close(c.closing)
	_ = c.conn.Close() // closes stdin; pending calls fail with ErrClosed

	grace := c.cfg.ShutdownGrace
	var escalated string
	select {
	case <-c.exited:
	case <-time.After(grace):
		escalated = "SIGTERM"
		c.log.Warn("codex app-server ignored stdin EOF; sending SIGTERM", "pid", c.PID(), "grace", grace)
		signalGroup(c.cmd.Process, sigTerm)
		select {
		case <-c.exited:
		case <-time.After(grace):
			escalated = "SIGKILL"
			c.log.Warn("codex app-server ignored SIGTERM; sending SIGKILL", "pid", c.PID())
			signalGroup(c.cmd.Process, sigKill)
			<-c.exited
		}
	}

	c.cancel() // stops the dispatcher and tells handlers to give up
	select {
	case <-c.stderrDone:
	case <-time.After(stderrDrain):
	}
	// If grandchildren still hold codex's stdout or stderr, these closes are
	// what unblock our readers.
	_ = c.stdout.Close()
	_ = c.stderr.Close()
	<-c.stream.readDone // jsonrpc2's read loop, which is not ours to wait for, is ending
	c.inbox.close()
	c.wg.Wait()

	st := c.cmd.ProcessState
	switch {
	case escalated != "":
		return &TerminatedError{
			Err:      fmt.Errorf("did not exit within %v of stdin closing; sent %s", grace, escalated),
			Exited:   true,
			ExitCode: st.ExitCode(),
			Stderr:   c.tail.tail(errTailLines),
		}
	case !st.Success():
		return &TerminatedError{Err: c.waitErr, Exited: true, ExitCode: st.ExitCode(), Stderr: c.tail.tail(errTailLines)}
	}
	return nil
}
