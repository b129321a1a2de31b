// Package mcpclients connects the native runtime to MCP servers: the
// hermes-tools-mcp binary (spawned as a subprocess) and the user's
// mcp_servers from config.yaml (stdio, streamable HTTP, legacy SSE). It
// lists their tools, offers them as OpenAI function tools, routes calls with
// per-server timeouts and turns results into the text the model sees, the
// way Hermes' tools/mcp_tool.py does (hermes-original.md §7.3).
//
// A server that fails to start is never dropped silently: it shows up in
// Statuses with the reason, and FailureNote gives text the runtime puts in
// front of the model so it does not pretend the tools exist.
package mcpclients

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/hermeshome"

	"github.com/hermes-go/hermes/internal/safefile"
)

// HermesToolsName is the server name hermes-tools-mcp is registered under.
// Its tools keep their plain names (memory, skills_list...), as they had in
// Hermes where they were built in.
const HermesToolsName = "hermes-tools"

// Defaults for mcp_servers.<name>.timeout and connect_timeout. Hermes
// waits 60 s for a server to connect; a chat cannot start until every
// server has answered or timed out, so one dead server held the banner
// for a minute. 10 s is enough for a cold npx start on a slow machine; a
// slower server sets its own connect_timeout.
const (
	DefaultCallTimeout    = 120 * time.Second
	DefaultConnectTimeout = 10 * time.Second
	DefaultCloseGrace     = 2 * time.Second
)

// Options configure Start.
type Options struct {
	// HermesHome is where logs/mcp-stderr.log goes and what hermes-tools-mcp
	// is pointed at. Empty discards the children's stderr.
	HermesHome string
	// ToolsBinary is the path of hermes-tools-mcp; empty starts no
	// hermes-tools server. ToolsArgs are extra flags for it, and
	// ToolsEnvVars the variables it reads (its API keys, the kanban
	// worker's task variables), handed on from Getenv when set: unlike a
	// third-party server, it is ours and needs them.
	ToolsBinary  string
	ToolsArgs    []string
	ToolsEnvVars []string
	// DelegatedChild marks the hermes-tools server as a delegate's
	// (HERMES_DELEGATED_CHILD_CONTEXT=1, as the Python Hermes marks its
	// delegate_task children): it may read the kanban board but never
	// change it, even inside a kanban worker.
	DelegatedChild bool
	// Servers are the user's mcp_servers (see ServersFromConfig).
	Servers []configmigrate.Server
	// ConfigProblems are per-server errors from reading config.yaml; they
	// are reported like start failures.
	ConfigProblems []error
	// Getenv resolves ${VAR} references and supplies the variables passed
	// to stdio children; nil means os.Getenv.
	Getenv func(string) string
	// ConnectTimeout and CallTimeout apply where a server sets none.
	ConnectTimeout time.Duration
	CallTimeout    time.Duration
	// CloseGrace is how long Close waits for a child to exit after closing
	// its stdin before terminating it.
	CloseGrace time.Duration
	// ClientVersion is sent in initialize.
	ClientVersion string
}

// Status is one server's outcome.
type Status struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // "stdio", "http", "sse" or "" for a config problem
	Connected bool   `json:"connected"`
	Disabled  bool   `json:"disabled,omitempty"`
	Tools     int    `json:"tools"`
	// Error says why the server is not connected and what to check.
	Error string `json:"error,omitempty"`
	// Notes are non-fatal remarks (tools skipped because of a name clash).
	Notes []string `json:"notes,omitempty"`
}

// Tool is one tool offered to the model.
type Tool struct {
	// Name is the model-facing function name.
	Name string
	// Server and MCPName say where calls go.
	Server  string
	MCPName string
	// Description and Parameters (a JSON Schema object) are what the model
	// sees.
	Description string
	Parameters  map[string]any
}

// Manager owns the clients and their subprocesses. All methods are safe
// for concurrent use.
type Manager struct {
	tools    []Tool
	byName   map[string]Tool
	statuses []Status
	conns    map[string]*conn
	stderr   *os.File
	grace    time.Duration

	closeOnce sync.Once
	closeErr  error
}

