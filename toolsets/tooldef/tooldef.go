// Package tooldef declares what a Hermes tool is: its name, description, JSON
// schemas, behaviour hints and handler. A tool is declared once, in its
// toolset package, and every surface (the MCP server, the agent's dynamic
// tools for codex) is built from that one declaration. Nothing here depends on
// an MCP library, so the declarations can be served by anything.
package tooldef

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Tool is one callable capability.
type Tool struct {
	// Name is the wire name. It stays within [A-Za-z0-9_.-] and 63 bytes, the
	// intersection every MCP client accepts.
	Name string
	// Title is a short human-facing label; optional.
	Title string
	// Description tells a model when and how to use the tool.
	Description string
	// InputSchema is the JSON Schema of the arguments, advertised verbatim
	// and enforced before the handler runs.
	InputSchema json.RawMessage
	// OutputSchema, when set, describes the JSON result; the result is then
	// also sent as structuredContent.
	OutputSchema json.RawMessage
	// Hints are the MCP behaviour annotations. Every field is explicit so a
	// declaration cannot silently fall back to the spec's pessimistic
	// defaults.
	Hints Hints
	// Handler runs a call. Arguments have already been validated against
	// InputSchema.
	Handler Handler
	// Check reports whether the tool can work in this process (a backend is
	// configured, a binary is installed). A non-nil error hides the tool and
	// its text is shown to the user as the reason. Nil Check means always
	// available.
	Check func() error
}

// Hints are the MCP tool annotations. They are hints to clients, never
// enforcement, but clients use them to decide what needs confirmation, so
// they must be true to what the handler does.
type Hints struct {
	// ReadOnly: the tool does not modify its environment.
	ReadOnly bool
	// Destructive: a modifying tool may delete or overwrite existing data.
	// Meaningless when ReadOnly is set and must then be false.
	Destructive bool
	// Idempotent: repeating a call with the same arguments has no further
	// effect.
	Idempotent bool
	// OpenWorld: the tool reaches entities outside the local machine (the
	// web, a remote API).
	OpenWorld bool
}

// Handler runs one tool call. It returns a Result for every outcome the model
// can act on, failures included (Result.IsError); a non-nil error means a
// programming or infrastructure failure.
type Handler func(ctx context.Context, args json.RawMessage) (Result, error)

// Result is what a call produced.
type Result struct {
	// Value is the JSON-serialisable result. It is sent as text content and,
	// when the tool has an output schema, as structuredContent. A
	// json.RawMessage is sent verbatim (it must be valid, compact JSON; see
	// EncodeJSON), which lets a tool cache an encoded result. A string is
	// sent as plain text.
	Value any
	// IsError marks a failure the model should see and can act on.
	IsError bool
	// Images are extra image content blocks sent after the text.
	Images []Image
}

// Image is binary image content.
type Image struct {
	MIMEType string
	Data     []byte
}

// OK returns a successful result carrying v.
func OK(v any) Result { return Result{Value: v} }

// Failure returns an error result carrying v, for tools whose error shape is
// richer than a message (extra keys such as available choices).
func Failure(v any) Result { return Result{Value: v, IsError: true} }

// Errorf returns an error result in the shape Hermes tools use,
// {"success": false, "error": "..."}.
func Errorf(format string, args ...any) Result {
	return Failure(map[string]any{"success": false, "error": fmt.Sprintf(format, args...)})
}

// DecodeArgs decodes validated arguments into T: the one decode of a
// call's arguments, from the bytes the client sent. An empty or null
// argument object decodes to T's zero value. A number JSON Schema counts
// as an integer (2.0, 1e1) reads into an integer field as its value,
// though encoding/json refuses such a literal there.
func DecodeArgs[T any](args json.RawMessage) (T, error) {
	var v T
	if len(args) == 0 || string(args) == "null" {
		return v, nil
	}
	err := json.Unmarshal(args, &v)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
		if plain, ok := plainIntegers(args); ok {
			var w T
			if json.Unmarshal(plain, &w) == nil {
				return w, nil
			}
		}
	}
	if err != nil {
		return v, fmt.Errorf("decode arguments: %w", err)
	}
	return v, nil
}

// plainIntegers rewrites every integral number written with a fraction or
// an exponent (2.0, 1e1) as a plain integer, up to 1e21 (past that a
// number fits no Go integer anyway); false when there is none. It runs
// only after a decode failed on such a number.
func plainIntegers(args json.RawMessage) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	changed := false
	limit := new(big.Rat).SetFloat64(1e21)
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case json.Number:
			s := t.String()
			if !strings.ContainsAny(s, ".eE") || len(s) > 64 {
				return t
			}
			// big.Rat would build 10^exponent: keep the exponent to what
			// can still be an integer below the limit.
			if i := strings.IndexAny(s, "eE"); i >= 0 {
				if e, err := strconv.Atoi(s[i+1:]); err != nil || e < -64 || e > 64 {
					return t
				}
			}
			r, ok := new(big.Rat).SetString(s)
			if !ok || !r.IsInt() || new(big.Rat).Abs(r).Cmp(limit) >= 0 {
				return t
			}
			changed = true
			return json.Number(r.Num().String())
		case map[string]any:
			for k, e := range t {
				t[k] = walk(e)
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e)
			}
		}
		return x
	}
	v = walk(v)
	if !changed {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// EncodeJSON encodes v compactly, without HTML escaping (which only makes
// code and markup harder for a model to read), for use as a Value.
func EncodeJSON(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// Toolset is a named group of tools that is enabled or disabled as a unit.
type Toolset struct {
	// Name is what users type in --toolsets.
	Name string
	// Description is one line for docs and the server instructions.
	Description string
	// Default toolsets are enabled when the user names none.
	Default bool
	// Instructions is one line of advice on using the toolset, added to
	// the server's instructions when any of its tools is exposed.
	Instructions string
	// Tools are the toolset's declarations, in presentation order.
	Tools []Tool
	// EnvVars names the environment variables the toolset reads. Clients
	// that do not pass their environment to MCP servers (codex) must be
	// told these names; hermes-migrate lists them.
	EnvVars []string
}

// progressKey carries the progress reporter of the current call.
type progressKey struct{}

// ProgressFunc reports progress of a long call. total is 0 when unknown.
type ProgressFunc func(progress, total float64, message string)

// WithProgress returns a context whose calls to ReportProgress reach fn.
// The serving layer installs it when the client asked for progress.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress sends a progress update for the current call if the client
// asked for them; otherwise it does nothing. Handlers call it only for work
// that is genuinely long, and throttle it: clients drop progress that
// arrives after the result.
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	if fn, ok := ctx.Value(progressKey{}).(ProgressFunc); ok && fn != nil {
		fn(progress, total, message)
	}
}
