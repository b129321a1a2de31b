package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
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
	ctx    context.Context // chromedp context of the target
	cancel context.CancelFunc
	owned  bool // we opened it (not the browser's first tab), so we close it
	id     target.ID
	log    *slog.Logger // receives panics recovered on its goroutines

	console *consoleBuf
	conWG   sync.WaitGroup
	conStop context.CancelFunc

	detached <-chan struct{}

	mu        sync.Mutex
	mainFrame cdp.FrameID
	navSeq    uint64        // main-frame document changes
	histSeq   uint64        // navSeq + same-document history moves
	loadSeq   uint64        // main-frame loads started
	loading   bool          // a main-frame load is in progress
	changed   chan struct{} // closed and replaced on every state change
	popup     target.ID     // a page this tab opened, not yet adopted

	// world is our isolated world in the current document; valid while
	// worldNav == navSeq.
	world      runtime.ExecutionContextID
	worldNav   uint64
	worldStart int // first ref number issued in this world
}

// newTab attaches to (or creates) the target of a chromedp context made
// from parent and starts watching it. create=false uses parent itself (the
// browser's first tab).
func newTab(parent context.Context, log *slog.Logger, guard *requestGuard, create bool, opts ...chromedp.ContextOption) (*tab, error) {
	ctx, cancel := parent, context.CancelFunc(func() {})
	if create {
		ctx, cancel = chromedp.NewContext(parent, opts...)
	}
	t := &tab{ctx: ctx, cancel: cancel, log: log, owned: create, changed: make(chan struct{}), console: newConsoleBuf(consoleCap)}
	sctx, scancel := context.WithTimeout(ctx, startTimeout)
	defer scancel()
	if err := chromedp.Do(sctx); err != nil {
		cancel()
		return nil, fmt.Errorf("attach to the tab: %w", err)
	}
	c := chromedp.FromContext(ctx)
	t.id = c.Target.TargetID
	// The main frame's id is the target's id in Chrome.
	t.mainFrame = cdp.FrameID(t.id)
	// The listeners run on chromedp's read loop: a panic there would end
	// the process, so it is recovered and logged instead.
	if err := chromedp.Listen(ctx, contain.Func(log, "a tab event listener", t.onEvent)); err != nil {
		cancel()
		return nil, fmt.Errorf("watch the tab: %w", err)
	}
	if err := chromedp.ListenBrowser(ctx, contain.Func(log, "a browser event listener", t.onBrowserEvent)); err != nil {
		cancel()
		return nil, fmt.Errorf("watch the browser: %w", err)
	}
	if ch, err := chromedp.Detached(ctx); err == nil {
		t.detached = ch
	}
	// Every request the tab's pages make is checked, not only the URLs
	// the tools are given.
	if err := guard.install(ctx); err != nil {
		cancel()
		return nil, err
	}
	t.startConsole()
	return t, nil
}

func (t *tab) gone() bool {
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

// close stops watching the tab and closes it when we opened it. The
// browser's first tab closes with the browser.
func (t *tab) close() {
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
	}
	if changed {
		close(t.changed)
		t.changed = make(chan struct{})
	}
}

// onBrowserEvent notices pages this tab opens (target=_blank, window.open),
// so the next action can follow the user's click into the new tab.
func (t *tab) onBrowserEvent(ev any) {
	if ev, ok := ev.(*target.EventTargetCreated); ok && ev.TargetInfo.Type == "page" && ev.TargetInfo.OpenerID == t.id {
		t.mu.Lock()
		t.popup = ev.TargetInfo.TargetID
		close(t.changed)
		t.changed = make(chan struct{})
		t.mu.Unlock()
	}
}

// snap is a consistent view of the tab state.
type snap struct {
	navSeq, histSeq, loadSeq uint64
	loading                  bool
	changed                  <-chan struct{}
	popup                    target.ID
}

func (t *tab) state() snap {
	t.mu.Lock()
	defer t.mu.Unlock()
	return snap{t.navSeq, t.histSeq, t.loadSeq, t.loading, t.changed, t.popup}
}

func (t *tab) takePopup() target.ID {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.popup
	t.popup = ""
	return p
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
// reports whether the page navigated.
func (t *tab) settle(ctx context.Context, before snap) bool {
	wctx, cancel := context.WithTimeout(ctx, settleWindow)
	err := t.waitFor(wctx, func(s snap) bool {
		return s.loadSeq != before.loadSeq || s.navSeq != before.navSeq || s.popup != ""
	})
	cancel()
	if err != nil {
		return false
	}
	_ = t.waitFor(ctx, func(s snap) bool { return !s.loading || s.popup != "" })
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
