// Package httpmcp serves an mcp-go MCPServer over the MCP Streamable HTTP
// transport, at one endpoint (POST, GET and DELETE), with the stdio loop's
// guarantees.
//
// mcp-go's own StreamableHTTPServer calls HandleMessage directly (so the
// loop's Methods, our tools/list and the skills extension, are never
// reached), loses notifications sent just before a handler returns, sends
// one POST's progress down another's stream, and checks no Origin, body
// size or time. Here every POST is served as one stream of the stdio loop
// (stdio.Serve with the session's stdio.Session): its notifications are
// written in order and before its response, none are dropped, a panic is
// an error response, and a notifications/cancelled in any POST of the
// session cancels the call it names. The GET stream carries only what no
// request owns (resources/list_changed).
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
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/mcpserver/stdio"
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
	srv    *server.MCPServer
	stream stdio.Options
	opts   Options
	log    *slog.Logger
	token  [32]byte // sha256 of Options.Token, compared in constant time

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
	st     *stdio.Session
	state  *sessionstate.State
	ctx    context.Context // ends when the session is deleted, idles out or the server stops
	cancel context.CancelFunc
	// notify carries notifications no request owns to the GET stream.
	notify chan mcp.JSONRPCNotification

	mu       sync.Mutex
	active   int // requests being served
	lastUsed time.Time
	getOpen  bool
	// calls are the requests in flight by id (compact JSON), so that a
	// notifications/cancelled tells a client's cancel from the server's.
	calls map[string]*inflight
	why   string // why the session ended, once it has
}

// inflight is one request being served in a session.
type inflight struct {
	byClient atomic.Bool // a notifications/cancelled named it
}

// registered is the session as registered with mcp-go, which sends
// server-wide notifications (resources/list_changed) to it.
type registered struct {
	*stdio.Session
	notify chan mcp.JSONRPCNotification
}

func (r registered) NotificationChannel() chan<- mcp.JSONRPCNotification { return r.notify }