// conn is one connected server.
type conn struct {
	name        string
	client      *client.Client
	callTimeout time.Duration
	// cmd is the stdio child, kept so Close can kill it if the library's
	// own shutdown hangs (mcp-go issue #94).
	mu  sync.Mutex
	cmd *exec.Cmd
	// cancel stops the HTTP transport's background work.
	cancel context.CancelFunc
}

// ServersFromConfig reads mcp_servers from <home>/config.yaml. A missing
// file means no servers; per-server problems come back as problems.
func ServersFromConfig(home string) ([]configmigrate.Server, []error, error) {
	data, err := safefile.ReadUserFile(filepath.Join(home, "config.yaml"), safefile.MaxConfigSize)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read mcp_servers: %w", err)
	}
	return configmigrate.HermesServers(data)
}

// Start connects to every server concurrently and returns when each has
// connected, failed or timed out. Failures are in Statuses, not in the
// error; the error is only for a log file that cannot be opened.
func Start(ctx context.Context, opts Options) (*Manager, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.CloseGrace <= 0 {
		opts.CloseGrace = DefaultCloseGrace
	}
	m := &Manager{byName: map[string]Tool{}, conns: map[string]*conn{}, grace: opts.CloseGrace}
	if opts.HermesHome != "" {
		dir := filepath.Join(opts.HermesHome, "logs")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create %s for MCP server stderr (check HERMES_HOME permissions): %w", dir, err)
		}
		f, err := safefile.AppendUserFile(filepath.Join(dir, "mcp-stderr.log"), 0o644)
		if err != nil {
			return nil, fmt.Errorf("open MCP stderr log (check HERMES_HOME permissions, or move aside what is there): %w", err)
		}
		m.stderr = f
	}

	var specs []configmigrate.Server
	if opts.ToolsBinary != "" {
		args := slices.Clone(opts.ToolsArgs)
		env := []configmigrate.KeyValue(nil)
		if opts.HermesHome != "" {
			// Exactly this home: a root's active_profile must not send
			// the tools to another profile than the agent's (-p default).
			args = append(hermeshome.ExactArgs(opts.HermesHome), args...)
			env = append(env, configmigrate.KeyValue{Key: "HERMES_HOME", Value: configmigrate.Value{Literal: opts.HermesHome}})
		}
		if opts.DelegatedChild {
			env = append(env, configmigrate.KeyValue{Key: "HERMES_DELEGATED_CHILD_CONTEXT", Value: configmigrate.Value{Literal: "1"}})
		}
		specs = append(specs, configmigrate.Server{Name: HermesToolsName, Command: opts.ToolsBinary, Args: args, Env: env, EnvVars: opts.ToolsEnvVars})
	}
	for _, s := range opts.Servers {
		if s.Name == HermesToolsName && opts.ToolsBinary != "" {
			m.statuses = append(m.statuses, Status{Name: s.Name, Error: fmt.Sprintf("mcp_servers.%s is reserved for the built-in hermes-tools server; rename it in config.yaml", s.Name)})
			continue
		}
		if s.Disabled {
			m.statuses = append(m.statuses, Status{Name: s.Name, Transport: transportOf(s), Disabled: true})
			continue
		}
		specs = append(specs, s)
	}
	for _, p := range opts.ConfigProblems {
		m.statuses = append(m.statuses, Status{Error: p.Error()})
	}

	type outcome struct {
		status Status
		conn   *conn
		tools  []mcp.Tool
		spec   configmigrate.Server
	}
	results := make([]outcome, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		wg.Go(func() {
			c, tools, err := m.connect(ctx, spec, opts)
			st := Status{Name: spec.Name, Transport: transportOf(spec)}
			if err != nil {
				st.Error = err.Error()
			} else {
				st.Connected = true
			}
			results[i] = outcome{status: st, conn: c, tools: tools, spec: spec}
		})
	}
	wg.Wait()

	for _, r := range results {
		st := r.status
		if r.conn != nil {
			m.conns[r.spec.Name] = r.conn
			for _, t := range r.tools {
				if !toolAllowed(r.spec, t.Name) {
					continue
				}
				tool := toModelTool(r.spec.Name, t)
				if prev, dup := m.byName[tool.Name]; dup {
					st.Notes = append(st.Notes, fmt.Sprintf("tool %q not offered: its name clashes with %q from server %q", t.Name, prev.Name, prev.Server))
					continue
				}
				m.byName[tool.Name] = tool
				m.tools = append(m.tools, tool)
				st.Tools++
			}
		}
		m.statuses = append(m.statuses, st)
	}
	return m, nil
}

