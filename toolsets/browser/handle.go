package browser

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// checkBrowser is the tools' availability check on the settings this
// session resolved at New.
func (s *Session) checkBrowser() error {
	if s.setErr != nil {
		return s.setErr
	}
	return s.set.browser.check(s.set.lookPath)
}

// checkVision is browser_vision's availability check, for the handler to
// explain itself should it be called while hidden.
func (s *Session) checkVision() error {
	if err := s.checkBrowser(); err != nil {
		return err
	}
	if s.opts.Vision == nil {
		return errors.New(cmp.Or(s.opts.VisionUnavailable, NoVisionModel))
	}
	return nil
}

// handler runs one tool on the current tab; ctx carries the call's
// deadline and drives the tab the call started on (use onTab for c.t after
// the call switched tabs).
type handler func(ctx context.Context, c *call, args json.RawMessage) (tooldef.Result, error)

// call is what a handler needs besides its arguments.
type call struct {
	s  *Session
	ts *tabSet // the session's tabs
	t  *tab    // the current tab; change it with setTab
	// interrupt cancels the running phase of the call when the current
	// page opens a dialog.
	interrupt func()
	notes     []string // for the model, added to the result
	newTab    bool     // a page the call caused to open became current
	// blockedMark is the refusal log's mark when the call began.
	blockedMark uint64
}

func (c *call) note(s string) { c.notes = append(c.notes, s) }

// interruptible returns a context that ends when parent does or when the
// current page opens a dialog, and the function that ends it.
func (c *call) interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	c.interrupt = func() { cancel(errDialogOpened) }
	if c.t != nil {
		c.t.setInterrupt(c.interrupt)
	}
	return ctx, func() { cancel(nil) }
}

// tools that work while the current page shows a dialog: they answer it,
// or leave it for another tab.
var dialogTools = map[string]bool{ToolDialog: true, ToolTabs: true}

// wrap serialises calls on the browser, starts it on first use, gives the
// call its deadline, follows tabs the pages opened and closed, and makes
// sure no call outlives its deadline or leaves the session wedged: a
// dialog ends the call at once with the dialog in its result, and a call
// that timed out stops what froze the page before it returns.
func (s *Session) wrap(name string, fn handler) tooldef.Handler {
	return func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
		if s.setErr != nil {
			return tooldef.Errorf("%v", s.setErr), nil
		}
		ts, err := s.tabsFor(ctx)
		if err != nil {
			return tooldef.Errorf("%v", err), nil
		}
		replaced := s.replacedFor(ctx, ts.rb)
		select {
		case ts.lock <- struct{}{}:
		case <-ctx.Done():
			return tooldef.Result{}, ctx.Err()
		}
		defer func() { <-ts.lock }()
		callCtx, cancel := context.WithTimeout(ctx, s.set.callTimeout)
		defer cancel()
		c := &call{s: s, ts: ts, blockedMark: ts.blocked.mark()}
		if replaced {
			c.note(browserRestartedNote)
		}
		defer func() {
			if c.t != nil {
				c.t.setInterrupt(nil)
			}
		}()
		if t := ts.current(); t != nil {
			c.setTab(t)
		}
		// Pages opened (or closed) since the last call, by a script or a
		// late click handler, change what is current before anything else.
		sctx, stop := c.interruptible(callCtx)
		c.follow(sctx)
		stop()
		if c.t == nil {
			return tooldef.Errorf("%v", errNoTab), nil
		}
		if d := c.t.openDialog(); d != nil && !dialogTools[name] {
			return c.finish(dialogRefusal(d)), nil
		}

		hctx, stop := c.interruptible(callCtx)
		defer stop()
		ran := c.t
		res, err := fn(onTab(hctx, c.t), c, args)
		interrupted := errors.Is(context.Cause(hctx), errDialogOpened)
		if !interrupted && ctx.Err() == nil {
			// Pages the call itself opened (window.open from an
			// expression, a popup a navigation's page opens).
			c.follow(hctx)
			interrupted = errors.Is(context.Cause(hctx), errDialogOpened)
		}
		switch {
		case ctx.Err() != nil:
			// The client gave up, perhaps on a page frozen by a script;
			// the next call must not find it so.
			_ = c.revive()
			return tooldef.Result{}, ctx.Err()
		case interrupted:
			if err != nil || res.IsError || res.Value == nil {
				// The call was cut short; what it did before is the
				// page's to tell once the dialog is answered.
				res = tooldef.OK(map[string]any{"success": true, "url": c.url(callCtx)})
			}
			d := c.t.openDialog()
			if d == nil {
				c.note("The page opened a dialog that closed again before it could be reported.")
				break
			}
			if m := resultMap(res.Value); m != nil {
				m["dialog"] = d
				res.Value = m
			}
			c.note(d.note())
		case err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(callCtx.Err(), context.DeadlineExceeded)):
			msg := fmt.Sprintf("%s timed out after %s: the page did not respond in time.", name, s.set.callTimeout)
			if r := c.revive(); r != "" {
				msg += " " + r
			}
			res = tooldef.Errorf("%s Take a snapshot to see where it stands, or navigate elsewhere.", msg)
		case err != nil && ran != c.t && ran.gone():
			// The page closed itself in answer (a button that calls
			// window.close()): the call did what it was asked, and the
			// note says which tab is current now.
			res = tooldef.OK(map[string]any{"success": true, "url": c.url(callCtx)})
		case err != nil:
			// Protocol failures a model can work around (a crashed page, a
			// detached frame) are reported to it rather than as server
			// errors.
			res = tooldef.Errorf("%s failed: %v", name, err)
		}
		return c.finish(res), nil
	}
}

