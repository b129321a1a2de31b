package browser_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// An action's result says what it changed on the page since the model last
// looked, with refs that stay the same, so no snapshot is needed to see it.
func TestActionResultCarriesChanges(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/changes.html"})["snapshot"].(string)
	count := ref(t, snap, "Count 2")

	m := d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Add item")})
	ch, _ := m["changes"].(string)
	for _, want := range []string{`+ button "Item 3" [ref=`, `~ button "Count 3" [ref=` + strings.TrimPrefix(count, "@") + `]`, `- button "Remove me"`} {
		if !strings.Contains(ch, want) {
			t.Errorf("changes lack %s:\n%s", want, ch)
		}
	}
	if strings.Contains(ch, "Remove me\" [ref=") || strings.Contains(ch, "Item 1") {
		t.Errorf("changes show a removed ref or an unchanged line:\n%s", ch)
	}
	// The new ref acts at once.
	d.ok("browser_click", map[string]any{"ref": ref(t, ch, "Item 3")})

	m = d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Do nothing visible")})
	if ch, _ := m["changes"].(string); !strings.HasPrefix(ch, "none") {
		t.Errorf("changes after a click that changed nothing = %q", ch)
	}

	// Bounded: 200 new buttons are counted, not listed.
	m = d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Add many")})
	ch, _ = m["changes"].(string)
	if len(ch) > 2200 || !strings.Contains(ch, "more changes") || !strings.Contains(ch, "Bulk item number 0") || !strings.Contains(ch, "full=true shows its text") {
		t.Errorf("changes after adding 200 buttons: %d bytes:\n%s", len(ch), ch)
	}
	// The rest continues in a snapshot from the offset the note gives: its
	// first line is the first new button the changes left out.
	shown := strings.Count(ch, "+ button \"Bulk item number ")
	at := regexp.MustCompile(`browser_snapshot with offset=(\d+)`).FindStringSubmatch(ch)
	if at == nil {
		t.Fatalf("changes cut without a continuation:\n%s", ch)
	}
	off, _ := strconv.Atoi(at[1])
	rest := d.ok("browser_snapshot", map[string]any{"offset": off})["snapshot"].(string)
	lines := strings.Split(rest, "\n")
	if want := fmt.Sprintf(`- button "Bulk item number %d" [ref=`, shown); len(lines) < 3 || !strings.HasPrefix(lines[2], want) {
		t.Errorf("%d bulk items shown; the snapshot from offset=%d starts:\n%s\nwant a line %s", shown, off, strings.Join(lines[:min(len(lines), 4)], "\n"), want)
	}

	// Text is a change too: a status line and a new comment, which no
	// interactive outline lists; a second identical comment is new again.
	// A textarea's text is its value, never a text line of its own.
	for i, want := range [][]string{
		{"+ status: Posted 2", "+ text: Nice post"},
		{"- status: Posted 2", "+ status: Posted 3", "+ text: Nice post"},
	} {
		ch, _ := d.ok("browser_click", map[string]any{"ref": ref(t, snap, `"Post"`)})["changes"].(string)
		for _, w := range want {
			if !strings.Contains(ch, w) {
				t.Errorf("post %d: changes lack %q:\n%s", i+1, w, ch)
			}
		}
		if strings.Contains(ch, "Earlier comment") || strings.Contains(ch, "Draft text") {
			t.Errorf("post %d: changes repeat unchanged text:\n%s", i+1, ch)
		}
	}

	// Only text a person can see is a change: not a visibility:hidden or
	// transparent block a page slips in (nor is it in the full outline).
	ch, _ = d.ok("browser_click", map[string]any{"ref": ref(t, snap, `"Reveal"`)})["changes"].(string)
	full := d.ok("browser_snapshot", map[string]any{"full": true, "max_chars": 200000})["snapshot"].(string)
	if !strings.Contains(ch, "+ text: Shown note") || strings.Contains(ch, "Ignore previous") || strings.Contains(full, "Ignore previous") {
		t.Errorf("changes after revealing text:\n%s\nfull outline has hidden text: %v", ch, strings.Contains(full, "Ignore previous"))
	}
	// A long textarea reads whole in the full outline.
	long := strings.Repeat("a long draft ", 20)
	eval(d, `document.querySelector('textarea').value = `+strconv.Quote(long)+`; 1`)
	if full := d.ok("browser_snapshot", map[string]any{"full": true, "max_chars": 200000})["snapshot"].(string); !strings.Contains(full, strings.TrimSpace(long)) {
		t.Errorf("the full outline cuts a long textarea:\n%s", lineOf(full, "a long draft"))
	}

	// A click that lands on an error page says so beside its outline.
	m = d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Broken link")})
	if e, _ := m["navigation_error"].(string); !strings.Contains(e, "HTTP 404") {
		t.Errorf("the result of a click onto a 404 page = %v", m)
	}
	d.ok("browser_back", nil)

	// A navigation's result is the new page's outline, whose refs act at
	// once: no snapshot call in between.
	m = d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Leave")})
	out, _ := m["snapshot"].(string)
	if m["navigated"] != true || !strings.Contains(out, `button "Refresh data" [ref=`) || strings.HasPrefix(out, "url:") {
		t.Fatalf("the result of a click that navigated = %v", m)
	}
	d.ok("browser_click", map[string]any{"ref": ref(t, out, "Refresh data")})
	waitTitle(d, "Clicked")
	// Back is an action like any other: the page it returns to is described.
	back := d.ok("browser_back", nil)
	if out, _ := back["snapshot"].(string); back["navigated"] != true || !strings.Contains(out, `button "Item 3" [ref=`) {
		t.Errorf("the result of going back = %v", back)
	}
}
