package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/hermes-go/hermes/internal/contain"
)

//go:embed page.js
var pageJS string

// worldName names our isolated world; page scripts cannot reach it.
const worldName = "__hermes_tools"

// tab is one page target and what the tools track about it.
type tab struct {
	// id is known from the start: tabs are created (or found, for popups)
	// before they are attached.
	id     target.ID
	opener target.ID     // the tab whose page opened this one; empty for tabs we opened
	log    *slog.Logger  // receives panics recovered on its goroutines
	guard  *requestGuard // checks its pages' requests in an attached browser; nil when the proxy carries them

	// ready closes when attaching ends; ctx, cancel, owned, detached and
	// attachErr are set before and read only after.
	ready     chan struct{}
	attachErr error
	ctx       context.Context // chromedp context of the target
	cancel    context.CancelFunc
	owned     bool // its chromedp context is not the browser's, so cancelling it closes only the tab
	detached  <-chan struct{}
	// abort stops an attach that never finishes (a page frozen by a dialog
	// it opened before it could be watched).
	abort context.CancelFunc

	console *consoleBuf
	conWG   sync.WaitGroup
	conStop context.CancelFunc

	mu        sync.Mutex
	mainFrame cdp.FrameID
	navSeq    uint64 // main-frame document changes
	// scriptNavs holds, for each navigation a page's script requested in
	// the main frame (newest last, a few), the navSeq of the document
	// that asked: one asked by the document we are leaving races ours.
	scriptNavs []uint64
	histSeq    uint64        // navSeq + same-document history moves
	loadSeq    uint64        // main-frame loads started
	loading    bool          // a main-frame load is in progress
	popups     uint64        // pages this tab's page opened
	changed    chan struct{} // closed and replaced on every state change
	dialog     *dialogInfo   // the JavaScript dialog the page shows, if any
	// interrupt ends the running call when the page opens a dialog: until
	// the dialog is answered the page runs nothing, so waiting would only
	// run into the deadline.
	interrupt func()
	// seenHist and seenURL are where the tab was when a result last told
	// the model its address (seenOnce: one did), so the next can say the
	// page moved in between (a script redirect, a late form submit).
	seenHist uint64
	seenURL  string
	seenOnce bool

	// world is our isolated world in the current document; valid while
	// worldNav == navSeq.
	world      runtime.ExecutionContextID
	worldNav   uint64
	worldStart int // first ref number issued in this world
}

func newTabState(id, opener target.ID, log *slog.Logger, guard *requestGuard) *tab {
	return &tab{
		id: id, opener: opener, log: log, guard: guard, ready: make(chan struct{}),
		mainFrame: cdp.FrameID(id), // the main frame's id is the target's id in Chrome
		changed:   make(chan struct{}), console: newConsoleBuf(consoleCap),
	}
}

// firstTab watches the tab the browser started with, which browserCtx is
// already attached to. Its events before this call are lost; nothing has
// happened in it yet.
func firstTab(browserCtx context.Context, log *slog.Logger) (*tab, error) {
	c := chromedp.FromContext(browserCtx)
	if c == nil || c.Target == nil {
		return nil, errors.New("the browser has no tab")
	}
	// Only a browser we launched starts with a tab we drive, and the
	// proxy carries its requests: no request guard.
	t := newTabState(c.Target.TargetID, "", log, nil)
	t.ctx, t.cancel, t.abort = browserCtx, func() {}, func() {}
	if err := chromedp.Listen(browserCtx, contain.Func(log, "a tab event listener", t.onEvent)); err != nil {
		return nil, fmt.Errorf("watch the tab: %w", err)
	}
	if err := t.watch(); err != nil {
		return nil, err
	}
	close(t.ready)
	return t, nil
}

