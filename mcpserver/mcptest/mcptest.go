// Package mcptest runs MCP servers as real subprocesses for tests and
// benchmarks, and speaks to them over stdio as codex and Claude Code do
// (newline-delimited JSON-RPC).
//
// Client starts and drives the real hermes-tools-mcp binary
// (internal/testkit/toolsbuild) and peers such as Playwright MCP for benchmarks: it
// is the one Go MCP client every process test and benchmark uses.
// ServeIfChild re-executes a test binary as a server of the toolsets its
// package builds, for the official TypeScript client (RunProgressClient).
package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// ServeEnv is set to "1" in the environment of a test binary re-executed
// as a server.
const ServeEnv = "HERMES_MCPTEST_SERVE"

// ServeIfChild is called first in TestMain: in a re-executed test binary it
// serves every tool of the toolsets build returns on stdin/stdout, calls
// close (when not nil) once stdin ends, and exits; otherwise it returns.
func ServeIfChild(build func() (toolsets []tooldef.Toolset, close func() error)) {
	if os.Getenv(ServeEnv) != "1" {
		return
	}
	os.Exit(serve(build))
}

func serve(build func() ([]tooldef.Toolset, func() error)) int {
	ts, closeFn := build()
	if closeFn != nil {
		defer closeFn()
	}
	if _, err := toolsets.NewRegistry(ts...); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	srv := mcpserver.New(mcpserver.Options{Version: "test", Plan: toolsets.EveryTool(ts...)})
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Client is one MCP server subprocess and the session with it. Requests
// may be made from several goroutines at once.
type Client struct {
	// Cmd is the server process.
	Cmd *exec.Cmd

	in      io.WriteCloser
	writeMu sync.Mutex
	stderr  *tailBuffer

	mu      sync.Mutex
	nextID  int
	pending map[int]chan message
	notes   []Notification
	readErr error
	done    chan struct{} // closed when the reader stops
}

type message struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *RPCError        `json:"error"`
}

// RPCError is a JSON-RPC error response.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *RPCError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// Start starts cmd as an MCP server, initializes the session and stops the
// server when the test ends. The server's stderr is kept (its tail is
// added to failures) and shown with -v.
func Start(t testing.TB, cmd *exec.Cmd) *Client {
	t.Helper()
	c, err := Launch(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if _, err := c.Initialize("2025-06-18", 60*time.Second); err != nil {
		t.Fatalf("initialize %s: %v\nstderr:\n%s", cmd.Path, err, c.Stderr())
	}
	return c
}

// Launch starts cmd without a handshake, for tests of the handshake itself
// and benchmarks that time it. The caller closes the client.
func Launch(cmd *exec.Cmd) (*Client, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &Client{Cmd: cmd, in: in, stderr: &tailBuffer{max: 64 << 10}, pending: map[int]chan message{}, done: make(chan struct{})}
	if cmd.Stderr == nil {
		cmd.Stderr = c.stderr
		if testing.Testing() && testing.Verbose() {
			cmd.Stderr = io.MultiWriter(c.stderr, os.Stderr)
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	go c.read(bufio.NewReaderSize(out, 1<<20))
	return c, nil
}

// Initialize performs the handshake at the given protocol revision and
// returns the server's initialize result.
func (c *Client) Initialize(protocol string, timeout time.Duration) (json.RawMessage, error) {
	res, err := c.Request("initialize", map[string]any{
		"protocolVersion": protocol,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "hermes-mcptest", "version": "0"},
	}, timeout)
	if err != nil {
		return nil, err
	}
	return res, c.Notify("notifications/initialized", nil)
}

func (c *Client) read(r *bufio.Reader) {
	defer close(c.done)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			c.dispatch(line)
		}
		if err != nil {
			c.mu.Lock()
			c.readErr = fmt.Errorf("server output ended: %w", err)
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
	}
}

func (c *Client) dispatch(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.ID == nil && m.Method != "" {
		// Kept before any later response is handed over, so a test reads
		// every notification a call caused once the call has returned.
		if len(c.notes) == maxNotifications {
			c.notes = slices.Delete(c.notes, 0, maxNotifications/2)
		}
		c.notes = append(c.notes, Notification{Method: m.Method, Params: m.Params})
		return
	}
	if m.ID == nil || m.Method != "" {
		return // a server request: this client offers no capabilities to serve
	}
	var id int
	if json.Unmarshal(*m.ID, &id) != nil {
		return
	}
	if ch, ok := c.pending[id]; ok {
		ch <- m
		delete(c.pending, id)
	}
}

// Notification is a notification the server sent.
type Notification struct {
	Method string
	Params json.RawMessage
}

// maxNotifications bounds what a client keeps (the newest half is kept
// when it is reached): a long benchmark must not grow without end.
const maxNotifications = 1 << 14

// Notifications returns the notifications received so far, in the order
// the server wrote them. Every notification written before a response is
// in it by the time the request that response answers returns.
func (c *Client) Notifications() []Notification {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.notes)
}

