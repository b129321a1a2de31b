package cron

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hermes-go/hermes/internal/pystr"
)

// object is a JSON object that remembers its key order. The original
// rewrites jobs.json from Python dicts, which keep insertion order, so a
// job we rewrite keeps its keys where the original put them, and keys we
// do not know survive untouched.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

// get returns the value under key and whether it is present.
func (o *object) get(key string) (any, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set replaces key's value in place, or appends the key.
func (o *object) set(key string, v any) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

// str returns key's value when it is a string.
func (o *object) str(key string) string {
	s, _ := o.vals[key].(string)
	return s
}

// decodeOrdered reads one JSON document keeping object key order and
// numbers as written. A repeated key keeps its first position and its
// last value, as a Python dict built by json.load does.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the top-level value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return list, nil
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil // string, json.Number, bool or nil
	}
}

// pyDump encodes v as Python's json.dump(v, f, indent=2) does (the
// original's save_jobs): ensure_ascii on, ", "-free item separators with
// a newline and two spaces per level, ": " after keys, empty containers
// as [] and {}.
func pyDump(v any) []byte {
	var b strings.Builder
	pyEncode(&b, v, 0, true)
	return []byte(b.String())
}

// pyCompact encodes v compactly with non-ASCII kept, for tool results.
func pyCompact(v any) json.RawMessage {
	var b strings.Builder
	pyEncode(&b, v, -1, false)
	return json.RawMessage(b.String())
}

func pyEncode(b *strings.Builder, v any, level int, ascii bool) {
	newline := func(l int) {
		if level >= 0 {
			b.WriteByte('\n')
			b.WriteString(strings.Repeat("  ", l))
		}
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(x))
	case int:
		fmt.Fprintf(b, "%d", x)
	case string:
		pystr.WriteJSONString(b, x, ascii)
	case []string:
		list := make([]any, len(x))
		for i, s := range x {
			list[i] = s
		}
		pyEncode(b, list, level, ascii)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			pyEncode(b, e, next(level), ascii)
		}
		newline(level)
		b.WriteByte(']')
	case *object:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(level + 1)
			pystr.WriteJSONString(b, k, ascii)
			if level >= 0 {
				b.WriteString(": ")
			} else {
				b.WriteByte(':')
			}
			pyEncode(b, x.vals[k], next(level), ascii)
		}
		newline(level)
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("cron: cannot encode %T", v))
	}
}

func next(level int) int {
	if level < 0 {
		return level
	}
	return level + 1
}
