package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// urlsOf are the tabs' URLs from browser_tabs, in order.
func urlsOf(d *driver) []string {
	d.t.Helper()
	list, _ := tabs(d)
	var out []string
	for _, tb := range list {
		out = append(out, tb["url"].(string))
	}
	return out
}

// contextPages are the page URLs of each browser context besides the
// default one, sorted, for comparing without knowing the contexts' ids.
func contextPages(t *testing.T, s *browser.Session) (def []string, others [][]string) {
	return contextPagesTB(t, s)
}

func contextPagesTB(t testing.TB, s *browser.Session) (def []string, others [][]string) {
	t.Helper()
	pages, contexts, err := browser.BrowserPages(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range contexts {
		others = append(others, pages[id])
	}
	slices.SortFunc(others, func(a, b []string) int { return len(a) - len(b) })
	return pages[""], others
}

// TestSessionsAreIsolated: MCP sessions on one browser each drive tabs of
// their own in a browser context of their own: one sees none of another's
// tabs, cookies or storage, a page's popup stays in its session, and
// closing a session's state closes its pages and disposes of its context
// while the others keep working.
func TestSessionsAreIsolated(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 20 * time.Second})
	var states []*sessionstate.State
	for _, id := range []string{"first", "second", "third"} {
		st := sessionstate.New(id)
		t.Cleanup(func() { _ = st.Close() })
		states = append(states, st)
	}
	first, second, third := d.in(states[0]), d.in(states[1]), d.in(states[2])

	first.ok("browser_navigate", map[string]any{"url": base + "/login.html"})
	second.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	opener := third.ok("browser_navigate", map[string]any{"url": base + "/tabs-opener.html"})["snapshot"].(string)
	clicked := third.ok("browser_click", map[string]any{"ref": ref(t, opener, "Open in a new tab")})
	if clicked["new_tab"] != true {
		t.Fatalf("the popup in the third session was not announced: %v", clicked)
	}

	for _, tc := range []struct {
		name string
		d    *driver
		want []string
	}{
		{"first", first, []string{base + "/login.html"}},
		{"second", second, []string{base + "/welcome.html"}},
		{"third", third, []string{base + "/tabs-opener.html", base + "/tabs-target.html"}},
	} {
		if got := urlsOf(tc.d); !slices.Equal(got, tc.want) {
			t.Errorf("%s session's tabs = %v, want %v", tc.name, got, tc.want)
		}
	}

	// What one session stores on an origin, the others do not see there,
	// neither the pages nor the site's server.
	if got := eval(second, `document.cookie = "who=second; path=/"; localStorage.setItem("who", "second"); document.cookie`); got != "who=second" {
		t.Fatalf("cookie in the second session = %v", got)
	}
	for _, tc := range []struct {
		name string
		d    *driver
		want string
	}{
		{"first", first, "cookies:"},
		{"second", second, "cookies: who=second"},
		{"third", third, "cookies:"},
	} {
		if got := eval(tc.d, `document.cookie + "|" + localStorage.getItem("who")`); tc.name != "second" && got != "|null" {
			t.Errorf("%s session sees cookie|storage %v of another session", tc.name, got)
		}
		tc.d.ok("browser_navigate", map[string]any{"url": base + "/cookies"})
		if got := eval(tc.d, "document.title"); got != tc.want {
			t.Errorf("%s session: the server saw %q, want %q", tc.name, got, tc.want)
		}
	}

	def, others := contextPages(t, d.s)
	if len(def) != 1 || len(others) != 2 || len(others[0]) != 1 || len(others[1]) != 2 {
		t.Fatalf("pages: default context %v, others %v; want 1 page in the default context (the first session), 1 and 2 in two more", def, others)
	}

	if err := states[1].Close(); err != nil {
		t.Fatal(err)
	}
	def, others = contextPages(t, d.s)
	if len(def) != 1 || len(others) != 1 || len(others[0]) != 2 {
		t.Errorf("after the second session closed: default context %v, others %v; want its context and page gone", def, others)
	}
	if msg := second.fail("browser_snapshot", nil); !strings.Contains(msg, "session has ended") {
		t.Errorf("a call of the closed session: %q", msg)
	}
	// The others keep working, popups included.
	third.ok("browser_tabs", map[string]any{"action": "select", "index": 1})
	if got := urlsOf(third); len(got) != 2 {
		t.Errorf("third session's tabs after the second closed: %v", got)
	}
	snap := third.ok("browser_navigate", map[string]any{"url": base + "/tabs-opener.html"})["snapshot"].(string)
	third.ok("browser_click", map[string]any{"ref": ref(t, snap, "Open in a new tab")})
	if got := urlsOf(third); len(got) != 3 {
		t.Errorf("third session's tabs after another popup: %v", got)
	}
	first.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})

	// The first session drives the default context; closing it leaves
	// the browser's own first tab, emptied.
	if err := states[0].Close(); err != nil {
		t.Fatal(err)
	}
	def, others = contextPages(t, d.s)
	// Chromium reports a page navigated to about:blank with no URL.
	if len(def) != 1 || def[0] != "" && def[0] != "about:blank" || len(others) != 1 || len(others[0]) != 3 {
		t.Errorf("after the first session closed: default context %v, others %v; want only about:blank in the default context", def, others)
	}
	if got := urlsOf(third); len(got) != 3 {
		t.Errorf("third session's tabs after the first closed: %v", got)
	}
}

