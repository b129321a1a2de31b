// Package httpmcp serves MCP over the Streamable HTTP transport, at one
// endpoint (POST, GET and DELETE), with the stdio loop's guarantees.
//
// mcp-go's own StreamableHTTPServer calls its MCPServer's HandleMessage
// directly (so our dispatcher is never reached), loses notifications sent
// just before a handler returns, sends one POST's progress down another's
// stream, and checks no Origin, body size or time. Here each POST's
// message passes the same gate as a stdio line (jsonrpc.Parse) and goes to
// the same session Handle (mcpserver/dispatch.go): its notifications are
// written to its own response, in order and before its response, none
// are dropped, a panic is an error response, and a notifications/cancelled
// in any POST of the session cancels the call it names (jsonrpc.Calls).
// The GET stream carries only what no request owns
// (resources/list_changed).
//
// Security follows the transport spec: a foreign Origin gets 403, a Host
// that is not a loopback name gets 403 on a loopback listener (DNS
// rebinding), and with a token every /mcp request needs it as a bearer
// token (401 otherwise), compared in constant time.
package httpmcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
)

// Endpoint is the MCP endpoint's path; HealthPath answers load balancers.
const (
	Endpoint   = "/mcp"
	HealthPath = "/healthz"
)

// Header names of the transport.
const (
	headerSession  = "Mcp-Session-Id"
	headerProtocol = "Mcp-Protocol-Version"
)

// Defaults of Options.
const (
	DefaultMaxBodyBytes = 4 << 20
	DefaultIdleTimeout  = 30 * time.Minute
	DefaultBodyTimeout  = 30 * time.Second
	DefaultWriteTimeout = time.Minute
	DefaultHeartbeat    = 25 * time.Second
	DefaultMaxSessions  = 1024
)

// Options configure a Handler.
type Options struct {
	// Token, when set, must be sent as "Authorization: Bearer <Token>" on
	// every request to the endpoint.
	Token string
	// Loopback says the listener is on a loopback address. Requests must
	// then name a loopback host (localhost, 127.0.0.1, [::1]) in Host, so
	// a web page cannot reach the server through a rebound DNS name.
	Loopback bool
	// AllowedOrigins are Origin values (scheme://host[:port]) accepted
	// besides the server's own origin and, on a loopback listener,
	// loopback origins.
	AllowedOrigins []string
	// AllowedHosts are Host values (a name, with or without a port)
	// accepted on a loopback listener besides the loopback names: the
	// public name a TLS reverse proxy on the same host forwards.
	AllowedHosts []string
	// MaxBodyBytes bounds a request body (413 beyond); 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// IdleTimeout ends a session with no request for that long; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// BodyTimeout bounds reading a request body, WriteTimeout each write
	// of a response (a client that stops reading a stream is cut off);
	// 0 means the defaults.
	BodyTimeout, WriteTimeout time.Duration
	// Heartbeat is the interval of keep-alive comments on GET streams, so
	// proxies do not close an idle one; 0 means DefaultHeartbeat.
	Heartbeat time.Duration
	// MaxSessions bounds the sessions alive at once (503 beyond); 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// Logger receives the access log (Info) and diagnostics; nil discards.
	Logger *slog.Logger
}

// Handler is the transport: an http.Handler for Endpoint and HealthPath.
// Close it (Shutdown) to end its sessions.
type Handler struct {
	srv   jsonrpc.Opener
	opts  Options
	log   *slog.Logger
	token [32]byte // sha256 of Options.Token, compared in constant time

	base     context.Context // sessions' contexts derive from it
	stopAll  context.CancelFunc
	draining chan struct{} // closed by Shutdown: GET streams end, new work gets 503
	drainOne sync.Once
	posts    sync.WaitGroup // POSTs being served
	sweeper  sync.WaitGroup

	mu       sync.Mutex
	sessions map[string]*session
}

// session is one Streamable HTTP session.
type session struct {
	id     string
	rpc    jsonrpc.Session
	calls  jsonrpc.Calls
	state  *sessionstate.State
	ctx    context.Context // ends when the session is deleted, idles out or the server stops
	cancel context.CancelFunc
	// notify carries notifications no request owns to the GET stream.
	notify chan []byte

	mu       sync.Mutex
	active   int // requests being served
	lastUsed time.Time
	getOpen  bool
	why      string // why the session ended, once it has
}

