package browser

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/egress"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
)

// One Chromium serves every MCP session of the server, and each session
// drives a tab set of its own: its tabs, its current tab, its refs. The
// first session (the only one over stdio) and calls that carry no session
// use the browser's default context, as a single-client server always
// has. Every later session (Streamable HTTP serves many) gets a browser
// context of its own (Target.createBrowserContext), which has its own
// cookies, storage and cache, so clients see nothing of each other's
// pages; it is disposed, with its tabs, when the session ends. Each such
// context has an egress proxy of its own (a sibling of the browser's,
// with the same policy and key), so the requests it refuses are reported
// to the session whose page made them and to no other.

// tabSet is the tabs one session drives, in one browser context.
type tabSet struct {
	rb *runningBrowser
	// id is the browser context; empty for the browser's default one.
	id cdp.BrowserContextID
	// blocked records what the network policy refused the set's pages,
	// for the calls during which it happened to report.
	blocked *blockedLog
	// guard checks the requests of the set's tabs in an attached browser;
	// nil when a proxy carries them.
	guard *requestGuard
	// proxy carries the requests of a session's own context in a browser
	// we launched; nil for the default context (the browser's proxy) and
	// in an attached browser.
	proxy *egress.Proxy

	// lock is a one-slot semaphore rather than a mutex so a call waiting
	// for the tab gives up when its own context ends. Calls of one
	// session are serialised, since the current tab is a single cursor.
	lock chan struct{}
	// refSeq is the next ref number, never reused in the session; only
	// a call holding lock touches it.
	refSeq int

	tabMu   sync.Mutex
	tabs    []*tab // see tabs.go
	cur     *tab
	fresh   []*tab // pages our pages opened that no call has shown yet
	closing bool   // no more tabs are taken on
	// attachWG waits for the goroutines attaching to tabs.
	attachWG sync.WaitGroup
}

func newTabSet(rb *runningBrowser, id cdp.BrowserContextID, blocked *blockedLog, guard *requestGuard) *tabSet {
	return &tabSet{rb: rb, id: id, blocked: blocked, guard: guard, lock: make(chan struct{}, 1), refSeq: 1}
}

// newSessionSet makes a browser context and a blank tab in it, within
// ctx, and registers the set for the browser's events.
func (rb *runningBrowser) newSessionSet(ctx context.Context) (*tabSet, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	blocked := &blockedLog{log: rb.log}
	var guard *requestGuard
	var proxy *egress.Proxy
	params := target.CreateBrowserContextParams{}
	if rb.attached {
		guard = &requestGuard{policy: rb.set.policy(), blocked: blocked, log: rb.log}
	} else {
		var err error
		if proxy, err = rb.proxy.Sibling(egressPolicy(rb.set, blocked, rb.log)); err != nil {
			return nil, fmt.Errorf("start the session's egress proxy: %w", err)
		}
		// As the browser's own flags say it (see startBrowser).
		params.ProxyServer, params.ProxyBypassList = proxy.URL(), "<-loopback>"
	}
	res, err := chromedp.CallBrowser(rb.onBrowser(ctx), target.CreateBrowserContext, params)
	if err != nil {
		if proxy != nil {
			_ = proxy.Close()
		}
		return nil, fmt.Errorf("make a browser context for the session: %w", err)
	}
	ts := newTabSet(rb, res.BrowserContextID, blocked, guard)
	ts.proxy = proxy
	rb.setMu.Lock()
	closing := rb.closing
	if !closing {
		rb.sets = append(rb.sets, ts)
	}
	rb.setMu.Unlock()
	if closing {
		ts.dispose()
		return nil, errBrowserClosed
	}
	t, err := ts.openBlank(ctx)
	if err != nil {
		_ = ts.Close()
		return nil, err
	}
	ts.setCurrent(t)
	return ts, nil
}

// blankWait bounds emptying the default context's first tab when its
// session ends; an idle page goes blank in a few ms.
const blankWait = 2 * time.Second

