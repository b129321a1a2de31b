//go:build linux

package browser_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// TestCDPHiddenWithoutAttachedBrowser: as in the original, browser_cdp is
// offered only when a CDP URL names a browser to attach to; the Chromium
// hermes-tools launches behind its egress proxy is never exposed to raw
// CDP, and a call made anyway is refused with the setting to use.
func TestCDPHiddenWithoutAttachedBrowser(t *testing.T) {
	found := func(string) (string, error) { return "/usr/bin/chromium", nil }
	s := browser.New(browser.Options{Home: t.TempDir(), Getenv: func(string) string { return "" }, LookPath: found})
	t.Cleanup(func() { _ = s.Close() })
	var checked bool
	for _, tl := range s.Toolset().Tools {
		if tl.Name != browser.ToolCDP {
			continue
		}
		checked = true
		err := tl.Check()
		if err == nil || !strings.Contains(err.Error(), "BROWSER_CDP_URL") || !strings.Contains(err.Error(), "browser.cdp_url") {
			t.Errorf("check without a CDP URL = %v, want a reason naming BROWSER_CDP_URL and browser.cdp_url", err)
		}
		if tl.Hints.ReadOnly || !tl.Hints.Destructive || tl.Hints.Idempotent || !tl.Hints.OpenWorld {
			t.Errorf("hints %+v: a raw command acts on pages (destructive, open-world)", tl.Hints)
		}
	}
	if !checked {
		t.Fatal("the toolset has no browser_cdp")
	}
	env := func(k string) string {
		if k == browser.EnvCDPURL {
			return "ws://127.0.0.1:1/devtools/browser/x"
		}
		return ""
	}
	s2 := browser.New(browser.Options{Home: t.TempDir(), Getenv: env, LookPath: found})
	t.Cleanup(func() { _ = s2.Close() })
	for _, tl := range s2.Toolset().Tools {
		if tl.Name == browser.ToolCDP {
			if err := tl.Check(); err != nil {
				t.Errorf("check with BROWSER_CDP_URL set = %v, want listed", err)
			}
		}
	}
	d := newDriver(t, browser.Options{})
	if msg := d.fail("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "1"}}); !strings.Contains(msg, "BROWSER_CDP_URL") {
		t.Errorf("a call on the launched browser: %q, want a refusal naming BROWSER_CDP_URL", msg)
	}
}

