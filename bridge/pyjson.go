package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/pystr"
)

// Transcript JSON is written the way the Python Hermes writes it
// (json.dumps(v, ensure_ascii=False, sort_keys=True)): keys sorted, ", " and
// ": " separators, non-ASCII kept, only quotes, backslashes and control
// characters escaped. Both implementations write into the same session
// history, and tool-call arguments that differ in formatting alone would
// defeat prompt caching and make transcripts diff noisily.

// pyDumps encodes a decoded JSON value (as produced by decodeAny) in Python's
// format.
func pyDumps(v any) string {
	var b strings.Builder
	pyEncode(&b, v)
	return b.String()
}

// pyDumpsRaw re-encodes raw JSON in Python's format. Invalid JSON is returned
// as a JSON string, so the result is always valid JSON.
func pyDumpsRaw(raw json.RawMessage) string {
	v, err := decodeAny(raw)
	if err != nil {
		return pyDumps(string(raw))
	}
	return pyDumps(v)
}

// decodeAny decodes JSON keeping numbers as written.
func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	return v, nil
}

func pyEncode(b *strings.Builder, v any) {
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
		b.WriteString(x.String())
	case float64:
		fmt.Fprint(b, x)
	case int:
		fmt.Fprint(b, x)
	case int64:
		fmt.Fprint(b, x)
	case string:
		pyString(b, x)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			pyEncode(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys) // Python sorts str keys by code point, as Go sorts UTF-8 bytes
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			pyString(b, k)
			b.WriteString(": ")
			pyEncode(b, x[k])
		}
		b.WriteByte('}')
	case json.RawMessage:
		if v, err := decodeAny(x); err == nil {
			pyEncode(b, v)
		} else {
			pyString(b, string(x))
		}
	default:
		// Our own structs: through encoding/json, then normalised.
		raw, err := json.Marshal(x)
		if err != nil {
			pyString(b, fmt.Sprint(x))
			return
		}
		pyEncode(b, json.RawMessage(raw))
	}
}

// pyString writes s as json.dumps(..., ensure_ascii=False) does.
func pyString(b *strings.Builder, s string) { pystr.WriteJSONString(b, s, false) }

// truncateRunes keeps the first n characters of s, as Python's s[:n] does.
func truncateRunes(s string, n int) string {
	if len(s) <= n { // fast path: n bytes hold at least n runes
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