// finish adds the call's notes to its result, and the requests the
// network policy refused that no result has listed yet (a page's script can
// make them after the call that loaded it returned), so the model knows why
// part of a page is missing or why a click went nowhere.
func (c *call) finish(res tooldef.Result) tooldef.Result {
	blocked := c.ts.blocked.unreported()
	if len(c.notes) == 0 && !c.newTab && len(blocked) == 0 {
		return res
	}
	m := resultMap(res.Value)
	if m == nil {
		return res
	}
	if len(blocked) > 0 {
		m["blocked_requests"] = blockedSummary(blocked)
	}
	if c.newTab {
		m["new_tab"] = true
	}
	notes := c.notes
	if prev, ok := m["note"].(string); ok && prev != "" {
		notes = append([]string{prev}, notes...)
	}
	if len(notes) > 0 {
		m["note"] = strings.Join(notes, " ")
	}
	res.Value = m
	return res
}

// resultMap returns a result's value as a map to add keys to, or nil for a
// value that is not a JSON object.
func resultMap(v any) map[string]any {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// url is the current page's address from the browser, which answers while
// the page itself is frozen by a dialog.
func (c *call) url(ctx context.Context) string {
	res, err := chromedp.CallBrowser(c.ts.onBrowser(ctx), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: c.t.id})
	if err != nil || res.TargetInfo == nil {
		return ""
	}
	return shownURL(res.TargetInfo.URL)
}

// shownURL is a page's address as a result may show it: a secret a page
// put in its URL is the page's to keep, not the model's to read (or repeat).
func shownURL(raw string) string { return urlguard.RedactURL(raw) }

// browser returns the running browser, starting it on first use, and a
// new one when the last died on its own (SIGKILL, the OOM killer, a
// crash): what is left of the dead one is released first.
func (s *Session) browser() (*runningBrowser, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errBrowserClosed
	}
	if br := s.br; br != nil && !br.dead() {
		s.mu.Unlock()
		return br, nil
	}
	s.mu.Unlock()
	// One start at a time: the calls that find no browser (or a dead
	// one) together wait for the first of them to start it, rather than
	// each starting one of its own.
	s.startMu.Lock()
	defer s.startMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errBrowserClosed
	}
	old := s.br
	if old != nil && !old.dead() {
		s.mu.Unlock()
		return old, nil
	}
	s.br = nil
	// Close waits for a start under way, so the browser it makes is
	// closed before Close returns, never left to a goroutine nobody waits
	// for.
	s.starting.Add(1)
	s.mu.Unlock()
	defer s.starting.Done()
	if old != nil {
		s.log.Warn("the browser process exited on its own; starting a new one (its tabs and sessions' pages are gone)")
		old.discard()
	}
	br, err := startBrowser(s.set, s.log, &s.blocked)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	closed := s.closed
	if !closed {
		s.br = br
	}
	s.mu.Unlock()
	if closed {
		_ = br.close()
		return nil, errBrowserClosed
	}
	return br, nil
}

// --- snapshots ---

type snapOut struct {
	Snapshot          string `json:"snapshot"`
	Count             int    `json:"count"`
	Total             int    `json:"total"`
	Before            int    `json:"before"`
	After             int    `json:"after"`
	Lines             int    `json:"lines"`
	Offset            int    `json:"offset"`
	Stop              int    `json:"stop"`
	AfterLines        int    `json:"afterLines"`
	AfterBytes        int    `json:"afterBytes"`
	Size              int    `json:"size"`
	WalkCut           bool   `json:"walkCut"`
	CrossOriginFrames int    `json:"crossOriginFrames"`
	Next              int    `json:"next"`
	Error             string `json:"error"`
}

// cut reports whether lines (controls or text) were left out after the
// part shown, so a continuation offset exists.
func (o snapOut) cut() bool { return o.Stop < o.Lines }

// snapOpts are browser_snapshot's arguments.
type snapOpts struct {
	Full     bool   `json:"full"`
	Selector string `json:"selector"`
	MaxChars int    `json:"max_chars"`
	Offset   int    `json:"offset"`
	// bare leaves out the url/title header: for an action's result,
	// which says where the tab is in fields of its own.
	bare bool
}

// noteRoom is the part of max_chars first kept for the notes that say
// what a cut snapshot left out; snapshotResult narrows the outline further
// when the notes turn out longer, so the whole result fits max_chars.
const noteRoom = 400

// place is where the tab is, as results report it.
type place struct {
	URL, Title string
	Navigated  bool   // since the previous result that reported the place
	From       string // the address that result reported
}

// where reads the tab's address and title from the browser (which answers
// while the page is frozen by a dialog) and records them as seen.
func (c *call) where(ctx context.Context) place {
	var p place
	res, err := chromedp.CallBrowser(c.ts.onBrowser(ctx), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: c.t.id})
	if err == nil && res.TargetInfo != nil {
		p.URL, p.Title = shownURL(res.TargetInfo.URL), pageTitle(res.TargetInfo)
	}
	p.Navigated, p.From = c.t.markSeen(p.URL)
	return p
}