// TestSessionContextKeepsTheNetworkPolicy: a session's browser context
// goes through an egress proxy as the default context does, so a page in
// it is refused the cloud metadata service; HTTPS is read by that proxy
// with the key the browser accepts; and what it refuses is reported to
// that session alone.
func TestSessionContextKeepsTheNetworkPolicy(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	st1, st2 := sessionstate.New("first"), sessionstate.New("second")
	t.Cleanup(func() { _ = st1.Close(); _ = st2.Close() })
	first, second := d.in(st1), d.in(st2)
	first.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})

	res := second.ok("browser_navigate", map[string]any{"url": base + "/metadata-img.html"})
	if b := fmt.Sprint(res["blocked_requests"]); !strings.Contains(b, "169.254.169.254") {
		t.Fatalf("the metadata image in a second session's page was not refused by the egress proxy: %v", res)
	}
	if msg := second.fail("browser_navigate", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}); !strings.Contains(msg, "metadata") {
		t.Errorf("navigating the second session to the metadata service: %q", msg)
	}

	// A request the second session's page makes after its call returned
	// is reported in its next result, never in the first session's.
	eval(second, `setTimeout(() => { new Image().src = "http://169.254.169.254/late.png" }, 100); 1`)
	time.Sleep(time.Second)
	if res := first.ok("browser_snapshot", nil); res["blocked_requests"] != nil {
		t.Errorf("the first session was told of the second's refused request: %v", res["blocked_requests"])
	}
	if res := second.ok("browser_snapshot", nil); !strings.Contains(fmt.Sprint(res["blocked_requests"]), "late.png") {
		t.Errorf("the second session was not told of its page's refused request: %v", res)
	}

	// The session's proxy reads HTTPS with the browser's accepted key: the
	// browser takes its certificate, and the proxy itself refuses a host
	// whose own certificate does not verify.
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	msg := second.fail("browser_navigate", map[string]any{"url": tlsSrv.URL + "/"})
	if !strings.Contains(msg, "blocked") || !strings.Contains(msg, "certificate") {
		t.Errorf("HTTPS to a host with an unverifiable certificate, from the second session: %q; want the proxy's refusal", msg)
	}
}

// TestSessionsRunInParallel: sessions' calls run at once (each session's
// own are serialised) and never act on another session's tab.
func TestSessionsRunInParallel(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 30 * time.Second})
	pages := []string{"/login.html", "/welcome.html", "/tabs-opener.html"}
	var wg sync.WaitGroup
	for i, p := range pages {
		st := sessionstate.New(p)
		t.Cleanup(func() { _ = st.Close() })
		s := d.in(st)
		wg.Go(func() {
			for range 4 {
				if m, isErr := s.call("browser_navigate", map[string]any{"url": base + p + "?" + fmt.Sprint(i)}); isErr || m["url"] != base+p+"?"+fmt.Sprint(i) {
					t.Errorf("session %s: navigate = %v", p, m)
					return
				}
				if m, isErr := s.call("browser_snapshot", nil); isErr || !strings.Contains(fmt.Sprint(m["snapshot"]), base+p) {
					t.Errorf("session %s: snapshot of another page: %v", p, m)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkSessionContext is what a new MCP session costs on a running
// browser: its context, proxy and first tab made by its first call (a
// navigation to a local page), then released when the session ends.
//
//	go test -run '^$' -bench SessionContext ./toolsets/browser
func BenchmarkSessionContext(b *testing.B) {
	base := site(b)
	d := newDriver(b, browser.Options{})
	first := sessionstate.New("first")
	defer first.Close()
	d.in(first).ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	b.ResetTimer()
	for i := range b.N {
		st := sessionstate.New(fmt.Sprint(i))
		d.in(st).ok("browser_navigate", map[string]any{"url": base + "/login.html"})
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if _, others := contextPagesTB(b, d.s); len(others) != 0 {
		b.Errorf("%d session contexts left after their sessions closed", len(others))
	}
}
