package browser_test

import (
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
	if len(ch) > 2200 || !strings.Contains(ch, "more changes") || !strings.Contains(ch, "Bulk item number 0") {
		t.Errorf("changes after adding 200 buttons: %d bytes:\n%s", len(ch), ch)
	}

	m = d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Leave")})
	if ch, _ := m["changes"].(string); m["navigated"] != true || !strings.Contains(ch, "navigated") {
		t.Errorf("changes after a navigation = %v", m)
	}
}
