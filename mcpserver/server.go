// Package mcpserver turns the registry's tool declarations into an MCP
// server: which tools are exposed, how a call is validated, run and turned
// into an MCP result, and the instructions the client shows the model.
package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/mcpserver/argschema"
	"github.com/hermes-go/hermes/mcpserver/httpmcp"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/mcpserver/skillsext"
	"github.com/hermes-go/hermes/mcpserver/stdio"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/skills"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// ServerName is the name the server reports and the name clients register
// it under; codex config and Hermes both know it by this name.
const ServerName = "hermes-tools"

// Options configure a server.
type Options struct {
	// Version is reported in serverInfo.
	Version string
	// Plan says which tools to expose.
	Plan toolsets.Plan
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Skills is the library the skills toolset serves (Env.Skills). When it
	// is set and the plan enables the skills toolset, the server also
	// serves the library through the MCP skills extension (SEP-2640):
	// skills/list, skills/get, resources/directory/read, and
	// resources/read and resources/list for skill:// resources.
	Skills *skills.Library
	// SkillsPageSize is the page size of the extension's list results;
	// 0 means skillsext.DefaultPageSize.
	SkillsPageSize int
	// MemorySnapshot reads the saved memory (memory.Snapshot). When it is
	// set and the plan enables the memory toolset, each initialize appends
	// what it returns then to the instructions, so a session starts
	// knowing what earlier ones saved; nil adds nothing.
	MemorySnapshot func() (string, error)
}

// Server is an MCP server exposing the enabled tools of a plan.
type Server struct {
	mcp     *server.MCPServer
	log     *slog.Logger
	version string
	// methods are served by the stdio loop ahead of mcp-go, which knows
	// neither the extension's methods nor how to answer an unknown
	// resource with the code the extension requires.
	methods map[string]stdio.MethodFunc
	// ready is closed once every tool is registered with mcp, which
	// register does, started once by startRegistration.
	ready        chan struct{}
	register     func()
	registerOnce sync.Once
}

// New builds the server. Tool schemas are compiled lazily, on a tool's first
// call, so startup and tools/list cost nothing per tool.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	enabled := opts.Plan.Enabled()
	srv := &Server{log: log, version: opts.Version, ready: make(chan struct{})}
	list := newToolsList(enabled, srv.startRegistration)
	// The client reads the initialize response before it asks for
	// tools/list: the moment to encode the list, on a core the handshake no
	// longer needs.
	hooks := &server.Hooks{}
	hooks.AddAfterInitialize(func(context.Context, any, *mcp.InitializeRequest, *mcp.InitializeResult) { go list.prepare() })
	if opts.MemorySnapshot != nil && slices.ContainsFunc(enabled, func(e toolsets.Entry) bool { return e.Toolset == catalog.Memory }) {
		hooks.AddAfterInitialize(func(_ context.Context, _ any, _ *mcp.InitializeRequest, res *mcp.InitializeResult) {
			res.Instructions = withMemory(res.Instructions, opts.MemorySnapshot, log)
		})
	}
	mcpOpts := []server.ServerOption{
		server.WithHooks(hooks),
		server.WithToolCapabilities(false),
		server.WithLogging(),
		server.WithInstructions(Instructions(enabled)),
	}
	// tools/list is answered by this package (see toolsList), so methods
	// is never empty.
	methods := map[string]stdio.MethodFunc{string(mcp.MethodToolsList): list.serve}
	if opts.Skills != nil && slices.ContainsFunc(enabled, func(e toolsets.Entry) bool { return e.Toolset == catalog.Skills }) {
		ext := skillsext.New(skillsext.Options{Library: opts.Skills, PageSize: opts.SkillsPageSize, Logger: log})
		maps.Copy(methods, ext.Methods())
		// Skill files are resources, and the extension requires the
		// resources capability beside its own declaration. skill_manage
		// writes send notifications/resources/list_changed, so that is
		// declared; per-resource subscriptions are not offered.
		mcpOpts = append(mcpOpts,
			server.WithResourceCapabilities(false, true),
			server.WithExtensions(map[string]any{skillsext.ExtensionID: ext.Capability()}),
		)
	}
	s := server.NewMCPServer(ServerName, opts.Version, mcpOpts...)
	srv.mcp, srv.methods = s, methods
	// Registering the tools with mcp-go re-encodes and decodes every schema:
	// most of a millisecond of CPU. It is not needed to answer the
	// handshake or tools/list (toolsList answers that), and done then it
	// would compete for the machine's cores with the client waiting for
	// them. So it starts once tools/list has been answered, or when a
	// request that needs it arrives, whichever is first; such requests wait
	// for it (stdio.Options.Ready).
	srv.register = func() {
		defer close(srv.ready)
		tools := make([]server.ServerTool, 0, len(enabled))
		for _, e := range enabled {
			tools = append(tools, serverTool(e.Tool, log))
		}
		s.AddTools(tools...)
	}
	return srv
}

