// Package stdio serves MCP over newline-delimited JSON-RPC on a reader and
// a writer (the process's stdin and stdout). Each line is read, passed
// through the gate (jsonrpc.Parse) and handed to the server's session
// (jsonrpc.Session.Handle, answered in mcpserver/dispatch.go); the
// response line is written back.
//
// mcp-go's own stdio transport writes notifications on a separate goroutine
// (so progress can arrive after the response it belongs to), drops them past
// a 100-item buffer, runs tool calls on five workers, cancels in-flight calls
// when stdin closes, and keeps its session in a package variable. This loop:
//
//   - one writer and one FIFO: a call's notifications are written in
//     order and before its response; none are dropped;
//   - every request runs on its own goroutine, uncapped; initialize and
//     notifications run inline, in arrival order;
//   - notifications/cancelled cancels the call's context even when it
//     arrives in the same read as the request, and no response is written
//     for a cancelled call;
//   - on EOF, in-flight calls finish and their responses are written before
//     Serve returns;
//   - a line that is not JSON, or not UTF-8, gets a JSON-RPC parse error;
//     nothing but protocol is ever written, and every line written is
//     valid UTF-8 JSON;
//   - an id comes back exactly as the client wrote it; ids are compared
//     exactly, and one that is not a string or a number is refused
//     (jsonrpc.ID).
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
)

// Options tune Serve.
type Options struct {
	// Logger receives diagnostics; nil discards them. It must not write to
	// the protocol stream.
	Logger *slog.Logger
}

// Serve reads requests from in and writes responses to out until in reaches
// EOF (then in-flight calls finish, their responses are written, and Serve
// returns nil) or ctx is cancelled (then in-flight calls are cancelled and
// Serve returns ctx's error once they have returned). The connection is
// one session of srv. A failure to write to out ends the connection with
// that error.
func Serve(ctx context.Context, srv jsonrpc.Opener, in io.Reader, out io.Writer, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &conn{log: log, out: newOutput(out)}
	go c.out.run()
	sess, err := srv.Open(ctx, newSessionID(), c.out.reserve)
	if err != nil {
		c.out.close()
		<-c.out.done
		return fmt.Errorf("open the stdio session: %w", err)
	}
	defer sess.Close()
	c.sess = sess

	// calls run under base, which also ends when the client can no longer
	// be written to: their answers could not be delivered.
	base, stopCalls := context.WithCancel(ctx)
	defer stopCalls()
	c.base = base

	readDone := make(chan error, 1)
	go func() { readDone <- c.readLoop(in) }()

	select {
	case err = <-readDone:
	case <-ctx.Done():
		// The reader may be blocked in a read that only the peer can end;
		// it exits when in is closed, which the owner of in does.
		err = ctx.Err()
	case <-c.out.failed:
		// The client stopped reading (a closed pipe): nothing more can be
		// answered. The reader is left to in's owner, as above.
		err = fmt.Errorf("write to the client: %w", c.out.writeErr())
		stopCalls()
	}
	c.running.Wait()
	c.out.close()
	<-c.out.done
	if err == nil {
		err = c.out.writeErr()
	}
	if err != nil && ctx.Err() == nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

type conn struct {
	log     *slog.Logger
	out     *output
	sess    jsonrpc.Session
	base    context.Context
	calls   jsonrpc.Calls
	running sync.WaitGroup
}

func newSessionID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "stdio-" + hex.EncodeToString(b[:])
}

func (c *conn) readLoop(in io.Reader) error {
	r := bufio.NewReaderSize(in, ioBufSize)
	for {
		line, err := r.ReadBytes('\n')
		// Only JSON's own whitespace: bytes.TrimSpace would also take
		// U+0085 and U+00A0, and pass a line that is not JSON text.
		if trimmed := bytes.Trim(line, " \t\r\n"); len(trimmed) > 0 {
			c.dispatch(trimmed)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read request stream: %w", err)
		}
	}
}

