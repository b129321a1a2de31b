package stdio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// queueDepth bounds the output FIFO. A handler that emits notifications
// faster than the client reads waits for room instead of losing them.
const queueDepth = 4096

// ioBufSize sizes the read and write buffers. A line longer than that is
// still read whole and written in one piece (bufio writes a large line
// straight through), so it only sets how many small lines share a system
// call; bigger buffers cost their zeroing on every connection, which the
// fuzz target opens thousands of times a second.
const ioBufSize = 16 << 10

// slotTimeout guards the one assumption the slot scheme rests on: that
// mcp-go sends exactly once on every channel it asks for. Should a future
// mcp-go ask without sending, the writer skips the slot after this long
// instead of stalling the connection.
const slotTimeout = 2 * time.Second

// item is one queued output line: either a marshalled message, or a slot a
// handler is about to send a notification into.
type item struct {
	line []byte
	slot chan mcp.JSONRPCNotification
}

// output is the single writer of the connection. Every line goes through
// its FIFO, so lines never interleave and their order is the order in which
// they were queued.
type output struct {
	log    *slog.Logger
	queue  chan *item // pointers: the buffer is allocated (and zeroed) whole, per connection
	done   chan struct{}
	mu     sync.RWMutex // guards closed against sends on a closed queue
	closed bool
	// pending counts queued items not yet written; while it is zero a
	// sender may write its line itself (see send).
	pending atomic.Int64

	wmu sync.Mutex // guards w and err
	w   *bufio.Writer
	err error // first write error; read after done or failed is closed
	// failed is closed when err is first set.
	failed chan struct{}
}

func newOutput(w io.Writer, log *slog.Logger) *output {
	return &output{
		w:      bufio.NewWriterSize(w, ioBufSize),
		log:    log,
		queue:  make(chan *item, queueDepth),
		done:   make(chan struct{}),
		failed: make(chan struct{}),
	}
}

// notificationSlot queues a one-slot channel and returns it. After close,
// it returns a channel nobody reads, so a stray late send is discarded
// rather than panicking.
func (o *output) notificationSlot() chan mcp.JSONRPCNotification {
	ch := make(chan mcp.JSONRPCNotification, 1)
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.closed {
		o.log.Debug("notification after shutdown discarded")
		return ch
	}
	o.pending.Add(1)
	o.queue <- &item{slot: ch}
	return ch
}

// send queues a message, or writes it at once when nothing is queued. It
// reports false after close. The reader goroutine must use enqueue instead
// (except for the initialize response, when nothing can be waiting): a
// direct write blocks while the client is not reading, and a reader stuck
// there stops reading a client that writes before it reads.
func (o *output) send(msg any) bool { return o.put(msg, true) }

// enqueue queues a message for the writer goroutine.
func (o *output) enqueue(msg any) bool { return o.put(msg, false) }

