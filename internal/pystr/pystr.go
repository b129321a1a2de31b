// Package pystr holds the few Python string rules the original's files are
// written and read by, where Go's own differ: what str.isspace() calls
// whitespace (and so what str.strip() and a Unicode regex's \s remove).
// Compatibility with the Python Hermes lives in such details: a name or an
// entry the original strips must strip the same here.
package pystr

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
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
	}
	return true
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
