package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/contain"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// The session keeps every tab it opened and every page those opened
// (target=_blank links, window.open, forms with a target), in the order they
// opened: browser_tabs numbers them from 1 in that order. One of them is
// current; the tools act on it.

const (
	// popupAttachWait bounds how long a call waits for a new tab to become
	// drivable. Attaching takes a few ms; a tab that needs longer is
	// frozen, usually by a dialog its page opened before it was watched
	// (Chrome reports a dialog only to a session that was listening when it
	// opened, and then answers no command for the page until it is closed).
	popupAttachWait = 5 * time.Second
	// popupLoadWait bounds the wait for a new tab's page to load before it
	// is described.
	popupLoadWait = 10 * time.Second
	// blankGrace is how long a new tab may stay on about:blank before it
	// is taken to be blank (window.open() with no URL) rather than about
	// to load a page.
	blankGrace = time.Second
	// probeTimeout bounds each check that a page responds after a call
	// timed out; an idle page answers in a few ms.
	probeTimeout = time.Second
	// closeWait bounds closing a tab.
	closeWait = 5 * time.Second
	// reviveWait bounds opening a blank tab in place of one that froze.
	reviveWait = 10 * time.Second
)

// withValues has the deadline and cancellation of its Context and the
// chromedp target of vals.
type withValues struct {
	context.Context
	vals context.Context
}

// Value answers chromedp's key from vals and every other key (the
// context package's own among them) from the call's context.
func (w withValues) Value(k any) any {
	if v, ok := w.vals.Value(k).(*chromedp.Context); ok {
		return v
	}
	return w.Context.Value(k)
}

// onTab returns ctx driving tab t: chromedp finds t's target in it, while
// ctx's deadline and cancellation still apply. Tabs' contexts live as long
// as the tabs, so a call's limits cannot come from them.
func onTab(ctx context.Context, t *tab) context.Context { return withValues{ctx, t.ctx} }

// onBrowser is ctx driving the browser (Target.* commands).
func (rb *runningBrowser) onBrowser(ctx context.Context) context.Context {
	return withValues{ctx, rb.browserCtx}
}

func (ts *tabSet) onBrowser(ctx context.Context) context.Context { return ts.rb.onBrowser(ctx) }

// onBrowserEvent runs in the browser's read loop (fast, no browser calls).
// It notices pages our pages open and starts attaching to each at once:
// the sooner a page is watched, the likelier a dialog it opens on load is
// seen and can be answered. A page belongs to the tab set of the page that
// opened it, which is always in the same browser context.
func (rb *runningBrowser) onBrowserEvent(ev any) {
	e, ok := ev.(*target.EventTargetCreated)
	if !ok || e.TargetInfo.Type != "page" || e.TargetInfo.OpenerID == "" {
		return
	}
	rb.setMu.Lock()
	defer rb.setMu.Unlock()
	for _, ts := range rb.sets {
		if ts.adoptPopup(e.TargetInfo.TargetID, e.TargetInfo.OpenerID) {
			return
		}
	}
}

// adoptPopup takes on page id when one of ts's tabs opened it.
func (ts *tabSet) adoptPopup(id, openerID target.ID) bool {
	ts.tabMu.Lock()
	defer ts.tabMu.Unlock()
	if ts.closing {
		return false
	}
	opener := ts.find(openerID)
	if opener == nil {
		return false
	}
	if ts.find(id) == nil {
		ts.fresh = append(ts.fresh, ts.startTab(id, opener.id))
		opener.notePopup()
	}
	return true
}

// find returns our tab of target id; ts.tabMu is held.
func (ts *tabSet) find(id target.ID) *tab {
	for _, t := range ts.tabs {
		if t.id == id {
			return t
		}
	}
	return nil
}

// startTab lists a tab for target id and attaches to it on a goroutine ts
// owns (ts.close aborts and waits for it); ts.tabMu is held.
func (ts *tabSet) startTab(id, opener target.ID) *tab {
	t := newTabState(id, opener, ts.rb.log, ts.guard)
	if ts.closing {
		// ts.close is waiting for the attaches; none may start now.
		t.abort, t.attachErr = func() {}, errors.New("the browser is closing")
		close(t.ready)
		return t
	}
	actx, abort := context.WithCancel(ts.rb.browserCtx)
	t.abort = abort
	ts.tabs = append(ts.tabs, t)
	ts.attachWG.Go(func() {
		_ = contain.Call(ts.rb.log, "attaching to a tab", func() error {
			t.attach(actx)
			return nil
		})
	})
	return t
}

