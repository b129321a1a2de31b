package mcpserver

// Where every message a transport reads is answered. The stdio loop and
// the Streamable HTTP handler parse a message (jsonrpc.Parse) and hand it
// to its session's Handle, below; the method table (newRoutes) says what
// answers which method. tools/call is answered here, start to end: its
// params are read once, its arguments are taken as sent (never decoded
// here and re-encoded), checked against the tool's schema by walking their
// bytes (argschema builds no values from them), handed to the tool, whose
// decode into its own types is the one decode they get, and its result is
// encoded once, into the response line.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/internal/didyoumean"
	"github.com/hermes-go/hermes/mcpserver/argschema"
	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// route answers one request of a method: its response line, nil for none.
// notify takes the notifications the request produces, before it returns.
type route func(ctx context.Context, sess *session, msg *jsonrpc.Message, notify func([]byte)) []byte

// newRoutes is the method table. methods are the methods this package
// answers itself beside tools/call (tools/list, a protocol extension's).
//
// mcp-go answers initialize, server/discover, ping and logging/setLevel,
// and every method not listed (with its "not supported" or "Method not
// found" errors): they carry the protocol revisions' rules (which versions
// negotiate, what a 2026-07-28 request may no longer call, the capability
// checks), which mcp-go implements and which would otherwise be copied
// here. Notifications go to it too (notifications/initialized), except
// notifications/cancelled, which the transports handle (jsonrpc.Calls).
func (s *Server) newRoutes(methods map[string]jsonrpc.MethodFunc) map[string]route {
	r := map[string]route{
		string(mcp.MethodInitialize):          s.viaMCPGo,
		string(mcp.MethodServerDiscover):      s.viaMCPGo,
		string(mcp.MethodPing):                s.viaMCPGo,
		string(mcp.MethodSetLogLevel):         s.viaMCPGo,
		string(mcp.MethodSubscriptionsListen): s.viaMCPGo,
		string(mcp.MethodToolsCall):           s.callTool,
	}
	for name, fn := range methods {
		r[name] = s.method(fn)
	}
	return r
}

// session is one client session: what initialize (or a 2026-07-28
// request) told of the client, which mcp-go records through the methods
// below (server.ClientSession and its optional interfaces), and where the
// notifications no request owns go (reserve, see mcpgo.go).
type session struct {
	srv     *Server
	id      string
	reserve func() func([]byte)

	initialized atomic.Bool
	logLevel    atomic.Value // mcp.LoggingLevel

	mu           sync.Mutex
	clientInfo   mcp.Implementation
	clientCaps   mcp.ClientCapabilities
	protoVersion string
}

var (
	_ server.ClientSession         = (*session)(nil)
	_ server.SessionWithLogging    = (*session)(nil)
	_ server.SessionWithClientInfo = (*session)(nil)
	_ jsonrpc.Session              = (*session)(nil)
)

// Handle answers one message. A panic outside a tool (tool panics are
// contained in runTool) is an internal-error response, not a dead server.
func (sess *session) Handle(ctx context.Context, msg *jsonrpc.Message, notify func([]byte)) (line []byte) {
	s := sess.srv
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while handling message", "method", msg.Method, "panic", r, "stack", string(debug.Stack()))
			if msg.Kind == jsonrpc.KindRequest {
				line = jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, fmt.Sprintf("Internal error: %v", r), nil)
			}
		}
	}()
	switch msg.Kind {
	case jsonrpc.KindReply:
		return nil // this server sends no requests
	case jsonrpc.KindNotification:
		return s.viaMCPGo(ctx, sess, msg, notify)
	}
	if r, ok := s.routes[msg.Method]; ok {
		return r(ctx, sess, msg, notify)
	}
	return s.viaMCPGo(ctx, sess, msg, notify)
}

// Close ends the session.
func (sess *session) Close() { sess.srv.mcp.UnregisterSession(context.Background(), sess.id) }

func (sess *session) SessionID() string { return sess.id }

func (sess *session) Initialize() {
	sess.logLevel.CompareAndSwap(nil, mcp.LoggingLevelError)
	sess.initialized.Store(true)
}

func (sess *session) Initialized() bool { return sess.initialized.Load() }

