package browser_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// tabs returns browser_tabs list's tabs and the current index.
func tabs(d *driver) ([]map[string]any, int) {
	d.t.Helper()
	r := d.ok("browser_tabs", map[string]any{"action": "list"})
	var out []map[string]any
	for _, t := range r["tabs"].([]any) {
		out = append(out, t.(map[string]any))
	}
	cur, _ := r["current"].(float64)
	return out, int(cur)
}

func note(m map[string]any) string {
	s, _ := m["note"].(string)
	return s
}

// TestNewTabFromLink: a target=_blank click makes the new tab current and
// says so; the tab is driven with refs of its own snapshot; browser_tabs
// lists, selects and closes, and closing the last tab leaves a blank page.
func TestNewTabFromLink(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 20 * time.Second})
	opener := d.ok("browser_navigate", map[string]any{"url": base + "/tabs-opener.html"})["snapshot"].(string)

	clicked := d.ok("browser_click", map[string]any{"ref": ref(t, opener, "Open in a new tab")})
	n := note(clicked)
	if !strings.Contains(n, "Opened a new tab (2 of 2): "+base+"/tabs-target.html — New tab; it is now the current page. Use browser_tabs to go back.") {
		t.Fatalf("click result does not announce the new tab: %v", clicked)
	}
	if clicked["new_tab"] != true || !strings.HasSuffix(clicked["url"].(string), "/tabs-target.html") {
		t.Errorf("click result: %v", clicked)
	}
	snap := d.ok("browser_snapshot", nil)["snapshot"].(string)
	if !strings.Contains(snap, `heading "Arrived in the new tab"`) {
		t.Fatalf("snapshot of the new tab:\n%s", snap)
	}
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Press me")})
	waitTitle(d, "clicked in the new tab")
	// Refs stay with their page: the opener's are not the new tab's.
	if msg := d.fail("browser_click", map[string]any{"ref": ref(t, opener, "Open a window")}); !strings.Contains(msg, "stale ref") {
		t.Errorf("a ref of the other tab: %q", msg)
	}

	list, cur := tabs(d)
	if len(list) != 2 || cur != 2 || list[0]["title"] != "Opener" || list[1]["current"] != true || !strings.HasSuffix(list[1]["url"].(string), "/tabs-target.html") {
		t.Fatalf("tabs = %v (current %d)", list, cur)
	}

	sel := d.ok("browser_tabs", map[string]any{"action": "select", "index": 1})
	if sel["current"].(float64) != 1 || !strings.Contains(note(sel), "Tab 1 of 2 is now the current page") {
		t.Errorf("select: %v", sel)
	}
	if got := eval(d, "document.title"); got != "Opener" {
		t.Errorf("after select 1 the page is %v", got)
	}
	// The opener's refs work again once it is current.
	if !strings.Contains(d.ok("browser_snapshot", nil)["snapshot"].(string), `heading "Opener"`) {
		t.Errorf("snapshot after select 1 is not the opener's")
	}

	for _, bad := range []map[string]any{
		{"action": "select", "index": 3},
		{"action": "select"},
		{"action": "close", "index": 0},
		{"action": "jump"},
	} {
		d.fail("browser_tabs", bad)
	}

	d.ok("browser_tabs", map[string]any{"action": "select", "index": 2})
	closed := d.ok("browser_tabs", map[string]any{"action": "close", "index": 2})
	if closed["current"].(float64) != 1 || len(closed["tabs"].([]any)) != 1 || !strings.Contains(note(closed), "Tab 1 of 1 is now the current page") {
		t.Fatalf("closing the current tab: %v", closed)
	}
	if got := eval(d, "document.title"); got != "Opener" {
		t.Errorf("after closing tab 2 the page is %v", got)
	}
	last := d.ok("browser_tabs", map[string]any{"action": "close", "index": 1})
	if list := last["tabs"].([]any); len(list) != 1 || list[0].(map[string]any)["url"] != "about:blank" {
		t.Fatalf("closing the last tab should leave a blank page: %v", last)
	}
	if nav := d.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"}); nav["title"] != "Dashboard" {
		t.Errorf("navigate after closing every tab: %v", nav)
	}
}