// Request sends one request and waits up to timeout for its response,
// returning the result or the JSON-RPC error (*RPCError).
func (c *Client) Request(method string, params any, timeout time.Duration) (json.RawMessage, error) {
	c.mu.Lock()
	if c.readErr != nil {
		err := c.readErr
		c.mu.Unlock()
		return nil, err
	}
	c.nextID++
	id := c.nextID
	ch := make(chan message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	msg := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if err := c.send(msg); err != nil {
		c.forget(id)
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: %v; stderr:\n%s", method, c.err(), c.Stderr())
		}
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-timer.C:
		c.forget(id)
		return nil, fmt.Errorf("%s: no response within %s", method, timeout)
	}
}

func (c *Client) forget(id int) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *Client) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.readErr
}

// Notify sends a notification.
func (c *Client) Notify(method string, params any) error {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		msg["params"] = params
	}
	return c.send(msg)
}

// sendLine writes one line (a newline is added).
func (c *Client) sendLine(line string) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := io.WriteString(c.in, line+"\n")
	return err
}

func (c *Client) send(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	return c.sendLine(string(b))
}

// ToolResult is a tools/call result.
type ToolResult struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// Text joins the result's text blocks.
func (r ToolResult) Text() string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// JSON decodes the result's text as a JSON object (Hermes tools answer in
// JSON); nil when it is not one.
func (r ToolResult) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal([]byte(r.Text()), &m) != nil {
		return nil
	}
	return m
}

// CallTimeout bounds one tools/call made with CallTool.
const CallTimeout = 90 * time.Second

// CallTool calls a tool and returns its result; a protocol failure is an
// error, a tool failure is a result with IsError.
func (c *Client) CallTool(name string, args any) (ToolResult, error) {
	if args == nil {
		args = map[string]any{}
	}
	raw, err := c.Request("tools/call", map[string]any{"name": name, "arguments": args}, CallTimeout)
	if err != nil {
		return ToolResult{}, err
	}
	var res ToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return ToolResult{}, fmt.Errorf("tools/call %s: result is not a CallToolResult: %w", name, err)
	}
	return res, nil
}

// MustCall is CallTool failing t on a protocol error.
func (c *Client) MustCall(t testing.TB, name string, args any) ToolResult {
	t.Helper()
	res, err := c.CallTool(name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// ToolNames lists the tools the server exposes, in its order.
func (c *Client) ToolNames() ([]string, error) {
	raw, err := c.Request("tools/list", map[string]any{}, 60*time.Second)
	if err != nil {
		return nil, err
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	names := make([]string, len(res.Tools))
	for i, tl := range res.Tools {
		names[i] = tl.Name
	}
	return names, nil
}

// CloseInput closes the server's stdin, which ends a stdio server.
func (c *Client) CloseInput() error { return c.in.Close() }

// Wait waits up to timeout for the server to exit and returns its exit
// error; on time-out it kills the server and says so.
func (c *Client) Wait(timeout time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- c.Cmd.Wait() }()
	select {
	case err := <-done:
		<-c.done
		return err
	case <-time.After(timeout):
		_ = c.Cmd.Process.Kill()
		<-done
		<-c.done
		return errors.New("the server did not exit in time and was killed")
	}
}

// Close ends the server as a client does (stdin closed), killing it if it
// does not exit within 10 s. It is safe to call more than once.
func (c *Client) Close() {
	_ = c.in.Close()
	if c.Cmd.ProcessState == nil {
		_ = c.Wait(10 * time.Second)
	}
}

// Stderr returns the tail of what the server wrote to stderr.
func (c *Client) Stderr() string { return c.stderr.String() }

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (w *tailBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	if over := len(w.b) - w.max; over > 0 {
		w.b = w.b[over:]
	}
	return len(p), nil
}

func (w *tailBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}
