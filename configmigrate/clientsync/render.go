package clientsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// object is a JSON object whose keys keep the order they were added in:
// entries are rendered the way a person would write them (command before
// args before env), and the same input always gives the same bytes.
type object []field

type field struct {
	key string
	val any // string, []string, int64, bool or object
}

func (o *object) set(key string, val any) { *o = append(*o, field{key, val}) }

// layout says how new text should look where it is spliced in.
type layout struct {
	nl     string // "\n" or "\r\n", as the file already uses
	unit   string // one level of indentation
	indent string // indentation of the line the value starts on
	inline bool   // everything on one line, for single-line objects
	tight  bool   // inline without blanks after ':' and ','
}

func (l layout) colon() string {
	if l.tight {
		return ":"
	}
	return ": "
}

func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// Config files are read by people: "<" and "&" stay as written.
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// render writes v in the style of json.MarshalIndent (or compactly with
// single spaces after ':' and ',' when inline).
func render(v any, l layout) string {
	var b strings.Builder
	renderTo(&b, v, l, l.indent)
	return b.String()
}

func renderTo(b *strings.Builder, v any, l layout, indent string) {
	switch v := v.(type) {
	case string:
		b.WriteString(quote(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case []string:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		inner := indent + l.unit
		for i, s := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if l.inline {
				if i > 0 && !l.tight {
					b.WriteByte(' ')
				}
			} else {
				b.WriteString(l.nl + inner)
			}
			b.WriteString(quote(s))
		}
		if !l.inline {
			b.WriteString(l.nl + indent)
		}
		b.WriteByte(']')
	case object:
		if len(v) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		inner := indent + l.unit
		for i, f := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if l.inline {
				if i > 0 && !l.tight {
					b.WriteByte(' ')
				}
			} else {
				b.WriteString(l.nl + inner)
			}
			b.WriteString(quote(f.key))
			b.WriteString(l.colon())
			renderTo(b, f.val, l, inner)
		}
		if !l.inline {
			b.WriteString(l.nl + indent)
		}
		b.WriteByte('}')
	default:
		// Only this package builds objects; another type is a bug here.
		panic(fmt.Sprintf("clientsync: cannot render %T", v))
	}
}
