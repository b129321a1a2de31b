package stdio

import (
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// session is the one client of a stdio connection, as mcp-go sees it.
//
// mcp-go sends a notification with a non-blocking send on whatever channel
// NotificationChannel returns, and drops it when that channel is full. So
// every call hands out a fresh one-slot channel that is already queued in the
// output FIFO: the send always succeeds, nothing is dropped, and the
// notification is written in the order the handler produced it, before the
// response the handler returns afterwards. The wait for room in the FIFO is
// the backpressure against a client that reads slowly.
type session struct {
	id  string
	out *output

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
)

func (s *session) SessionID() string { return s.id }

func (s *session) NotificationChannel() chan<- mcp.JSONRPCNotification {
	return s.out.notificationSlot()
}

func (s *session) Initialize() {
	s.logLevel.CompareAndSwap(nil, mcp.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *session) Initialized() bool { return s.initialized.Load() }

func (s *session) SetLogLevel(level mcp.LoggingLevel) { s.logLevel.Store(level) }

func (s *session) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.logLevel.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

func (s *session) GetClientInfo() mcp.Implementation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientInfo
}

func (s *session) SetClientInfo(info mcp.Implementation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientInfo = info
}

func (s *session) GetClientCapabilities() mcp.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientCaps
}

func (s *session) SetClientCapabilities(caps mcp.ClientCapabilities) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clientCaps = caps
}

// SetProtocolVersion records the version negotiated by initialize (mcp-go
// looks for this method by an unexported interface).
func (s *session) SetProtocolVersion(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.protoVersion = v
}

// ProtocolVersion returns the negotiated protocol version, empty before
// initialize.
func (s *session) ProtocolVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protoVersion
}