func (sess *session) SetLogLevel(level mcp.LoggingLevel) { sess.logLevel.Store(level) }

func (sess *session) GetLogLevel() mcp.LoggingLevel {
	if l, ok := sess.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

func (sess *session) GetClientInfo() mcp.Implementation {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.clientInfo
}

func (sess *session) SetClientInfo(info mcp.Implementation) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.clientInfo = info
}

func (sess *session) GetClientCapabilities() mcp.ClientCapabilities {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.clientCaps
}

func (sess *session) SetClientCapabilities(caps mcp.ClientCapabilities) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.clientCaps = caps
}

// SetProtocolVersion records the version initialize negotiated (mcp-go
// looks for this method by an unexported interface).
func (sess *session) SetProtocolVersion(v string) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.protoVersion = v
}

// ProtocolVersion is the negotiated protocol version, empty before
// initialize.
func (sess *session) ProtocolVersion() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.protoVersion
}

// applyModern records what a 2026-07-28 request says of its client, as
// mcp-go does for the requests it answers: that revision has no
// handshake, and the session behaves as if it had had one.
func (sess *session) applyModern(info *server.RequestProtocolInfo) {
	if info.ClientInfo != nil {
		sess.SetClientInfo(*info.ClientInfo)
	}
	if info.ClientCapabilities != nil {
		sess.SetClientCapabilities(*info.ClientCapabilities)
	}
	if !sess.Initialized() {
		sess.Initialize()
	}
}

// protocolInfo reads a request's era from its _meta with mcp-go's rules:
// a request is modern when it declares 2026-07-28 or later, and a modern
// request must name a version this server speaks and carry its client
// capabilities. meta is nil when the params have none (or are not an
// object: the method's own reading of them reports that).
func protocolInfo(ctx context.Context, meta *mcp.Meta) (*server.RequestProtocolInfo, *jsonrpc.Error) {
	version := meta.ProtocolVersion()
	if !mcp.IsModernProtocol(version) {
		return &server.RequestProtocolInfo{ProtocolVersion: version}, nil
	}
	if !mcp.IsValidProtocolVersion(version) {
		e := mcp.UnsupportedProtocolVersionError{Version: version, Supported: server.SupportedProtocolVersionsFromContext(ctx)}
		details := e.JSONRPCError().Error
		return nil, &jsonrpc.Error{Code: details.Code, Message: details.Message, Data: details.Data}
	}
	caps := meta.ClientCapabilities()
	if caps == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "missing or invalid _meta field %s", mcp.MetaKeyClientCapabilities)
	}
	return &server.RequestProtocolInfo{
		Modern:             true,
		ProtocolVersion:    version,
		ClientInfo:         meta.ClientInfo(),
		ClientCapabilities: caps,
		LogLevel:           meta.LogLevel(),
	}, nil
}

// paramsMeta is the _meta of params, read as mcp-go reads it before it
// looks at the method; nil when there is none or params do not decode.
func paramsMeta(params json.RawMessage) *mcp.Meta {
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return nil
	}
	return p.Meta
}

// method answers a request with a MethodFunc, checking the envelope and
// the protocol metadata the way mcp-go does for its own methods, so a
// client cannot tell the two apart.
func (s *Server) method(fn jsonrpc.MethodFunc) route {
	return func(ctx context.Context, sess *session, msg *jsonrpc.Message, _ func([]byte)) []byte {
		if v, ok := versionOf(msg); !ok || v != mcp.JSONRPC_VERSION {
			return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInvalidRequest, "Invalid JSON-RPC version", nil)
		}
		params := msg.Params
		if isNull(params) {
			params = nil
		}
		info, rerr := protocolInfo(ctx, paramsMeta(params))
		if rerr != nil {
			return jsonrpc.AppendError(nil, msg.ID, rerr.Code, rerr.Message, rerr.Data)
		}
		ctx = server.WithRequestProtocolInfo(ctx, info)
		result, err := fn(ctx, params)
		if err != nil {
			var e *jsonrpc.Error
			if errors.As(err, &e) {
				return jsonrpc.AppendError(nil, msg.ID, e.Code, e.Message, e.Data)
			}
			s.log.Error("method failed", "method", msg.Method, "err", err)
			return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, err.Error(), nil)
		}
		var raw []byte
		if enc, ok := result.(jsonrpc.Encoded); ok {
			raw = enc
		} else {
			raw, err = jsonrpc.Encode(result)
		}
		if err == nil && info.Modern {
			raw, err = s.decorate(raw)
		}
		if err != nil {
			s.log.Error("encode method result", "method", msg.Method, "err", err)
			return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, fmt.Sprintf("Internal error: encode result: %v", err), nil)
		}
		return jsonrpc.AppendResult(nil, msg.ID, raw)
	}
}

