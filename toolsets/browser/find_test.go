package browser_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// findPage has a login form, a long article, a table of many rows with a
// button each, and hidden controls that must not be found.
func findPage(w http.ResponseWriter, _ *http.Request) {
	var b strings.Builder
	b.WriteString(`<!doctype html><title>Find</title><h1>Shop</h1>
<form aria-label="Login"><label>Email <input name=email></label><button type=button onclick="document.title='signed in'">Sign in</button></form>
<p>` + strings.Repeat("Lorem ipsum dolor sit amet. ", 60) + `The delivery fee is 4.99 EUR. ` + strings.Repeat("Consectetur adipiscing elit. ", 60) + `</p>
<button style="display:none">Sign in hidden</button>
<table>`)
	for i := range 40 {
		fmt.Fprintf(&b, `<tr><td>Product %d</td><td><button>Buy product %d</button></td></tr>`, i, i)
	}
	b.WriteString(`</table>`)
	fmt.Fprint(w, b.String())
}

func TestFind(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(findPage))
	t.Cleanup(srv.Close)
	d := newDriver(t, browser.Options{})
	d.ok("browser_navigate", map[string]any{"url": srv.URL + "/"})

	// A control by its name, with the container it sits in and a ref that
	// works at once.
	m := d.ok("browser_find", map[string]any{"query": "sign in"})
	got := m["matches"].(string)
	if !strings.Contains(got, `button "Sign in" [ref=`) || !strings.Contains(got, `(in form "Login")`) || strings.Contains(got, "hidden") {
		t.Fatalf("find sign in = %q", got)
	}
	d.ok("browser_click", map[string]any{"ref": ref(t, got, `button "Sign in"`)})
	waitTitle(d, "signed in")

	// Text deep in a long paragraph: the part around the match.
	m = d.ok("browser_find", map[string]any{"query": "delivery fee"})
	got = m["matches"].(string)
	if !strings.Contains(got, "The delivery fee is 4.99 EUR") || len(got) > 400 {
		t.Errorf("find in a long paragraph = %d bytes: %q", len(got), got)
	}

	// By role and text: the row's button, in its row.
	m = d.ok("browser_find", map[string]any{"query": "product 17", "role": "button"})
	got = m["matches"].(string)
	if m["total"].(float64) != 1 || !strings.Contains(got, `button "Buy product 17" [ref=`) || !strings.Contains(got, "Product 17") {
		t.Errorf("find product 17 buttons = %v", m)
	}

	// Bounded: 40 buttons match, the default 10 are shown and the rest
	// counted; at most 20 may be asked for.
	m = d.ok("browser_find", map[string]any{"role": "button", "query": "buy"})
	if m["count"].(float64) != 10 || m["total"].(float64) != 40 || !strings.Contains(fmt.Sprint(m["note"]), "10 of 40") {
		t.Errorf("find all buy buttons = count %v total %v note %v", m["count"], m["total"], m["note"])
	}
	if n := strings.Count(m["matches"].(string), "\n") + 1; n != 10 {
		t.Errorf("%d match lines, want 10", n)
	}
	if msg := d.fail("browser_find", map[string]any{"role": "button", "max_results": 50}); !strings.Contains(msg, "20") {
		t.Errorf("max_results=50: %q", msg)
	}
	if msg := d.fail("browser_find", map[string]any{}); !strings.Contains(msg, "query") {
		t.Errorf("no query and no role: %q", msg)
	}
	m = d.ok("browser_find", map[string]any{"query": "no such thing anywhere"})
	if m["count"].(float64) != 0 || !strings.Contains(fmt.Sprint(m["note"]), "nothing") {
		t.Errorf("find nothing = %v", m)
	}
}
