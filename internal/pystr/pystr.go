// Package pystr holds the few Python string rules the original's files are
// written and read by, where Go's own differ: what str.isspace() calls
// whitespace (and so what str.strip() and a Unicode regex's \s remove).
// Compatibility with the Python Hermes lives in such details: a name or an
// entry the original strips must strip the same here.
package pystr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// IsSpace reports whether Python's str.isspace() holds for r: Go's
// unicode.IsSpace plus the four ASCII information separators U+001C to
// U+001F, which Python counts as whitespace and Go does not.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
}

// Strip is Python's str.strip() with no argument.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// RStrip is Python's str.rstrip() with no argument.
func RStrip(s string) string { return strings.TrimRightFunc(s, IsSpace) }

// SpaceClass is IsSpace as the body of a regexp character class (RE2
// syntax), for patterns that must match what Python's \s matches in a
// str pattern.
const SpaceClass = `\t\n\x0b\x0c\r\x1c-\x20\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

// Truthy is Python's bool() of a value decoded from JSON or YAML: None,
// False, zero, "" and empty lists and maps are false, anything else true.
// The original decides many "is it set" questions this way.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	case json.Number:
		f, err := x.Float64()
		return err != nil || f != 0
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case map[any]any:
		return len(x) > 0
	}
	return true
}

// Str is Python's str() of a scalar decoded from YAML or JSON where it
// differs from Go's formatting: None, True and False.
func Str(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// In is Python's `name in (value or [])` on a decoded value: membership in
// a list, a key of a mapping, a substring of a string. ok is false where
// Python would raise (a true number or boolean), which callers answering
// a yes/no question take as "no".
func In(value any, name string) (in, ok bool) {
	switch v := value.(type) {
	case nil:
		return false, true
	case string:
		return strings.Contains(v, name), true
	case []any:
		for _, e := range v {
			if s, isStr := e.(string); isStr && s == name {
				return true, true
			}
		}
		return false, true
	case map[string]any:
		_, has := v[name]
		return has, true
	case map[any]any:
		_, has := v[name]
		return has, true
	case bool:
		return false, !v
	case int:
		return false, v == 0
	case float64:
		return false, v == 0
	}
	return false, false
}

// TruthyJSON is Truthy of a JSON text; an empty or malformed one is false.
func TruthyJSON(raw json.RawMessage) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return false
	}
	return Truthy(v)
}

// Lower is Python's str.lower(): the full Unicode lowercase mapping,
// which differs from Go's per-rune simple mapping in two places: İ
// (U+0130) becomes "i̇" (two code points), and a capital sigma at the end
// of a word becomes final sigma ς.
func Lower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if finalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma is Unicode's Final_Sigma condition for the Σ at byte offset
// i: a cased letter before it and none after it, case-ignorable characters
// skipped on both sides.
func finalSigma(s string, i int) bool {
	if !casedBefore(s[:i]) {
		return false
	}
	for _, r := range s[i+len("Σ"):] {
		if !caseIgnorable(r) {
			return !cased(r)
		}
	}
	return true
}

// casedBefore reports whether the last character of s that is not
// case-ignorable is cased.
func casedBefore(s string) bool {
	for s != "" {
		r, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
		if !caseIgnorable(r) {
			return cased(r)
		}
	}
	return false
}

// cased is Unicode's Cased property.
func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

// caseIgnorable is Unicode's Case_Ignorable property: marks, format
// characters, modifiers, and the word-internal punctuation of Word_Break
// MidLetter, MidNumLet and Single_Quote (listed, as Go has no Word_Break
// table).
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\ufe13', '\ufe52', '\ufe55', '\uff07', '\uff0e', '\uff1a':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// WriteJSONString writes s as a JSON string the way Python's json module
// does (the original writes its files with it): with ensure_ascii every
// character outside space..~ becomes \uXXXX (lowercase hex, surrogate
// pairs above the BMP); without it only quotes, backslashes and control
// characters are escaped.
func WriteJSONString(b *strings.Builder, s string, ascii bool) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(b, `\u%04x`, r)
			case !ascii || r <= '~':
				if r == utf8.RuneError {
					b.WriteRune(utf8.RuneError)
				} else {
					b.WriteRune(r)
				}
			case r > 0xFFFF:
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, r1, r2)
			default:
				fmt.Fprintf(b, `\u%04x`, r)
			}
		}
	}
	b.WriteByte('"')
}