// versionOf is the message's jsonrpc member; ok is false when it is
// present and not a string.
func versionOf(msg *jsonrpc.Message) (v string, ok bool) {
	if msg.Version == nil {
		return "", true
	}
	return v, json.Unmarshal(msg.Version, &v) == nil
}

func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

// decorate adds what 2026-07-28 requires of every result and mcp-go adds to
// its own: resultType "complete" and the server's identity in _meta. Values
// the method set itself are kept. Method-specific members (such as the
// caching hints of list and read results) are the method's to set.
func (s *Server) decorate(raw []byte) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, errors.New("result is not a JSON object")
	}
	if _, ok := obj["resultType"]; !ok {
		obj["resultType"] = json.RawMessage(`"` + mcp.ResultTypeComplete + `"`)
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok && !isNull(m) {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("result _meta is not an object: %w", err)
		}
	}
	if _, ok := meta[mcp.MetaKeyServerInfo]; !ok {
		info, err := jsonrpc.Encode(s.info)
		if err != nil {
			return nil, err
		}
		meta[mcp.MetaKeyServerInfo] = info
		if obj["_meta"], err = jsonrpc.Encode(meta); err != nil {
			return nil, err
		}
	}
	return jsonrpc.Encode(obj)
}

// modernResultMeta is what mcp-go stamps on a 2026-07-28 tools/call result
// before its content: _meta with the server's identity, and resultType.
func modernResultMeta(info mcp.Implementation) []byte {
	var r mcp.CallToolResult
	r.SetResultType(mcp.ResultTypeComplete)
	r.EnsureResultMeta().SetServerInfo(info)
	meta, err1 := jsonrpc.Encode(r.Meta)
	kind, err2 := jsonrpc.Encode(r.ResultType)
	if err := errors.Join(err1, err2); err != nil {
		panic(fmt.Sprintf("encode the 2026-07-28 result metadata: %v", err)) // strings only
	}
	out := append([]byte(`"_meta":`), meta...)
	out = append(out, `,"resultType":`...)
	out = append(out, kind...)
	return append(out, ',')
}

// callParams are tools/call's params as mcp-go reads them
// (mcp.CallToolParams), with the arguments and _meta kept as sent.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Meta      json.RawMessage `json:"_meta"`
	Task      *mcp.TaskParams `json:"task"`
	mcp.MultiRoundTripParams
}