// TestWindowOpen: window.open from a click handler, from a timer after the
// call returned, and from an evaluated expression each make the new page
// current, and a tab that closes itself gives way to its opener.
func TestWindowOpen(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 20 * time.Second})
	opener := d.ok("browser_navigate", map[string]any{"url": base + "/tabs-opener.html"})["snapshot"].(string)

	r := d.ok("browser_click", map[string]any{"ref": ref(t, opener, "Open a window")})
	if !strings.Contains(note(r), "Opened a new tab (2 of 2): "+base+"/tabs-target.html?window") {
		t.Fatalf("window.open from a click: %v", r)
	}
	snap := d.ok("browser_snapshot", nil)["snapshot"].(string)
	closing := d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Close this tab")})
	if n := note(closing); !strings.Contains(n, "The current tab closed; tab 1 of 1 is now the current page") {
		// The close can land after the click returned; the next call
		// reports it then.
		if n = note(d.ok("browser_snapshot", nil)); !strings.Contains(n, "The current tab closed; tab 1 of 1 is now the current page") {
			t.Fatalf("a tab that closed itself: %v / %q", closing, n)
		}
	}
	if got := eval(d, "document.title"); got != "Opener" {
		t.Fatalf("after the tab closed itself the page is %v", got)
	}

	opener = d.ok("browser_snapshot", nil)["snapshot"].(string)
	r = d.ok("browser_click", map[string]any{"ref": ref(t, opener, "Open later")})
	if r["new_tab"] != nil {
		t.Fatalf("the tab opens 300 ms after the click; the click result already has it: %v", r)
	}
	time.Sleep(800 * time.Millisecond)
	later := d.ok("browser_snapshot", nil)
	if !strings.Contains(note(later), "Opened a new tab (2 of 2): "+base+"/tabs-target.html?later") || !strings.Contains(later["snapshot"].(string), "Arrived in the new tab") {
		t.Fatalf("a tab a timer opened, on the next call: %v", later)
	}

	expr := d.ok("browser_console", map[string]any{"expression": "window.open('tabs-target.html?expr') !== null"})
	if expr["result"] != true || !strings.Contains(note(expr), "Opened a new tab (3 of 3): "+base+"/tabs-target.html?expr") {
		t.Fatalf("window.open from an expression: %v", expr)
	}
	if list, cur := tabs(d); len(list) != 3 || cur != 3 {
		t.Errorf("tabs = %v (current %d)", list, cur)
	}
}

