package httpmcp

import (
	"net/http"
	"sync"
	"time"
)

// headerDelay is how long a call may run before its stream's headers are
// sent without waiting for its first event. A quick call (most are) gets
// its headers and its whole answer in one write; a long one still shows
// the client at once that its stream is open, as a client waiting for
// headers may give up long before the call ends.
const headerDelay = 50 * time.Millisecond

// response is the answer to one POST, or a GET stream: Server-Sent Events,
// one message event per line, when the client takes them; otherwise the
// response line alone as a JSON body (a client that takes JSON only has
// nowhere to receive notifications). Lines come from several goroutines
// (a call's progress, the notifications held by reserve), so writes are
// serialised, and nothing is written once the answer is finished.
type response struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	stream  bool
	timeout time.Duration

	mu      sync.Mutex
	started bool  // the stream's headers are written
	done    bool  // the answer is finished: nothing more is written
	err     error // the first write error
	timer   *time.Timer

	// pending counts places held for lines not filled yet (reserve); the
	// response waits for them.
	pending sync.WaitGroup
}

func newResponse(w http.ResponseWriter, stream bool, timeout time.Duration) *response {
	return &response{w: w, rc: http.NewResponseController(w), stream: stream, timeout: timeout}
}

// start sends the stream's headers now, so the client knows the stream is
// open before the first event (a GET stream); a POST's stream starts on
// its first event, or after headerDelay (wait).
func (o *response) start() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.headersLocked()
	_ = o.rc.Flush()
}

// wait arms the headerDelay timer of a POST's stream.
func (o *response) wait() {
	if !o.stream {
		return
	}
	o.timer = time.AfterFunc(headerDelay, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		if !o.done && !o.started {
			o.headersLocked()
			o.err = o.sendLocked(nil, true)
		}
	})
}

func (o *response) headersLocked() {
	if o.started {
		return
	}
	o.started = true
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise buffer the stream
	o.w.WriteHeader(http.StatusOK)
}

// notify writes a notification of the call as an event, at once.
func (o *response) notify(line []byte) {
	if !o.stream {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done || o.err != nil {
		return
	}
	o.headersLocked()
	o.err = o.sendLocked(line, true)
}

// event writes a line of a GET stream.
func (o *response) event(line []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = o.sendLocked(line, true)
	}
	return o.err
}

// comment sends an SSE comment, which clients ignore and proxies see as
// traffic.
func (o *response) comment() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil {
		o.err = o.sendRawLocked([]byte(": keep-alive\n\n"), true)
	}
	return o.err
}

// reserve holds a place for a notification that is not ready yet (see
// jsonrpc.Opener); the response is finished only once it is filled.
func (o *response) reserve() func([]byte) {
	o.pending.Add(1)
	return func(line []byte) {
		defer o.pending.Done()
		if line != nil {
			o.notify(line)
		}
	}
}

// finish writes the response line, nil for none, and ends the answer: a
// stream that has written nothing yet gets its headers and the event in
// one write when the handler returns; a JSON client without a response
// gets 204.
func (o *response) finish(line []byte) {
	o.pending.Wait()
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopLocked()
	if !o.stream {
		if line == nil {
			o.w.WriteHeader(http.StatusNoContent)
			return
		}
		o.w.Header().Set("Content-Type", "application/json")
		_, _ = o.w.Write(line)
		return
	}
	o.headersLocked()
	if line != nil && o.err == nil {
		// Not flushed: net/http sends what is buffered as the handler
		// returns, under the deadline set here.
		o.err = o.sendLocked(line, false)
	}
}

// end stops the answer, finished or not (the client is gone).
func (o *response) end() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stopLocked()
}

func (o *response) stopLocked() {
	o.done = true
	if o.timer != nil {
		o.timer.Stop()
	}
}

// sendLocked writes a line as an event (nil: nothing, a flush of the
// headers). JSON text has no raw line breaks, so one data line holds the
// message.
func (o *response) sendLocked(line []byte, flush bool) error {
	if line == nil {
		return o.sendRawLocked(nil, flush)
	}
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	frame := make([]byte, 0, len(line)+24)
	frame = append(frame, "event: message\ndata: "...)
	frame = append(frame, line...)
	frame = append(frame, "\n\n"...)
	return o.sendRawLocked(frame, flush)
}

func (o *response) sendRawLocked(b []byte, flush bool) error {
	// A client that stops reading is cut off after the timeout rather than
	// holding the call's goroutines forever.
	_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
	if len(b) > 0 {
		if _, err := o.w.Write(b); err != nil {
			return err
		}
	}
	if flush {
		return o.rc.Flush()
	}
	return nil
}