// pageTitle is the page's own title. Without one (an error page, a page
// with no <title>) Chromium reports the address, unredacted, which a result
// must not repeat; a secret a page put in its title is not shown either.
func pageTitle(info *target.Info) string {
	t := info.Title
	if t == info.URL || t == strings.TrimPrefix(strings.TrimPrefix(info.URL, "https://"), "http://") {
		return ""
	}
	return redact.String(t)
}

// header is the first lines of every snapshot: where the page is, and that
// it moved since the model last looked.
func (p place) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "url: %s\ntitle: %s\n", p.URL, strconv.Quote(p.Title))
	switch {
	case p.Navigated && p.From != "":
		fmt.Fprintf(&b, "navigated: yes, since the previous result (it showed %s)\n", p.From)
	case p.Navigated:
		b.WriteString("navigated: yes, since the previous result\n")
	}
	return b.String()
}

// addTo puts the place into an action's result.
func (p place) addTo(res map[string]any) {
	res["url"], res["title"] = p.URL, p.Title
	res["navigated"] = p.Navigated
}

// takeSnapshot renders the outline and records the refs it issued, for
// callers that do not show it.
func (c *call) takeSnapshot(ctx context.Context, o snapOpts) (snapOut, error) {
	out, _, err := c.snapshotResult(ctx, o, nil)
	return out, err
}

// snapshotResult renders the outline into a tool result holding extra's
// fields too, and records the refs it issued. The result as encoded for
// the model (JSON wrapper, escapes, header and notes included) fits
// o.MaxChars bytes, unless a single line of the outline alone does not,
// which the result then says.
func (c *call) snapshotResult(ctx context.Context, o snapOpts, extra map[string]any) (snapOut, map[string]any, error) {
	maxChars := o.MaxChars
	if maxChars <= 0 {
		maxChars = DefaultSnapshotChars
		if o.Full {
			maxChars = DefaultFullSnapshotChars
		}
	}
	maxChars = min(maxChars, MaxSnapshotChars)
	head := ""
	if !o.bare {
		head = c.where(ctx).header()
	}
	build := func(out snapOut, text string) (map[string]any, int, error) {
		res := make(map[string]any, len(extra)+4)
		for k, v := range extra {
			res[k] = v
		}
		res["success"], res["snapshot"], res["element_count"] = true, text, out.Count
		if out.cut() {
			res["next_offset"] = out.Stop
		}
		b, err := tooldef.EncodeJSON(res)
		if err != nil {
			return nil, 0, fmt.Errorf("encode the snapshot result: %w", err)
		}
		return res, len(b), nil
	}
	// The wrapper's size with the header as the whole outline and a
	// seven-digit next_offset, so the first pass is usually the last.
	_, wrapper, err := build(snapOut{Stop: 1_000_000, Lines: 2_000_000}, head)
	if err != nil {
		return snapOut{}, nil, err
	}
	budget := maxChars - wrapper - min(noteRoom, maxChars/3)
	for attempt := 0; ; attempt++ {
		out, err := worldCall[snapOut](ctx, c.t, c.ts.refSeq, "snapshot", map[string]any{
			"full": o.Full, "selector": o.Selector, "offset": max(o.Offset, 0), "budget": max(budget, 1),
		})
		if err != nil {
			return out, nil, err
		}
		if out.Next > c.ts.refSeq {
			c.ts.refSeq = out.Next
		}
		if out.Error != "" {
			return out, nil, nil
		}
		text := head + redactFrameURLs(out.Snapshot)
		if notes := snapshotNotes(out, o.Full, maxChars); notes != "" {
			if out.Snapshot != "" {
				text += "\n"
			}
			text += notes
		}
		res, size, err := build(out, text)
		if err != nil {
			return out, nil, err
		}
		// The notes are only known once the outline is; when they do
		// not fit the room kept for them, outline less (refs are stable,
		// so the next pass lists the same elements).
		over := size - maxChars
		if over > 0 && out.Stop-out.Offset > 1 && attempt < 4 {
			budget = min(budget, out.Size) - over
			continue
		}
		if over > 0 {
			// One line shown and still over: it is shown whole, since a
			// continuation that shows nothing would never end.
			text += fmt.Sprintf("\n[over max_chars=%d: one outline line (%d bytes) is shown whole; raise max_chars]", maxChars, out.Size)
			if res, _, err = build(out, text); err != nil {
				return out, nil, err
			}
		}
		out.Snapshot = text
		return out, res, nil
	}
}

