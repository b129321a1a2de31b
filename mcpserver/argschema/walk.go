package argschema

// The checker reads the arguments where they lie, as bytes, and builds no
// Go values from them: the tool's handler decodes them into its own types
// afterwards, and that is the one decode a call's arguments get. Only the
// error path decodes a fragment, to quote it.

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// value is one JSON value inside arguments that are known to be valid
// JSON, without surrounding space.
type value []byte

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // a number, true, false or null
		for i < len(b) && !bytes.ContainsRune([]byte(" \t\r\n,]}"), rune(b[i])) {
			i++
		}
		return i
	}
}

// stringEnd returns the index just past the string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// kind is the value's JSON type name.
func (v value) kind() string {
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// elements calls fn with each element of an array, or each member of an
// object (name is the member's raw name, quotes included).
func (v value) elements(fn func(name, elem value)) {
	i := skipSpace(v, 1)
	for i < len(v) && v[i] != ']' && v[i] != '}' {
		var name value
		if v[0] == '{' {
			end := stringEnd(v, i)
			name = v[i:end]
			i = skipSpace(v, skipSpace(v, end)+1) // past the colon
		}
		end := valueEnd(v, i)
		fn(name, v[i:end])
		i = skipSpace(v, end)
		if i < len(v) && v[i] == ',' {
			i = skipSpace(v, i+1)
		}
	}
}

// items are an array's elements.
func (v value) items() []value {
	var out []value
	v.elements(func(_, e value) { out = append(out, e) })
	return out
}

// members are an object's members by name; a name given twice keeps its
// last value, as a decoder does.
func (v value) members() map[string]value {
	out := map[string]value{}
	v.elements(func(name, e value) { out[stringOf(name)] = e })
	return out
}

// stringOf is a string value's text, as a decoder yields it (escapes
// resolved, invalid UTF-8 replaced).
func stringOf(v value) string {
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	_ = json.Unmarshal(v, &s) // valid JSON: cannot fail
	return s
}

// equalValues is JSON equality: numbers by value, strings by text, objects
// by members, arrays in order.
func equalValues(a, b value) bool {
	ka := a.kind()
	if ka != b.kind() {
		return false
	}
	switch ka {
	case "number":
		return equal(json.Number(a), json.Number(b))
	case "string":
		return stringOf(a) == stringOf(b)
	case "array":
		return slicesEqual(a.items(), b.items())
	case "object":
		ma, mb := a.members(), b.members()
		if len(ma) != len(mb) {
			return false
		}
		for k, x := range ma {
			y, ok := mb[k]
			if !ok || !equalValues(x, y) {
				return false
			}
		}
		return true
	default: // true, false, null: the literal is the value
		return bytes.Equal(a, b)
	}
}

func slicesEqual(a, b []value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !equalValues(a[i], b[i]) {
			return false
		}
	}
	return true
}

// renderValue quotes a value in an error, as render quotes a decoded one.
func renderValue(v value) string {
	d, err := decode(v)
	if err != nil {
		return Excerpt(string(v), 77)
	}
	return render(d)
}

// valueHasType reports whether v is of the JSON Schema type t; integer is
// a number without a fractional part, in any notation.
func valueHasType(v value, t string) bool {
	if t == "integer" {
		return v.kind() == "number" && isInteger(string(v))
	}
	return v.kind() == t
}