// New returns a Handler serving the sessions srv opens.
func New(srv jsonrpc.Opener, opts Options) *Handler {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = DefaultBodyTimeout
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{
		srv: srv, opts: opts, log: log,
		token:    sha256.Sum256([]byte(opts.Token)),
		draining: make(chan struct{}),
		sessions: map[string]*session{},
	}
	h.base, h.stopAll = context.WithCancel(context.Background())
	h.sweeper.Add(1)
	go h.sweep()
	return h
}

// Shutdown drains the handler: GET streams end at once, new requests get
// 503, and POSTs in flight may finish until ctx is done; then the calls
// still running are cancelled, and every session is ended. It returns
// ctx's error when calls had to be cancelled; the caller should then close
// the connections (http.Server.Close).
func (h *Handler) Shutdown(ctx context.Context) error {
	h.drainOne.Do(func() {
		h.mu.Lock()
		close(h.draining)
		h.mu.Unlock()
	})
	done := make(chan struct{})
	go func() { h.posts.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("calls still running at the shutdown deadline were cancelled: %w", ctx.Err())
	}
	h.stopAll()
	h.mu.Lock()
	ids := make([]string, 0, len(h.sessions))
	for id := range h.sessions {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		h.end(id, "server shutdown")
	}
	h.sweeper.Wait()
	if err == nil {
		return nil
	}
	// Cancelled calls return promptly and their POSTs then write each an
	// error answer; the caller closes the connections after this returns,
	// so give them a moment. A POST blocked writing to a client that does
	// not read is not waited for beyond it: closing the server's
	// connections (http.Server.Close) ends that at once.
	select {
	case <-done:
	case <-time.After(answerGrace):
		h.log.Warn("calls cancelled at shutdown had not answered in time", "grace", answerGrace)
	}
	return err
}

// answerGrace bounds how long Shutdown waits, after cancelling the calls
// still running, for their error answers to be written.
const answerGrace = 2 * time.Second

// Sessions is the number of live sessions.
func (h *Handler) Sessions() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func (h *Handler) isDraining() bool {
	select {
	case <-h.draining:
		return true
	default:
		return false
	}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		// The access log names no secret: no Authorization, and only a
		// digest of the session id, which is a bearer of the session.
		h.log.Info("http", "method", r.Method, "path", r.URL.Path, "status", rec.status, "bytes", rec.bytes,
			"ms", time.Since(start).Milliseconds(), "remote", r.RemoteAddr, "session", digest(r.Header.Get(headerSession)))
	}()
	switch r.URL.Path {
	case HealthPath:
		h.health(rec, r)
	case Endpoint:
		h.endpoint(rec, r)
	default:
		httpError(rec, http.StatusNotFound, fmt.Sprintf("not found: the MCP endpoint is %s", Endpoint))
	}
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		httpError(w, http.StatusMethodNotAllowed, "use GET")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if h.isDraining() {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"status":"draining"}`+"\n")
		return
	}
	io.WriteString(w, `{"status":"ok"}`+"\n")
}

func (h *Handler) endpoint(w http.ResponseWriter, r *http.Request) {
	if h.opts.Loopback && !loopbackHost(r.Host) && !h.hostAllowed(r.Host) {
		httpError(w, http.StatusForbidden, fmt.Sprintf("Host header %q refused: this server listens on loopback and answers only Host localhost, 127.0.0.1 or [::1] (a guard against DNS rebinding); behind a reverse proxy, allow the public name with --allow-host %s", r.Host, hostOnly(r.Host)))
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !h.originAllowed(o, r.Host) {
		httpError(w, http.StatusForbidden, fmt.Sprintf("Origin header %q refused: it is not this server's own origin; to let a web client on that origin in, allow it with --allow-origin %s", o, o))
		return
	}
	if h.opts.Token != "" && !h.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="hermes-tools"`)
		httpError(w, http.StatusUnauthorized, "missing or wrong bearer token: send Authorization: Bearer <token> (the server's HERMES_MCP_TOKEN or --token-file)")
		return
	}
	if h.isDraining() {
		httpError(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	if v := r.Header.Get(headerProtocol); v != "" && !mcp.IsValidProtocolVersion(v) {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("unsupported %s %q (supported: %s)", headerProtocol, v, strings.Join(mcp.ValidProtocolVersions, ", ")))
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "the MCP endpoint takes POST, GET and DELETE")
	}
}