// New returns a Handler serving srv; stream carries what stdio.Serve needs
// (Methods, ServerInfo, Ready, Prepare, Logger); its Session is ignored.
func New(srv *server.MCPServer, stream stdio.Options, opts Options) *Handler {
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
	stream.Session = nil
	h := &Handler{
		srv: srv, stream: stream, opts: opts, log: log,
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

// message is what the transport reads of a POSTed JSON-RPC message.
type message struct {
	line     []byte // compact, one line, as stdio.Serve reads it
	method   string
	id       string // compact JSON of the id
	request  bool   // has an id and a method: it gets a response
	params   json.RawMessage
	protocol string // params._meta protocol version (2026-07-28 requests)
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
	msg, bad := h.readMessage(w, r)
	if bad != nil {
		rpcError(w, bad.status, bad.code, bad.msg)
		return
	}
	modern := mcp.IsModernProtocol(msg.protocol) || mcp.IsModernProtocol(r.Header.Get(headerProtocol))
	var sess *session
	id := r.Header.Get(headerSession)
	switch {
	case msg.method == string(mcp.MethodInitialize) && msg.request:
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
	case modern:
		// 2026-07-28 requests are self-contained: each carries its
		// protocol version and capabilities, and needs no session.
		version := msg.protocol
		if version == "" {
			version = r.Header.Get(headerProtocol)
		}
		if err := mcp.ValidateStandardHeaders(r.Header.Get, version, mcp.MCPMethod(msg.method), msg.params); err != nil {
			rpcError(w, http.StatusBadRequest, -32020, err.Error())
			return
		}
	default:
		httpError(w, http.StatusBadRequest, "missing "+headerSession+" header: send initialize first and repeat the "+headerSession+" it returns on every request")
		return
	}
	var call *inflight
	if sess != nil {
		sess.touch(1)
		defer sess.touch(-1)
		if msg.request {
			call = sess.begin(msg.id)
			defer sess.finish(msg.id, call)
		} else if msg.method == string(mcp.MethodNotificationCancelled) {
			sess.cancelledByClient(msg.params)
		}
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	opts := h.stream
	if sess != nil {
		stop := context.AfterFunc(sess.ctx, cancel)
		defer stop()
		opts.Session = sess.st
		ctx = sessionstate.NewContext(ctx, sess.state)
	} else {
		// One throwaway state: a stateless request's tools keep nothing.
		st := sessionstate.New("stateless")
		defer st.Close()
		ctx = sessionstate.NewContext(ctx, st)
		stop := context.AfterFunc(h.base, cancel)
		defer stop()
	}

	if !msg.request {
		// A notification or a response: accepted, nothing to stream.
		if err := stdio.Serve(ctx, h.srv, bytes.NewReader(msg.line), io.Discard, opts); err != nil {
			h.log.Debug("notification not handled", "err", err)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// A call the server cancelled (shutdown, its session ended) is
	// answered with that reason: whatever the tool answers once
	// cancelled (its own "Interrupted" error, or a result it finished
	// anyway) would not tell the client to retry, and MCP has a cancelled
	// request go unanswered. What it wrote before the cancel is delivered.
	cancelled := func() bool { return h.serverCancelled(r, sess, call) != "" }
	if acceptsStream(r) {
		out := newSSE(w, h.opts.WriteTimeout)
		out.cancelled = cancelled
		out.start()
		if err := stdio.Serve(ctx, h.srv, bytes.NewReader(msg.line), out, opts); err != nil {
			h.log.Debug("stream ended early", "method", msg.method, "err", err)
		}
		if !out.answered {
			if line := h.unanswered(r, msg, sess, call); line != nil {
				if _, err := out.Write(line); err != nil {
					h.log.Debug("answer a cancelled call", "method", msg.method, "err", err)
				}
			}
		}
		return
	}
	// A client that takes JSON only gets the response alone: it has no
	// stream to receive notifications on.
	var buf bytes.Buffer
	if err := stdio.Serve(ctx, h.srv, bytes.NewReader(msg.line), &buf, opts); err != nil {
		h.log.Debug("request ended early", "method", msg.method, "err", err)
	}
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	last := lines[len(lines)-1]
	if !isResponseLine(last) || cancelled() {
		if last = h.unanswered(r, msg, sess, call); last == nil {
			w.WriteHeader(http.StatusNoContent) // cancelled by the client: no response is sent
			return
		}
		last = bytes.TrimSuffix(last, []byte("\n"))
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(last, '\n'))
}

// Why a call the server cancelled gets an error answer instead of none: a
// client waits for the answer to every request it did not cancel itself,
// so silence would hang it until its own timeout.
const (
	msgShuttingDown = "server shutting down; retry on another instance"
	msgSessionEnded = "session ended"
)

// unanswered is the error line for a request that got no response because
// the server cancelled it (shutdown, or its session ended), nil when the
// client cancelled it itself or is gone.
func (h *Handler) unanswered(r *http.Request, msg message, sess *session, call *inflight) []byte {
	reason := h.serverCancelled(r, sess, call)
	if reason == "" {
		return nil
	}
	text := msgShuttingDown
	if reason == "session_ended" {
		text = msgSessionEnded
		if why := sess.endedWhy(); why != "" {
			text += " (" + why + "); send initialize for a new session"
		}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(msg.id),
		"error": map[string]any{"code": codeInternalError, "message": text, "data": map[string]string{"reason": reason}}})
	if err != nil {
		h.log.Error("marshal the answer of a cancelled call", "err", err)
		return nil
	}
	return append(body, '\n')
}

// serverCancelled is why the server cancelled a request ("shutdown",
// "session_ended"), or "" when it did not, or the client cancelled it
// itself or is gone.
func (h *Handler) serverCancelled(r *http.Request, sess *session, call *inflight) string {
	switch {
	case r.Context().Err() != nil || (call != nil && call.byClient.Load()):
		return ""
	case h.base.Err() != nil:
		return "shutdown"
	case sess != nil && sess.ctx.Err() != nil:
		return "session_ended"
	}
	return ""
}

// isResponseLine reports whether a line stdio.Serve wrote is a response
// (it writes them as {"jsonrpc":"2.0","id":ID,"result"|"error":...}), not
// a notification or a request of the server's.
func isResponseLine(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok || len(rest) == 0 {
		return false
	}
	i := 0
	if rest[0] == '"' {
		for i = 1; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' {
				i++
			}
		}
		i++
	} else {
		for i < len(rest) && rest[i] != ',' && rest[i] != '}' {
			i++
		}
	}
	if i > len(rest) {
		return false
	}
	rest = rest[i:]
	return bytes.HasPrefix(rest, []byte(`,"result":`)) || bytes.HasPrefix(rest, []byte(`,"error":`))
}

// begin notes a request in flight; a duplicate id gets its own record,
// which stdio.Serve then refuses.
func (s *session) begin(id string) *inflight {
	c := &inflight{}
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]*inflight{}
	}
	if _, dup := s.calls[id]; !dup {
		s.calls[id] = c
	}
	s.mu.Unlock()
	return c
}

