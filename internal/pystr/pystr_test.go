package pystr

import (
	"regexp"
	"testing"
)

// pythonSpaces is every code point for which Python 3.11's str.isspace()
// is true (printed by `[c for c in range(0x110000) if chr(c).isspace()]`).
var pythonSpaces = []rune{0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680,
	0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
	0x2028, 0x2029, 0x202f, 0x205f, 0x3000}

func TestIsSpaceIsPythons(t *testing.T) {
	want := map[rune]bool{}
	for _, r := range pythonSpaces {
		want[r] = true
	}
	class := regexp.MustCompile(`^[` + SpaceClass + `]$`)
	for r := rune(0); r <= 0x10ffff; r++ {
		if IsSpace(r) != want[r] {
			t.Errorf("IsSpace(%#x) = %v, Python says %v", r, IsSpace(r), want[r])
		}
		if r < 0xd800 || r > 0xdfff {
			if class.MatchString(string(r)) != want[r] {
				t.Errorf("SpaceClass matches %#x: %v, Python says %v", r, !want[r], want[r])
			}
		}
	}
}

func TestStrip(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  a b \t", "a b"},
		{"\x1ca\x1f", "a"},
		{"\u00a0a\u3000", "a"},
		{"\u200ba", "\u200ba"}, // zero-width space is not whitespace to Python
	} {
		if got := Strip(tt.in); got != tt.want {
			t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruthyJSON(t *testing.T) {
	for raw, want := range map[string]bool{
		`null`: false, `false`: false, `0`: false, `0.0`: false, `""`: false, `[]`: false, `{}`: false, ``: false, `{`: false,
		`true`: true, `1`: true, `-2.5`: true, `"x"`: true, `" "`: true, `[0]`: true, `{"a":null}`: true, `1e400`: true,
	} {
		if got := TruthyJSON([]byte(raw)); got != want {
			t.Errorf("TruthyJSON(%s) = %v, want %v", raw, got, want)
		}
	}
}