// startRegistration starts registering the tools with mcp-go, once.
func (s *Server) startRegistration() {
	s.registerOnce.Do(func() { go s.register() })
}

// MCP returns the underlying mcp-go server, with every tool registered, for
// transports other than stdio and for in-process clients in tests.
func (s *Server) MCP() *server.MCPServer {
	s.startRegistration()
	<-s.ready
	return s.mcp
}

// ServeStdio serves one client on in/out until EOF or ctx is done. The
// connection is one session: what tools keep per session (an unnamed todo
// list) lasts as long as it.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	st := sessionstate.New("stdio")
	defer st.Close()
	return stdio.Serve(sessionstate.NewContext(ctx, st), s.mcp, in, out, s.streamOptions())
}

// HTTPHandler returns the Streamable HTTP transport for this server; each
// of its sessions has its own session state. Shut it down to end them.
func (s *Server) HTTPHandler(opts httpmcp.Options) *httpmcp.Handler {
	if opts.Logger == nil {
		opts.Logger = s.log
	}
	return httpmcp.New(s.mcp, s.streamOptions(), opts)
}

// streamOptions are how the stdio loop serves this server, on stdin or on
// each POST of an HTTP session.
func (s *Server) streamOptions() stdio.Options {
	return stdio.Options{
		Logger:     s.log,
		Methods:    s.methods,
		ServerInfo: mcp.Implementation{Name: ServerName, Version: s.version},
		Ready:      s.ready,
		Prepare:    s.startRegistration,
	}
}

// Instructions describes the exposed tools for the client to show the model.
// It names only tools that are actually exposed: advertising a tool the
// model cannot call wastes a turn.
func Instructions(enabled []toolsets.Entry) string {
	if len(enabled) == 0 {
		return "hermes-tools is running with no tools enabled. Ask the user to enable toolsets (hermes-tools-mcp --toolsets ...; `hermes-tools-mcp doctor` explains what is hidden and why)."
	}
	var b strings.Builder
	b.WriteString("hermes-tools gives this session the Hermes agent's tools. Every tool returns JSON; a result with isError explains what went wrong and how to fix the call.\n")
	var order []string
	byset := map[string][]string{}
	advice := map[string]string{}
	for _, e := range enabled {
		if _, ok := byset[e.Toolset]; !ok {
			order = append(order, e.Toolset)
			advice[e.Toolset] = e.ToolsetInstructions
		}
		byset[e.Toolset] = append(byset[e.Toolset], e.Tool.Name)
	}
	for _, ts := range order {
		fmt.Fprintf(&b, "\n- %s: %s", ts, strings.Join(byset[ts], ", "))
		if hint := advice[ts]; hint != "" {
			b.WriteString(". " + hint)
		}
	}
	return b.String()
}

// withMemory appends the saved memory, read now, to instructions. The
// snapshot is frozen for the session, as Hermes freezes its system prompt:
// the memory tool's writes show in the next session.
func withMemory(instructions string, snapshot func() (string, error), log *slog.Logger) string {
	snap, err := snapshot()
	if err != nil {
		log.Warn("saved memory left out of the instructions", "err", err)
	}
	if snap == "" {
		return instructions
	}
	return instructions + "\n\nSaved memory from earlier sessions (read when this session started; what the memory tool saves now shows in the next session):\n\n" + snap
}

