package browser_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// TestLoginFlow is the multi-step task, driven only through tools and refs:
// fill a login form, submit, land on the next page, go back, go forward by
// a link.
func TestLoginFlow(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})

	nav := d.ok("browser_navigate", map[string]any{"url": base + "/login.html"})
	snap := nav["snapshot"].(string)
	if nav["title"] != "Sign in" || !strings.HasSuffix(nav["url"].(string), "/login.html") {
		t.Fatalf("navigate result: %v", nav)
	}
	if n, _ := nav["element_count"].(float64); n < 6 {
		t.Errorf("element_count = %v, want the form's controls and links:\n%s", nav["element_count"], snap)
	}
	for _, want := range []string{`textbox "Username"`, `textbox "Password"`, `checkbox "Remember me"`, `combobox "Language"`, `button "Sign in"`, `heading "Sign in"`} {
		if !strings.Contains(snap, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, snap)
		}
	}

	d.ok("browser_type", map[string]any{"ref": ref(t, snap, `textbox "Username"`), "text": "ada"})
	typed := d.ok("browser_type", map[string]any{"ref": ref(t, snap, `textbox "Password"`), "text": "hunter2"})
	if typed["typed"] != "hunter2" {
		t.Errorf("type result: %v", typed)
	}
	d.ok("browser_type", map[string]any{"ref": ref(t, snap, "combobox"), "text": "Deutsch"})
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "checkbox")})
	after := d.ok("browser_snapshot", nil)["snapshot"].(string)
	for _, want := range []string{`[value="ada"]`, `checkbox "Remember me" [checked]`, `[value="Deutsch"]`} {
		if !strings.Contains(after, want) {
			t.Errorf("after typing, snapshot lacks %s:\n%s", want, after)
		}
	}
	if strings.Contains(after, "hunter2") {
		t.Errorf("snapshot shows the password:\n%s", after)
	}

	clicked := d.ok("browser_click", map[string]any{"ref": ref(t, snap, `button "Sign in"`)})
	if u, _ := clicked["url"].(string); !strings.Contains(u, "/welcome.html?user=ada") {
		t.Fatalf("after submit url = %v, want the welcome page", clicked)
	}
	welcome := d.ok("browser_snapshot", map[string]any{"full": true})["snapshot"].(string)
	if !strings.Contains(welcome, `heading "Welcome, ada" [level=1]`) || !strings.Contains(welcome, "You are signed in.") {
		t.Fatalf("welcome page snapshot:\n%s", welcome)
	}

	back := d.ok("browser_back", nil)
	if !strings.HasSuffix(back["url"].(string), "/login.html") {
		t.Fatalf("back url = %v", back["url"])
	}
	snap = d.ok("browser_snapshot", nil)["snapshot"].(string)
	clicked = d.ok("browser_click", map[string]any{"ref": ref(t, snap, "link", "dashboard")})
	if u, _ := clicked["url"].(string); !strings.HasSuffix(u, "/welcome.html") {
		t.Fatalf("link click landed on %v", clicked)
	}
	if title := eval(d, "document.title"); title != "Dashboard" {
		t.Fatalf("title after link = %v", title)
	}
}

// port is the port of a base URL like http://127.0.0.1:PORT.
func port(base string) string { return base[strings.LastIndex(base, ":")+1:] }

func TestIframes(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/frames.html"})["snapshot"].(string)
	for _, want := range []string{`iframe "Inner form"`, `textbox "Inner name"`, `button "Inner button"`, `iframe "Other site" (cross-origin, url: http://localhost:` + port(base) + `/inner.html)`, "cross-origin iframe(s) not shown"} {
		if !strings.Contains(snap, want) {
			t.Errorf("snapshot lacks %s:\n%s", want, snap)
		}
	}
	d.ok("browser_type", map[string]any{"ref": ref(t, snap, "Inner name"), "text": "framed"})
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Inner button")})
	waitTitle(d, "inner clicked framed")
}

func TestShadowDOM(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/shadow.html"})["snapshot"].(string)
	d.ok("browser_type", map[string]any{"ref": ref(t, snap, `textbox "Shadow field"`), "text": "deep"})
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, `button "Shadow button"`)})
	if got := eval(d, "document.getElementById('out').textContent"); got != "shadow says deep" {
		t.Fatalf("shadow click result = %v", got)
	}
}