// frameURL finds the address page.js shows for a cross-origin iframe.
var frameURL = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\(cross-origin, url: ([^\s)]+)\)`) })

// redactFrameURLs masks secrets in the addresses of cross-origin iframes
// with the rules every URL we show follows: the embedding page chose the
// path, and a path can carry a token as well as a query can.
func redactFrameURLs(outline string) string {
	if !strings.Contains(outline, "(cross-origin, url: ") {
		return outline
	}
	return frameURL().ReplaceAllStringFunc(outline, func(m string) string {
		u := frameURL().FindStringSubmatch(m)[1]
		return "(cross-origin, url: " + strings.ReplaceAll(shownURL(u), ")", "%29") + ")"
	})
}

// snapshotNotes says what the outline out left out and how to get it.
func snapshotNotes(out snapOut, full bool, maxChars int) string {
	var notes []string
	switch {
	case out.Offset > 0 && out.Offset >= out.Lines:
		notes = append(notes, fmt.Sprintf("[offset=%d is past the end: the outline has %d lines. Omit offset to start at the top.]", out.Offset, out.Lines))
	case out.Snapshot == "" && full:
		notes = append(notes, "(the page is empty)")
	case out.Snapshot == "":
		notes = append(notes, "(no interactive elements; call browser_snapshot with full=true to read the page's text)")
	}
	if out.CrossOriginFrames > 0 {
		notes = append(notes, fmt.Sprintf("[%d cross-origin iframe(s) not shown; navigate to the URL its line shows to use it]", out.CrossOriginFrames))
	}
	if out.Offset > 0 && out.Offset < out.Lines {
		notes = append(notes, fmt.Sprintf("[from line %d of %d; %d controls come before it]", out.Offset, out.Lines, out.Before))
	}
	// Kept short: at the smallest max_chars the notes share 500 bytes
	// with the header and the JSON around them.
	if out.cut() {
		// In full mode the page's text comes in document order, so
		// controls after a long text wait for a later page; the outline
		// without text names them all first.
		controlsFirst := ""
		if full && out.After > 0 {
			controlsFirst = ", or omit full to list the controls alone"
		}
		notes = append(notes, fmt.Sprintf("[cut to fit max_chars=%d: %d of the page's %d controls shown (closed shadow roots not counted), %d more controls and %d lines (%d bytes) follow; "+
			"continue with offset=%d (same full and selector), narrow with selector=\"<CSS>\" or raise max_chars%s]",
			maxChars, out.Count, out.Total, out.After, out.AfterLines, out.AfterBytes, out.Stop, controlsFirst))
	}
	if out.WalkCut {
		notes = append(notes, "[the page is too large to outline whole: the outline stops after about 4 MB and the totals above count only that part; use selector to outline one part at a time]")
	}
	return strings.Join(notes, "\n")
}

func (s *Session) snapshot(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[snapOpts](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	if args.Offset < 0 {
		return tooldef.Errorf("offset must be 0 or more (a line number from a cut snapshot's note), not %d", args.Offset), nil
	}
	out, res, err := c.snapshotResult(ctx, args, nil)
	if err != nil {
		return snapshotFailure(err)
	}
	if out.Error != "" {
		return tooldef.Errorf("%s; pass a CSS selector that exists on the page, or omit selector", out.Error), nil
	}
	return tooldef.OK(res), nil
}

func snapshotFailure(err error) (tooldef.Result, error) {
	var je *jsError
	if errors.As(err, &je) {
		return tooldef.Errorf("could not read the page: %s", je.text), nil
	}
	return tooldef.Result{}, err
}

// --- navigation ---

func (s *Session) navigate(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		URL string `json:"url"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	dest := strings.TrimSpace(args.URL)
	if !strings.Contains(dest, "://") && !strings.HasPrefix(dest, "about:") {
		dest = "https://" + dest
	}
	policy := s.set.policy()
	if _, err := urlguard.CheckURL(ctx, dest, policy, net.DefaultResolver); err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	// Keep a quarter of the budget for the snapshot: a page whose load
	// never completes (a hung subresource) still gets described.
	navCtx, cancel := context.WithTimeout(ctx, s.set.callTimeout*3/4)
	var before snap
	for attempt := 0; ; attempt++ {
		before = c.t.state()
		mark := c.t.scriptNavMark()
		err = chromedp.Do(navCtx, chromedp.Navigate(dest))
		aborted := err != nil && strings.Contains(err.Error(), "net::ERR_ABORTED")
		if navCtx.Err() != nil || attempt == maxNavRetries || !(aborted || (err == nil && c.t.raced(mark, before.navSeq))) {
			break
		}
		// The page we left asked for a navigation of its own (a timer
		// setting location.href) that aborted or replaced ours. Let it
		// land, so it cannot land on top of the next try, then go to
		// dest again: the model asked for dest. Only the page we left
		// counts; dest's own redirects stand.
		_ = c.t.waitFor(navCtx, func(s snap) bool { return !s.loading })
		if !aborted && c.landedOn(ctx, dest) {
			break
		}
	}
	cancel()
	warning := ""
	if err != nil {
		if ctx.Err() != nil {
			return tooldef.Result{}, ctx.Err()
		}
		if b, ok := refusalOf(c.ts.blocked.since(c.blockedMark), dest); ok {
			// The page itself was refused (by the proxy or the request
			// guard): say what and why, never what the host answered.
			return tooldef.Errorf("navigation to %s was blocked: %s", safeTarget(dest), b.reason), nil
		}
		if !errors.Is(err, context.DeadlineExceeded) || c.t.state().navSeq == before.navSeq {
			return tooldef.Errorf("navigation to %s failed: %v", dest, cleanNavError(err)), nil
		}
		warning = "the page did not finish loading in time; the snapshot shows what has loaded so far"
	}
	// The browser's record of the tab answers at once; evaluating
	// location.href in a page that just loaded waits behind its work
	// (50-180 ms measured on the 1,000-row table).
	info, err := chromedp.CallBrowser(c.ts.onBrowser(ctx), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: c.t.id})
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("read the tab's address: %w", err)
	}
	loc := info.TargetInfo.URL
	if _, err := urlguard.CheckURL(ctx, loc, policy, nil); err != nil && loc != dest {
		_ = chromedp.Do(ctx, chromedp.Navigate("about:blank"))
		msg := "Blocked: redirect landed on a private/internal address"
		if errors.Is(err, urlguard.ErrMetadata) {
			msg = err.Error()
		}
		return tooldef.Errorf("%s", msg), nil
	}
	title := pageTitle(info.TargetInfo)
	if st, body := c.documentStatus(ctx); st >= 400 {
		// The browser shows an error answer as a page; the model must not
		// take it for the site.
		msg := fmt.Sprintf("navigation to %s failed: the server answered HTTP %d %s", shownURL(loc), st, http.StatusText(st))
		if st == http.StatusBadGateway && strings.HasPrefix(body, "upstream: ") {
			// Our egress proxy could not reach the host: say why.
			msg = fmt.Sprintf("navigation to %s failed: could not reach the host: %s", shownURL(loc), proxyCause(body))
		} else if title != "" && title != info.TargetInfo.URL {
			msg += fmt.Sprintf(" (page title %q; browser_snapshot reads the error page)", title)
		}
		return tooldef.Errorf("%s", msg), nil
	}
	extra := map[string]any{"url": shownURL(loc), "title": title}
	if warning != "" {
		extra["warning"] = warning
	}
	_, res, err := c.snapshotResult(ctx, snapOpts{}, extra)
	if err != nil {
		return snapshotFailure(err)
	}
	return tooldef.OK(res), nil
}

