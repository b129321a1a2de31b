package browser_test

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// Only what a person can see and operate is offered as a control: a ref to
// an element nobody can reach sends the model after something that is not
// there.
func TestSnapshotOffersOnlyOperableControls(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/truth.html"})["snapshot"].(string)
	for _, want := range []string{`button "Shown button"`, `button "Visible inside hidden"`, `button "Covered button"`, `checkbox "Styled box"`} {
		if !strings.Contains(snap, want) || !strings.Contains(lineOf(snap, want), "[ref=") {
			t.Errorf("snapshot lacks %s with a ref:\n%s", want, snap)
		}
	}
	for _, hidden := range []string{"Invisible button", "Undisplayed button", "Zero button", "Offscreen link", "Inert button", "Aria hidden button"} {
		if l := lineOf(snap, hidden); strings.Contains(l, "[ref=") {
			t.Errorf("%s cannot be seen or operated, yet is offered as a control: %s", hidden, l)
		}
	}
}

// Elements a page made clickable (a click handler, cursor:pointer) are
// controls whatever their tag: an <li> as much as a <div>.
func TestClickableElementsGetRefsWhateverTheirTag(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/truth.html"})["snapshot"].(string)
	for _, want := range []string{"Handler item", "Pointer item", "Handler paragraph", "Handler div"} {
		if !strings.Contains(lineOf(snap, want), "[ref=") {
			t.Errorf("%q is clickable but has no ref:\n%s", want, snap)
		}
	}
	if l := lineOf(snap, "Plain item"); strings.Contains(l, "[ref=") {
		t.Errorf("a plain list item got a ref: %s", l)
	}
	d.ok("browser_click", map[string]any{"ref": ref(t, snap, "Handler item")})
	waitTitle(d, "item clicked")
}

// A click that cannot reach its element is an error saying why, never
// success while the page's handler did not run.
func TestClickThatCannotLandIsError(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/truth.html"})["snapshot"].(string)
	shown := ref(t, snap, "Shown button")
	// Hidden after the snapshot listed it.
	eval(d, `document.getElementById('shown').style.visibility = 'hidden'; 1`)
	// What the snapshot says agrees with what a click does.
	if l := lineOf(snap, "Inside aria disabled"); !strings.Contains(l, "[disabled]") {
		t.Errorf("a button inside an aria-disabled container is listed as usable: %s", l)
	}
	for _, tc := range []struct {
		name, ref, want string
	}{
		{"disabled", ref(t, snap, "Disabled button"), "disabled"},
		{"aria-disabled", ref(t, snap, "Aria disabled button"), "disabled (aria-disabled)"},
		{"inside aria-disabled", ref(t, snap, "Inside aria disabled"), "disabled (aria-disabled)"},
		{"covered", ref(t, snap, "Covered button"), "covered by"},
		{"hidden", shown, "hidden"},
	} {
		msg := d.fail("browser_click", map[string]any{"ref": tc.ref})
		if !strings.Contains(msg, tc.want) {
			t.Errorf("click on a %s button: error %q does not say %q", tc.name, msg, tc.want)
		}
	}
	if got := eval(d, "document.title"); got != "Truth" {
		t.Errorf("a handler ran: title = %v", got)
	}
}

// lineOf is the first line of snap containing part, or "".
func lineOf(snap, part string) string {
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, part) {
			return l
		}
	}
	return ""
}
