package jsonrpc

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func mustID(t *testing.T, raw string) ID {
	t.Helper()
	id, err := ParseID(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("ParseID(%s): %v", raw, err)
	}
	return id
}

// Every kind of id a client may send: accepted ids are written back byte
// for byte; the rest are refused.
func TestParseIDKinds(t *testing.T) {
	tests := []struct {
		name, raw string
		ok        bool
	}{
		{"small int", "7", true},
		{"zero", "0", true},
		{"2^53+1", "9007199254740993", true},
		{"2^70", "1180591620717411303424", true},
		{"negative", "-42", true},
		{"exponent form", "1e3", true},
		{"capital exponent with sign", "1E+3", true},
		{"fraction", "1.5", true},
		{"huge exponent", "1e999999999999999999999", true},
		{"string", `"abc"`, true},
		{"unicode string", `"héllo ☃ 𝄞"`, true},
		{"escaped string", `"a\u00e9\n\"b"`, true},
		{"lone surrogate escape", `"\ud800"`, true},
		{"empty string", `""`, true},
		{"null", "null", false},
		{"object", `{"a":1}`, false},
		{"empty object", `{}`, false},
		{"array", `[1]`, false},
		{"true", "true", false},
		{"false", "false", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := ParseID(json.RawMessage(tt.raw))
			if (err == nil) != tt.ok {
				t.Fatalf("ParseID(%s) error %v, want ok=%v", tt.raw, err, tt.ok)
			}
			got := string(AppendID(nil, id))
			want := tt.raw
			if !tt.ok {
				want = "null"
			}
			if got != want {
				t.Errorf("written back as %s, want %s", got, want)
			}
		})
	}
}

// Which ids are the same id: strings by value, numbers by exact value,
// never a string and a number.
func TestIDEquality(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"7", "7", true},
		{"7", "7.0", true},
		{"7", "7e0", true},
		{"7", "70e-1", true},
		{"1e3", "1000", true},
		{"1E+3", "1000.000", true},
		{"0", "-0", true},
		{"0", "0.0e5", true},
		{"-5", "5", false},
		{"9007199254740992", "9007199254740993", false},
		{"1180591620717411303424", "1180591620717411303425", false},
		{"1180591620717411303424", "1.180591620717411303424e21", true},
		{"1.5", "1.50", true},
		{"1.5", "1.05", false},
		{"1e999999999999999999999", "1e999999999999999999998", false},
		{"7", `"7"`, false},
		{`"abc"`, `"abc"`, true},
		{`"a"`, `"\u0061"`, true},
		{`""`, `"\u0000"`, false},
		{`"é"`, `"e\u0301"`, false}, // no Unicode normalisation
	}
	for _, tt := range tests {
		if got := mustID(t, tt.a).Key() == mustID(t, tt.b).Key(); got != tt.same {
			t.Errorf("%s and %s: same id is %v, want %v", tt.a, tt.b, got, tt.same)
		}
	}
}

// numberKey must refuse what is not a JSON number (the line is checked as
// JSON before, but the key must not depend on that for its exactness).
func TestNumberKeyRejectsNonNumbers(t *testing.T) {
	for _, raw := range []string{"-", "01", "1.", ".5", "1e", "1e+", "+1", "1x", "--1", "0x10", "NaN", "Infinity"} {
		if k, ok := numberKey([]byte(raw)); ok {
			t.Errorf("numberKey(%q) = %q, want refusal", raw, k)
		}
	}
}

// Members are read by their exact names, the last of a repeated name
// counts, and names are compared after unescaping.
func TestParseUsesOnlyExactMembers(t *testing.T) {
	line := `{"ID":5,"Method":"x","jsonrpc":"2.0","id":"client","method":"ping","params":{"a":1},"extra":true,"\u0069d":"last"}`
	msg, rerr := Parse([]byte(line))
	if rerr != nil {
		t.Fatal(rerr)
	}
	if msg.Kind != KindRequest || msg.ID.String() != `"last"` || msg.Method != "ping" || string(msg.Params) != `{"a":1}` || string(msg.Version) != `"2.0"` {
		t.Errorf("Parse = %+v", msg)
	}
	msg, rerr = Parse([]byte(`{"method":"n","Id":3}`))
	if rerr != nil || msg.Kind != KindNotification || msg.ID.Valid() {
		t.Errorf("a notification with a capitalised Id: %+v %v", msg, rerr)
	}
}

