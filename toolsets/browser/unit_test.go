package browser

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ref  string
		n    int
		okay bool
	}{
		{"@e5", "e5", 5, true},
		{"e12", "e12", 12, true},
		{" ref=e3 ", "e3", 3, true},
		{"[ref=e7]", "e7", 7, true},
		{"@E5", "", 0, false},
		{"5", "", 0, false},
		{"button", "", 0, false},
		{"", "", 0, false},
	} {
		ref, n, ok := parseRef(tc.in)
		if ref != tc.ref || n != tc.n || ok != tc.okay {
			t.Errorf("parseRef(%q) = %q %d %v, want %q %d %v", tc.in, ref, n, ok, tc.ref, tc.n, tc.okay)
		}
	}
}

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		in      string
		key     string
		mods    int
		wantErr bool
	}{
		{"Enter", kb.Enter, 0, false},
		{"escape", kb.Escape, 0, false},
		{"ArrowDown", kb.ArrowDown, 0, false},
		{"a", "a", 0, false},
		{"Control+a", "a", 1, false},
		{"Control+Shift+Tab", kb.Tab, 2, false},
		{"Control++", "+", 1, false},
		{"Hyper+a", "", 0, true},
		{"NotAKey", "", 0, true},
	} {
		key, mods, err := parseKey(tc.in)
		if (err != nil) != tc.wantErr || key != tc.key || len(mods) != tc.mods {
			t.Errorf("parseKey(%q) = %q %v %v", tc.in, key, mods, err)
		}
	}
	_ = chromedp.ModifierCtrl
}

func TestConsoleBuf(t *testing.T) {
	for _, tc := range []struct {
		cap, add, wantLen, wantDropped int
	}{
		{3, 2, 2, 0},
		{3, 3, 3, 0},
		{3, 7, 3, 4},
	} {
		c := newConsoleBuf(tc.cap)
		for i := range tc.add {
			c.add(consoleEntry{Text: fmt.Sprint(i)})
		}
		got, dropped := c.read(true)
		if len(got) != tc.wantLen || dropped != tc.wantDropped {
			t.Errorf("cap %d add %d: len %d dropped %d", tc.cap, tc.add, len(got), dropped)
		}
		if len(got) > 0 && got[len(got)-1].Text != fmt.Sprint(tc.add-1) || len(got) > 0 && got[0].Text != fmt.Sprint(tc.add-tc.wantLen) {
			t.Errorf("cap %d add %d: order %v", tc.cap, tc.add, got)
		}
		if again, d := c.read(false); len(again) != 0 || d != 0 {
			t.Errorf("not cleared: %v %d", again, d)
		}
	}
	c := newConsoleBuf(2)
	c.add(consoleEntry{Text: string(make([]byte, maxMessageLen+10))})
	if got, _ := c.read(false); len(got[0].Text) > maxMessageLen+4 {
		t.Errorf("message not capped: %d", len(got[0].Text))
	}
}