// maxNavRetries bounds how often browser_navigate goes again to its URL
// after the page it left navigated on its own instead.
const maxNavRetries = 3

// landedOn reports whether the tab's address is dest.
func (c *call) landedOn(ctx context.Context, dest string) bool {
	info, err := chromedp.CallBrowser(c.ts.onBrowser(ctx), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: c.t.id})
	return err == nil && info.TargetInfo != nil && strings.TrimSuffix(info.TargetInfo.URL, "/") == strings.TrimSuffix(dest, "/")
}

// documentStatus returns the HTTP status of the tab's document (0 when
// unknown: about:blank, a cached page) and, for a 5xx, the start of its
// text. It reads in our isolated world, so the page cannot fake it by
// replacing performance in its own.
func (c *call) documentStatus(ctx context.Context) (int, string) {
	for range 2 {
		w, _, err := c.t.ensureWorld(ctx, c.ts.refSeq)
		if errors.Is(err, errWorldGone) {
			continue
		}
		if err != nil {
			return 0, ""
		}
		const expr = `(() => { const e = performance.getEntriesByType('navigation')[0];
			const s = e && e.responseStatus || 0;
			return JSON.stringify([s, s >= 500 && document.body ? document.body.innerText.slice(0, 400) : '']); })()`
		res, err := evalIn(ctx, w, expr, true)
		if errors.Is(err, errWorldGone) {
			continue
		}
		if err != nil || res == nil {
			return 0, ""
		}
		var s string
		var out []any
		if json.Unmarshal(res.Value, &s) != nil || json.Unmarshal([]byte(s), &out) != nil || len(out) != 2 {
			return 0, ""
		}
		st, _ := out[0].(float64)
		body, _ := out[1].(string)
		return int(st), strings.TrimSpace(body)
	}
	return 0, ""
}

// proxyCause turns the egress proxy's "upstream: dial tcp …" answer into
// the cause a person would name.
func proxyCause(body string) string {
	body = strings.TrimSpace(strings.TrimPrefix(body, "upstream: "))
	switch {
	case strings.Contains(body, "connection refused"):
		return "connection refused (nothing listens on that port) — " + body
	case strings.Contains(body, "no such host"), strings.Contains(body, "server misbehaving"):
		return "DNS: no such host — " + body
	case strings.Contains(body, "timeout"):
		return "the connection timed out — " + body
	case strings.Contains(body, "certificate"), strings.Contains(body, "tls"):
		return "TLS failed — " + body
	}
	return body
}

// cleanNavError keeps the net::ERR_ text, which says what went wrong.
func cleanNavError(err error) string {
	s := err.Error()
	if i := strings.Index(s, "net::"); i >= 0 {
		return s[i:]
	}
	return s
}

func (s *Session) back(ctx context.Context, c *call, _ json.RawMessage) (tooldef.Result, error) {
	ok, err := c.t.back(ctx)
	if err != nil {
		return tooldef.Result{}, err
	}
	if !ok {
		return tooldef.Errorf("there is no previous page in this tab's history"), nil
	}
	res := map[string]any{"success": true}
	c.reportAction(ctx, res)
	return tooldef.OK(res), nil
}

// --- acting on refs ---

var refRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@?(?:ref=)?(e\d+)$`) })

// parseRef accepts @e5, e5, ref=e5 and [ref=e5].
func parseRef(s string) (string, int, bool) {
	s = strings.Trim(strings.TrimSpace(s), "[]")
	m := refRE().FindStringSubmatch(s)
	if m == nil {
		return "", 0, false
	}
	n, err := strconv.Atoi(m[1][1:])
	return m[1], n, err == nil
}

// element resolves a ref argument, or returns the failure to show.
func (c *call) element(ctx context.Context, raw string) (*runtime.RemoteObject, string, *tooldef.Result, error) {
	ref, n, ok := parseRef(raw)
	if !ok {
		r := tooldef.Errorf("invalid ref %q: pass a ref from the latest snapshot, like @e5", raw)
		return nil, "", &r, nil
	}
	obj, err := c.t.resolveRef(ctx, ref)
	if err == nil {
		return obj, ref, nil, nil
	}
	switch {
	case n >= c.ts.refSeq:
		r := tooldef.Errorf("unknown ref @%s: no snapshot listed it. Take a snapshot (browser_snapshot) and use its refs.", ref)
		return nil, ref, &r, nil
	case errors.Is(err, errStale), errors.Is(err, errUnknown):
		r := tooldef.Errorf("stale ref @%s, take a new snapshot: the element is gone or the page changed since the snapshot that listed it (refs also stay with the tab whose snapshot listed them). Call browser_snapshot and use the new refs.", ref)
		return nil, ref, &r, nil
	}
	return nil, ref, nil, err
}

func staleResult(ref string) tooldef.Result {
	return tooldef.Errorf("stale ref @%s, take a new snapshot: the element was removed or lost its layout. Call browser_snapshot and use the new refs.", ref)
}

func (s *Session) click(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Ref string `json:"ref"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	obj, ref, fail, err := c.element(ctx, args.Ref)
	if fail != nil || err != nil {
		return deref(fail), err
	}
	// A click the element cannot receive would report success while the
	// page's handler never ran: say why instead.
	blocked, err := callOn[string](ctx, obj, `function() { return globalThis.__hermes.clickBlock(this); }`)
	if err != nil {
		if errors.Is(err, errStale) || isNodeGone(err) {
			return staleResult(ref), nil
		}
		return tooldef.Result{}, err
	}
	if blocked != "" {
		return tooldef.Errorf("@%s cannot be clicked: it is %s. Take a new snapshot (browser_snapshot) to see what can be operated now.", ref, blocked), nil
	}
	x, y, err := clickPoint(ctx, obj)
	if err != nil {
		if isNodeGone(err) {
			return staleResult(ref), nil
		}
		if strings.Contains(err.Error(), "no visible box") {
			return tooldef.Errorf("@%s cannot be clicked: %v. Take a new snapshot; the element may be collapsed or covered.", ref, err), nil
		}
		return tooldef.Result{}, err
	}
	covered, err := callOn[string](ctx, obj, `function(x, y) { return globalThis.__hermes.hitCheck(this, x, y); }`, x, y)
	if err != nil {
		if errors.Is(err, errStale) {
			return staleResult(ref), nil
		}
		return tooldef.Result{}, err
	}
	if covered != "" {
		return tooldef.Errorf("@%s is covered by %s at its centre, so a click would hit that instead. Close or dismiss it (it may be a dialog or cookie banner in the snapshot), or scroll, then try again.", ref, covered), nil
	}
	before := c.t.state()
	if err := mouseClick(ctx, x, y); err != nil {
		return tooldef.Result{}, err
	}
	res := map[string]any{"success": true, "clicked": "@" + ref}
	c.afterAction(ctx, before, res)
	return tooldef.OK(res), nil
}

// afterAction waits for a navigation the action started and follows a new
// tab the page opened, noting both in res.
func (c *call) afterAction(ctx context.Context, before snap, res map[string]any) {
	if c.t.settle(ctx, before) {
		c.follow(ctx)
	}
	c.where(ctx).addTo(res)
	c.addChanges(ctx, res)
}

// reportAction is afterAction for an action that starts no navigation of
// its own (typing, scrolling).
func (c *call) reportAction(ctx context.Context, res map[string]any) {
	c.where(ctx).addTo(res)
	c.addChanges(ctx, res)
}

func deref(r *tooldef.Result) tooldef.Result {
	if r == nil {
		return tooldef.Result{}
	}
	return *r
}