func TestConsole(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/console.html"})["snapshot"].(string)
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, `button "Log"`)})

	var con map[string]any
	deadline := time.Now().Add(5 * time.Second)
	for {
		con = d.ok("browser_console", nil)
		if con["total_errors"].(float64) >= 1 && strings.Contains(jsonText(con), "clicked 42") || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	text := jsonText(con)
	for _, want := range []string{`"text":"page loaded {a: 1}","type":"log"`, `"text":"a warning 7","type":"warning"`, `"text":"an error message","type":"error"`, "boom from timeout", `"source":"exception"`, "clicked 42"} {
		if !strings.Contains(text, want) {
			t.Errorf("console lacks %s: %s", want, text)
		}
	}

	cleared := d.ok("browser_console", map[string]any{"clear": true})
	if cleared["total_messages"].(float64) == 0 {
		t.Errorf("clear returned nothing: %v", cleared)
	}
	if again := d.ok("browser_console", nil); again["total_messages"].(float64) != 0 || again["total_errors"].(float64) != 0 {
		t.Errorf("after clear: %v", again)
	}

	for _, tc := range []struct {
		expr, typ string
		want      string
	}{
		{"window.answer", "dict", `{"list":[1,2,3],"n":42}`},
		{"document.title", "str", `"Console"`},
		{"6 * 7", "int", `42`},
		{"1 / 4", "float", `0.25`},
		{"[1, 'a']", "list", `[1,"a"]`},
		{"undefined", "NoneType", `null`},
		{"Promise.resolve(true)", "bool", `true`},
	} {
		r := d.ok("browser_console", map[string]any{"expression": tc.expr})
		got, _ := json.Marshal(r["result"])
		if r["result_type"] != tc.typ || string(got) != tc.want {
			t.Errorf("evaluate %q = %s (%v), want %s (%s)", tc.expr, got, r["result_type"], tc.want, tc.typ)
		}
	}
	if msg := d.fail("browser_console", map[string]any{"expression": "nope.nope"}); !strings.Contains(msg, "nope is not defined") {
		t.Errorf("exception message = %q", msg)
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestLazyImagesAndScroll(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	d.ok("browser_navigate", map[string]any{"url": base + "/lazy.html"})
	imgs := d.ok("browser_get_images", nil)
	if imgs["count"].(float64) != 2 {
		t.Fatalf("images = %v, want the two non-data images", imgs)
	}
	bottom := func() map[string]any {
		for _, im := range d.ok("browser_get_images", nil)["images"].([]any) {
			if m := im.(map[string]any); m["alt"] == "Bottom image" {
				return m
			}
		}
		t.Fatal("bottom image not listed")
		return nil
	}
	if b := bottom(); !strings.HasSuffix(b["src"].(string), "/img/bottom.png") || b["loaded"] == true {
		t.Fatalf("lazy image before scrolling: %v", b)
	}
	for range 8 {
		d.ok("browser_scroll", map[string]any{"direction": "down"})
	}
	if r := d.ok("browser_scroll", map[string]any{"direction": "down"}); r["note"] == nil {
		t.Errorf("scrolling past the bottom gave no note: %v", r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for bottom()["loaded"] != true {
		if time.Now().After(deadline) {
			t.Fatalf("lazy image never loaded: %v", bottom())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if b := bottom(); b["width"].(float64) != 10 {
		t.Errorf("loaded image size: %v", b)
	}
	if msg := d.fail("browser_scroll", map[string]any{"direction": "sideways"}); msg != "Invalid direction 'sideways'. Use 'up' or 'down'." {
		t.Errorf("bad direction message = %q", msg)
	}
}

// TestBigPage: a 1,000-row page (3,000 controls) must stay within the cap,
// say how to narrow, and return fast.
func TestBigPage(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	start := time.Now()
	nav := d.ok("browser_navigate", map[string]any{"url": base + "/big"})
	navTime := time.Since(start)
	snap := nav["snapshot"].(string)
	if len(snap) > 8000 { // the cap counts the note
		t.Errorf("snapshot is %d bytes, want the 8000 cap", len(snap))
	}
	if !strings.Contains(snap, "cut to fit") || !strings.Contains(snap, "selector=") || !strings.Contains(snap, "offset=") {
		t.Errorf("no narrowing note:\n%s", snap[max(0, len(snap)-500):])
	}
	start = time.Now()
	full := d.ok("browser_snapshot", map[string]any{"full": true})
	snapTime := time.Since(start)
	if len(full["snapshot"].(string)) > browser.DefaultFullSnapshotChars {
		t.Errorf("full snapshot is %d bytes", len(full["snapshot"].(string)))
	}
	// Generous bounds for a loaded 2-core CI box; typical is ~0.3 s / 0.1 s.
	if navTime > 5*time.Second || snapTime > 3*time.Second {
		t.Errorf("navigate+snapshot took %s, snapshot %s", navTime, snapTime)
	}
	all := d.ok("browser_snapshot", map[string]any{"max_chars": 200000})
	if all["element_count"].(float64) != 3000 {
		t.Errorf("uncapped snapshot lists %v elements, want 3000", all["element_count"])
	}
	scoped := d.ok("browser_snapshot", map[string]any{"selector": "tr:nth-child(500)"})
	if s := scoped["snapshot"].(string); !strings.Contains(s, `link "Order 499"`) || strings.Contains(s, "Order 498") {
		t.Errorf("scoped snapshot:\n%s", s)
	}
	if msg := d.fail("browser_snapshot", map[string]any{"selector": "#nothing-here"}); !strings.Contains(msg, "no element matches") {
		t.Errorf("bad selector message = %q", msg)
	}
	t.Logf("navigate+snapshot %s, full snapshot %s", navTime, snapTime)
}

func TestStaleRefs(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})["snapshot"].(string)
	button := ref(t, snap, "Refresh data")

	// Removed from the DOM: stale, without a navigation.
	eval(d, "document.querySelector('button').remove()")
	if msg := d.fail("browser_click", map[string]any{"ref": button}); !strings.Contains(msg, "stale ref") || !strings.Contains(msg, "take a new snapshot") {
		t.Errorf("removed element: %q", msg)
	}

	// Reload: every old ref is stale, even though the same button is back
	// (and a new snapshot never reuses the number).
	d.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	link := ref(t, snap, "Sign out")
	for _, r := range []string{button, link, strings.TrimPrefix(link, "@")} {
		if msg := d.fail("browser_click", map[string]any{"ref": r}); !strings.Contains(msg, "stale ref") {
			t.Errorf("after reload, click %s: %q", r, msg)
		}
	}
	fresh := d.ok("browser_snapshot", nil)["snapshot"].(string)
	if ref(t, fresh, "Refresh data") == button {
		t.Errorf("a ref number was reused after reload")
	}
	for _, tc := range []struct{ ref, want string }{
		{"@e99999", "unknown ref"},
		{"button", "invalid ref"},
		{"", "invalid ref"},
	} {
		if msg := d.fail("browser_click", map[string]any{"ref": tc.ref}); !strings.Contains(msg, tc.want) {
			t.Errorf("click %q: %q, want %q", tc.ref, msg, tc.want)
		}
	}
	d.ok("browser_click", map[string]any{"ref": ref(t, fresh, "Refresh data")})
	waitTitle(d, "Clicked")
}

// TestBackFromCache: going back to a page kept in the back/forward cache
// fires no load event; back must not hang on it.
func TestBackFromCache(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 10 * time.Second})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/cached-a.html"})["snapshot"].(string)
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "To page B")})
	for i := range 3 {
		start := time.Now()
		back := d.ok("browser_back", nil)
		if !strings.HasSuffix(back["url"].(string), "/cached-a.html") {
			t.Fatalf("back %d went to %v", i, back["url"])
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Fatalf("back took %s", el)
		}
		snap = d.ok("browser_snapshot", nil)["snapshot"].(string)
		d.ok("browser_click", map[string]any{"ref": ref(t, snap, "To page B")})
	}
	con := jsonText(d.ok("browser_console", nil))
	if !strings.Contains(con, "persisted=true") {
		t.Logf("note: no back/forward-cache restore happened (console: %s)", con)
	}
	d.ok("browser_back", nil) // B -> A
	d.ok("browser_back", nil) // A -> about:blank, the tab's first entry
	if msg := d.fail("browser_back", nil); !strings.Contains(msg, "no previous page") {
		t.Fatalf("back at the start of history: %q", msg)
	}
}