// TestDialogs: alert, confirm and prompt opened by a click end the click at
// once with the dialog in its result; later calls report it; browser_dialog
// answers it.
func TestDialogs(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 20 * time.Second})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/dialogs.html"})["snapshot"].(string)
	out := func() any { return eval(d, "document.getElementById('out').textContent") }

	start := time.Now()
	r := d.ok("browser_click", map[string]any{"ref": ref(t, snap, `button "Alert"`)})
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a click that opened an alert took %s", el)
	}
	if dl, _ := r["dialog"].(map[string]any); dl["type"] != "alert" || dl["message"] != "Hello from alert" ||
		!strings.Contains(note(r), "An alert dialog is open: 'Hello from alert'. Use browser_dialog to accept or dismiss it.") {
		t.Fatalf("click result does not report the alert: %v", r)
	}
	for _, tool := range []string{"browser_snapshot", "browser_navigate"} {
		start := time.Now()
		if msg := d.fail(tool, map[string]any{"url": base + "/welcome.html"}); !strings.Contains(msg, "An alert dialog is open: 'Hello from alert'") {
			t.Errorf("%s while the alert is open: %q", tool, msg)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("%s while the alert is open took %s", tool, el)
		}
	}
	if list, _ := tabs(d); list[0]["dialog"] == nil {
		t.Errorf("browser_tabs does not show the open dialog: %v", list)
	}
	if r := d.ok("browser_dialog", map[string]any{"accept": true}); r["accepted"] != true {
		t.Errorf("accept: %v", r)
	}
	waitTitle(d, "after alert")
	if msg := d.fail("browser_dialog", map[string]any{"accept": true}); !strings.Contains(msg, "no dialog is open") {
		t.Errorf("browser_dialog without a dialog: %q", msg)
	}

	for _, tc := range []struct {
		button string
		answer map[string]any
		want   string
	}{
		{`button "Confirm"`, map[string]any{"accept": false}, "cancelled"},
		{`button "Confirm"`, map[string]any{"accept": true}, "confirmed"},
		{`button "Prompt"`, map[string]any{"accept": true, "prompt_text": "Ada"}, "name=Ada"},
		{`button "Prompt"`, map[string]any{"accept": true}, "name=guest"},
		{`button "Prompt"`, map[string]any{"accept": false}, "name=null"},
	} {
		r := d.ok("browser_click", map[string]any{"ref": ref(t, snap, tc.button)})
		dl, _ := r["dialog"].(map[string]any)
		if dl == nil {
			t.Fatalf("%s opened no dialog: %v", tc.button, r)
		}
		if dl["type"] == "confirm" && !strings.Contains(note(r), "A confirm dialog is open: 'Delete everything?'") {
			t.Errorf("confirm note: %q", note(r))
		}
		if dl["type"] == "confirm" {
			if msg := d.fail("browser_dialog", map[string]any{"accept": true, "prompt_text": "x"}); !strings.Contains(msg, "only for prompt") {
				t.Errorf("prompt_text on a confirm: %q", msg)
			}
		}
		d.ok("browser_dialog", tc.answer)
		if got := out(); got != tc.want {
			t.Errorf("%s answered %v: out = %v, want %s", tc.button, tc.answer, got, tc.want)
		}
	}

	// What the page does after the answer lands in browser_dialog's result.
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Confirm and go")})
	r = d.ok("browser_dialog", map[string]any{"accept": true})
	if u, _ := r["url"].(string); !strings.HasSuffix(u, "/welcome.html") {
		t.Errorf("accepting a confirm that navigates: %v", r)
	}

	// A dialog from an evaluated expression is reported the same way.
	r = d.ok("browser_console", map[string]any{"expression": "confirm('From script?')"})
	if dl, _ := r["dialog"].(map[string]any); dl["message"] != "From script?" {
		t.Errorf("dialog from an expression: %v", r)
	}
	d.ok("browser_dialog", map[string]any{"accept": false})
	d.ok("browser_snapshot", nil)
}

// TestBeforeUnload: navigating away from a page that asks before leaving
// returns at once with the question; dismissing stays, accepting goes on.
func TestBeforeUnload(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 20 * time.Second})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/leave.html"})["snapshot"].(string)
	// Chrome asks only on a page the user interacted with.
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Draft")})

	start := time.Now()
	r := d.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("navigate held by beforeunload took %s", el)
	}
	if dl, _ := r["dialog"].(map[string]any); dl["type"] != "beforeunload" || !strings.Contains(note(r), "A beforeunload dialog is open") {
		t.Fatalf("navigate away from a page that asks: %v", r)
	}
	// Another navigation while the question is open does not hang.
	start = time.Now()
	if msg := d.fail("browser_navigate", map[string]any{"url": base + "/login.html"}); !strings.Contains(msg, "beforeunload") {
		t.Errorf("navigate during the question: %q", msg)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("navigate during the question took %s", el)
	}
	d.ok("browser_dialog", map[string]any{"accept": false})
	if got := eval(d, "document.title"); got != "Unsaved" {
		t.Fatalf("after staying the page is %v", got)
	}

	d.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	left := d.ok("browser_dialog", map[string]any{"accept": true})
	if u, _ := left["url"].(string); !strings.HasSuffix(u, "/welcome.html") {
		t.Errorf("accepting beforeunload: %v", left)
	}
	if !strings.Contains(d.ok("browser_snapshot", nil)["snapshot"].(string), "Sign out") {
		t.Errorf("the navigation did not go on after leaving was accepted")
	}
}