// dispatch routes one line: what fails the gate is answered here, the
// rest goes to the session.
func (c *conn) dispatch(line []byte) {
	msg, rerr := jsonrpc.Parse(line)
	if rerr != nil {
		c.out.enqueue(rerr.Line()) // from the reader: see send
		return
	}
	switch {
	case msg.Kind == jsonrpc.KindReply:
		c.log.Debug("ignoring a reply to a request this server never sent")
	case msg.Kind == jsonrpc.KindNotification && msg.Method == "notifications/cancelled":
		c.calls.Cancel(msg.Params)
	case msg.Kind == jsonrpc.KindNotification:
		c.sess.Handle(c.base, msg, c.out.enqueue)
	case msg.Method == "initialize":
		// Inline, so a pipelined request never overtakes the handshake.
		if resp := c.sess.Handle(c.base, msg, c.out.send); resp != nil {
			c.out.send(resp)
		}
	default:
		c.request(msg)
	}
}

// request serves a request on its own goroutine.
func (c *conn) request(msg *jsonrpc.Message) {
	ctx, call, ok := c.calls.Begin(c.base, msg.ID)
	if !ok {
		c.out.enqueue(jsonrpc.InUseError(msg.ID).Line())
		return
	}
	c.running.Add(1)
	go func() {
		defer c.running.Done()
		resp := c.sess.Handle(ctx, msg, c.out.send)
		if c.calls.End(msg.ID, call) {
			// The spec says a receiver should not answer a cancelled request.
			return
		}
		if resp != nil {
			c.out.send(resp)
		}
	}()
}

// queueDepth bounds the output FIFO. A handler that emits notifications
// faster than the client reads waits for room instead of losing them.
const queueDepth = 4096

// ioBufSize sizes the read and write buffers. A line longer than that is
// still read whole and written in one piece (bufio writes a large line
// straight through), so it only sets how many small lines share a system
// call; bigger buffers cost their zeroing on every connection, which the
// fuzz target opens thousands of times a second.
const ioBufSize = 16 << 10

// item is one queued output line: either a line, or a place held for a
// line that is not ready yet (reserve).
type item struct {
	line []byte
	slot chan []byte
}

// output is the single writer of the connection. Every line goes through
// its FIFO, so lines never interleave and their order is the order in which
// they were queued.
type output struct {
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

func newOutput(w io.Writer) *output {
	return &output{
		w:      bufio.NewWriterSize(w, ioBufSize),
		queue:  make(chan *item, queueDepth),
		done:   make(chan struct{}),
		failed: make(chan struct{}),
	}
}

// reserve holds the next place in the FIFO for a line that is not ready
// yet and returns what fills it, once (nil: nothing to write). After
// close, it holds nothing and what it returns discards the line.
func (o *output) reserve() func([]byte) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.closed {
		return func([]byte) {}
	}
	slot := make(chan []byte, 1)
	o.pending.Add(1)
	o.queue <- &item{slot: slot}
	return func(line []byte) { slot <- line }
}

// send queues a line, or writes it at once when nothing is queued. It
// reports false after close. The reader goroutine must use enqueue instead
// (except for the initialize response, when nothing can be waiting): a
// direct write blocks while the client is not reading, and a reader stuck
// there stops reading a client that writes before it reads.
func (o *output) send(line []byte) { o.put(line, true) }

// enqueue queues a line for the writer goroutine.
func (o *output) enqueue(line []byte) { o.put(line, false) }

func (o *output) put(line []byte, direct bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.closed {
		return
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
			return
		}
		o.wmu.Unlock()
	}
	o.pending.Add(1)
	o.queue <- &item{line: line}
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
			// The client is gone: drain without waiting for lines that can
			// no longer be written.
			o.pending.Add(-1)
			continue
		default:
		}
		line := it.line
		if it.slot != nil {
			select {
			case line = <-it.slot:
			default:
				// Not filled yet: what is written so far must not wait
				// for it.
				o.wmu.Lock()
				o.flushLocked()
				o.wmu.Unlock()
				line = <-it.slot
			}
		}
		o.wmu.Lock()
		if line != nil {
			o.writeLocked(line)
		}
		// Flush whenever the queue runs empty, whether or not this item
		// wrote anything: lines written before an empty slot must not
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