// callTool answers tools/call. Its protocol errors are mcp-go's, in
// mcp-go's order (TestCallErrorsMatchMCPGo): the envelope, the request's
// era, params that do not decode, an unknown tool.
func (s *Server) callTool(ctx context.Context, sess *session, msg *jsonrpc.Message, notify func([]byte)) []byte {
	v, ok := versionOf(msg)
	if !ok {
		return jsonrpc.AppendError(nil, msg.ID, mcp.PARSE_ERROR, "Failed to parse message", nil)
	}
	if v != mcp.JSONRPC_VERSION {
		return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInvalidRequest, "Invalid JSON-RPC version", nil)
	}
	var p callParams
	var meta *mcp.Meta
	var bad bool
	if !isNull(msg.Params) {
		bad = json.Unmarshal(msg.Params, &p) != nil
	}
	if !bad && !isNull(p.Meta) {
		meta = new(mcp.Meta)
		bad = json.Unmarshal(p.Meta, meta) != nil
	}
	if bad || hugeNumber(p.Arguments) {
		return s.unparsableCall(ctx, sess, msg)
	}
	info, rerr := protocolInfo(ctx, meta)
	if rerr != nil {
		return jsonrpc.AppendError(nil, msg.ID, rerr.Code, rerr.Message, rerr.Data)
	}
	if info.Modern {
		sess.applyModern(info)
	}
	t := s.tools[p.Name]
	if t == nil {
		return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInvalidParams, s.notFound(p.Name), nil)
	}
	schema, err := t.schema()
	if err != nil {
		s.log.Error("tool schema", "tool", p.Name, "err", err)
		return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, fmt.Sprintf("tool %s: %v", p.Name, err), nil)
	}
	args := p.Arguments
	if isNull(args) {
		args = json.RawMessage("{}")
	}
	var res tooldef.Result
	if err := schema.Validate(args); err != nil {
		res = failure(fmt.Sprintf("invalid arguments for %s: %v. Fix the arguments to match the tool's input schema and call again.", p.Name, err))
	} else {
		// Progress goes to the client that asked for it (a token), once
		// the session is one: mcp-go sends none to a session before its
		// handshake, and nor does this.
		if tok := progressToken(p.Meta); tok != nil && sess.Initialized() {
			ctx = tooldef.WithProgress(ctx, func(progress, total float64, message string) {
				if line := progressLine(tok, progress, total, message); line != nil {
					notify(line)
				}
			})
		}
		res = s.runTool(ctx, t.def, args)
	}
	line, err := s.appendToolResult(nil, msg.ID, t.def, res, info.Modern)
	if err != nil {
		s.log.Error("encode tool result", "tool", p.Name, "err", err)
		return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInternalError, fmt.Sprintf("tool %s: encode result: %v", p.Name, err), nil)
	}
	return line
}

// maxNameEcho bounds how much of a tool name an error quotes: a name is
// the client's input, and a megabyte of it must not come back whole.
const maxNameEcho = 100

// notFound is the error for a call of a tool this server does not expose.
// It starts as mcp-go's did (clients and tests match on it) and goes on
// with what the model can do about it: why a known tool is hidden and how
// the user turns it on, or the exposed tools the name is a typo of.
func (s *Server) notFound(name string) string {
	msg := fmt.Sprintf("tool '%s' not found: %v", argschema.Excerpt(name, maxNameEcho), server.ErrToolNotFound)
	if why, ok := s.hidden[name]; ok {
		return msg + "; " + name + " is hidden in this server: " + why
	}
	if hint := didyoumean.Hint(name, s.names); hint != "" {
		return msg + "; " + hint
	}
	return msg
}

// unparsableCall answers a tools/call whose params mcp-go cannot read,
// with mcp-go's answer: a protocol error in _meta first, else its
// unmarshalling error (which names its own types, so it is mcp-go's
// unmarshal that is run here, on this rare path).
func (s *Server) unparsableCall(ctx context.Context, sess *session, msg *jsonrpc.Message) []byte {
	info, rerr := protocolInfo(ctx, paramsMeta(msg.Params))
	if rerr != nil {
		return jsonrpc.AppendError(nil, msg.ID, rerr.Code, rerr.Message, rerr.Data)
	}
	if info.Modern {
		sess.applyModern(info)
	}
	var req mcp.CallToolRequest
	err := json.Unmarshal(mcpLine(msg, nil), &req)
	if err == nil {
		err = errors.New("params do not decode")
	}
	return jsonrpc.AppendError(nil, msg.ID, jsonrpc.CodeInvalidRequest, fmt.Sprintf("unparsable %s request: %v", mcp.MethodToolsCall, err), nil)
}

// hugeNumber reports whether a JSON value holds a number beyond float64,
// which mcp-go refuses to read: it decodes arguments into Go values.
// Only numbers with an exponent or hundreds of digits can be one.
func hugeNumber(v json.RawMessage) bool {
	inString := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '-' || (c >= '0' && c <= '9'):
			start := i
			long := false
			for i < len(v) && (v[i] == '-' || v[i] == '+' || v[i] == '.' || v[i] == 'e' || v[i] == 'E' || (v[i] >= '0' && v[i] <= '9')) {
				long = long || v[i] == 'e' || v[i] == 'E'
				i++
			}
			if long || i-start > 300 {
				if _, err := strconv.ParseFloat(string(v[start:i]), 64); err != nil {
					return true
				}
			}
			i--
		}
	}
	return false
}

