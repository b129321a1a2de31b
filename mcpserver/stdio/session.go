package stdio

import (
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Session is the state of one MCP client session that outlives a stream:
// what initialize negotiated, the log level, and the calls in flight. A
// stdio connection has one stream and Serve makes its own Session; a
// Streamable HTTP session serves each POST as a stream of its own, so its
// transport makes one Session and passes it to every Serve
// (Options.Session), and a notifications/cancelled in one POST then finds
// a call running in another.
type Session struct {
	id string

	initialized atomic.Bool
	logLevel    atomic.Value // mcp.LoggingLevel

	mu           sync.Mutex
	clientInfo   mcp.Implementation
	clientCaps   mcp.ClientCapabilities
	protoVersion string

	callsMu  sync.Mutex
	inflight map[string]*call // by requestID.key, across the session's streams
}

// NewSession returns the state of a session known to clients as id.
func NewSession(id string) *Session {
	return &Session{id: id, inflight: map[string]*call{}}
}

// session is a Session as mcp-go sees it while one stream is served: its
// notifications go to that stream.
//
// mcp-go sends a notification with a non-blocking send on whatever channel
// NotificationChannel returns, and drops it when that channel is full. So
// every call hands out a fresh one-slot channel that is already queued in the
// output FIFO: the send always succeeds, nothing is dropped, and the
// notification is written in the order the handler produced it, before the
// response the handler returns afterwards. The wait for room in the FIFO is
// the backpressure against a client that reads slowly.
type session struct {
	*Session
	out *output
}

var (
	_ server.ClientSession         = (*session)(nil)
	_ server.SessionWithLogging    = (*session)(nil)
	_ server.SessionWithClientInfo = (*session)(nil)
)

func (s *session) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.out.notificationSlot()
}

func (s *Session) SessionID() string { return s.id }

func (s *Session) Initialize() {
	s.logLevel.CompareAndSwap(nil, mcp.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *Session) Initialized() bool { return s.initialized.Load() }

func (s *Session) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(level) }

func (s *Session) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

func (s *Session) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

func (s *Session) SetClientInfo(info mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = info
}

func (s *Session) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

func (s *Session) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientCaps = caps
}

// SetProtocolVersion records the version negotiated by initialize (mcp-go
// looks for this method by an unexported interface).
func (s *Session) SetProtocolVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.protoVersion = v
}

// ProtocolVersion returns the negotiated protocol version, empty before
// initialize.
func (s *Session) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protoVersion
}

// CancelAll cancels every call in flight on the session's streams, as when
// the session is deleted; their streams write no response for them.
func (s *Session) CancelAll() {
	s.callsMu.Lock()
	var cls []*call
	for _, cl := range s.inflight {
		cl.cancelled = true
		cls = append(cls, cl)
	}
	s.callsMu.Unlock()
	for _, cl := range cls {
		cl.cancel()
	}
}
