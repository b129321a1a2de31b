package bridge

import (
	"context"
	"time"
)

// onRequest is the client's OnRequest.
func (s *Session) onRequest(ctx context.Context, req *ServerRequest) (any, error) {
	var h RequestHandler
	switch req.Method {
	case "item/commandExecution/requestApproval":
		h = s.handleCommandApproval
	case "item/fileChange/requestApproval":
		h = s.handleFileChangeApproval
	case "item/permissions/requestApproval":
		h = s.handlePermissionsApproval
	case "mcpServer/elicitation/request":
		h = s.handleElicitation
	case "item/tool/call":
		h = s.handleToolCall
	default:
		s.log.Warn("unsupported codex server request", "method", req.Method)
		return nil, ErrMethodNotFound
	}
	ctx, done := s.beginRequest(ctx, req)
	defer done()
	return h(ctx, req)
}

// beginRequest ties a server request to the running turn: the watchdog
// waits while it is pending, and its context ends with the turn or when
// codex withdraws it.
func (s *Session) beginRequest(ctx context.Context, req *ServerRequest) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	t := s.turn
	stop := func() bool { return false }
	counted := t != nil && !t.done
	if counted {
		t.pending++
		stop = context.AfterFunc(t.ctx, cancel)
	}
	s.requests[req.ID] = cancel
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		delete(s.requests, req.ID)
		if counted {
			t.pending--
			t.lastActivity = time.Now()
			t.signal()
		}
		s.mu.Unlock()
		stop()
		cancel()
	}
}
