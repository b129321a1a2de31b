package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndText(t *testing.T) {
	tests := []struct {
		in, line, text string
	}{
		{"plain title", "plain title", "plain title"},
		{"é ü 日本 – ok \uFFFD", "é ü 日本 – ok \uFFFD", "é ü 日本 – ok \uFFFD"},
		{"\x1b]0;pwned\a", `\x1b]0;pwned\a`, `\x1b]0;pwned\a`},
		{"\x1b[2J\x1b[Hclear", `\x1b[2J\x1b[Hclear`, `\x1b[2J\x1b[Hclear`},
		{"a\rb", `a\rb`, `a\rb`},
		{"a\nb\tc", `a\nb\tc`, "a\nb\tc"},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"c1\u009b31m", `c1\u009b31m`, `c1\u009b31m`},
		{"evil\u202etxt.exe", `evil\u202etxt.exe`, `evil\u202etxt.exe`},
		{"iso\u2066late\u2069", `iso\u2066late\u2069`, `iso\u2066late\u2069`},
		{"nul\x00 bs\b ff\f vt\v", `nul\x00 bs\b ff\f vt\v`, `nul\x00 bs\b ff\f vt\v`},
		{"bad\xffbyte\xc3", `bad\xffbyte\xc3`, `bad\xffbyte\xc3`},
	}
	for _, tt := range tests {
		if got := Line(tt.in); got != tt.line {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := Text(tt.in); got != tt.text {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// Whatever the input, the output of Line holds no character a terminal
// acts on and is valid UTF-8; Text keeps only newline and tab.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "a\x1b[31m", "\u202e", "\xff", "\r\n\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Line": Line(s), "Text": Text(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q is not UTF-8", name, s, out)
			}
			for _, r := range out {
				if Unsafe(r) && !(name == "Text" && (r == '\n' || r == '\t')) {
					t.Fatalf("%s(%q) = %q keeps %U", name, s, out, r)
				}
			}
		}
	})
}

// A streamed answer written byte by byte comes out as Text of the whole.
func TestWriterSplitsNoCharacter(t *testing.T) {
	in := "日本\x1b[2J – ok\u202e\r\nend\xff"
	var b strings.Builder
	w := NewWriter(&b)
	for i := range len(in) {
		if n, err := w.Write([]byte{in[i]}); n != 1 || err != nil {
			t.Fatal(n, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != Text(in) {
		t.Errorf("streamed %q, want %q", got, Text(in))
	}
}