func (s *Session) typeText(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Ref    string `json:"ref"`
		Text   string `json:"text"`
		Submit bool   `json:"submit"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	obj, ref, fail, err := c.element(ctx, args.Ref)
	if fail != nil || err != nil {
		return deref(fail), err
	}
	kind, err := callOn[string](ctx, obj, `function() { return globalThis.__hermes.prepareType(this); }`)
	if err != nil {
		if errors.Is(err, errStale) {
			return staleResult(ref), nil
		}
		return tooldef.Result{}, err
	}
	switch {
	case kind == "select":
		msg, err := callOn[string](ctx, obj, `function(t) { return globalThis.__hermes.selectOption(this, t); }`, args.Text)
		if err != nil {
			return tooldef.Result{}, err
		}
		if msg != "" {
			return tooldef.Errorf("@%s: %s", ref, msg), nil
		}
	case kind == "disabled" || kind == "readonly":
		return tooldef.Errorf("@%s is %s and cannot be typed into", ref, kind), nil
	case strings.HasPrefix(kind, "notext:"):
		return tooldef.Errorf("@%s is a %s, not a text field: use browser_click for it, or type into a textbox/searchbox/combobox ref", ref, strings.TrimPrefix(kind, "notext:")), nil
	case args.Text == "":
		if _, err := callOn[any](ctx, obj, `function() { globalThis.__hermes.clearField(this); }`); err != nil {
			return tooldef.Result{}, err
		}
	default:
		// Input.insertText replaces the selection prepareType made, the
		// way a paste does: one input event, trusted, fast.
		if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			return t.Call(ctx, "Input.insertText", map[string]any{"text": args.Text}, nil)
		})); err != nil {
			return tooldef.Result{}, err
		}
	}
	res := map[string]any{"success": true, "typed": args.Text, "element": "@" + ref}
	if args.Submit {
		before := c.t.state()
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
			return tooldef.Result{}, err
		}
		res["submitted"] = true
		c.afterAction(ctx, before, res)
	} else {
		c.reportAction(ctx, res)
	}
	return tooldef.OK(res), nil
}

// keyNames maps the key names models use to chromedp's key codes.
var keyNames = map[string]string{
	"enter": kb.Enter, "return": kb.Enter, "tab": kb.Tab, "escape": kb.Escape, "esc": kb.Escape,
	"backspace": kb.Backspace, "delete": kb.Delete, "del": kb.Delete, "space": " ", "spacebar": " ",
	"arrowup": kb.ArrowUp, "arrowdown": kb.ArrowDown, "arrowleft": kb.ArrowLeft, "arrowright": kb.ArrowRight,
	"up": kb.ArrowUp, "down": kb.ArrowDown, "left": kb.ArrowLeft, "right": kb.ArrowRight,
	"home": kb.Home, "end": kb.End, "pageup": kb.PageUp, "pagedown": kb.PageDown, "insert": kb.Insert,
	"f1": kb.F1, "f2": kb.F2, "f3": kb.F3, "f4": kb.F4, "f5": kb.F5, "f6": kb.F6,
	"f7": kb.F7, "f8": kb.F8, "f9": kb.F9, "f10": kb.F10, "f11": kb.F11, "f12": kb.F12,
}

var modifierNames = map[string]chromedp.Modifier{
	"control": chromedp.ModifierCtrl, "ctrl": chromedp.ModifierCtrl, "shift": chromedp.ModifierShift,
	"alt": chromedp.ModifierAlt, "option": chromedp.ModifierAlt, "meta": chromedp.ModifierMeta,
	"cmd": chromedp.ModifierMeta, "command": chromedp.ModifierMeta,
}

// parseKey turns "Enter", "a" or "Control+a" into a key and modifiers.
func parseKey(s string) (string, []chromedp.Modifier, error) {
	parts := strings.Split(s, "+")
	if len(parts) > 1 && parts[len(parts)-1] == "" { // "Control++"
		parts = append(parts[:len(parts)-2], "+")
	}
	var mods []chromedp.Modifier
	for _, p := range parts[:len(parts)-1] {
		m, ok := modifierNames[strings.ToLower(strings.TrimSpace(p))]
		if !ok {
			return "", nil, fmt.Errorf("unknown modifier %q (use Control, Shift, Alt or Meta)", p)
		}
		mods = append(mods, m)
	}
	key := parts[len(parts)-1]
	if k, ok := keyNames[strings.ToLower(key)]; ok {
		return k, mods, nil
	}
	if len([]rune(key)) == 1 {
		return key, mods, nil
	}
	names := make([]string, 0, len(keyNames))
	for n := range keyNames {
		names = append(names, n)
	}
	slices.Sort(names)
	return "", nil, fmt.Errorf("unknown key %q: use a single character or one of %s", key, strings.Join(names, ", "))
}

func (s *Session) press(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Key string `json:"key"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	key, mods, err := parseKey(args.Key)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	before := c.t.state()
	if err := chromedp.Do(ctx, chromedp.KeyEvent(key, chromedp.KeyModifiers(mods...))); err != nil {
		return tooldef.Result{}, err
	}
	res := map[string]any{"success": true, "pressed": args.Key}
	c.afterAction(ctx, before, res)
	return tooldef.OK(res), nil
}

func (s *Session) scroll(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Direction string `json:"direction"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	dir := strings.ToLower(strings.TrimSpace(args.Direction))
	if dir != "up" && dir != "down" {
		return tooldef.Errorf("Invalid direction '%s'. Use 'up' or 'down'.", args.Direction), nil
	}
	pos, err := worldCall[struct {
		Moved bool `json:"moved"`
		Y     int  `json:"y"`
		Max   int  `json:"max"`
	}](ctx, c.t, c.ts.refSeq, "scroll", dir)
	if err != nil {
		return snapshotFailure(err)
	}
	// Lazy content (images, infinite lists) reacts to the scroll
	// asynchronously; give it a moment, as a reader would.
	_ = chromedp.Do(ctx, chromedp.Sleep(100*time.Millisecond))
	res := map[string]any{"success": true, "scrolled": dir}
	c.reportAction(ctx, res)
	if !pos.Moved {
		res["note"] = "the page did not move: already at the " + map[string]string{"up": "top", "down": "bottom"}[dir]
	}
	return tooldef.OK(res), nil
}

func (s *Session) images(ctx context.Context, c *call, _ json.RawMessage) (tooldef.Result, error) {
	type img struct {
		Src    string `json:"src"`
		Alt    string `json:"alt"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
		Loaded bool   `json:"loaded"`
	}
	imgs, err := worldCall[[]img](ctx, c.t, c.ts.refSeq, "images")
	if err != nil {
		return snapshotFailure(err)
	}
	if imgs == nil {
		imgs = []img{}
	}
	return tooldef.OK(map[string]any{"success": true, "images": imgs, "count": len(imgs)}), nil
}

// maxEvalResult bounds an evaluated expression's JSON.
const maxEvalResult = 50000