// tabList returns the tabs in order and the current one.
func (ts *tabSet) tabList() ([]*tab, *tab) {
	ts.tabMu.Lock()
	defer ts.tabMu.Unlock()
	return slices.Clone(ts.tabs), ts.cur
}

func (ts *tabSet) setCurrent(t *tab) {
	ts.tabMu.Lock()
	defer ts.tabMu.Unlock()
	ts.cur = t
}

// drop removes t from the lists.
func (ts *tabSet) drop(t *tab) {
	ts.tabMu.Lock()
	defer ts.tabMu.Unlock()
	ts.tabs = slices.DeleteFunc(ts.tabs, func(x *tab) bool { return x == t })
	ts.fresh = slices.DeleteFunc(ts.fresh, func(x *tab) bool { return x == t })
	if ts.cur == t {
		ts.cur = nil
	}
}

// openBlank opens a blank tab of our own and waits, within ctx, until it
// can be driven.
func (ts *tabSet) openBlank(ctx context.Context) (*tab, error) {
	// A window of its own, as chromedp makes them: a tab hidden behind
	// another gets no animation frames.
	res, err := chromedp.CallBrowser(ts.onBrowser(ctx), target.CreateTarget, target.CreateTargetParams{URL: "about:blank", NewWindow: new(true), BrowserContextID: ts.id})
	if err != nil {
		return nil, fmt.Errorf("open a new tab: %w", err)
	}
	ts.tabMu.Lock()
	t := ts.startTab(res.TargetID, "")
	ts.tabMu.Unlock()
	select {
	case <-t.ready:
	case <-ctx.Done():
		ts.closeTab(t)
		return nil, fmt.Errorf("open a new tab: %w", ctx.Err())
	}
	if t.attachErr != nil {
		ts.closeTab(t)
		return nil, fmt.Errorf("open a new tab: %w", t.attachErr)
	}
	return t, nil
}

// closeTab removes t from the list and closes its page. Target.closeTarget
// runs no beforeunload handler, so a page cannot keep itself open, and it
// works on a page frozen by a dialog.
func (ts *tabSet) closeTab(t *tab) {
	ts.drop(t)
	ctx, cancel := context.WithTimeout(ts.rb.browserCtx, closeWait)
	_, _ = chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: t.id})
	cancel()
	t.close()
}

// activate brings t to the front of its window: a hidden page gets no
// animation frames or intersection updates, so lazy content would not load
// in it.
func (ts *tabSet) activate(ctx context.Context, t *tab) {
	_, _ = chromedp.CallBrowser(ts.onBrowser(ctx), target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id})
}

// tabInfo is one line of browser_tabs.
type tabInfo struct {
	Index   int         `json:"index"`
	URL     string      `json:"url"`
	Title   string      `json:"title"`
	Current bool        `json:"current"`
	Dialog  *dialogInfo `json:"dialog,omitempty"`
	Status  string      `json:"status,omitempty"`
}

// describe lists the tabs. URLs and titles come from the browser, not the
// pages, so a page frozen by a dialog or a script is listed too.
func (ts *tabSet) describe(ctx context.Context) ([]*tab, []tabInfo, error) {
	list, cur := ts.tabList()
	res, err := chromedp.CallBrowser(ts.onBrowser(ctx), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, nil, fmt.Errorf("list the tabs: %w", err)
	}
	byID := map[target.ID]*target.Info{}
	for _, ti := range res.TargetInfos {
		byID[ti.TargetID] = ti
	}
	out := make([]tabInfo, 0, len(list))
	for i, t := range list {
		ti := tabInfo{Index: i + 1, Current: t == cur, Dialog: t.openDialog()}
		if info := byID[t.id]; info != nil {
			ti.URL, ti.Title = shownURL(info.URL), info.Title
		}
		switch {
		case t.gone():
			ti.Status = "closed"
		case !t.isReady():
			ti.Status = "not responding"
		}
		out = append(out, ti)
	}
	return list, out, nil
}

// describeOne is t's line and the number of tabs, for notes.
func (ts *tabSet) describeOne(ctx context.Context, t *tab) (tabInfo, int) {
	list, infos, err := ts.describe(ctx)
	if i := slices.Index(list, t); err == nil && i >= 0 {
		return infos[i], len(list)
	}
	return tabInfo{URL: "(unknown)"}, len(list)
}

func (ts *tabSet) current() *tab {
	ts.tabMu.Lock()
	defer ts.tabMu.Unlock()
	return ts.cur
}