// TestTimeoutThenNextCallWorks: a call against a page whose script never
// yields times out with a clear message, and the next call works.
func TestTimeoutThenNextCallWorks(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 3 * time.Second})

	snap := d.ok("browser_navigate", map[string]any{"url": base + "/busy.html"})["snapshot"].(string)
	start := time.Now()
	msg := d.fail("browser_click", map[string]any{"ref": ref(t, snap, "Spin forever")})
	if !strings.Contains(msg, "browser_click timed out after 3s") || !strings.Contains(msg, "was stopped") {
		t.Errorf("timed-out click: %q", msg)
	}
	if el := time.Since(start); el > 8*time.Second {
		t.Errorf("the timed-out click took %s", el)
	}
	if nav := d.ok("browser_navigate", map[string]any{"url": base + "/login.html"}); nav["title"] != "Sign in" {
		t.Fatalf("navigate after the timeout: %v", nav)
	}

	// A page that freezes itself while loading.
	r, _ := d.call("browser_navigate", map[string]any{"url": base + "/busy-load.html"})
	t.Logf("navigate to a page that freezes on load: %v", r)
	if nav := d.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"}); nav["title"] != "Dashboard" {
		t.Fatalf("navigate after a frozen page: %v", nav)
	}
	if snap := d.ok("browser_snapshot", nil)["snapshot"].(string); !strings.Contains(snap, "Sign out") {
		t.Errorf("snapshot after recovering:\n%s", snap)
	}
}

// TestPopupAlertOnLoad: a new tab whose page opens an alert while loading
// never wedges the session. Whether it was watched in time to report the
// dialog is a race with the page; either way the session goes on.
func TestPopupAlertOnLoad(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 20 * time.Second})
	opener := d.ok("browser_navigate", map[string]any{"url": base + "/tabs-opener.html"})["snapshot"].(string)
	start := time.Now()
	r := d.ok("browser_click", map[string]any{"ref": ref(t, opener, "Open an alerting tab")})
	if el := time.Since(start); el > 12*time.Second {
		t.Errorf("the click took %s", el)
	}
	t.Logf("click: %v", r)
	switch dl, _ := r["dialog"].(map[string]any); {
	case dl != nil:
		if dl["message"] != "Welcome!" {
			t.Errorf("dialog: %v", dl)
		}
		d.ok("browser_dialog", map[string]any{"accept": true})
		if got := eval(d, "document.title"); got != "Alerting" {
			t.Errorf("after the alert the page is %v", got)
		}
	case strings.Contains(note(r), "does not respond"):
		list, cur := tabs(d)
		if len(list) != 2 || cur != 1 || list[1]["status"] != "not responding" {
			t.Errorf("tabs = %v (current %d)", list, cur)
		}
		d.ok("browser_tabs", map[string]any{"action": "close", "index": 2})
	default:
		t.Fatalf("the alerting tab is neither reported nor flagged: %v", r)
	}
	if nav := d.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"}); nav["title"] != "Dashboard" {
		t.Fatalf("navigate afterwards: %v", nav)
	}
}

// TestNewTabOverStdio is the report that started this: over the real
// server, one click on a target=_blank link wedged the session and every
// later call timed out.
func TestNewTabOverStdio(t *testing.T) {
	needChromium(t)
	base := site(t)
	p := realServer(t, t.TempDir())
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := p.CallTool(name, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", name, err, res.Text())
		}
		return res.Text()
	}
	snap := call("browser_navigate", map[string]any{"url": base + "/tabs-opener.html"})
	var nav struct{ Snapshot string }
	if err := json.Unmarshal([]byte(snap), &nav); err != nil {
		t.Fatalf("navigate result %s: %v", snap, err)
	}
	if out := call("browser_click", map[string]any{"ref": ref(t, nav.Snapshot, "Open in a new tab")}); !strings.Contains(out, "Opened a new tab (2 of 2)") {
		t.Fatalf("click: %s", out)
	}
	for range 3 {
		if out := call("browser_snapshot", nil); !strings.Contains(out, "Arrived in the new tab") {
			t.Fatalf("snapshot after the click: %s", out)
		}
	}
	if out := call("browser_tabs", map[string]any{"action": "select", "index": 1}); !strings.Contains(out, "Opener") {
		t.Fatalf("select: %s", out)
	}
}