func TestCoveredAndClickable(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/overlay.html"})["snapshot"].(string)
	if !strings.Contains(snap, `clickable "Fake div button"`) {
		t.Errorf("onclick div has no ref:\n%s", snap)
	}
	msg := d.fail("browser_click", map[string]any{"ref": ref(t, snap, "Under the banner")})
	if !strings.Contains(msg, `covered by <button> "Accept cookies"`) {
		t.Errorf("covered click: %q", msg)
	}
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Accept cookies")})
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Under the banner")})
	waitTitle(d, "under")
}

func TestURLPolicy(t *testing.T) {
	base := site(t)
	for _, tc := range []struct {
		name    string
		private bool
		url     string
		want    string
	}{
		{"metadata", true, "http://169.254.169.254/latest/meta-data/", "cloud metadata"},
		{"metadata host", true, "http://metadata.google.internal/", "cloud metadata"},
		{"secret", true, "http://127.0.0.1/?api_key=sk-abcdefghijklmnopqrstuvwxyz123456", "API key or token"},
		{"private refused", false, base + "/login.html", "private or internal"},
		{"scheme", true, "file:///etc/passwd", "only http and https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newDriver(t, browser.Options{AllowPrivateURLs: &tc.private})
			if msg := d.fail("browser_navigate", map[string]any{"url": tc.url}); !strings.Contains(msg, tc.want) {
				t.Errorf("navigate %s: %q, want %q", tc.url, msg, tc.want)
			}
		})
	}
}

