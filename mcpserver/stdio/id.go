package stdio

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
)

// requestID is a request's id as the client sent it. parseID is the one
// place ids are read and appendID the one place they are written; nothing
// else looks inside one.
//
// The rule:
//
//   - A string or a number is an id. It is written back as the exact token
//     the client sent (after the line has been checked to be valid UTF-8
//     JSON), never through a float64: 9007199254740993 and 2^70 come back
//     digit for digit.
//   - Two ids are the same id (for "already in use" and for
//     notifications/cancelled) when they are the same string after JSON
//     unescaping ("a" and "\u0061"), or the same number by exact decimal
//     value (1, 1.0, 1e0 and 10e-1 are one id; 9007199254740992 and
//     9007199254740993 are two). A string is never the same as a number:
//     "1" and 1 are two ids. JSON-RPC says ids should not have fractional
//     parts and MCP says integers; a fractional or exponent-form number is
//     still accepted and echoed as sent.
//   - An object, array or boolean is not an id: the request is answered with
//     -32600 and id null. So is null, which MCP forbids as a request id
//     (and which could not be told apart from the null of an error about
//     an unreadable id).
//
// Escaped lone surrogates ("\ud800") decode to U+FFFD, as everywhere in
// encoding/json, so such a string is the same id as "\ufffd"; it is still
// echoed as sent.
type requestID struct {
	raw json.RawMessage // the token as sent; nil for "no usable id"
	key string          // equal exactly for the same id
}

// valid reports whether the id can be answered with (and is not null).
func (id requestID) valid() bool { return id.raw != nil }

// String is for logs and error messages; the wire uses appendID.
func (id requestID) String() string {
	if id.raw == nil {
		return "null"
	}
	return string(id.raw)
}

var errBadID = errors.New("id must be a string or a number")

// parseID reads the id member of a request. raw is the member's value as
// it appears in a line already checked to be valid UTF-8 JSON.
func parseID(raw json.RawMessage) (requestID, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return requestID{}, errBadID
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return requestID{}, errBadID
		}
		return requestID{raw: raw, key: "s:" + s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		key, ok := numberKey(raw)
		if !ok {
			return requestID{}, errBadID
		}
		return requestID{raw: raw, key: key}, nil
	default: // null, true, false, an object or an array
		return requestID{}, errBadID
	}
}

// appendID writes an id to an outgoing line: the client's token, or null
// when the request had no usable id.
func appendID(b []byte, id requestID) []byte {
	if id.raw == nil {
		return append(b, "null"...)
	}
	return append(b, id.raw...)
}

// numberKey is the exact decimal value of a JSON number token, normalised
// to "n:[-]digits e exponent" with no leading or trailing zeros in digits,
// so equal values give equal keys without any floating point. The exponent
// is arbitrary precision: 1e999999999999999999999 is a (silly) id, not an
// overflow.
func numberKey(tok []byte) (string, bool) {
	i := 0
	neg := false
	if i < len(tok) && tok[i] == '-' {
		neg = true
		i++
	}
	start := i
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	intPart := tok[start:i]
	if len(intPart) == 0 || (len(intPart) > 1 && intPart[0] == '0') {
		return "", false
	}
	var frac []byte
	if i < len(tok) && tok[i] == '.' {
		i++
		start = i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		frac = tok[start:i]
		if len(frac) == 0 {
			return "", false
		}
	}
	exp := new(big.Int)
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		i++
		start = i
		if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
			i++
		}
		digits := i
		for i < len(tok) && isDigit(tok[i]) {
			i++
		}
		if i == digits {
			return "", false
		}
		if _, ok := exp.SetString(string(tok[start:i]), 10); !ok {
			return "", false
		}
	}
	if i != len(tok) {
		return "", false
	}
	digits := make([]byte, 0, len(intPart)+len(frac))
	digits = append(append(digits, intPart...), frac...)
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	digits = bytes.TrimLeft(digits, "0")
	if len(digits) == 0 {
		return "n:0", true // -0, 0.0 and 0e7 are all zero
	}
	trimmed := bytes.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	sign := ""
	if neg {
		sign = "-"
	}
	return "n:" + sign + string(trimmed) + "e" + exp.String(), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// internalPrefix marks the id mcp-go is given in place of the client's.
const internalPrefix = "hermes-stdio-id:"

// internalID is the id mcp-go sees in place of the client's: a string
// holding the client's token. mcp-go reads numeric ids into float64
// (losing digits past 2^53, so distinct ids collide in its maps) and would
// write that back; a string it keeps exactly. The response's id is written
// from our requestID, so this string reaches the wire only where mcp-go
// copies the id into a payload (the subscriptionId of subscriptions/listen),
// and there clientID turns it back into the client's token. Two calls in
// flight never share a token (see conn.request), so neither do their
// internal ids.
func internalID(id requestID) json.RawMessage {
	b, _ := json.Marshal(internalPrefix + string(id.raw)) // a string always encodes
	return b
}

// clientID recovers the client's token from an id mcp-go copied into a
// payload.
func clientID(v any) (json.RawMessage, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	raw, ok := strings.CutPrefix(s, internalPrefix)
	if !ok {
		return nil, false
	}
	return json.RawMessage(raw), true
}
