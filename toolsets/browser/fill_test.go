package browser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// browser_fill sets text, select, checkbox and radio fields in one call,
// as a person would (the page's handlers run), and says what each holds.
func TestFill(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	snap := d.ok("browser_navigate", map[string]any{"url": base + "/fill.html"})["snapshot"].(string)
	r := func(name string) string { return ref(t, snap, name) }
	m := d.ok("browser_fill", map[string]any{"fields": []map[string]any{
		{"ref": r(`textbox "Name"`), "value": "Ada Lovelace"},
		{"ref": r(`textbox "Notes"`), "value": "ring twice"},
		{"ref": r(`combobox "Country"`), "value": "Germany"},
		{"ref": r(`checkbox "Gift wrap"`), "value": true},
		{"ref": r(`radio "Express"`), "value": "true"},
	}})
	filled := fmt.Sprint(m["filled"])
	for _, want := range []string{`value "Ada Lovelace"`, `value "ring twice"`, `selected "Germany"`, "checked"} {
		if !strings.Contains(filled, want) {
			t.Errorf("filled = %s, lacks %s", filled, want)
		}
	}
	got := eval(d, `[fullname.value, notes.value, country.value, gift.checked, exp.checked, std.checked, window.changes].join("|")`)
	if got != "Ada Lovelace|ring twice|Germany|true|true|false|1" {
		t.Errorf("page state after fill = %v", got)
	}

	// Everything is checked before anything changes.
	msg := d.fail("browser_fill", map[string]any{"fields": []map[string]any{
		{"ref": r(`textbox "Name"`), "value": "Changed"},
		{"ref": "not a ref", "value": "x"},
	}})
	if !strings.Contains(msg, "fields[1]") || eval(d, "fullname.value") != "Ada Lovelace" {
		t.Errorf("bad ref: %q, name now %v", msg, eval(d, "fullname.value"))
	}
	// A field that cannot be set stops the call and names what was done.
	msg = d.fail("browser_fill", map[string]any{"fields": []map[string]any{
		{"ref": r(`checkbox "Gift wrap"`), "value": false},
		{"ref": r(`textbox "Coupon"`), "value": "SAVE10"},
		{"ref": r(`textbox "Notes"`), "value": "never"},
	}})
	for _, want := range []string{"fields[1]", "disabled", "Already set", "unchecked", "Not touched"} {
		if !strings.Contains(msg, want) {
			t.Errorf("disabled field: error %q lacks %q", msg, want)
		}
	}
	if eval(d, "notes.value") != "ring twice" {
		t.Errorf("a field after the failure was changed")
	}
	// aria-disabled is disabled as a person sees it, though the browser
	// would type into it.
	if msg := d.fail("browser_fill", map[string]any{"fields": []map[string]any{{"ref": r(`textbox "Voucher"`), "value": "x"}}}); !strings.Contains(msg, "is disabled") || eval(d, "voucher.value") != "" {
		t.Errorf("fill an aria-disabled field: %q, value now %v", msg, eval(d, "voucher.value"))
	}
	if msg := d.fail("browser_type", map[string]any{"ref": r(`textbox "Voucher"`), "text": "x"}); !strings.Contains(msg, "disabled") || eval(d, "voucher.value") != "" {
		t.Errorf("type into an aria-disabled field: %q, value now %v", msg, eval(d, "voucher.value"))
	}
	if msg := d.fail("browser_type", map[string]any{"ref": r(`combobox "Size"`), "text": "M"}); !strings.Contains(msg, "disabled") || eval(d, "size.value") != "S" {
		t.Errorf("choose in a disabled select: %q, value now %v", msg, eval(d, "size.value"))
	}
	if msg := d.fail("browser_fill", map[string]any{"fields": []map[string]any{{"ref": r(`button "Order"`), "value": "x"}}}); !strings.Contains(msg, "browser_click") {
		t.Errorf("fill a button: %q", msg)
	}
	many := make([]map[string]any, 31)
	for i := range many {
		many[i] = map[string]any{"ref": r(`textbox "Name"`), "value": "x"}
	}
	if msg := d.fail("browser_fill", map[string]any{"fields": many}); !strings.Contains(msg, "30") {
		t.Errorf("31 fields: %q", msg)
	}
}