func (h *Handler) authorized(r *http.Request) bool {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	// Digests of equal length, so neither the token's length nor where
	// it first differs shows in the time taken.
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], h.token[:]) == 1
}

// hostAllowed reports whether a Host value is one of Options.AllowedHosts,
// which may name it with or without its port.
func (h *Handler) hostAllowed(host string) bool {
	for _, a := range h.opts.AllowedHosts {
		if strings.EqualFold(a, host) || strings.EqualFold(a, hostOnly(host)) {
			return true
		}
	}
	return false
}

// hostOnly is a Host value without its port.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		if strings.Contains(h, ":") {
			return "[" + h + "]"
		}
		return h
	}
	return hostport
}

// originAllowed accepts the server's own origin (the Origin's host is the
// request's Host), a configured one, and on a loopback listener any
// loopback origin (the MCP Inspector's page, say). Browsers send Origin;
// other clients usually do not, and are not checked.
func (h *Handler) originAllowed(origin, host string) bool {
	if slices.Contains(h.opts.AllowedOrigins, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	return h.opts.Loopback && loopbackHost(u.Host)
}

// loopbackHost reports whether a Host value (with or without port) names
// the loopback interface.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (h *Handler) post(w http.ResponseWriter, r *http.Request) {
	// Under mu, with the draining check: once Shutdown has closed
	// draining, no POST is added to what it waits for.
	h.mu.Lock()
	if h.isDraining() {
		h.mu.Unlock()
		httpError(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	h.posts.Add(1)
	h.mu.Unlock()
	defer h.posts.Done()
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json")
		return
	}
	body, bad := h.readBody(w, r)
	if bad != nil {
		rpcError(w, bad.status, bad.code, bad.msg)
		return
	}
	// What a stdio line would be answered with, if anything: a request
	// that fails the gate is answered with the gate's error.
	msg, refused := jsonrpc.Parse(body)
	request := refused == nil && msg.Kind == jsonrpc.KindRequest || refused != nil && isRequest(body)
	var sess *session
	id := r.Header.Get(headerSession)
	switch {
	case refused == nil && msg.Kind == jsonrpc.KindRequest && msg.Method == string(mcp.MethodInitialize):
		var err error
		if sess, err = h.open(); err != nil {
			httpError(w, http.StatusServiceUnavailable, err.Error())
			return
		}
		w.Header().Set(headerSession, sess.id)
	case id != "":
		if sess = h.lookup(id); sess == nil {
			httpError(w, http.StatusNotFound, "unknown or ended session: send initialize again for a new one")
			return
		}
	default:
		// 2026-07-28 requests are self-contained: each carries its
		// protocol version and capabilities, and needs no session.
		var params json.RawMessage
		var method string
		if refused == nil {
			params, method = msg.Params, msg.Method
		}
		version := metaProtocol(params)
		if !mcp.IsModernProtocol(version) {
			version = r.Header.Get(headerProtocol)
		}
		if !mcp.IsModernProtocol(version) {
			httpError(w, http.StatusBadRequest, "missing "+headerSession+" header: send initialize first and repeat the "+headerSession+" it returns on every request")
			return
		}
		if err := mcp.ValidateStandardHeaders(r.Header.Get, version, mcp.MCPMethod(method), params); err != nil {
			rpcError(w, http.StatusBadRequest, -32020, err.Error())
			return
		}
	}
	if sess != nil {
		sess.touch(1)
		defer sess.touch(-1)
	}
	if !request {
		// A notification or a reply: accepted, nothing to stream.
		if refused == nil && msg.Kind == jsonrpc.KindNotification {
			h.notification(r, sess, msg)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := newResponse(w, acceptsStream(r), h.opts.WriteTimeout)
	defer out.end()
	if refused != nil {
		out.finish(refused.Line())
		return
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	rpc, calls := h.sessionFor(ctx, sess, out)
	if rpc == nil {
		out.finish(jsonrpc.AppendError(nil, msg.ID, codeInternalError, "Internal error: no session", nil))
		return
	}
	if sess != nil {
		stop := context.AfterFunc(sess.ctx, cancel)
		defer stop()
		ctx = sessionstate.NewContext(ctx, sess.state)
	} else {
		// One throwaway state: a stateless request's tools keep nothing.
		st := sessionstate.New("stateless")
		defer st.Close()
		ctx = sessionstate.NewContext(ctx, st)
		stop := context.AfterFunc(h.base, cancel)
		defer stop()
		defer rpc.Close()
	}
	callCtx, call, ok := calls.Begin(ctx, msg.ID)
	if !ok {
		out.finish(jsonrpc.InUseError(msg.ID).Line())
		return
	}
	out.wait()
	resp := rpc.Handle(callCtx, msg, out.notify)
	byClient := calls.End(msg.ID, call)
	// A call the server cancelled (shutdown, its session ended) is
	// answered with that reason: whatever the tool answers once
	// cancelled (its own "Interrupted" error, or a result it finished
	// anyway) would not tell the client to retry, and MCP has a cancelled
	// request go unanswered. What it wrote before the cancel is delivered.
	switch reason := h.serverCancelled(r, sess, byClient); {
	case r.Context().Err() != nil:
		// The client is gone.
	case byClient:
		out.finish(nil)
	case reason != "":
		out.finish(h.unanswered(msg.ID, sess, reason))
	default:
		out.finish(resp)
	}
}

// isRequest reports whether a body the gate refused would be a request,
// by its members as sent: one with an id and a method is answered with
// the gate's error, anything else is accepted and dropped, as a
// notification's error has nobody to go to.
func isRequest(body []byte) bool {
	var id, method bool
	for name, v := range jsonrpc.Members(body) {
		switch name {
		case "id":
			id = true
		case "method":
			method = string(v) != "null"
		}
	}
	return id && method
}

// metaProtocol is the protocol version in params._meta, "" for none.
func metaProtocol(params json.RawMessage) string {
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	return p.Meta.ProtocolVersion()
}

// sessionFor is the session that serves a request, and the calls in
// flight it belongs to: the HTTP session's, or for a stateless request, a
// session of its own whose notifications no request owns go to this
// response. The caller closes a stateless one.
func (h *Handler) sessionFor(ctx context.Context, sess *session, out *response) (jsonrpc.Session, *jsonrpc.Calls) {
	if sess != nil {
		return sess.rpc, &sess.calls
	}
	rpc, err := h.srv.Open(ctx, newID("stateless-"), out.reserve)
	if err != nil {
		h.log.Error("open a stateless session", "err", err)
		return nil, nil
	}
	return rpc, new(jsonrpc.Calls)
}

// notification takes a notification: notifications/cancelled cancels the
// call of the session it names, anything else goes to the server.
func (h *Handler) notification(r *http.Request, sess *session, msg *jsonrpc.Message) {
	if msg.Method == string(mcp.MethodNotificationCancelled) {
		if sess != nil {
			sess.calls.Cancel(msg.Params)
		}
		return
	}
	if sess != nil {
		sess.rpc.Handle(sessionstate.NewContext(r.Context(), sess.state), msg, func([]byte) {})
		return
	}
	rpc, err := h.srv.Open(r.Context(), newID("stateless-"), func() func([]byte) { return func([]byte) {} })
	if err != nil {
		h.log.Error("open a stateless session", "err", err)
		return
	}
	defer rpc.Close()
	rpc.Handle(r.Context(), msg, func([]byte) {})
}

// Why a call the server cancelled gets an error answer instead of none: a
// client waits for the answer to every request it did not cancel itself,
// so silence would hang it until its own timeout.
const (
	msgShuttingDown = "server shutting down; retry on another instance"
	msgSessionEnded = "session ended"
)

// unanswered is the error line for a request the server cancelled
// (shutdown, or its session ended).
func (h *Handler) unanswered(id jsonrpc.ID, sess *session, reason string) []byte {
	text := msgShuttingDown
	if reason == "session_ended" {
		text = msgSessionEnded
		if why := sess.endedWhy(); why != "" {
			text += " (" + why + "); send initialize for a new session"
		}
	}
	return jsonrpc.AppendError(nil, id, codeInternalError, text, map[string]string{"reason": reason})
}

// serverCancelled is why the server cancelled a request ("shutdown",
// "session_ended"), or "" when it did not, or the client cancelled it
// itself or is gone.
func (h *Handler) serverCancelled(r *http.Request, sess *session, byClient bool) string {
	switch {
	case r.Context().Err() != nil || byClient:
		return ""
	case h.base.Err() != nil:
		return "shutdown"
	case sess != nil && sess.ctx.Err() != nil:
		return "session_ended"
	}
	return ""
}

func (s *session) endedWhy() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

// badRequest is why a body was refused: the HTTP status and the JSON-RPC
// error code and message of the answer.
type badRequest struct {
	status, code int
	msg          string
}

// readBody reads and checks the body: one JSON-RPC message object (batches
// are not part of the protocol since 2025-06-18), within the size and time
// limits.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, *badRequest) {
	if r.ContentLength > h.opts.MaxBodyBytes {
		w.Header().Set("Connection", "close")
		return nil, &badRequest{http.StatusRequestEntityTooLarge, codeInvalidRequest, fmt.Sprintf("request body of %d bytes is over the limit of %d", r.ContentLength, h.opts.MaxBodyBytes)}
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
	body, err := readAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes), r.ContentLength)
	if err != nil {
		// The rest of the body is not wanted: closing the connection
		// keeps net/http from reading it (with no deadline left) before
		// it sends the answer.
		w.Header().Set("Connection", "close")
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, &badRequest{http.StatusRequestEntityTooLarge, codeInvalidRequest, fmt.Sprintf("request body is over the limit of %d bytes", h.opts.MaxBodyBytes)}
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, &badRequest{http.StatusRequestTimeout, codeInvalidRequest, fmt.Sprintf("request body not received within %s", h.opts.BodyTimeout)}
		}
		return nil, &badRequest{http.StatusBadRequest, codeInvalidRequest, fmt.Sprintf("read request body: %v", err)}
	}
	_ = rc.SetReadDeadline(time.Time{})
	if !json.Valid(body) {
		var buf bytes.Buffer
		err := json.Compact(&buf, body) // for its message, which names what is wrong
		return nil, &badRequest{http.StatusBadRequest, codeParseError, fmt.Sprintf("Parse error: the body is not valid JSON: %v", err)}
	}
	body = bytes.TrimLeft(body, " \t\r\n")
	if body[0] == '[' {
		return nil, &badRequest{http.StatusBadRequest, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per POST"}
	}
	if body[0] != '{' || !methodIsString(body) {
		return nil, &badRequest{http.StatusBadRequest, codeInvalidRequest, "Invalid Request: the body must be one JSON-RPC message object"}
	}
	return body, nil
}

// methodIsString reports whether a message's method, if it has one, is a
// string (or null, which reads as none).
func methodIsString(obj []byte) bool {
	for name, v := range jsonrpc.Members(obj) {
		if name == "method" && v[0] != '"' && string(v) != "null" {
			return false
		}
	}
	return true
}

// readAll reads a body, into a buffer of its declared size when it has one.
func readAll(r io.Reader, size int64) ([]byte, error) {
	if size <= 0 || size > 1<<20 {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

func acceptsStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := mime.ParseMediaType(strings.TrimSpace(part))
			if mt == "text/event-stream" || mt == "*/*" || mt == "text/*" {
				return true
			}
		}
	}
	return len(r.Header.Values("Accept")) == 0
}

// get opens the session's stream for notifications no request owns.
func (h *Handler) get(w http.ResponseWriter, r *http.Request) {
	if mcp.IsModernProtocol(r.Header.Get(headerProtocol)) {
		httpError(w, http.StatusMethodNotAllowed, "2026-07-28 has no GET stream; use subscriptions/listen")
		return
	}
	if !acceptsStream(r) {
		httpError(w, http.StatusNotAcceptable, "Accept must include text/event-stream")
		return
	}
	id := r.Header.Get(headerSession)
	if id == "" {
		httpError(w, http.StatusBadRequest, "missing "+headerSession+" header")
		return
	}
	sess := h.lookup(id)
	if sess == nil {
		httpError(w, http.StatusNotFound, "unknown or ended session")
		return
	}
	sess.mu.Lock()
	busy := sess.getOpen
	sess.getOpen = true
	sess.mu.Unlock()
	if busy {
		httpError(w, http.StatusConflict, "the session already has a GET stream open")
		return
	}
	sess.touch(1)
	defer func() {
		sess.mu.Lock()
		sess.getOpen = false
		sess.mu.Unlock()
		sess.touch(-1)
	}()
	out := newResponse(w, true, h.opts.WriteTimeout)
	out.start()
	beat := time.NewTicker(h.opts.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case line := <-sess.notify:
			if out.event(line) != nil {
				return
			}
		case <-beat.C:
			if out.comment() != nil {
				return
			}
		case <-r.Context().Done():
			return
		case <-sess.ctx.Done():
			return
		case <-h.draining:
			return
		}
	}
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(headerSession)
	if id == "" {
		httpError(w, http.StatusBadRequest, "missing "+headerSession+" header")
		return
	}
	if !h.end(id, "deleted by the client") {
		httpError(w, http.StatusNotFound, "unknown or ended session")
		return
	}
	w.WriteHeader(http.StatusOK)
}