// attach attaches to the tab's target on a context of its own and starts
// watching it; it closes t.ready when done. The caller owns the goroutine
// it runs on and ends a stuck attach with t.abort. The first Run on a
// chromedp context binds the target's event loop to the context it is
// given, so it runs on the tab's own context, never on one with a
// deadline (that would stop the tab when the deadline passed).
func (t *tab) attach(browserCtx context.Context) {
	// Until it succeeds; a panic on the way leaves this.
	t.attachErr = errors.New("attaching to the tab did not finish")
	defer close(t.ready)
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithTargetID(t.id),
		// From the first message, so a dialog the page opens while we
		// attach is seen.
		chromedp.WithListener(contain.Func(t.log, "a tab event listener", t.onEvent)))
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		t.attachErr = fmt.Errorf("attach to the tab: %w", err)
		return
	}
	t.ctx, t.cancel, t.owned = ctx, cancel, true
	if err := t.watch(); err != nil {
		cancel()
		t.attachErr = err
		return
	}
	t.attachErr = nil
}

// watch starts what every attached tab has: the detach signal, the
// request guard (attached browsers only) and the console buffer.
func (t *tab) watch() error {
	if ch, err := chromedp.Detached(t.ctx); err == nil {
		t.detached = ch
	}
	// In a browser the proxy does not carry, every request the tab's
	// pages make is checked here. The guard answers paused requests on
	// the tab's own context for as long as the tab lives.
	if err := t.guard.install(t.ctx); err != nil {
		return err
	}
	t.startConsole()
	return nil
}

// isReady reports whether the tab is attached and usable.
func (t *tab) isReady() bool {
	select {
	case <-t.ready:
		return t.attachErr == nil
	default:
		return false
	}
}

func (t *tab) gone() bool {
	select {
	case <-t.ready:
	default:
		return false // still attaching
	}
	if t.attachErr != nil {
		return true
	}
	if t.detached == nil {
		return false
	}
	select {
	case <-t.detached:
		return true
	default:
		return false
	}
}

// close stops watching the tab and ends its chromedp context, which closes
// the target when we attached to it ourselves. An attach still under way is
// aborted and waited for. The browser's first tab closes with the browser
// (or through Target.closeTarget, see runningBrowser.closeTab).
func (t *tab) close() {
	t.abort()
	<-t.ready
	t.stopConsole()
	if t.owned {
		_ = chromedp.Cancel(t.ctx)
		t.cancel()
	}
}

// onEvent runs in the tab's read loop, in protocol order: it must be fast
// and must not call the browser.
func (t *tab) onEvent(ev any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	changed := false
	switch ev := ev.(type) {
	case *page.EventFrameNavigated:
		if ev.Frame.ParentID == "" {
			t.mainFrame = ev.Frame.ID
			t.navSeq++
			t.histSeq++
			// A back/forward-cache restore fires no load events: the
			// page is complete as it comes back.
			if ev.Type == page.NavigationTypeBackForwardCacheRestore {
				t.loading = false
			}
			changed = true
		}
	case *page.EventFrameRequestedNavigation:
		if ev.FrameID == t.mainFrame || t.mainFrame == "" {
			t.scriptNavs = append(t.scriptNavs, t.navSeq)
			if len(t.scriptNavs) > 8 {
				t.scriptNavs = t.scriptNavs[1:]
			}
		}
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == t.mainFrame {
			t.histSeq++
			changed = true
		}
	case *page.EventFrameStartedLoading:
		if ev.FrameID == t.mainFrame {
			t.loading = true
			t.loadSeq++
			changed = true
		}
	case *page.EventFrameStoppedLoading:
		if ev.FrameID == t.mainFrame {
			t.loading = false
			changed = true
		}
	case *page.EventLoadEventFired:
		t.loading = false
		changed = true
	case *page.EventJavascriptDialogOpening:
		t.dialog = &dialogInfo{Type: string(ev.Type), Message: ev.Message, DefaultPrompt: ev.DefaultPrompt}
		if t.interrupt != nil {
			t.interrupt()
		}
		changed = true
	case *page.EventJavascriptDialogClosed:
		t.dialog = nil
		changed = true
	}
	if changed {
		t.signal()
	}
}

