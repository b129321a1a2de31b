// Package mcpserver turns the registry's tool declarations into an MCP
// server: which tools are exposed, how a call is validated, run and turned
// into an MCP result (dispatch.go, where every message is answered), and
// the instructions the client shows the model.
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/mcpserver/argschema"
	"github.com/hermes-go/hermes/mcpserver/httpmcp"
	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
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
	// Methods serves further methods (a protocol extension's) by name,
	// as the skills extension's are served. A method named here replaces
	// the server's own.
	Methods map[string]jsonrpc.MethodFunc
}

// Server is an MCP server exposing the enabled tools of a plan. Every
// message a transport reads is answered in dispatch.go; the transports
// (mcpserver/stdio, mcpserver/httpmcp) open a session per client (Open).
type Server struct {
	// mcp answers the methods whose rules are mcp-go's (initialize,
	// server/discover, ping, logging, methods this server lacks); see
	// dispatch.go. No tool is registered with it.
	mcp     *server.MCPServer
	log     *slog.Logger
	version string
	// tools are the exposed tools by name, answered by callTool; names
	// lists them in the plan's order, for suggestions.
	tools map[string]*tool
	names []string
	// hidden says why each tool the plan knows but does not expose is
	// hidden, so a call of one can say how to turn it on.
	hidden map[string]string
	// routes is the method table (dispatch.go).
	routes map[string]route
	// modernMeta is what a 2026-07-28 tools/call result starts with, the
	// members mcp-go stamps on every result of that revision.
	modernMeta []byte
	// info is the server's identity, stamped into 2026-07-28 results.
	info mcp.Implementation
}

// tool is an exposed tool: its declaration, and its input schema compiled
// on its first call, so start-up and tools/list cost nothing per tool.
type tool struct {
	def    tooldef.Tool
	schema func() (*argschema.Schema, error)
}

// New builds the server.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	enabled := opts.Plan.Enabled()
	srv := &Server{
		log: log, version: opts.Version, tools: make(map[string]*tool, len(enabled)),
		info: mcp.Implementation{Name: ServerName, Version: opts.Version},
	}
	srv.hidden = map[string]string{}
	for _, e := range opts.Plan.Entries {
		if !e.Enabled {
			srv.hidden[e.Tool.Name] = e.Reason
		}
	}
	for _, e := range enabled {
		srv.names = append(srv.names, e.Tool.Name)
		srv.tools[e.Tool.Name] = &tool{def: e.Tool, schema: sync.OnceValues(func() (*argschema.Schema, error) {
			return argschema.Compile(e.Tool.Name, e.Tool.InputSchema)
		})}
	}
	list := newToolsList(enabled)
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
	methods := map[string]jsonrpc.MethodFunc{string(mcp.MethodToolsList): list.serve}
	if opts.Skills != nil && slices.ContainsFunc(enabled, func(e toolsets.Entry) bool { return e.Toolset == catalog.Skills }) {
		ext := skillsext.New(skillsext.Options{Library: opts.Skills, PageSize: opts.SkillsPageSize, Logger: log,
			ListChanged: func() { srv.mcp.SendNotificationToAllClients(mcp.MethodNotificationResourcesListChanged, nil) }})
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
	maps.Copy(methods, opts.Methods)
	srv.mcp = server.NewMCPServer(ServerName, opts.Version, mcpOpts...)
	srv.routes = srv.newRoutes(methods)
	srv.modernMeta = modernResultMeta(srv.info)
	return srv
}

// Open opens a session for a transport (jsonrpc.Opener). It is known to
// mcp-go, which records what initialize negotiates in it and sends it the
// notifications no request owns (resources/list_changed) through reserve.
func (s *Server) Open(ctx context.Context, id string, reserve func() func([]byte)) (jsonrpc.Session, error) {
	sess := &session{srv: s, id: id, reserve: reserve}
	if err := s.mcp.RegisterSession(ctx, sess); err != nil {
		return nil, fmt.Errorf("register session: %w", err)
	}
	return sess, nil
}

// ServeStdio serves one client on in/out until EOF or ctx is done. The
// connection is one session: what tools keep per session (an unnamed todo
// list) lasts as long as it.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	st := sessionstate.New("stdio")
	defer st.Close()
	return stdio.Serve(sessionstate.NewContext(ctx, st), s, in, out, stdio.Options{Logger: s.log})
}

// HTTPHandler returns the Streamable HTTP transport for this server; each
// of its sessions has its own session state. Shut it down to end them.
func (s *Server) HTTPHandler(opts httpmcp.Options) *httpmcp.Handler {
	if opts.Logger == nil {
		opts.Logger = s.log
	}
	return httpmcp.New(s, opts)
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
