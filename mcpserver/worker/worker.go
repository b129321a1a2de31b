// Package worker runs the heavy toolsets (web, browser, media, and the
// SQLite-backed kanban, session_search and todo) in a child process,
// hermes-tools-worker, and forwards their calls to it.
//
// Why a second process: those toolsets link Chromium's protocol bindings,
// HTML and PDF parsers and their tables, and a pure-Go SQLite. Linked into hermes-tools-mcp they
// cost every spawn milliseconds of package initialisation and megabytes of
// touched binary before the first response, and MCP clients spawn the
// server often (codex once per session, some clients per window) while
// most sessions never call a browser or web tool. The front process keeps
// every declaration (so tools/list is complete and availability is checked
// up front) and starts the worker on the first call that needs it; the
// worker then lives as long as the front, so a browser session persists
// across calls exactly as in one process.
//
// The worker speaks MCP over stdio (it is an mcpserver.Server with those
// toolsets), so forwarding is one tools/call per call. Progress the worker
// reports is relayed to the caller's progress reporter in order, a
// cancelled call is cancelled in the worker, and a worker that dies fails
// the calls in flight with its last stderr lines and is started afresh on
// the next call.
package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Config says how to start the worker.
type Config struct {
	// Path is the hermes-tools-worker binary. Calls fail with Unavailable
	// when it is empty.
	Path string
	// Unavailable explains why there is no worker binary, with the fix; it
	// is the error every forwarded call returns when Path is empty.
	Unavailable error
	// Args are the worker's command-line arguments (--hermes-home, ...).
	Args []string
	// Env is the worker's environment; nil inherits this process's.
	Env []string
	// Stderr receives the worker's log lines; nil discards them. The last
	// lines are also kept for the error a crashed worker's calls get.
	Stderr io.Writer
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// CloseTimeout is how long Close waits for the worker to finish its
	// calls and exit before killing it; 0 means 5 s.
	CloseTimeout time.Duration
}

// Client forwards tool calls to a worker process it starts on first use.
// It is safe for concurrent use.
type Client struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	closed bool
	st     *startup // the latest start; nil before the first call
}

// startup is one start of the worker. p (set under Client.mu as soon as
// the process exists, so Close can stop it mid-handshake) and err are
// final once done is closed.
type startup struct {
	done chan struct{}
	p    *process
	err  error
}

// New returns a client; no process is started until the first call.
func New(cfg Config) *Client {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.CloseTimeout <= 0 {
		cfg.CloseTimeout = 5 * time.Second
	}
	return &Client{cfg: cfg, log: log}
}

// ErrClosed is returned by calls made after Close.
var ErrClosed = errors.New("hermes-tools-worker: the client is closed")

// Handler returns a handler that runs the named tool in the worker.
func (c *Client) Handler(name string) tooldef.Handler {
	return func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
		return c.Call(ctx, name, args)
	}
}

// Call runs one tool in the worker and returns its result. Tool failures
// come back as a Result with IsError, as the tool made them; an error means
// the worker could not be started or did not answer.
func (c *Client) Call(ctx context.Context, name string, args json.RawMessage) (tooldef.Result, error) {
	p, err := c.process(ctx)
	if err != nil {
		return tooldef.Result{}, err
	}
	return p.call(ctx, name, args)
}

// handshakeTimeout bounds a worker's start: spawning it and its answer to
// initialize. It does not depend on the call that happened to start it, so
// one impatient caller does not abort the start for the others.
const handshakeTimeout = 30 * time.Second