func (s *Session) console(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Clear      bool   `json:"clear"`
		Expression string `json:"expression"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	if strings.TrimSpace(args.Expression) != "" {
		return c.evaluate(ctx, args.Expression)
	}
	entries, dropped := c.t.console.read(args.Clear)
	type msg struct {
		Type   string `json:"type"`
		Text   string `json:"text"`
		Source string `json:"source"`
	}
	type jsErr struct {
		Message string `json:"message"`
		Source  string `json:"source"`
	}
	msgs, errs := []msg{}, []jsErr{}
	for _, e := range entries {
		if e.Exception {
			errs = append(errs, jsErr{Message: e.Text, Source: "exception"})
		} else {
			msgs = append(msgs, msg{Type: e.Type, Text: e.Text, Source: "console"})
		}
	}
	res := map[string]any{
		"success": true, "console_messages": msgs, "js_errors": errs,
		"total_messages": len(msgs), "total_errors": len(errs),
	}
	if dropped > 0 {
		res["note"] = fmt.Sprintf("%d older messages were dropped (the buffer keeps the newest %d)", dropped, consoleCap)
	}
	return tooldef.OK(res), nil
}

// evaluate runs expression in the page's own world (so page globals are
// visible), awaiting promises, with a script timeout inside the call's.
func (c *call) evaluate(ctx context.Context, expr string) (tooldef.Result, error) {
	p := runtime.EvaluateParams{
		Expression:    expr,
		ReturnByValue: new(true),
		AwaitPromise:  new(true),
		UserGesture:   new(true),
	}
	if dl, ok := ctx.Deadline(); ok {
		if ms := time.Until(dl).Milliseconds() - 500; ms > 0 {
			p.Timeout = runtime.TimeDelta(ms)
		}
	}
	res, err := chromedp.Call(ctx, runtime.Evaluate, p)
	if err != nil {
		return tooldef.Result{}, err
	}
	if res.ExceptionDetails != nil {
		return tooldef.Errorf("the expression threw: %s", exceptionText(res.ExceptionDetails)), nil
	}
	r := res.Result
	var value any
	switch {
	case len(r.Value) > maxEvalResult:
		return tooldef.OK(map[string]any{"success": true, "result": string(r.Value[:maxEvalResult]) + "…", "result_type": "str",
			"note": fmt.Sprintf("the result was %d bytes of JSON and was cut to %d; return a smaller value", len(r.Value), maxEvalResult)}), nil
	case len(r.Value) > 0:
		if err := json.Unmarshal(r.Value, &value); err != nil {
			value = string(r.Value)
		}
	case r.UnserializableValue != "":
		value = string(r.UnserializableValue) // NaN, Infinity, 1n
	case r.Type != "undefined" && r.Subtype != "null":
		value = r.Description // functions, symbols
	}
	// result_type is the Python type name the original reports.
	typ := "NoneType"
	switch v := value.(type) {
	case string:
		typ = "str"
	case bool:
		typ = "bool"
	case []any:
		typ = "list"
	case map[string]any:
		typ = "dict"
	case float64:
		typ = "float"
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			typ, value = "int", int64(v)
		}
	}
	return tooldef.OK(map[string]any{"success": true, "result": value, "result_type": typ}), nil
}

// --- vision ---

func (s *Session) vision(ctx context.Context, c *call, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[struct {
		Question string `json:"question"`
		Annotate bool   `json:"annotate"`
	}](raw)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	if s.opts.Vision == nil {
		return tooldef.Errorf("%v", s.checkVision()), nil
	}
	var annotations any
	if args.Annotate {
		has, _ := worldCall[bool](ctx, c.t, c.ts.refSeq, "hasRefs")
		if !has {
			if _, err := c.takeSnapshot(ctx, snapOpts{MaxChars: MaxSnapshotChars}); err != nil {
				return snapshotFailure(err)
			}
		}
		ann, err := worldCall[json.RawMessage](ctx, c.t, c.ts.refSeq, "annotate")
		if err != nil {
			return snapshotFailure(err)
		}
		annotations = ann
	}
	png, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if args.Annotate {
		_, _ = worldCall[any](ctx, c.t, c.ts.refSeq, "removeAnnotations")
	}
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("take the screenshot: %w", err)
	}
	img := []tooldef.Image{{MIMEType: "image/png", Data: png.Data}}
	path, saveErr := s.saveScreenshot(png.Data)
	question := args.Question
	if args.Annotate {
		question += "\n\nThe screenshot has numbered red labels [N] on interactive elements; [N] is the element with ref @eN."
	}
	analysis, verr := s.opts.Vision(ctx, png.Data, question)
	res := map[string]any{}
	if path != "" {
		res["screenshot_path"] = path
	} else if saveErr != nil {
		res["screenshot_note"] = saveErr.Error()
	}
	if annotations != nil {
		res["annotations"] = annotations
	}
	if verr != nil {
		res["success"] = false
		res["error"] = fmt.Sprintf("vision analysis failed: %v", verr)
		res["note"] = "the screenshot is attached to this result; look at it directly, or use browser_snapshot"
		return tooldef.Result{Value: res, IsError: true, Images: img}, nil
	}
	res["success"] = true
	res["analysis"] = redact.String(analysis)
	return tooldef.Result{Value: res, Images: img}, nil
}

// keepScreenshots is how many screenshots stay in the directory.
const keepScreenshots = 20

// saveScreenshot writes the PNG where the user can open it, keeping only
// the newest few.
func (s *Session) saveScreenshot(data []byte) (string, error) {
	dir := s.set.shotDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("screenshot not saved: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("browser_screenshot_%d.png", time.Now().UnixNano()))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", fmt.Errorf("screenshot not saved: %w", err)
	}
	old, _ := filepath.Glob(filepath.Join(dir, "browser_screenshot_*.png"))
	slices.Sort(old) // the timestamp sorts by age
	for len(old) > keepScreenshots {
		_ = os.Remove(old[0])
		old = old[1:]
	}
	return path, nil
}
