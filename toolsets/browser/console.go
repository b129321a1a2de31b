package browser

import (
	"context"
	"sync"

	"github.com/chromedp/chromedp"
	"github.com/hermes-go/hermes/internal/contain"
)

// consoleCap bounds the messages kept per tab: a chatty page must not grow
// the server without limit, and a model never needs more than the recent
// past.
const consoleCap = 500

// maxMessageLen bounds one message's text.
const maxMessageLen = 2000

type consoleEntry struct {
	Type      string
	Text      string
	Exception bool
}

// consoleBuf is a ring buffer of the newest console messages and uncaught
// errors, counting what it had to drop.
type consoleBuf struct {
	mu      sync.Mutex
	buf     []consoleEntry
	start   int
	dropped int
}

func newConsoleBuf(n int) *consoleBuf { return &consoleBuf{buf: make([]consoleEntry, 0, n)} }

func (c *consoleBuf) add(e consoleEntry) {
	if len(e.Text) > maxMessageLen {
		e.Text = e.Text[:maxMessageLen] + "…"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buf) < cap(c.buf) {
		c.buf = append(c.buf, e)
		return
	}
	c.buf[c.start] = e
	c.start = (c.start + 1) % len(c.buf)
	c.dropped++
}

// read returns the messages oldest first and how many were dropped; clear
// empties the buffer afterwards.
func (c *consoleBuf) read(clear bool) ([]consoleEntry, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]consoleEntry, 0, len(c.buf))
	out = append(out, c.buf[c.start:]...)
	out = append(out, c.buf[:c.start]...)
	dropped := c.dropped
	if clear {
		c.buf, c.start, c.dropped = c.buf[:0], 0, 0
	}
	return out, dropped
}

// startConsole collects the tab's console into its buffer until
// stopConsole. The goroutine is owned by the tab and waited for.
func (t *tab) startConsole() {
	ctx, cancel := context.WithCancel(t.ctx)
	t.conStop = cancel
	msgs := chromedp.Console(ctx)
	t.conWG.Go(func() {
		_ = contain.Call(t.log, "reading the console", func() error {
			for m, err := range msgs {
				if err != nil {
					return nil
				}
				t.console.add(consoleEntry{Type: string(m.Type), Text: m.Text, Exception: m.IsException()})
			}
			return nil
		})
	})
}

func (t *tab) stopConsole() {
	if t.conStop != nil {
		t.conStop()
	}
	t.conWG.Wait()
}