// progressToken is the request's progress token as sent, nil for none
// (absent or null, as mcp-go reads it).
func progressToken(meta json.RawMessage) json.RawMessage {
	var tok json.RawMessage
	for name, value := range jsonrpc.Members(meta) {
		if name == "progressToken" {
			tok = value
		}
	}
	if isNull(tok) {
		return nil
	}
	return tok
}

// progressLine is a notifications/progress line as mcp-go writes one: its
// params are a map encoded with encoding/json's defaults (so sorted, and
// HTML-escaped), and the token is the client's own, exactly.
func progressLine(token json.RawMessage, progress, total float64, message string) []byte {
	params := map[string]any{"progressToken": token, "progress": progress}
	if total > 0 {
		params["total"] = total
	}
	if message != "" {
		params["message"] = message
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil // a NaN or an infinity: nothing a client could read
	}
	line := make([]byte, 0, len(b)+64)
	line = append(line, `{"jsonrpc":"2.0","method":"notifications/progress","params":`...)
	line = append(line, b...)
	return jsonrpc.Finish(append(line, "}\n"...))
}

// runTool runs the tool's handler with panics contained (a bug in one
// tool costs one call, not the client's session) and turns a Go error into
// an error result the model can read.
func (s *Server) runTool(ctx context.Context, t tooldef.Tool, args json.RawMessage) tooldef.Result {
	res, err := func() (res tooldef.Result, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("tool panicked", "tool", t.Name, "panic", r, "stack", string(debug.Stack()))
				err = fmt.Errorf("internal error (a bug in hermes-tools; the server log has details): %v", r)
			}
		}()
		return t.Handler(ctx, args)
	}()
	if err == nil {
		return res
	}
	if ctx.Err() != nil {
		return failure(fmt.Sprintf("%s was cancelled: %v", t.Name, ctx.Err()))
	}
	s.log.Error("tool failed", "tool", t.Name, "err", err)
	return failure(fmt.Sprintf("%s failed: %v", t.Name, err))
}

// failure is an error result with plain text.
func failure(text string) tooldef.Result { return tooldef.Result{Value: text, IsError: true} }

// appendToolResult appends a tools/call response line: the result as JSON
// text content (the form every client shows the model), a string value as
// plain text, and for tools with an output schema the JSON as
// structuredContent too; images follow the text. The line is the one the
// server wrote when mcp-go built results (mcp.CallToolResult's members,
// the same JSON as mcp-go's encoding of it, without HTML escaping;
// TestToolResultMatchesMCPGo), written in one pass.
func (s *Server) appendToolResult(b []byte, id jsonrpc.ID, t tooldef.Tool, res tooldef.Result, modern bool) ([]byte, error) {
	var text []byte
	plain := false
	switch v := res.Value.(type) {
	case string:
		plain = true
		var err error
		if text, err = jsonrpc.Encode(v); err != nil {
			return nil, err
		}
	case json.RawMessage:
		text = v
	default:
		var err error
		if text, err = tooldef.EncodeJSON(v); err != nil {
			return nil, err
		}
	}
	var quoted []byte
	if plain {
		quoted = text
	} else {
		var err error
		if quoted, err = jsonrpc.Encode(string(text)); err != nil {
			return nil, err
		}
	}
	result := make([]byte, 0, len(quoted)+len(text)+len(s.modernMeta)+64)
	result = append(result, '{')
	if modern {
		result = append(result, s.modernMeta...)
	}
	result = append(result, `"content":[{"type":"text","text":`...)
	result = append(result, quoted...)
	result = append(result, '}')
	for _, img := range res.Images {
		enc, err := jsonrpc.Encode(mcp.NewImageContent(base64.StdEncoding.EncodeToString(img.Data), img.MIMEType))
		if err != nil {
			return nil, err
		}
		result = append(result, ',')
		result = append(result, enc...)
	}
	result = append(result, ']')
	if len(t.OutputSchema) > 0 && !res.IsError && !plain {
		result = append(result, `,"structuredContent":`...)
		result = append(result, text...)
	}
	if res.IsError {
		result = append(result, `,"isError":true`...)
	}
	result = append(result, '}')
	return jsonrpc.AppendResult(b, id, result), nil
}