// userTargets lists the page targets of the user's browser at the
// DevTools address ws, as the browser itself reports them.
func userTargets(t *testing.T, ws string) []string {
	t.Helper()
	u, err := url.Parse(ws)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + u.Host + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		if e.Type == "page" {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

func targetIDs(res map[string]any) []string {
	var ids []string
	r, _ := res["result"].(map[string]any)
	infos, _ := r["targetInfos"].([]any)
	for _, i := range infos {
		if m, ok := i.(map[string]any); ok {
			ids = append(ids, fmt.Sprint(m["targetId"]))
		}
	}
	return ids
}

// TestCDPAttached drives browser_cdp on a browser of "the user's": the
// original's result and error shapes, this session's tabs only, isolation
// and the network policy kept whatever the call asks.
func TestCDPAttached(t *testing.T) {
	needChromium(t)
	base := site(t)
	ws := userBrowser(t)
	userTabs := userTargets(t, ws)
	if len(userTabs) == 0 {
		t.Fatal("the user's browser has no tab")
	}
	d := newDriver(t, browser.Options{CDPURL: ws})
	st1, st2 := sessionstate.New("first"), sessionstate.New("second")
	t.Cleanup(func() { _ = st1.Close(); _ = st2.Close() })
	first, second := d.in(st1), d.in(st2)
	first.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	second.ok("browser_navigate", map[string]any{"url": base + "/cookies"})

	// Target.getTargets lists the session's own tab, not the user's nor
	// the other session's.
	res := first.ok("browser_cdp", map[string]any{"method": "Target.getTargets"})
	if res["method"] != "Target.getTargets" {
		t.Errorf("result %v lacks the method", res)
	}
	mine := targetIDs(res)
	theirs := targetIDs(second.ok("browser_cdp", map[string]any{"method": "Target.getTargets", "params": map[string]any{}}))
	if len(mine) != 1 || len(theirs) != 1 || mine[0] == theirs[0] {
		t.Fatalf("sessions' targets: %v and %v, want one tab each", mine, theirs)
	}
	for _, u := range userTabs {
		if slices.Contains(mine, u) {
			t.Errorf("Target.getTargets lists the user's own tab %s", u)
		}
	}

	// A page-level call on the session's tab, by id and by default.
	res = first.ok("browser_cdp", map[string]any{"method": "Runtime.evaluate", "target_id": mine[0],
		"params": map[string]any{"expression": "location.pathname", "returnByValue": true}})
	if res["target_id"] != mine[0] {
		t.Errorf("result %v does not echo target_id", res)
	}
	if v := fmt.Sprint(res["result"].(map[string]any)["result"].(map[string]any)["value"]); v != "/welcome.html" {
		t.Errorf("Runtime.evaluate on the session's tab gave %q", v)
	}
	res = second.ok("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{"expression": "location.pathname", "returnByValue": true}})
	if v := fmt.Sprint(res["result"].(map[string]any)["result"].(map[string]any)["value"]); v != "/cookies" {
		t.Errorf("Runtime.evaluate without target_id ran on %q, want the session's current tab", v)
	}

	// Someone else's tab, by id: refused.
	for _, id := range []string{userTabs[0], theirs[0]} {
		msg := first.fail("browser_cdp", map[string]any{"method": "Runtime.evaluate", "target_id": id, "params": map[string]any{"expression": "1"}})
		if !strings.Contains(msg, "not a tab of this session") {
			t.Errorf("target_id %s of another: %q", id, msg)
		}
	}

	// Methods that break isolation or the network policy: refused before
	// anything is sent, with the method in the error.
	pagesBefore := len(userTargets(t, ws))
	refused := []struct{ method, want string }{
		{"Target.createTarget", "domain Target is refused"},
		{"Target.closeTarget", "domain Target is refused"},
		{"Browser.close", "domain Browser is refused"},
		{"Browser.setDownloadBehavior", "domain Browser is refused"},
		{"Storage.getCookies", "domain Storage is refused"},
		{"Fetch.disable", "domain Fetch is refused"},
		{"Network.getAllCookies", "Network.getCookies"},
		{"Network.setRequestInterception", "network policy"},
		{"Security.setIgnoreCertificateErrors", "certificates"},
		{"DOM.setFileInputFiles", "local files"},
		{"Page.setDownloadBehavior", "downloads"},
		{"Page.close", "browser_tabs"},
		{"nodot", "not a CDP method name"},
	}
	for _, r := range refused {
		m, isErr := first.call("browser_cdp", map[string]any{"method": r.method, "params": map[string]any{}})
		msg, _ := m["error"].(string)
		if !isErr || !strings.Contains(msg, r.want) || m["method"] != r.method {
			t.Errorf("%s: %v, want a refusal containing %q with the method", r.method, m, r.want)
		}
	}
	if got := len(userTargets(t, ws)); got != pagesBefore {
		t.Errorf("the user's browser has %d pages after the refused calls, %d before", got, pagesBefore)
	}

	// Page.navigate to cloud metadata: refused before it starts; the tab
	// stays where it was.
	msg := first.fail("browser_cdp", map[string]any{"method": "Page.navigate", "params": map[string]any{"url": "http://169.254.169.254/latest/meta-data/"}})
	if !strings.Contains(msg, "Blocked") || !strings.Contains(msg, "169.254.169.254") {
		t.Errorf("Page.navigate to metadata: %q", msg)
	}
	if msg := first.fail("browser_cdp", map[string]any{"method": "Page.navigate", "params": map[string]any{"url": "file:///etc/passwd"}}); !strings.Contains(msg, "Blocked") {
		t.Errorf("Page.navigate to a file: %q", msg)
	}
	res = first.ok("browser_cdp", map[string]any{"method": "Page.navigate", "params": map[string]any{"url": base + "/cookies"}})
	if _, ok := res["result"].(map[string]any)["frameId"]; !ok {
		t.Errorf("Page.navigate result %v has no frameId", res)
	}
	// A fetch the page makes to a refused address is still stopped by the
	// request guard, after a raw call tried to turn it off.
	first.fail("browser_cdp", map[string]any{"method": "Fetch.disable"})
	res = first.ok("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{
		"expression":   `fetch("http://169.254.169.254/latest/meta-data/").then(() => "reached", e => "refused: " + e)`,
		"awaitPromise": true, "returnByValue": true,
	}})
	if v := fmt.Sprint(res["result"].(map[string]any)["result"].(map[string]any)["value"]); !strings.HasPrefix(v, "refused") {
		t.Errorf("a page fetch to cloud metadata through browser_cdp: %q, want it refused", v)
	}

	// Storage of another origin: refused; the page's own: served.
	origin := strings.TrimSuffix(base, "/")
	if msg := first.fail("browser_cdp", map[string]any{"method": "DOMStorage.getDOMStorageItems", "params": map[string]any{
		"storageId": map[string]any{"securityOrigin": "https://bank.example", "isLocalStorage": true}}}); !strings.Contains(msg, "current page's origin") {
		t.Errorf("DOMStorage of another origin: %q", msg)
	}
	first.ok("browser_cdp", map[string]any{"method": "DOMStorage.getDOMStorageItems", "params": map[string]any{
		"storageId": map[string]any{"securityOrigin": origin, "isLocalStorage": true}}})

	// The protocol's own errors, in the original's words.
	m, isErr := first.call("browser_cdp", map[string]any{"method": "Page.noSuchMethod"})
	if msg, _ := m["error"].(string); !isErr || !strings.HasPrefix(msg, "CDP error: {'code': -32601") || m["method"] != "Page.noSuchMethod" {
		t.Errorf("unknown method: %v", m)
	}
	m, isErr = first.call("browser_cdp", map[string]any{})
	if msg, _ := m["error"].(string); !isErr || msg != "'method' is required (e.g. 'Target.getTargets')" || m["cdp_docs"] == nil {
		t.Errorf("no method: %v", m)
	}
	if msg := first.fail("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": []int{1}}); !strings.Contains(msg, "'params' must be an object") {
		t.Errorf("params as a list: %q", msg)
	}
	if msg := first.fail("browser_cdp", map[string]any{"method": "Runtime.evaluate", "frame_id": "F1"}); !strings.Contains(msg, "frame_id") {
		t.Errorf("frame_id: %q", msg)
	}
	start := time.Now()
	msg = first.fail("browser_cdp", map[string]any{"method": "Runtime.evaluate", "timeout": 1, "params": map[string]any{
		"expression": "new Promise(() => {})", "awaitPromise": true}})
	if !strings.Contains(msg, "CDP call timed out after 1s") {
		t.Errorf("a call that never answers: %q (after %s)", msg, time.Since(start))
	}

	// Secrets in results are masked; binary payloads stay byte-exact.
	key := "sk-" + "proj-Qx7vT2mKp9LrW4sZ8nBc3YhJ"
	res = first.ok("browser_cdp", map[string]any{"method": "Runtime.evaluate", "params": map[string]any{
		"expression": fmt.Sprintf("({token: %q, [%q]: 1})", key, key), "returnByValue": true}})
	if b, _ := json.Marshal(res); bytes.Contains(b, []byte(key)) {
		t.Errorf("a secret reached the result: %s", b)
	}
	res = first.ok("browser_cdp", map[string]any{"method": "Page.captureScreenshot", "params": map[string]any{"format": "png"}})
	data, err := base64.StdEncoding.DecodeString(fmt.Sprint(res["result"].(map[string]any)["data"]))
	if err != nil {
		t.Fatalf("screenshot data: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("screenshot is not a PNG: %v", err)
	}
}