// signal wakes waitFor; t.mu is held.
func (t *tab) signal() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// notePopup records that the tab's page opened another, so an action
// waiting to settle follows it at once.
func (t *tab) notePopup() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.popups++
	t.signal()
}

// openDialog returns the dialog the page shows, or nil.
func (t *tab) openDialog() *dialogInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialog
}

// dialogHandled forgets the dialog once Page.handleJavaScriptDialog
// succeeded; the closed event may lag behind the reply.
func (t *tab) dialogHandled() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dialog = nil
	t.signal()
}

// setInterrupt makes fn (nil: nothing) run when the page opens a dialog.
func (t *tab) setInterrupt(fn func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.interrupt = fn
}

// markSeen records that a result shows the tab at url now, and reports
// whether the page navigated since the previous such result, and from where.
func (t *tab) markSeen(url string) (navigated bool, from string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	navigated = t.seenOnce && t.histSeq != t.seenHist
	from = t.seenURL
	t.seenHist, t.seenURL, t.seenOnce = t.histSeq, url, true
	return navigated, from
}

// snap is a consistent view of the tab state.
type snap struct {
	navSeq, histSeq, loadSeq, popups uint64
	loading                          bool
	changed                          <-chan struct{}
}

func (t *tab) state() snap {
	t.mu.Lock()
	defer t.mu.Unlock()
	return snap{t.navSeq, t.histSeq, t.loadSeq, t.popups, t.loading, t.changed}
}

// scriptNavMark and raced: whether, since mark, the document of navSeq
// nav asked for a navigation of its own.
func (t *tab) scriptNavMark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.scriptNavs)
}

func (t *tab) raced(mark int, nav uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The ring drops old entries; read what is left after mark.
	if mark > len(t.scriptNavs) {
		mark = 0
	}
	return slices.Contains(t.scriptNavs[mark:], nav)
}

// waitFor waits until cond holds for the tab state, or ctx ends.
func (t *tab) waitFor(ctx context.Context, cond func(snap) bool) error {
	for {
		s := t.state()
		if cond(s) {
			return nil
		}
		select {
		case <-s.changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// settleWindow is how long an action waits for a navigation it may have
// triggered to start (a link, a submit button, Enter in a form). Clicks that
// navigate start loading within a few ms here; 150 ms leaves room for a
// loaded machine without making every click slow.
const settleWindow = 150 * time.Millisecond

// settle lets an action's consequences land: if a main-frame load starts
// within settleWindow, it waits for it to finish (bounded by ctx). It
// reports whether the page navigated or opened another.
func (t *tab) settle(ctx context.Context, before snap) bool {
	wctx, cancel := context.WithTimeout(ctx, settleWindow)
	err := t.waitFor(wctx, func(s snap) bool {
		return s.loadSeq != before.loadSeq || s.navSeq != before.navSeq || s.popups != before.popups
	})
	cancel()
	if err != nil {
		return false
	}
	_ = t.waitFor(ctx, func(s snap) bool { return !s.loading || s.popups != before.popups })
	return true
}

// errStale is returned for refs that no longer resolve.
var errStale = errors.New("stale")

// errWorldGone means our isolated world died with its document.
var errWorldGone = errors.New("the page changed")

// ensureWorld returns our isolated world for the current document,
// creating it when the document changed.
func (t *tab) ensureWorld(ctx context.Context, refStart int) (runtime.ExecutionContextID, int, error) {
	t.mu.Lock()
	if t.world != 0 && t.worldNav == t.navSeq {
		w, st := t.world, t.worldStart
		t.mu.Unlock()
		return w, st, nil
	}
	frame, nav := t.mainFrame, t.navSeq
	t.mu.Unlock()
	res, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: worldName})
	if err != nil {
		return 0, 0, fmt.Errorf("prepare the page for inspection: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.navSeq != nav {
		// Navigated while we created it; the caller retries.
		return 0, 0, errWorldGone
	}
	t.world, t.worldNav, t.worldStart = res.ExecutionContextID, nav, refStart
	return t.world, refStart, nil
}

// currentWorld returns the world only when it still belongs to the current
// document (refs live there).
func (t *tab) currentWorld() (runtime.ExecutionContextID, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.world, t.world != 0 && t.worldNav == t.navSeq
}

// pageCall builds the expression that installs page.js (once per world)
// and calls one of its functions with JSON arguments.
func pageCall(refStart int, fn string, args ...any) string {
	var b strings.Builder
	b.WriteString("(")
	b.WriteString(pageJS)
	fmt.Fprintf(&b, ")(%d).%s(", refStart, fn)
	for i, a := range args {
		if i > 0 {
			b.WriteString(",")
		}
		j, _ := json.Marshal(a)
		b.Write(j)
	}
	b.WriteString(")")
	return b.String()
}

// evalIn evaluates expr in context id. byValue returns JSON in Value; else
// the object handle. A JS exception becomes an error carrying its text.
func evalIn(ctx context.Context, id runtime.ExecutionContextID, expr string, byValue bool) (*runtime.RemoteObject, error) {
	res, err := chromedp.Call(ctx, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    expr,
		ContextID:     id,
		ReturnByValue: &byValue,
		AwaitPromise:  new(true),
		Silent:        new(true),
	})
	if err != nil {
		if strings.Contains(err.Error(), "Cannot find context") {
			return nil, errWorldGone
		}
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, &jsError{text: exceptionText(res.ExceptionDetails)}
	}
	return res.Result, nil
}

type jsError struct{ text string }

func (e *jsError) Error() string { return e.text }

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		s := d.Exception.Description
		// Drop the stack: the first line is the message.
		if i := strings.IndexByte(s, '\n'); i > 0 {
			s = s[:i]
		}
		return s
	}
	return d.Text
}