// open starts a session.
func (h *Handler) open() (*session, error) {
	id := newID("hermes-")
	s := &session{id: id, state: sessionstate.New(id), notify: make(chan []byte, 64), lastUsed: time.Now()}
	s.ctx, s.cancel = context.WithCancel(h.base)
	// What no request owns goes to the GET stream, or nowhere while none
	// is open: a full stream drops it, as mcp-go's transports do.
	rpc, err := h.srv.Open(s.ctx, id, func() func([]byte) {
		return func(line []byte) {
			if line == nil {
				return
			}
			select {
			case s.notify <- line:
			default:
			}
		}
	})
	if err != nil {
		s.cancel()
		s.state.Close()
		return nil, fmt.Errorf("open session: %w", err)
	}
	s.rpc = rpc
	h.mu.Lock()
	if len(h.sessions) >= h.opts.MaxSessions {
		h.mu.Unlock()
		s.cancel()
		rpc.Close()
		s.state.Close()
		return nil, fmt.Errorf("too many sessions (%d); end idle ones with DELETE or try later", h.opts.MaxSessions)
	}
	h.sessions[id] = s
	h.mu.Unlock()
	h.log.Debug("session opened", "session", digest(id))
	return s, nil
}

// newID is a random id with a prefix.
func newID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func (h *Handler) lookup(id string) *session {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[id]
}