// process returns the running worker, starting one if needed. A caller
// waits for a start in progress only as long as its own ctx allows.
func (c *Client) process(ctx context.Context) (*process, error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	if c.cfg.Path == "" {
		c.mu.Unlock()
		if c.cfg.Unavailable != nil {
			return nil, c.cfg.Unavailable
		}
		return nil, errors.New("hermes-tools-worker: no binary configured")
	}
	if c.needsStart() {
		c.st = c.begin()
	}
	st := c.st
	c.mu.Unlock()
	select {
	case <-st.done:
		return st.p, st.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// needsStart reports whether there is no usable worker: none yet, the last
// start failed, or the worker has exited. c.mu is held.
func (c *Client) needsStart() bool {
	if c.st == nil {
		return true
	}
	select {
	case <-c.st.done:
		return c.st.err != nil || c.st.p.exited()
	default:
		return false // starting
	}
}

// begin starts a worker in the background. c.mu is held.
func (c *Client) begin() *startup {
	st := &startup{done: make(chan struct{})}
	go func() {
		defer close(st.done)
		p, err := spawn(c.cfg, c.log)
		c.mu.Lock()
		closed := c.closed
		if err == nil {
			st.p = p
		}
		c.mu.Unlock()
		if err == nil && closed {
			_ = p.stop(time.Second)
			err = ErrClosed
		}
		if err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), handshakeTimeout)
			err = p.handshake(ctx)
			cancel()
			if err != nil {
				_ = p.stop(time.Second)
			} else {
				c.log.Debug("started hermes-tools-worker", "pid", p.cmd.Process.Pid)
			}
		}
		if err != nil {
			c.mu.Lock()
			st.p = nil
			c.mu.Unlock()
		}
		st.err = err
	}()
	return st
}

// Close ends the worker: its stdin is closed so it finishes the calls in
// flight and exits; after CloseTimeout it is killed. A worker still
// starting is stopped too. No process outlives Close.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	st := c.st
	var p *process
	if st != nil {
		p = st.p
	}
	c.mu.Unlock()
	if st == nil {
		return nil
	}
	var err error
	if p != nil {
		err = p.stop(c.cfg.CloseTimeout)
	}
	// A start in progress sees closed (or its handshake fails once stdin
	// is closed) and stops what it spawned.
	<-st.done
	return err
}

// process is one running worker and its stdio connection.
type process struct {
	cmd    *exec.Cmd
	log    *slog.Logger
	stderr *tail

	writeMu sync.Mutex
	stdin   *os.File // the write end of the worker's stdin, pollable

	mu      sync.Mutex
	nextID  int64
	pending map[int64]*pendingCall
	exitErr error // set once the reader saw the worker's stdout end

	done chan struct{} // closed when the reader has stopped and Wait returned
}

type pendingCall struct {
	// progress relays the worker's progress for this call. The reader
	// goroutine calls it before it delivers the response, so relayed
	// progress always precedes the result.
	progress tooldef.ProgressFunc
	resp     chan response
}

type response struct {
	result json.RawMessage
	err    error
}

// protocolVersion is the revision the front asks for; the worker is the
// same build, so it always speaks it.
const protocolVersion = "2025-11-25"

// spawn starts the worker process and its reader. The worker outlives the
// call that happened to start it; Close (or the front's death, see
// sysProcAttr) ends it.
func spawn(cfg Config, log *slog.Logger) (*process, error) {
	cmd := exec.Command(cfg.Path, cfg.Args...)
	cmd.Env = cfg.Env
	cmd.SysProcAttr = sysProcAttr()
	// A grandchild holding the worker's stderr must not stall Wait, which
	// would keep calls from failing when the worker dies.
	cmd.WaitDelay = 2 * time.Second
	// Our own pipe rather than StdinPipe: an *os.File from os.Pipe is
	// polled, so a write blocked on a worker that stopped reading can be
	// interrupted (a deadline, or Close).
	stdinR, stdin, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("hermes-tools-worker: %w", err)
	}
	cmd.Stdin = stdinR
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		stdinR.Close()
		stdin.Close()
		return nil, fmt.Errorf("hermes-tools-worker: %w", err)
	}
	t := &tail{max: 20}
	var sink io.Writer = t
	if cfg.Stderr != nil {
		sink = io.MultiWriter(cfg.Stderr, t)
	}
	cmd.Stderr = sink
	err = cmd.Start()
	stdinR.Close() // the worker has its copy
	if err != nil {
		stdin.Close()
		return nil, fmt.Errorf("start hermes-tools-worker (%s): %w", cfg.Path, err)
	}
	p := &process{cmd: cmd, log: log, stderr: t, stdin: stdin, pending: map[int64]*pendingCall{}, done: make(chan struct{})}
	go p.read(stdout)
	return p, nil
}