// serverTool adapts a declaration to mcp-go: arguments are checked against
// the advertised schema, the handler runs with panics contained, and the
// result becomes MCP content.
func serverTool(t tooldef.Tool, log *slog.Logger) server.ServerTool {
	mt := mcp.Tool{
		Name:            t.Name,
		Title:           t.Title,
		Description:     t.Description,
		RawInputSchema:  t.InputSchema,
		RawOutputSchema: t.OutputSchema,
		Annotations:     annotations(t),
	}
	compile := sync.OnceValues(func() (*argschema.Schema, error) {
		return argschema.Compile(t.Name, t.InputSchema)
	})
	handler := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := rawArguments(req)
		if err != nil {
			return errorResult(fmt.Sprintf("invalid arguments for %s: %v", t.Name, err)), nil
		}
		schema, err := compile()
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		if err := schema.Validate(args); err != nil {
			return errorResult(fmt.Sprintf("invalid arguments for %s: %v. Fix the arguments to match the tool's input schema and call again.", t.Name, err)), nil
		}
		if token := progressToken(req); token != nil {
			ctx = tooldef.WithProgress(ctx, progressSender(ctx, token, log))
		}
		res, err := runHandler(ctx, t, args, log)
		if err != nil {
			if ctx.Err() != nil {
				return errorResult(fmt.Sprintf("%s was cancelled: %v", t.Name, ctx.Err())), nil
			}
			log.Error("tool failed", "tool", t.Name, "err", err)
			return errorResult(fmt.Sprintf("%s failed: %v", t.Name, err)), nil
		}
		return toMCPResult(t, res)
	}
	return server.ServerTool{Tool: mt, Handler: handler}
}

// annotations are a declaration's hints as MCP annotations.
func annotations(t tooldef.Tool) mcp.ToolAnnotation {
	return mcp.ToolAnnotation{
		Title:           t.Title,
		ReadOnlyHint:    mcp.ToBoolPtr(t.Hints.ReadOnly),
		DestructiveHint: mcp.ToBoolPtr(t.Hints.Destructive),
		IdempotentHint:  mcp.ToBoolPtr(t.Hints.Idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(t.Hints.OpenWorld),
	}
}

// runHandler calls the handler with panics contained: a bug in one tool
// must cost one call, not the client's whole session.
func runHandler(ctx context.Context, t tooldef.Tool, args json.RawMessage, log *slog.Logger) (res tooldef.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("tool panicked", "tool", t.Name, "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("internal error (a bug in hermes-tools; the server log has details): %v", r)
		}
	}()
	return t.Handler(ctx, args)
}

func rawArguments(req mcp.CallToolRequest) (json.RawMessage, error) {
	if req.Params.Arguments == nil {
		return json.RawMessage("{}"), nil
	}
	b, err := json.Marshal(req.Params.Arguments)
	if err != nil {
		return nil, fmt.Errorf("arguments do not encode as JSON: %w", err)
	}
	return b, nil
}

func progressToken(req mcp.CallToolRequest) mcp.ProgressToken {
	if req.Params.Meta == nil {
		return nil
	}
	return req.Params.Meta.ProgressToken
}

func progressSender(ctx context.Context, token mcp.ProgressToken, log *slog.Logger) tooldef.ProgressFunc {
	srv := server.ServerFromContext(ctx)
	return func(progress, total float64, message string) {
		if srv == nil {
			return
		}
		params := map[string]any{"progressToken": token, "progress": progress}
		if total > 0 {
			params["total"] = total
		}
		if message != "" {
			params["message"] = message
		}
		if err := srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), params); err != nil {
			log.Debug("progress notification not sent", "err", err)
		}
	}
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(msg)},
		IsError: true,
	}
}

// toMCPResult renders a result as JSON text content (the form every client
// shows the model) and, for tools with an output schema, as
// structuredContent too. A string value is sent as plain text.
func toMCPResult(t tooldef.Tool, res tooldef.Result) (*mcp.CallToolResult, error) {
	var text string
	plain := false
	switch v := res.Value.(type) {
	case string:
		text, plain = v, true
	case json.RawMessage:
		text = string(v)
	default:
		b, err := tooldef.EncodeJSON(v)
		if err != nil {
			return nil, fmt.Errorf("tool %s: encode result: %w", t.Name, err)
		}
		text = string(b)
	}
	out := &mcp.CallToolResult{
		Content: []mcp.Content{mcp.NewTextContent(text)},
		IsError: res.IsError,
	}
	if len(t.OutputSchema) > 0 && !res.IsError && !plain {
		out.StructuredContent = json.RawMessage(text)
	}
	for _, img := range res.Images {
		out.Content = append(out.Content, mcp.NewImageContent(base64.StdEncoding.EncodeToString(img.Data), img.MIMEType))
	}
	return out, nil
}