func transportOf(s configmigrate.Server) string {
	switch {
	case s.IsStdio():
		return "stdio"
	case s.SSE:
		return "sse"
	case s.URL != "":
		return "http"
	}
	return ""
}

// toolAllowed applies tools.include / tools.exclude; include wins.
func toolAllowed(s configmigrate.Server, name string) bool {
	if len(s.EnabledTools) > 0 {
		return slices.Contains(s.EnabledTools, name)
	}
	return !slices.Contains(s.DisabledTools, name)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]`)

// SanitizeName is Hermes' sanitize_mcp_name_component: every character
// outside [A-Za-z0-9_] becomes "_", because function names sent to the
// model may not contain hyphens or dots.
func SanitizeName(s string) string { return unsafeName.ReplaceAllString(s, "_") }

// ToolName is the model-facing name of tool on server.
func ToolName(server, tool string) string {
	if server == HermesToolsName {
		return tool
	}
	return "mcp_" + SanitizeName(server) + "_" + SanitizeName(tool)
}

func toModelTool(server string, t mcp.Tool) Tool {
	desc := t.Description
	if desc == "" {
		desc = fmt.Sprintf("MCP tool %s from %s", t.Name, server)
	}
	// Marshal the whole tool and take inputSchema back out: that covers
	// both a typed schema and a raw one the server sent verbatim.
	params := map[string]any{"type": "object", "properties": map[string]any{}}
	if b, err := json.Marshal(t); err == nil {
		var w struct {
			InputSchema map[string]any `json:"inputSchema"`
		}
		if json.Unmarshal(b, &w) == nil && w.InputSchema != nil {
			params = w.InputSchema
			if _, ok := params["properties"]; !ok {
				// OpenAI rejects object schemas without properties.
				params["properties"] = map[string]any{}
			}
		}
	}
	return Tool{Name: ToolName(server, t.Name), Server: server, MCPName: t.Name, Description: desc, Parameters: params}
}

// connect starts one server and lists its tools, bounded by its connect
// timeout. On failure everything it started is already reaped.
func (m *Manager) connect(ctx context.Context, s configmigrate.Server, opts Options) (*conn, []mcp.Tool, error) {
	timeout := opts.ConnectTimeout
	if s.StartupTimeoutSec > 0 {
		timeout = time.Duration(s.StartupTimeoutSec * float64(time.Second))
	}
	c := &conn{name: s.Name, callTimeout: opts.CallTimeout}
	if s.ToolTimeoutSec > 0 {
		c.callTimeout = time.Duration(s.ToolTimeoutSec * float64(time.Second))
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var err error
	switch transportOf(s) {
	case "stdio":
		err = m.startStdio(c, s, opts.Getenv)
	case "http", "sse":
		err = startHTTP(c, s, opts.Getenv)
	default:
		err = errors.New("no command or url configured")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("MCP server %q failed to start: %w (check mcp_servers.%s in config.yaml)", s.Name, err, s.Name)
	}
	fail := func(step string, err error) (*conn, []mcp.Tool, error) {
		m.closeConn(c)
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s: %w", timeout, err)
		}
		hint := fmt.Sprintf("check mcp_servers.%s in config.yaml", s.Name)
		if s.IsStdio() && m.stderr != nil {
			hint += "; its stderr is in " + m.stderr.Name()
		}
		return nil, nil, fmt.Errorf("MCP server %q failed during %s: %w (%s)", s.Name, step, err, hint)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "hermes", Version: opts.ClientVersion}
	if _, err := c.client.Initialize(cctx, init); err != nil {
		return fail("initialize", err)
	}
	list, err := c.client.ListTools(cctx, mcp.ListToolsRequest{})
	if err != nil {
		return fail("tools/list", err)
	}
	return c, list.Tools, nil
}

// childEnvAllowed is Hermes' filter for stdio children: only these
// variables (and XDG_*) pass, so API keys in the agent's environment do
// not leak into third-party servers unless the user lists them in env.
var childEnvAllowed = []string{"PATH", "HOME", "USER", "LANG", "LC_ALL", "TERM", "SHELL", "TMPDIR"}

// resolve turns a configured value into text, expanding ${VAR} references
// with getenv.
func resolve(v configmigrate.Value, getenv func(string) string) string {
	if v.IsRef() {
		return v.Prefix + getenv(v.Ref)
	}
	return os.Expand(v.Literal, func(k string) string { return getenv(k) })
}

func childEnv(s configmigrate.Server, getenv func(string) string) []string {
	var env []string
	for _, k := range childEnvAllowed {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	// XDG_* cannot be listed by name through getenv, so they come from the
	// real environment.
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	for _, name := range s.EnvVars {
		if v := getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	for _, kv := range s.Env {
		env = append(env, kv.Key+"="+resolve(kv.Value, getenv))
	}
	return env
}

func (m *Manager) startStdio(c *conn, s configmigrate.Server, getenv func(string) string) error {
	env := childEnv(s, getenv)
	cmdFunc := func(_ context.Context, command string, _ []string, args []string) (*exec.Cmd, error) {
		// Not CommandContext: the start context ends when Start returns,
		// and the child must outlive it. Close owns the child instead.
		cmd := exec.Command(command, args...)
		cmd.Env = env
		cmd.Dir = s.Cwd
		setProcessGroup(cmd)
		if m.stderr != nil {
			fmt.Fprintf(m.stderr, "===== [%s] starting MCP server '%s' =====\n", time.Now().Format(time.RFC3339), s.Name)
			cmd.Stderr = m.stderr
		}
		c.mu.Lock()
		c.cmd = cmd
		c.mu.Unlock()
		return cmd, nil
	}
	tr := transport.NewStdioWithOptions(s.Command, nil, s.Args, transport.WithCommandFunc(cmdFunc))
	if err := tr.Start(context.Background()); err != nil {
		return err
	}
	c.client = client.NewClient(tr)
	return c.client.Start(context.Background())
}

func startHTTP(c *conn, s configmigrate.Server, getenv func(string) string) error {
	headers := map[string]string{}
	for _, kv := range s.Headers {
		headers[kv.Key] = resolve(kv.Value, getenv)
	}
	// The transports keep background streams tied to this context; Close
	// cancels it.
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	var err error
	if s.SSE {
		c.client, err = client.NewSSEMCPClient(s.URL, client.WithHeaders(headers))
	} else {
		c.client, err = client.NewStreamableHttpClient(s.URL, transport.WithHTTPHeaders(headers))
	}
	if err != nil {
		cancel()
		return err
	}
	if err := c.client.Start(ctx); err != nil {
		cancel()
		return err
	}
	return nil
}

// Tools returns the tools offered to the model, in server order.
func (m *Manager) Tools() []Tool { return slices.Clone(m.tools) }

// Statuses returns every configured server's outcome.
func (m *Manager) Statuses() []Status {
	out := make([]Status, len(m.statuses))
	for i, s := range m.statuses {
		out[i] = s
		out[i].Notes = slices.Clone(s.Notes)
	}
	return out
}

// FailureNote is text for the model naming the servers that are not
// available and why, or "" when all configured servers connected.
func (m *Manager) FailureNote() string {
	var lines []string
	for _, s := range m.statuses {
		if s.Connected || s.Disabled {
			continue
		}
		name := s.Name
		if name == "" {
			name = "(config)"
		}
		lines = append(lines, fmt.Sprintf("- %s: %s", name, s.Error))
	}
	if len(lines) == 0 {
		return ""
	}
	return "Some MCP servers are unavailable this session; their tools are not offered. " +
		"If the user asks for them, say so instead of guessing:\n" + strings.Join(lines, "\n")
}

// Call runs the model's call of tool name with argsJSON and returns the
// text for the tool message. It never fails: problems are reported to the
// model as {"error": ...}, as Hermes does.
func (m *Manager) Call(ctx context.Context, name, argsJSON string) string {
	tool, ok := m.byName[name]
	if !ok {
		return errorJSON(fmt.Sprintf("unknown tool %q", name))
	}
	c := m.conns[tool.Server]
	if c == nil {
		return errorJSON(fmt.Sprintf("MCP server '%s' is not connected", tool.Server))
	}
	args := map[string]any{}
	if strings.TrimSpace(argsJSON) != "" {
		if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
			return errorJSON(fmt.Sprintf("arguments for %s are not a JSON object: %v", name, err))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, c.callTimeout)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool.MCPName
	req.Params.Arguments = args
	res, err := c.client.CallTool(cctx, req)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return errorJSON(fmt.Sprintf("tool call %s interrupted", name))
		case errors.Is(cctx.Err(), context.DeadlineExceeded):
			return errorJSON(fmt.Sprintf("MCP tool %s on server '%s' timed out after %s (raise mcp_servers.%s.timeout in config.yaml)", tool.MCPName, tool.Server, c.callTimeout, tool.Server))
		default:
			return errorJSON(fmt.Sprintf("MCP call %s on server '%s' failed: %v", tool.MCPName, tool.Server, err))
		}
	}
	return resultText(tool.Server, res)
}

// resultText applies Hermes' result rules (§7.3). hermes-tools' own results
// pass through as the tool's text, because in Hermes those tools were
// built in and returned their JSON string straight to the model.
func resultText(server string, res *mcp.CallToolResult) string {
	text := contentText(res.Content)
	if res.IsError {
		return errorJSON(text)
	}
	if server == HermesToolsName {
		return text
	}
	var out map[string]any
	switch {
	case res.StructuredContent != nil && text != "":
		out = map[string]any{"result": text, "structuredContent": res.StructuredContent}
	case res.StructuredContent != nil:
		out = map[string]any{"result": res.StructuredContent}
	default:
		out = map[string]any{"result": text}
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// contentText joins text blocks with newlines. Non-text blocks are named
// rather than dropped, so the model knows something was returned that it
// cannot see (Hermes' image caching / MEDIA tags are not implemented).
func contentText(blocks []mcp.Content) string {
	var parts []string
	for _, b := range blocks {
		switch v := b.(type) {
		case mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image content (%s) not shown]", v.MIMEType))
		case mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio content (%s) not shown]", v.MIMEType))
		case mcp.EmbeddedResource:
			if tr, ok := v.Resource.(mcp.TextResourceContents); ok {
				parts = append(parts, tr.Text)
			} else {
				parts = append(parts, "[embedded binary resource not shown]")
			}
		default:
			parts = append(parts, fmt.Sprintf("[%T content not shown]", b))
		}
	}
	return strings.Join(parts, "\n")
}

func errorJSON(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// Close shuts every client down and reaps every child: mcp-go closes stdin,
// then terminates, then kills; because its Close can still block, it is
// bounded here and the process group is killed if it does not return.
func (m *Manager) Close() error {
	m.closeOnce.Do(func() {
		var wg sync.WaitGroup
		errs := make([]error, 0, len(m.conns))
		var mu sync.Mutex
		for _, c := range m.conns {
			wg.Go(func() {
				if err := m.closeConn(c); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if m.stderr != nil {
			errs = append(errs, m.stderr.Close())
		}
		m.closeErr = errors.Join(errs...)
	})
	return m.closeErr
}

// closeConn closes one client within a bound: the library's own sequence
// (stdin close, grace, SIGTERM, kill) normally finishes well inside
// grace+6s; past that the group is killed and we wait a little more.
func (m *Manager) closeConn(c *conn) error {
	if c.client == nil {
		// Transport never got a client: only a child may need reaping.
		return c.killChild()
	}
	done := make(chan error, 1)
	go func() { done <- c.client.Close() }()
	defer func() {
		if c.cancel != nil {
			c.cancel()
		}
	}()
	select {
	case err := <-done:
		return ignoreExit(err)
	case <-time.After(m.grace + 6*time.Second):
	}
	_ = c.killChild()
	select {
	case err := <-done:
		return ignoreExit(err)
	case <-time.After(5 * time.Second):
		return fmt.Errorf("MCP server %q did not shut down even after SIGKILL; it may be left running", c.name)
	}
}

// ignoreExit drops the child's exit status: a server killed at shutdown is
// not an error the user can act on.
func ignoreExit(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	return err
}

func (c *conn) killChild() error {
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return nil
	}
	return killProcessGroup(cmd)
}