// worldCall runs a page.js function in our world and decodes its result.
// The world is created when needed, so use it only for calls that do not
// depend on refs of an earlier snapshot.
func worldCall[T any](ctx context.Context, t *tab, refStart int, fn string, args ...any) (T, error) {
	var zero T
	for attempt := 0; ; attempt++ {
		w, start, err := t.ensureWorld(ctx, refStart)
		if err == nil {
			var obj *runtime.RemoteObject
			obj, err = evalIn(ctx, w, pageCall(start, fn, args...), true)
			if err == nil {
				var v T
				if len(obj.Value) > 0 {
					if err := json.Unmarshal(obj.Value, &v); err != nil {
						return zero, fmt.Errorf("decode %s result: %w", fn, err)
					}
				}
				return v, nil
			}
		}
		if !errors.Is(err, errWorldGone) || attempt >= 2 {
			return zero, err
		}
		// The document changed under us (a navigation was finishing);
		// forget the world and make one in the new document.
		t.mu.Lock()
		t.world = 0
		t.mu.Unlock()
	}
}

// errUnknown is returned for refs no snapshot produced.
var errUnknown = errors.New("unknown")

// resolveRef returns a handle on the element of ref, or errStale /
// errUnknown (the world of this document never saw it).
func (t *tab) resolveRef(ctx context.Context, ref string) (*runtime.RemoteObject, error) {
	w, ok := t.currentWorld()
	if !ok {
		return nil, errStale
	}
	expr := fmt.Sprintf(`globalThis.__hermes ? globalThis.__hermes.resolve(%q) : (()=>{throw new Error("unknown")})()`, ref)
	obj, err := evalIn(ctx, w, expr, false)
	if err != nil {
		var je *jsError
		if errors.As(err, &je) {
			if strings.Contains(je.text, "stale") {
				return nil, errStale
			}
			return nil, errUnknown
		}
		if errors.Is(err, errWorldGone) {
			return nil, errStale
		}
		return nil, err
	}
	return obj, nil
}

