package browser_test

import (
	"regexp"
	"testing"
)

// TestLineRef pins how the task benchmark's model reads refs out of each
// server's outline: a wrong ref would click the wrong control and turn a
// token count into nonsense.
func TestLineRef(t *testing.T) {
	for _, tc := range []struct {
		name, text, role, control string
		ref                       *regexp.Regexp
		before                    bool
		want                      string
	}{
		{"ours row: the named control, not its neighbour", `- row "user0417 user0417@example.test editor": button "Edit user0417" [ref=e1047], button "Delete user0417" [ref=e1048]`,
			"button", "Delete user0417", hermesRef, false, "e1048"},
		{"ours JSON-escaped", unJSON(`{"snapshot":"- textbox \"Username\" [ref=e3]\n- button \"Sign in\" [ref=e6]"}`),
			"button", "Sign in", hermesRef, false, "e6"},
		{"playwright frame ref", `        - button "Add Teal Lamp to cart" [ref=f2e132]: Add to cart`,
			"button", "Add Teal Lamp to cart", playwrightRef, false, "f2e132"},
		{"devtools: the uid leads, the page title is not the button", "uid=1_0 RootWebArea \"Sign in\" url=\"x\"\n  uid=1_16 button \"Sign in\"",
			"button", "Sign in", devtoolsRef, true, "1_16"},
		{"role must match", `- heading "Teal Lamp" [ref=e40]`, "button", "Teal Lamp", hermesRef, false, ""},
		{"absent", `- button "Save" [ref=e1]`, "button", "Cancel", hermesRef, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lineRef(tc.text, tc.role, tc.control, tc.ref, tc.before); got != tc.want {
				t.Errorf("lineRef = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCheckedLine(t *testing.T) {
	for text, want := range map[string]bool{
		`~ checkbox "Email me a weekly digest" [checked] [ref=e5]`:       true,
		`uid=10_0 checkbox "Email me a weekly digest" checked focusable`: true,
		`- checkbox "Email me a weekly digest" [ref=e5]`:                 false,
		`- checkbox "Email me a weekly digest" [checked=false] [ref=e5]`: false,
		`- checkbox "Notify me of mentions" [checked] [ref=e6]`:          false,
	} {
		if got := checkedLine(text, "Email me a weekly digest"); got != want {
			t.Errorf("checkedLine(%q) = %v, want %v", text, got, want)
		}
	}
}