// end removes a session: its calls are cancelled, its GET stream ends, and
// its state (a todo list, a browser page) is released.
func (h *Handler) end(id, why string) bool {
	h.mu.Lock()
	s := h.sessions[id]
	delete(h.sessions, id)
	h.mu.Unlock()
	if s == nil {
		return false
	}
	s.mu.Lock()
	s.why = why
	s.mu.Unlock()
	s.cancel()
	s.calls.CancelAll()
	s.rpc.Close()
	if err := s.state.Close(); err != nil {
		h.log.Warn("releasing session state", "session", digest(id), "err", err)
	}
	h.log.Debug("session ended", "session", digest(id), "why", why)
	return true
}

// touch counts a request in (+1) or out (-1); an idle session is one with
// none for IdleTimeout.
func (s *session) touch(d int) {
	s.mu.Lock()
	s.active += d
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

func (h *Handler) sweep() {
	defer h.sweeper.Done()
	every := min(h.opts.IdleTimeout/4, time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.base.Done():
			return
		case now := <-t.C:
			var idle []string
			h.mu.Lock()
			for id, s := range h.sessions {
				s.mu.Lock()
				if s.active == 0 && now.Sub(s.lastUsed) > h.opts.IdleTimeout {
					idle = append(idle, id)
				}
				s.mu.Unlock()
			}
			h.mu.Unlock()
			for _, id := range idle {
				h.end(id, "idle")
			}
		}
	}
}

// digest names a session id in logs without revealing it.
func digest(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:4])
}

// JSON-RPC error codes of the transport's own answers.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
)

// httpError answers with a JSON-RPC error (id null), which MCP clients
// show, and a status that says the same.
func httpError(w http.ResponseWriter, status int, msg string) {
	rpcError(w, status, codeInvalidRequest, msg)
}

func rpcError(w http.ResponseWriter, status, code int, msg string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// recorder notes the status and size for the access log; it passes Flush
// on, without which streams would be buffered.
type recorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader atomic.Bool
}

func (r *recorder) WriteHeader(code int) {
	if r.wroteHeader.CompareAndSwap(false, true) {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	r.wroteHeader.Store(true)
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