var errBrowserClosed = errors.New("the browser session is closed (the server is shutting down)")

// Close releases the set when its session ends: its tabs close and its
// browser context is disposed. It is the io.Closer the session state
// calls.
func (ts *tabSet) Close() error {
	ts.rb.setMu.Lock()
	n := len(ts.rb.sets)
	ts.rb.sets = deleteSet(ts.rb.sets, ts)
	mine := len(ts.rb.sets) < n
	ts.rb.setMu.Unlock()
	if mine {
		// Otherwise the browser's close released it already.
		ts.release(false)
	}
	return nil
}

func deleteSet(sets []*tabSet, ts *tabSet) []*tabSet {
	out := sets[:0]
	for _, x := range sets {
		if x != ts {
			out = append(out, x)
		}
	}
	return out
}

// release stops watching the set's tabs and closes them. At the browser's
// shutdown (shutdown true) a launched browser takes its pages with it, so
// only our goroutines are stopped; in a browser we attached to, our tabs
// and contexts are closed, never the user's.
func (ts *tabSet) release(shutdown bool) {
	ts.tabMu.Lock()
	ts.closing = true
	tabs := ts.tabs
	ts.tabs, ts.fresh, ts.cur = nil, nil, nil
	ts.tabMu.Unlock()
	for _, t := range tabs {
		t.abort()
	}
	ts.attachWG.Wait()
	if shutdown && !ts.rb.attached {
		for _, t := range tabs {
			t.stopConsole()
		}
		ts.closeProxy()
		return
	}
	for _, t := range tabs {
		if !t.owned {
			// The browser's first tab carries chromedp's connection and
			// cannot close; it is emptied instead, so the ended
			// session's page runs nothing more.
			t.stopConsole()
			// Bounded tightly: over stdio the session ends as the server
			// exits, and a frozen page must not hold that up.
			ctx, cancel := context.WithTimeout(t.ctx, blankWait)
			_, _ = chromedp.Call(ctx, page.Navigate, page.NavigateParams{URL: "about:blank"})
			cancel()
			continue
		}
		t.close() // closes the tab: its chromedp context is its own
	}
	ts.dispose()
}

// dispose drops the set's browser context, which closes every page in it
// and forgets its cookies and storage, and then its proxy.
func (ts *tabSet) dispose() {
	defer ts.closeProxy()
	if ts.id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ts.rb.browserCtx, closeWait)
	defer cancel()
	if _, err := chromedp.CallBrowser(ctx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: ts.id}); err != nil {
		ts.rb.log.Debug("disposing of a session's browser context", "err", err)
	}
}

// closeProxy ends the set's proxy and every connection it still carries.
func (ts *tabSet) closeProxy() {
	if ts.proxy != nil {
		_ = ts.proxy.Close()
	}
}

// setKey keys a Session's tab set in a session's state, per browser: a
// browser started after one died gives the session a new set.
type setKey struct {
	s  *Session
	rb *runningBrowser
}

// firstUse marks the session that drives the default context; closing
// its state releases that set.
type firstUse struct{ ts *tabSet }

func (f firstUse) Close() error { f.ts.release(false); return nil }

// tabsFor returns the tab set of the session ctx carries, starting the
// browser, or making the session's browser context, on first use.
func (s *Session) tabsFor(ctx context.Context) (*tabSet, error) {
	rb, err := s.browser()
	if err != nil {
		return nil, err
	}
	st := sessionstate.FromContext(ctx)
	if st == nil {
		return rb.dflt, nil
	}
	s.mu.Lock()
	if s.first == nil {
		s.first = st
	}
	first := s.first == st
	s.mu.Unlock()
	v, err := st.Value(setKey{s, rb}, func() (any, error) {
		if first {
			return firstUse{rb.dflt}, nil
		}
		return rb.newSessionSet(ctx)
	})
	if err != nil {
		return nil, err
	}
	if f, ok := v.(firstUse); ok {
		return f.ts, nil
	}
	return v.(*tabSet), nil
}