// tabLine is "(2 of 3): <url> — <title>".
func tabLine(ti tabInfo, n int) string {
	return fmt.Sprintf("(%d of %d): %s", ti.Index, n, tabPage(ti))
}

// nowCurrent is the note for a tab that became current another way than by
// opening.
func nowCurrent(ti tabInfo, n int) string {
	return fmt.Sprintf("tab %d of %d is now the current page: %s.", ti.Index, n, tabPage(ti))
}

// tabPage is "<url> — <title>"; Chrome's stand-in title (the URL) is
// left out.
func tabPage(ti tabInfo) string {
	s := ti.URL
	if ti.Title != "" && ti.Title != ti.URL && !strings.HasSuffix(ti.URL, ti.Title) {
		s += " — " + ti.Title
	}
	return s
}

// setTab makes t the tab the call drives and the session's current one;
// a dialog t's page opens from now on interrupts the call.
func (c *call) setTab(t *tab) {
	if c.t != nil && c.t != t {
		c.t.setInterrupt(nil)
	}
	c.t = t
	t.setInterrupt(c.interrupt)
	c.ts.setCurrent(t)
}

// follow brings the call up to date with the tabs, as a user's view would
// be: the newest page opened since the last look becomes current, and a
// current tab that closed gives way to another. Notes say what changed.
func (c *call) follow(ctx context.Context) {
	ts := c.ts
	ts.tabMu.Lock()
	fresh := ts.fresh
	ts.fresh = nil
	ts.tabMu.Unlock()
	var adopt *tab
	for i, t := range fresh {
		if !waitReady(ctx, t) {
			if ctx.Err() != nil {
				// Not this call's to judge; the next one looks again.
				ts.tabMu.Lock()
				ts.fresh = append(fresh[i:], ts.fresh...)
				ts.tabMu.Unlock()
				break
			}
			if t.isReady() || t.gone() {
				continue // it closed itself
			}
			ti, n := ts.describeOne(ctx, t)
			c.note(fmt.Sprintf("The page opened a new tab %s, but it does not respond: it may show a dialog it opened before it could be watched. It stays in browser_tabs; close it there if it stays unresponsive.", tabLine(ti, n)))
			continue
		}
		adopt = t
	}
	if adopt != nil {
		c.setTab(adopt)
		ts.activate(ctx, adopt)
		if adopt.openDialog() == nil {
			waitLoaded(ctx, adopt)
		}
		ti, n := ts.describeOne(ctx, adopt)
		c.newTab = true
		c.note(fmt.Sprintf("Opened a new tab %s; it is now the current page. Use browser_tabs to go back.", tabLine(ti, n)))
	}
	c.prune(ctx)
}

// prune forgets tabs whose pages closed (window.close(), a crash) and,
// when the current one was among them, makes another current: its opener
// if still open, else the newest usable tab, else a new blank one.
func (c *call) prune(ctx context.Context) {
	ts := c.ts
	list, _ := ts.tabList()
	var opener target.ID
	lost := c.t == nil
	for _, t := range list {
		if !t.gone() {
			continue
		}
		if t == c.t {
			lost, opener = true, t.opener
		}
		ts.closeTab(t)
	}
	if !lost {
		return
	}
	list, _ = ts.tabList()
	var next *tab
	for _, t := range list {
		if t.isReady() && (next == nil || next.id != opener) {
			next = t
		}
	}
	if next == nil {
		nt, err := ts.openBlank(ctx)
		if err != nil {
			c.note(fmt.Sprintf("The current tab closed, and no new one could be opened: %v.", err))
			return
		}
		next = nt
	}
	c.setTab(next)
	ts.activate(ctx, next)
	ti, n := ts.describeOne(ctx, next)
	c.note("The current tab closed; " + nowCurrent(ti, n))
}

// waitReady waits, within popupAttachWait, until t can be driven; false
// when it cannot (yet).
func waitReady(ctx context.Context, t *tab) bool {
	timer := time.NewTimer(popupAttachWait)
	defer timer.Stop()
	select {
	case <-t.ready:
		return t.attachErr == nil && !t.gone()
	case <-ctx.Done():
		return false
	case <-timer.C:
		return false
	}
}