// callOn calls a function with this bound to obj (in obj's world) and
// decodes its JSON result.
func callOn[T any](ctx context.Context, obj *runtime.RemoteObject, fn string, args ...any) (T, error) {
	var zero T
	var cargs []*runtime.CallArgument
	for _, a := range args {
		j, err := json.Marshal(a)
		if err != nil {
			return zero, err
		}
		cargs = append(cargs, &runtime.CallArgument{Value: j})
	}
	res, err := chromedp.Call(ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn,
		ObjectID:            obj.ObjectID,
		Arguments:           cargs,
		ReturnByValue:       new(true),
		AwaitPromise:        new(true),
		Silent:              new(true),
	})
	if err != nil {
		if strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "Could not find object") {
			return zero, errStale
		}
		return zero, err
	}
	if res.ExceptionDetails != nil {
		return zero, &jsError{text: exceptionText(res.ExceptionDetails)}
	}
	var v T
	if res.Result != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, &v); err != nil {
			return zero, fmt.Errorf("decode result: %w", err)
		}
	}
	return v, nil
}

// isNodeGone reports protocol errors that mean the DOM node is gone or has
// no box (after a reload these come instead of an exception).
func isNodeGone(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "No node") || strings.Contains(s, "Could not find") ||
		strings.Contains(s, "does not have a layout object") || strings.Contains(s, "Node is detached")
}

// clickPoint scrolls obj into view and returns the centre of its first
// visible box, in main-frame viewport pixels (iframe content included).
func clickPoint(ctx context.Context, obj *runtime.RemoteObject) (x, y float64, err error) {
	if _, err := chromedp.Call(ctx, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{ObjectID: obj.ObjectID}); err != nil {
		return 0, 0, err
	}
	q, err := chromedp.Call(ctx, dom.GetContentQuads, dom.GetContentQuadsParams{ObjectID: obj.ObjectID})
	if err != nil {
		return 0, 0, err
	}
	for _, quad := range q.Quads {
		if len(quad) < 8 {
			continue
		}
		area := math.Abs((quad[4]-quad[0])*(quad[5]-quad[1])) + math.Abs((quad[2]-quad[0])*(quad[3]-quad[1]))
		if area < 1 {
			continue
		}
		return (quad[0] + quad[2] + quad[4] + quad[6]) / 4, (quad[1] + quad[3] + quad[5] + quad[7]) / 4, nil
	}
	return 0, 0, errors.New("the element has no visible box (hidden, zero-size or off-screen)")
}

// mouseClick sends a real (trusted) left click at x, y.
func mouseClick(ctx context.Context, x, y float64) error {
	for _, ev := range []input.DispatchMouseEventParams{
		{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y},
		{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1},
		{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: input.MouseButtonLeft, Buttons: 0, ClickCount: 1},
	} {
		if _, err := chromedp.Call(ctx, input.DispatchMouseEvent, ev); err != nil {
			return err
		}
	}
	return nil
}

// back goes one entry back in history and waits until the page is there.
// It does not use chromedp.NavigateBack: that waits for load events a
// back/forward-cache restore never fires, and hangs. A restore reports
// Page.frameNavigated with type BackForwardCacheRestore, which onEvent
// counts as loaded.
func (t *tab) back(ctx context.Context) (bool, error) {
	h, err := chromedp.Call(ctx, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return false, err
	}
	if h.CurrentIndex <= 0 || int(h.CurrentIndex) >= len(h.Entries) {
		return false, nil
	}
	before := t.state()
	entry := h.Entries[h.CurrentIndex-1]
	if _, err := chromedp.Call(ctx, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: entry.ID}); err != nil {
		return false, err
	}
	if err := t.waitFor(ctx, func(s snap) bool { return s.histSeq != before.histSeq }); err != nil {
		return false, fmt.Errorf("the page did not come back: %w", err)
	}
	if err := t.waitFor(ctx, func(s snap) bool { return !s.loading }); err != nil {
		return false, fmt.Errorf("the previous page did not finish loading: %w", err)
	}
	return true, nil
}
