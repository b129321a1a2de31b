package bridge

import (
	"context"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
)

// inboxItem is one incoming message awaiting the dispatcher: a notification,
// or a server request whose handler has not been started yet.
type inboxItem struct {
	note *Notification
	req  *ServerRequest
	id   jsonrpc2.ID
}

// inbox is the ordered queue between the JSON-RPC read loop and the
// dispatcher goroutine. push never blocks, so the read loop keeps draining
// codex's stdout (and keeps delivering responses to Call) however slow the
// subscriber is; memory is bounded by failing the client when more than max
// items are waiting (see Config.MaxPendingNotifications).
type inbox struct {
	mu     sync.Mutex
	items  []inboxItem
	max    int
	closed bool
	wake   chan struct{} // capacity 1: "items or closed changed"
}

func newInbox(max int) *inbox {
	return &inbox{max: max, wake: make(chan struct{}, 1)}
}

// push appends it and reports false when the backlog is over the limit. Items
// pushed after close are dropped: the client is going away.
func (q *inbox) push(it inboxItem) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return true
	}
	if len(q.items) >= q.max {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, it)
	q.mu.Unlock()
	q.signal()
	return true
}

// close marks the end of input; the dispatcher drains what is queued and
// then stops.
func (q *inbox) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *inbox) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take waits for the oldest queued item. It returns false once the inbox is
// closed and empty, or when ctx is done.
func (q *inbox) take(ctx context.Context) (inboxItem, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			it := q.items[0]
			q.items[0] = inboxItem{} // let the message be collected
			q.items = q.items[1:]
			q.mu.Unlock()
			return it, true
		}
		closed := q.closed
		q.mu.Unlock()
		if closed {
			return inboxItem{}, false
		}
		select {
		case <-q.wake:
		case <-ctx.Done():
			return inboxItem{}, false
		}
	}
}