func (p *process) handshake(ctx context.Context) error {
	params := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "hermes-tools-mcp", "version": "1"},
	}
	if _, err := p.request(ctx, "initialize", params, nil); err != nil {
		return fmt.Errorf("hermes-tools-worker did not initialize: %w", err)
	}
	return p.write(context.Background(), map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
}

// exited reports whether the worker has exited, or is exiting (its output
// ended). A nil process has.
func (p *process) exited() bool {
	if p == nil {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exitErr != nil
}

// write sends one line. A write still blocked when ctx ends (a worker that
// stopped reading) is abandoned; the line may then be cut short, so the
// worker is killed rather than left with a corrupt stream.
func (p *process) write(ctx context.Context, msg any) error {
	line, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	interrupt := context.AfterFunc(ctx, func() { _ = p.stdin.SetWriteDeadline(time.Unix(1, 0)) })
	n, err := p.stdin.Write(line)
	if !interrupt() {
		_ = p.stdin.SetWriteDeadline(time.Time{})
	}
	if err != nil {
		if n > 0 && n < len(line) {
			_ = p.cmd.Process.Kill()
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("write to hermes-tools-worker: %w", p.deathError(err))
	}
	return nil
}

// request sends one request and waits for its response. When ctx ends
// first the worker is told to cancel it.
func (p *process) request(ctx context.Context, method string, params map[string]any, progress tooldef.ProgressFunc) (json.RawMessage, error) {
	pc := &pendingCall{progress: progress, resp: make(chan response, 1)}
	p.mu.Lock()
	if p.exitErr != nil {
		err := p.exitErr
		p.mu.Unlock()
		return nil, err
	}
	p.nextID++
	id := p.nextID
	p.pending[id] = pc
	p.mu.Unlock()
	if progress != nil {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["progressToken"] = id
		params["_meta"] = meta
	}
	if err := p.write(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		p.forget(id)
		return nil, err
	}
	select {
	case r := <-pc.resp:
		return r.result, r.err
	case <-ctx.Done():
		p.forget(id)
		// Best effort: a worker that has already answered ignores it. MCP
		// forbids cancelling initialize; a failed handshake stops the
		// worker instead. The notice is small; a worker that does not read
		// it within a second is not reading at all.
		if method != "initialize" {
			wctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = p.write(wctx, map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
				"params": map[string]any{"requestId": id, "reason": ctx.Err().Error()}})
			cancel()
		}
		return nil, ctx.Err()
	}
}

func (p *process) forget(id int64) {
	p.mu.Lock()
	delete(p.pending, id)
	p.mu.Unlock()
}

func (p *process) call(ctx context.Context, name string, args json.RawMessage) (tooldef.Result, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	var progress tooldef.ProgressFunc
	// Progress is only asked of the worker when the client asked for it.
	if tooldef.WantsProgress(ctx) {
		progress = func(done, total float64, message string) { tooldef.ReportProgress(ctx, done, total, message) }
	}
	raw, err := p.request(ctx, "tools/call", map[string]any{"name": name, "arguments": args}, progress)
	if err != nil {
		return tooldef.Result{}, err
	}
	return decodeResult(raw)
}

// decodeResult turns the worker's CallToolResult back into the Result its
// tool returned, so the front's MCP layer sends the client the same bytes
// the tool would have produced in process: JSON text (and
// structuredContent) for structured results, plain text otherwise, images
// after the text.
func decodeResult(raw json.RawMessage) (tooldef.Result, error) {
	var r struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			Data     string `json:"data"`
			MIMEType string `json:"mimeType"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return tooldef.Result{}, fmt.Errorf("hermes-tools-worker sent an unreadable result: %w", err)
	}
	res := tooldef.Result{IsError: r.IsError}
	text, sawText := "", false
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			if !sawText {
				text, sawText = c.Text, true
			}
		case "image":
			data, err := base64.StdEncoding.DecodeString(c.Data)
			if err != nil {
				return tooldef.Result{}, fmt.Errorf("hermes-tools-worker sent an image that is not base64: %w", err)
			}
			res.Images = append(res.Images, tooldef.Image{MIMEType: c.MIMEType, Data: data})
		}
	}
	if len(r.StructuredContent) > 0 && string(r.StructuredContent) != "null" {
		res.Value = json.RawMessage(text)
	} else {
		res.Value = text
	}
	return res, nil
}

// read dispatches the worker's stdout: responses to their callers,
// progress to the call it belongs to. Other notifications (log messages)
// are dropped: the worker's logs go to stderr.
func (p *process) read(stdout io.Reader) {
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	for sc.Scan() {
		p.dispatch(sc.Bytes())
	}
	if sc.Err() != nil {
		// Nobody reads the worker's output any more: it could block
		// writing and never exit.
		_ = p.cmd.Process.Kill()
	}
	waitErr := p.cmd.Wait()
	err := fmt.Errorf("hermes-tools-worker exited (%v)%s", exitText(waitErr, sc.Err()), p.stderr.describe())
	p.mu.Lock()
	p.exitErr = err
	pending := p.pending
	p.pending = map[int64]*pendingCall{}
	p.mu.Unlock()
	for _, pc := range pending {
		pc.resp <- response{err: err}
	}
	close(p.done)
}

func exitText(waitErr, scanErr error) string {
	switch {
	case scanErr != nil:
		return "reading its output: " + scanErr.Error()
	case waitErr != nil:
		return waitErr.Error()
	}
	return "exit status 0"
}

func (p *process) dispatch(line []byte) {
	var msg struct {
		ID     *int64          `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Params struct {
			ProgressToken *int64  `json:"progressToken"`
			Progress      float64 `json:"progress"`
			Total         float64 `json:"total"`
			Message       string  `json:"message"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &msg); err != nil {
		p.log.Warn("hermes-tools-worker wrote a line that is not JSON", "line", string(truncate(line, 200)))
		return
	}
	switch {
	case msg.Method == "notifications/progress" && msg.Params.ProgressToken != nil:
		p.mu.Lock()
		pc := p.pending[*msg.Params.ProgressToken]
		p.mu.Unlock()
		// Relayed inline, on the reader goroutine: the result line comes
		// after this one, so the client sees progress before the result.
		if pc != nil && pc.progress != nil {
			pc.progress(msg.Params.Progress, msg.Params.Total, msg.Params.Message)
		}
	case msg.Method != "":
		// Log and other notifications: nothing to relay.
	case msg.ID != nil:
		p.mu.Lock()
		pc := p.pending[*msg.ID]
		delete(p.pending, *msg.ID)
		p.mu.Unlock()
		if pc == nil {
			return // a call its caller gave up on
		}
		if msg.Error != nil {
			pc.resp <- response{err: fmt.Errorf("hermes-tools-worker: %s (code %d)", msg.Error.Message, msg.Error.Code)}
			return
		}
		pc.resp <- response{result: bytes.Clone(msg.Result)}
	}
}

// deathError prefers the worker's exit over a broken-pipe error.
func (p *process) deathError(err error) error {
	select {
	case <-p.done:
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.exitErr != nil {
			return p.exitErr
		}
	case <-time.After(100 * time.Millisecond):
	}
	return err
}

// stop closes stdin, waits up to timeout for the worker to exit, then
// kills it. Closing the polled pipe also ends a write blocked on a worker
// that stopped reading, so stop never waits on one.
func (p *process) stop(timeout time.Duration) error {
	_ = p.stdin.Close()
	select {
	case <-p.done:
		return nil
	case <-time.After(timeout):
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	return fmt.Errorf("hermes-tools-worker did not exit within %v of its input closing; killed it", timeout)
}

// tail keeps the last lines written to it.
type tail struct {
	mu    sync.Mutex
	max   int
	lines []string
	part  []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.part = append(t.part, b...)
	for {
		i := bytes.IndexByte(t.part, '\n')
		if i < 0 {
			break
		}
		t.lines = append(t.lines, string(t.part[:i]))
		t.part = t.part[i+1:]
		if len(t.lines) > t.max {
			t.lines = t.lines[len(t.lines)-t.max:]
		}
	}
	if len(t.part) > 4096 {
		t.part = t.part[:4096]
	}
	return len(b), nil
}

func (t *tail) describe() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(t.part) > 0 {
		lines = append(lines[:len(lines):len(lines)], string(t.part))
	}
	if len(lines) == 0 {
		return ""
	}
	return "; its last output:\n" + strings.Join(lines, "\n")
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