// The gate: what each malformed line is answered with, and what passes.
func TestParse(t *testing.T) {
	tests := []struct {
		line string
		kind Kind
		err  string // the error line; "" when the message passes
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest, ``},
		{` {"jsonrpc":"2.0","method":"ping","params":{}} `, KindNotification, ``},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, KindReply, ``},
		{`{"jsonrpc":"2.0","id":{"a":1},"error":{"code":1}}`, KindReply, ``},
		{`{"id":1,"result":null}`, KindReply, ``},
		{"{\"id\":\"a\xffb\",\"method\":\"ping\"}", 0, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid UTF-8; JSON text must be UTF-8"}}`},
		{`not json`, 0, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid JSON; send one JSON-RPC message per line"}}`},
		{`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, 0, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported; send one message per line"}}`},
		{`"ping"`, 0, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}`},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, 0, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, 0, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`},
		{`{"jsonrpc":"2.0","id":4}`, 0, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request: missing method"}}`},
		{`{"jsonrpc":"2.0"}`, 0, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: missing method"}}`},
		{`{"jsonrpc":"2.0","id":"five","method":7}`, 0, `{"jsonrpc":"2.0","id":"five","error":{"code":-32600,"message":"Invalid Request: method must be a string"}}`},
	}
	for _, tt := range tests {
		msg, rerr := Parse([]byte(tt.line))
		switch {
		case tt.err != "" && rerr == nil:
			t.Errorf("Parse(%s) passed as %+v", tt.line, msg)
		case tt.err != "" && string(rerr.Line()) != tt.err+"\n":
			t.Errorf("Parse(%s)\n got %s\nwant %s", tt.line, rerr.Line(), tt.err)
		case tt.err == "" && rerr != nil:
			t.Errorf("Parse(%s): %v", tt.line, rerr)
		case tt.err == "" && msg.Kind != tt.kind:
			t.Errorf("Parse(%s) kind %v, want %v", tt.line, msg.Kind, tt.kind)
		}
	}
}

// Members walks any valid object, nested values and escapes included.
func TestMembers(t *testing.T) {
	obj := ` { "a" : [1, {"b":"}]\""}] , "c\"d":{"e":null},"f":-1.5e3,"g":true , "h":"x\\"} `
	var got []string
	for name, v := range Members([]byte(obj)) {
		got = append(got, name+"="+string(v))
	}
	want := []string{`a=[1, {"b":"}]\""}]`, `c"d={"e":null}`, `f=-1.5e3`, `g=true`, `h="x\\"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Members:\n got %q\nwant %q", got, want)
	}
}

// Calls: an id in use is refused, a cancel finds its call by exact id and
// marks it cancelled by the client, and End frees the id.
func TestCalls(t *testing.T) {
	var c Calls
	ctx, a, ok := c.Begin(context.Background(), mustID(t, "1"))
	if !ok {
		t.Fatal("Begin refused a free id")
	}
	if _, _, ok := c.Begin(context.Background(), mustID(t, "1.0")); ok {
		t.Fatal("1.0 accepted while 1 is in flight")
	}
	if c.Cancel(json.RawMessage(`{"requestId":"1"}`)) {
		t.Fatal(`the string "1" cancelled the number 1`)
	}
	if !c.Cancel(json.RawMessage(`{"requestId":10e-1,"reason":"stop"}`)) || ctx.Err() == nil {
		t.Fatal("cancel by exact value did not cancel")
	}
	if !c.End(mustID(t, "1"), a) {
		t.Error("End did not report the client's cancel")
	}
	ctx, b, ok := c.Begin(context.Background(), mustID(t, "1"))
	if !ok {
		t.Fatal("the id is still in use after End")
	}
	c.CancelAll()
	if ctx.Err() == nil {
		t.Error("CancelAll left a call running")
	}
	if c.End(mustID(t, "1"), b) {
		t.Error("a server cancel was taken for the client's")
	}
}