func (s *session) finish(id string, c *inflight) {
	s.mu.Lock()
	if s.calls[id] == c {
		delete(s.calls, id)
	}
	s.mu.Unlock()
}

// cancelledByClient marks the call a notifications/cancelled names.
func (s *session) cancelledByClient(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return
	}
	var id bytes.Buffer
	if json.Compact(&id, p.RequestID) != nil {
		return
	}
	s.mu.Lock()
	c := s.calls[id.String()]
	s.mu.Unlock()
	if c != nil {
		c.byClient.Store(true)
	}
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

// readMessage reads and checks the body: one JSON-RPC message (batches are
// not part of the protocol since 2025-06-18), within the size and time
// limits.
func (h *Handler) readMessage(w http.ResponseWriter, r *http.Request) (message, *badRequest) {
	var msg message
	if r.ContentLength > h.opts.MaxBodyBytes {
		w.Header().Set("Connection", "close")
		return msg, &badRequest{http.StatusRequestEntityTooLarge, codeInvalidRequest, fmt.Sprintf("request body of %d bytes is over the limit of %d", r.ContentLength, h.opts.MaxBodyBytes)}
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		// The rest of the body is not wanted: closing the connection
		// keeps net/http from reading it (with no deadline left) before
		// it sends the answer.
		w.Header().Set("Connection", "close")
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return msg, &badRequest{http.StatusRequestEntityTooLarge, codeInvalidRequest, fmt.Sprintf("request body is over the limit of %d bytes", h.opts.MaxBodyBytes)}
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return msg, &badRequest{http.StatusRequestTimeout, codeInvalidRequest, fmt.Sprintf("request body not received within %s", h.opts.BodyTimeout)}
		}
		return msg, &badRequest{http.StatusBadRequest, codeInvalidRequest, fmt.Sprintf("read request body: %v", err)}
	}
	_ = rc.SetReadDeadline(time.Time{})
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		return msg, &badRequest{http.StatusBadRequest, codeParseError, fmt.Sprintf("Parse error: the body is not valid JSON: %v", err)}
	}
	line := compact.Bytes()
	if len(line) > 0 && line[0] == '[' {
		return msg, &badRequest{http.StatusBadRequest, codeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported; send one message per POST"}
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return msg, &badRequest{http.StatusBadRequest, codeInvalidRequest, "Invalid Request: the body must be one JSON-RPC message object"}
	}
	msg.line = append(line, '\n')
	msg.params = m.Params
	if m.Method != nil {
		msg.method = *m.Method
		msg.request = m.ID != nil
		msg.id = string(m.ID)
	}
	var p struct {
		Meta *mcp.Meta `json:"_meta"`
	}
	if json.Unmarshal(m.Params, &p) == nil {
		msg.protocol = p.Meta.ProtocolVersion()
	}
	return msg, nil
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
	out := newSSE(w, h.opts.WriteTimeout)
	out.start()
	beat := time.NewTicker(h.opts.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case n := <-sess.notify:
			line, err := json.Marshal(n)
			if err != nil {
				h.log.Error("marshal notification", "method", n.Method, "err", err)
				continue
			}
			if _, err := out.Write(append(line, '\n')); err != nil {
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
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("make a session id: %w", err)
	}
	id := "hermes-" + hex.EncodeToString(b[:])
	s := &session{
		id: id, st: stdio.NewSession(id), state: sessionstate.New(id),
		notify: make(chan mcp.JSONRPCNotification, 64), lastUsed: time.Now(),
	}
	s.ctx, s.cancel = context.WithCancel(h.base)
	h.mu.Lock()
	if len(h.sessions) >= h.opts.MaxSessions {
		h.mu.Unlock()
		s.cancel()
		return nil, fmt.Errorf("too many sessions (%d); end idle ones with DELETE or try later", h.opts.MaxSessions)
	}
	h.sessions[id] = s
	h.mu.Unlock()
	if err := h.srv.RegisterSession(s.ctx, registered{Session: s.st, notify: s.notify}); err != nil {
		h.end(id, "registration failed")
		return nil, fmt.Errorf("register session: %w", err)
	}
	h.log.Debug("session opened", "session", digest(id))
	return s, nil
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
	s.st.CancelAll()
	h.srv.UnregisterSession(context.Background(), id)
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