// waitLoaded waits, within popupLoadWait and ctx, until a new tab's page
// has loaded, so it is described as it is rather than as about:blank.
func waitLoaded(ctx context.Context, t *tab) {
	ctx, cancel := context.WithTimeout(ctx, popupLoadWait)
	defer cancel()
	start := time.Now()
	for {
		pctx, pcancel := context.WithTimeout(ctx, probeTimeout)
		obj, err := evalIn(onTab(pctx, t), 0, `({href: location.href, state: document.readyState})`, true)
		pcancel()
		var st struct{ Href, State string }
		if err == nil && json.Unmarshal(obj.Value, &st) == nil && st.State == "complete" &&
			(st.Href != "about:blank" || time.Since(start) > blankGrace && !t.state().loading) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// responds reports whether t's page runs script within probeTimeout.
func responds(t *tab) bool {
	ctx, cancel := context.WithTimeout(t.ctx, probeTimeout)
	defer cancel()
	_, err := evalIn(ctx, 0, "0", true)
	return err == nil
}

// revive makes the next call work after this one timed out. A page whose
// script never yields answers nothing, and every later call would time out
// too: the script is stopped (Runtime.terminateExecution interrupts
// running JavaScript), and a page that still does not answer is replaced
// by a blank tab. It says what it did, for the timeout message.
func (c *call) revive() string {
	t := c.t
	if !t.isReady() || t.gone() || t.openDialog() != nil || responds(t) {
		return ""
	}
	ctx, cancel := context.WithTimeout(t.ctx, probeTimeout)
	_, err := chromedp.Call(ctx, runtime.TerminateExecution, cdp.Empty{})
	cancel()
	if err == nil && responds(t) {
		return "A script on the page kept it busy; it was stopped, and the page responds again."
	}
	ctx, cancel = context.WithTimeout(context.Background(), reviveWait)
	defer cancel()
	nt, err := c.ts.openBlank(ctx)
	if err != nil {
		return fmt.Sprintf("The page does not respond, and no new tab could be opened in its place: %v.", err)
	}
	c.setTab(nt)
	c.ts.closeTab(t)
	return "The page stopped responding, so its tab was closed and a blank tab opened in its place."
}

// --- browser_tabs ---

func (s *Session) tabs(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Action string `json:"action"`
		Index  *int   `json:"index"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	action := strings.ToLower(strings.TrimSpace(args.Action))
	list, _ := c.ts.tabList()
	pick := func() (*tab, string) {
		if args.Index == nil {
			return nil, fmt.Sprintf("action=%s needs index: the tab's number from action=list", action)
		}
		if *args.Index < 1 || *args.Index > len(list) {
			return nil, fmt.Sprintf("no tab %d: there are %d tabs, numbered from 1 (see action=list)", *args.Index, len(list))
		}
		return list[*args.Index-1], ""
	}
	res := map[string]any{"success": true}
	switch action {
	case "list", "":
	case "select":
		t, msg := pick()
		if t == nil {
			return tooldef.Errorf("%s", msg), nil
		}
		if !t.isReady() {
			return tooldef.Errorf("tab %d does not respond (its page may show a dialog it opened before it could be watched); close it with action=close", *args.Index), nil
		}
		c.setTab(t)
		c.ts.activate(ctx, t)
	case "close":
		t, msg := pick()
		if t == nil {
			return tooldef.Errorf("%s", msg), nil
		}
		if t == c.t {
			next := neighbour(list, t)
			if next == nil {
				// Closing the last tab leaves a blank page, not a
				// browser without one.
				if next, err = c.ts.openBlank(ctx); err != nil {
					return tooldef.Result{}, err
				}
			}
			c.setTab(next)
			c.ts.activate(ctx, next)
		}
		c.ts.closeTab(t)
		res["closed"] = *args.Index
	default:
		return tooldef.Errorf("unknown action %q: use list, select or close", args.Action), nil
	}
	_, infos, err := c.ts.describe(ctx)
	if err != nil {
		return tooldef.Result{}, err
	}
	res["tabs"] = infos
	for _, ti := range infos {
		if ti.Current {
			res["current"] = ti.Index
			res["url"], res["title"] = ti.URL, ti.Title
			if action != "list" && action != "" {
				c.note("T" + nowCurrent(ti, len(infos))[1:])
			}
		}
	}
	if d := c.t.openDialog(); d != nil {
		c.note(d.note())
	}
	return tooldef.OK(res), nil
}

// neighbour is the tab to show when t closes: the one before it, else the
// one after, as a browser does; nil when t is the only usable one.
func neighbour(list []*tab, t *tab) *tab {
	i := slices.Index(list, t)
	for j := i - 1; j >= 0; j-- {
		if list[j].isReady() {
			return list[j]
		}
	}
	for j := i + 1; j < len(list); j++ {
		if list[j].isReady() {
			return list[j]
		}
	}
	return nil
}

// errNoTab is reported when the session has no tab to act on.
var errNoTab = errors.New("the browser has no tab to act on")