func (o *output) put(msg any, direct bool) bool {
	line, err := marshalLine(msg)
	if err != nil {
		o.log.Error("marshal outgoing message", "err", err)
		return false
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.closed {
		return false
	}
	// Nothing queued and the writer idle: write the line here. Handing it
	// to the writer goroutine costs a wake-up, which at start-up (when the
	// reader goes back to a blocking read of stdin) can take a millisecond
	// before the runtime notices; the initialize response is such a line.
	// Order is kept: anything queued earlier is still pending, so the line
	// goes behind it.
	if direct && o.pending.Load() == 0 && o.wmu.TryLock() {
		if o.pending.Load() == 0 {
			o.writeLocked(line)
			o.flushLocked()
			o.wmu.Unlock()
			return true
		}
		o.wmu.Unlock()
	}
	o.pending.Add(1)
	o.queue <- &item{line: line}
	return true
}

// close stops accepting lines; the writer drains what is queued and exits.
func (o *output) close() {
	o.mu.Lock()
	if !o.closed {
		o.closed = true
		close(o.queue)
	}
	o.mu.Unlock()
}

// run writes queued lines until the queue is closed and drained. It flushes
// whenever the queue runs empty, so a lone response is never held back.
func (o *output) run() {
	defer close(o.done)
	for it := range o.queue {
		select {
		case <-o.failed:
			// The client is gone: drain without encoding what can no
			// longer be written (a burst of large notifications would
			// otherwise hold the call's end for seconds).
			o.pending.Add(-1)
			continue
		default:
		}
		line, ok := o.resolve(it)
		o.wmu.Lock()
		if ok {
			o.writeLocked(line)
		}
		// Flush whenever the queue runs empty, whether or not this item
		// wrote anything: lines written before a skipped slot must not
		// wait for some later output.
		if len(o.queue) == 0 {
			o.flushLocked()
		}
		o.wmu.Unlock()
		o.pending.Add(-1)
	}
	o.wmu.Lock()
	o.flushLocked()
	o.wmu.Unlock()
}

// resolve returns an item's line, waiting for a notification slot to be
// filled; false means there is nothing to write.
func (o *output) resolve(it *item) ([]byte, bool) {
	if it.slot == nil {
		return it.line, true
	}
	select {
	case n := <-it.slot:
		return o.notificationLine(n)
	default:
	}
	// The slot is not filled yet: what is written so far must not wait
	// for it.
	o.wmu.Lock()
	o.flushLocked()
	o.wmu.Unlock()
	select {
	case n := <-it.slot:
		return o.notificationLine(n)
	case <-time.After(slotTimeout):
		o.log.Warn("notification slot never filled; skipped (mcp-go behaviour changed?)")
		return nil, false
	}
}

// fail records the first write error. o.wmu is held.
func (o *output) fail(err error) {
	o.err = err
	close(o.failed)
}

// writeErr is the first write error. Read after failed or done is closed.
func (o *output) writeErr() error {
	o.wmu.Lock()
	defer o.wmu.Unlock()
	return o.err
}

func (o *output) notificationLine(n mcp.JSONRPCNotification) ([]byte, bool) {
	if raw, ok := clientID(n.Params.Meta[mcp.MetaKeySubscriptionID]); ok {
		// mcp-go tags a subscription's messages with the id it was given;
		// the client knows its own.
		meta := maps.Clone(n.Params.Meta)
		meta[mcp.MetaKeySubscriptionID] = raw
		n.Params.Meta = meta
	}
	if raw, ok := clientID(n.Params.AdditionalFields["progressToken"]); ok {
		// The request's own token, exactly (see wrapProgressToken).
		fields := maps.Clone(n.Params.AdditionalFields)
		fields["progressToken"] = raw
		n.Params.AdditionalFields = fields
	}
	line, err := marshalLine(n)
	if err != nil {
		o.log.Error("marshal notification", "method", n.Method, "err", err)
		return nil, false
	}
	return line, true
}

func (o *output) writeLocked(line []byte) {
	if o.err != nil {
		return // the client is gone; keep draining so producers never block
	}
	if _, err := o.w.Write(line); err != nil {
		o.fail(err)
	}
}

func (o *output) flushLocked() {
	if o.err != nil {
		return
	}
	if err := o.w.Flush(); err != nil {
		o.fail(err)
	}
}

// reply is a response to one request. Its id is written as the client
// sent it (appendID), whatever id the body carries: mcp-go's bodies carry
// the internal id it was given.
type reply struct {
	id   requestID
	body any // errorBody, resultBody, mcp.JSONRPCResponse or mcp.JSONRPCError
}

// marshalLine encodes msg (a reply or a notification) as one line. HTML
// escaping is off: it only makes text that models read (code, markup)
// harder to read.
func marshalLine(msg any) ([]byte, error) {
	var line []byte
	var err error
	if r, ok := msg.(reply); ok {
		line, err = marshalReply(r)
	} else {
		line, err = encodeLine(msg)
	}
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(line) {
		// Input is checked, and encoding/json writes strings as valid
		// UTF-8; only a pre-encoded value (a method's Encoded result,
		// RawStructuredContent) can get here. Outside strings our JSON is
		// ASCII, so the invalid bytes are inside strings, and replacing
		// them keeps the line valid JSON.
		line = bytes.ToValidUTF8(line, []byte("\uFFFD"))
	}
	return line, nil
}

func encodeLine(msg any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil // Encode ends the value with '\n'
}

func marshalReply(r reply) ([]byte, error) {
	switch b := r.body.(type) {
	case resultBody:
		// The loop's own results are compact already (see serveMethod);
		// the generic path would re-validate them, and tools/list is large.
		line := make([]byte, 0, len(r.id.raw)+len(b)+40)
		line = append(line, `{"jsonrpc":"2.0","id":`...)
		line = appendID(line, r.id)
		line = append(line, `,"result":`...)
		line = append(line, b...)
		return append(line, "}\n"...), nil
	case mcp.JSONRPCResponse:
		if tr, ok := b.Result.(*mcp.CallToolResult); ok && len(tr.InputRequests) == 0 && tr.RequestState == "" {
			return marshalToolResponse(r.id, tr)
		}
		return marshalMember(r.id, "result", withClientSubscriptionID(b.Result))
	case mcp.JSONRPCError:
		return marshalMember(r.id, "error", b.Error)
	case errorBody:
		return marshalMember(r.id, "error", b)
	default:
		return nil, fmt.Errorf("unexpected response type %T", r.body)
	}
}

// withClientSubscriptionID puts the client's id back into the
// subscriptionId of a subscriptions/listen result, where mcp-go copies the
// id it was given (as in notificationLine).
func withClientSubscriptionID(result any) any {
	var sr mcp.SubscriptionsListenResult
	switch v := result.(type) {
	case mcp.SubscriptionsListenResult:
		sr = v
	case *mcp.SubscriptionsListenResult:
		if v == nil {
			return result
		}
		sr = *v
	default:
		return result
	}
	raw, ok := clientID(sr.Meta.GetMetaField(mcp.MetaKeySubscriptionID))
	if !ok {
		return result
	}
	sr.Meta = &mcp.Meta{ProgressToken: sr.Meta.ProgressToken, AdditionalFields: maps.Clone(sr.Meta.AdditionalFields)}
	sr.Meta.AdditionalFields[mcp.MetaKeySubscriptionID] = raw
	return sr
}

// marshalMember writes a response whose result or error is v.
func marshalMember(id requestID, name string, v any) ([]byte, error) {
	buf, value := startLine(id)
	buf.WriteString(`,"` + name + `":`)
	if err := value(v); err != nil {
		return nil, err
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// startLine begins a response line written by hand, up to its id, and
// returns the function that appends a value the way every line is encoded
// (compact, no HTML escaping).
func startLine(id requestID) (*bytes.Buffer, func(any) error) {
	buf := new(bytes.Buffer)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	value := func(v any) error {
		if err := enc.Encode(v); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // drop Encode's newline
		return nil
	}
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(appendID(nil, id))
	return buf, value
}

// marshalToolResponse writes a tools/call response in one pass. The generic
// path costs three: CallToolResult.MarshalJSON builds a map and re-validates
// structuredContent, and the outer encoder then re-validates all of that
// output again. Tool results are the large messages (a skills listing, a
// page snapshot), so they get a direct path; structuredContent made by the
// server is already compact JSON and is copied as is.
func marshalToolResponse(id requestID, r *mcp.CallToolResult) ([]byte, error) {
	buf, value := startLine(id)
	buf.WriteString(`,"result":{`)
	if r.Meta != nil {
		buf.WriteString(`"_meta":`)
		if err := value(r.Meta); err != nil {
			return nil, err
		}
		buf.WriteByte(',')
	}
	if r.ResultType != "" {
		buf.WriteString(`"resultType":`)
		if err := value(r.ResultType); err != nil {
			return nil, err
		}
		buf.WriteByte(',')
	}
	buf.WriteString(`"content":[`)
	for i, c := range r.Content {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := value(c); err != nil {
			return nil, err
		}
	}
	buf.WriteByte(']')
	switch {
	case len(r.RawStructuredContent) > 0:
		buf.WriteString(`,"structuredContent":`)
		buf.Write(r.RawStructuredContent)
	case r.StructuredContent != nil:
		buf.WriteString(`,"structuredContent":`)
		// A RawMessage here is the server's own encoding, trusted like
		// RawStructuredContent.
		if raw, ok := r.StructuredContent.(json.RawMessage); ok {
			buf.Write(raw)
		} else if err := value(r.StructuredContent); err != nil {
			return nil, err
		}
	}
	if r.IsError {
		buf.WriteString(`,"isError":true`)
	}
	buf.WriteString("}}\n")
	return buf.Bytes(), nil
}
