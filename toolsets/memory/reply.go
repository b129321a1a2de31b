package memory

import (
	"bytes"
	"strconv"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Reply is the JSON object a memory call answers with, keys in the
// original's order (a model reads the text, and the same shape from both
// implementations keeps a prompt that works with one working with the
// other).
type Reply struct {
	// OK is the reply's "success".
	OK bool
	// Message is the success message, or the error text.
	Message string
	body    object
}

// MarshalJSON encodes the reply object.
func (r Reply) MarshalJSON() ([]byte, error) { return r.body.MarshalJSON() }

// Get returns the value of one key of the reply, for callers that inspect
// a field (tests, logs).
func (r Reply) Get(key string) (any, bool) {
	for _, f := range r.body {
		if f.key == key {
			return f.val, true
		}
	}
	return nil, false
}

// field is one key of an ordered JSON object.
type field struct {
	key string
	val any
}

// object is a JSON object that keeps its keys in the order given.
type object []field

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := tooldef.EncodeJSON(f.key)
		if err != nil {
			return nil, err
		}
		v, err := tooldef.EncodeJSON(f.val)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// indexedText is one op's previous entry in a batch reply.
type indexedText struct {
	op   int
	text string
}

// indexed maps 1-based op numbers to entry text, in op order: the
// original's dict has int keys, which JSON spells as strings.
type indexed []indexedText

func (x indexed) MarshalJSON() ([]byte, error) {
	o := make(object, len(x))
	for i, e := range x {
		o[i] = field{strconv.Itoa(e.op), e.text}
	}
	return o.MarshalJSON()
}

// failure is the store's refusal shape: success, error, then extras.
func failure(msg string, extras ...field) Reply {
	return Reply{Message: msg, body: append(object{{"success", false}, {"error", msg}}, extras...)}
}

// maxErrorChars is the original's cap on an error text that quotes
// arguments (its tool_error and target check), so a huge argument echoed
// back cannot flood the context.
const maxErrorChars = 2048

func boundError(msg string) string {
	if r := []rune(msg); len(r) > maxErrorChars {
		return string(r[:maxErrorChars]) + "… [truncated]"
	}
	return msg
}

// toolError is the original's dispatcher refusal shape: error first, then
// success.
func toolError(msg string) Reply {
	msg = boundError(msg)
	return Reply{Message: msg, body: object{{"error", msg}, {"success", false}}}
}

// result turns a reply into a tool result: a refusal is an error result.
func (r Reply) result() tooldef.Result {
	if r.OK {
		return tooldef.OK(r)
	}
	return tooldef.Failure(r)
}