func TestConfigAllowPrivate(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("browser:\n  allow_private_urls: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := newDriver(t, browser.Options{Home: home})
	if msg := d.fail("browser_navigate", map[string]any{"url": "http://127.0.0.1:1/"}); !strings.Contains(msg, "private or internal") {
		t.Errorf("config.yaml allow_private_urls=false not honoured: %q", msg)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("browser: [broken"), 0o600); err != nil {
		t.Fatal(err)
	}
	d = newDriver(t, browser.Options{Home: home})
	if msg := d.fail("browser_snapshot", nil); !strings.Contains(msg, "config.yaml") {
		t.Errorf("broken config: %q", msg)
	}
}

func TestVision(t *testing.T) {
	base := site(t)
	var gotQ string
	var gotPNG []byte
	d := newDriver(t, browser.Options{Vision: func(ctx context.Context, img []byte, q string) (string, error) {
		gotQ, gotPNG = q, img
		if strings.Contains(q, "fail") {
			return "", errors.New("backend down")
		}
		return "a sign-in form; key sk-abcdefghijklmnopqrstuvwxyz0123456789 visible", nil
	}})
	d.ok("browser_navigate", map[string]any{"url": base + "/login.html"})
	r, _ := d.callFull("browser_vision", map[string]any{"question": "what is this?", "annotate": true})
	if r.isErr || r.m["success"] != true {
		t.Fatalf("vision: %v", r.m)
	}
	if len(r.images) != 1 || r.images[0].MIMEType != "image/png" || len(gotPNG) < 100 || !strings.Contains(gotQ, "[N]") {
		t.Errorf("images %d, png %d bytes, question %q", len(r.images), len(gotPNG), gotQ)
	}
	if a := r.m["analysis"].(string); strings.Contains(a, "abcdefghijklmnop") {
		t.Errorf("analysis not redacted: %q", a)
	}
	if ann, _ := r.m["annotations"].([]any); len(ann) < 5 {
		t.Errorf("annotations: %v", r.m["annotations"])
	}
	if p, _ := r.m["screenshot_path"].(string); p == "" {
		t.Errorf("no screenshot_path")
	} else if _, err := os.Stat(p); err != nil {
		t.Errorf("screenshot file: %v", err)
	}
	if left := eval(d, "!!document.getElementById('__hermes_annotations')"); left != false {
		t.Errorf("annotation overlay left on the page")
	}
	r, _ = d.callFull("browser_vision", map[string]any{"question": "please fail"})
	if !r.isErr || len(r.images) != 1 || !strings.Contains(r.m["error"].(string), "backend down") {
		t.Errorf("vision failure: %v (images %d)", r.m, len(r.images))
	}
}

func TestToolsetDeclaration(t *testing.T) {
	s := browser.New(browser.Options{Home: t.TempDir(), CDPURL: "ws://127.0.0.1:1/devtools/browser/x"})
	defer s.Close()
	ts := s.Toolset()
	want := []string{"browser_navigate", "browser_snapshot", "browser_find", "browser_click", "browser_type", "browser_fill", "browser_press",
		"browser_scroll", "browser_back", "browser_tabs", "browser_dialog", "browser_get_images", "browser_console", "browser_vision", "browser_cdp"}
	if len(ts.Tools) != len(want) {
		t.Fatalf("%d tools", len(ts.Tools))
	}
	for i, tl := range ts.Tools {
		if tl.Name != want[i] {
			t.Errorf("tool %d = %s, want %s", i, tl.Name, want[i])
		}
		var schema map[string]any
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s schema: %v", tl.Name, err)
		}
		if tl.Hints.ReadOnly && tl.Hints.Destructive {
			t.Errorf("%s: read-only and destructive", tl.Name)
		}
	}
	if err := ts.Tools[len(ts.Tools)-2].Check(); err == nil || !strings.Contains(err.Error(), "vision") {
		t.Errorf("vision check without a backend: %v", err)
	}
	if err := ts.Tools[0].Check(); err != nil {
		t.Errorf("navigate check with a CDP URL: %v", err)
	}
	if err := ts.Tools[len(ts.Tools)-1].Check(); err != nil {
		t.Errorf("browser_cdp check with a CDP URL: %v", err)
	}
}
