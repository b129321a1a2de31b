package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

func mustID(t *testing.T, raw string) requestID {
	t.Helper()
	id, err := parseID(json.RawMessage(raw))
	if err != nil {
		t.Fatalf("parseID(%s): %v", raw, err)
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
			id, err := parseID(json.RawMessage(tt.raw))
			if (err == nil) != tt.ok {
				t.Fatalf("parseID(%s) error %v, want ok=%v", tt.raw, err, tt.ok)
			}
			got := string(appendID(nil, id))
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
		if got := mustID(t, tt.a).key == mustID(t, tt.b).key; got != tt.same {
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

func TestMCPLineUsesOnlyExactMembers(t *testing.T) {
	var m members
	line := `{"ID":5,"Method":"x","jsonrpc":"2.0","id":"client","method":"ping","params":{"a":1},"extra":true,"id":"last"}`
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatal(err)
	}
	if string(m["id"]) != `"last"` {
		t.Fatalf("the last id must count, got %s", m["id"])
	}
	got := string(mcpLine(m, internalID(mustID(t, `"last"`))))
	want := `{"jsonrpc":"2.0","id":"hermes-stdio-id:\"last\"","method":"ping","params":{"a":1}}`
	if got != want {
		t.Errorf("mcpLine = %s, want %s", got, want)
	}
	if got := string(mcpLine(members{"method": json.RawMessage(`"n"`)}, nil)); got != `{"method":"n"}` {
		t.Errorf("notification mcpLine = %s", got)
	}
}

// idCases are the ids the wire tests send, as raw tokens, with whether
// they are usable ids. Shared by the in-process and subprocess tests.
var idCases = []struct {
	name, raw string
	ok        bool
}{
	{"small int", "7", true},
	{"2^53+1", "9007199254740993", true},
	{"2^70", "1180591620717411303424", true},
	{"negative", "-3", true},
	{"exponent form", "1e3", true},
	{"fraction", "2.5", true},
	{"string", `"abc"`, true},
	{"unicode string", `"héllo ☃ 𝄞"`, true},
	{"escaped string", `"\u00e9\"\\"`, true},
	{"empty string", `""`, true},
	{"null", "null", false},
	{"object", `{"a":1}`, false},
	{"array", "[1,2]", false},
	{"true", "true", false},
	{"false", "false", false},
}

// serveRaw runs Serve over input until EOF and returns its output lines as
// written, checking each is valid UTF-8 JSON.
func serveRaw(t *testing.T, input string) []string {
	t.Helper()
	var out bytes.Buffer
	srv := newTestServer(tool("echo", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo"), nil
	}))
	if err := Serve(context.Background(), srv, strings.NewReader(input), &out, Options{Methods: testMethods(), ServerInfo: testInfo}); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if !utf8.Valid(l) || !json.Valid(l) {
			t.Fatalf("output line is not UTF-8 JSON: %q", l)
		}
		lines = append(lines, string(l))
	}
	return lines
}

// Each id kind, through each way a request is answered (mcp-go's generic
// encoder, the direct tools/call encoder, a loop-served method): a usable
// id comes back byte for byte, anything else gets -32600 with id null.
func TestIDsRoundTrip(t *testing.T) {
	requests := map[string]string{
		"mcp-go ping":    `{"jsonrpc":"2.0","id":%s,"method":"ping"}`,
		"tools/call":     `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		"loop method":    `{"jsonrpc":"2.0","id":%s,"method":"x/echo"}`,
		"mcp-go error":   `{"jsonrpc":"2.0","id":%s,"method":"no/such"}`,
		"missing method": `{"jsonrpc":"2.0","id":%s}`,
	}
	for _, tc := range idCases {
		for kind, format := range requests {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				lines := serveRaw(t, fmt.Sprintf(format, tc.raw)+"\n")
				if len(lines) != 1 {
					t.Fatalf("got %d lines, want 1: %q", len(lines), lines)
				}
				want := `{"jsonrpc":"2.0","id":` + tc.raw + `,`
				if !tc.ok {
					want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`
				}
				if !strings.HasPrefix(lines[0], want) {
					t.Errorf("got %s\nwant it to start %s", lines[0], want)
				}
			})
		}
	}
}

// Invalid UTF-8 anywhere in a line (id, method, params) is refused with a
// parse error and never echoed.
func TestInvalidUTF8IsRefused(t *testing.T) {
	for name, line := range map[string]string{
		"in a string id":   "{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}",
		"in the method":    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\xc3ng\"}",
		"in params":        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x/echo\",\"params\":{\"p\":\"\xed\xa0\x80\"}}",
		"in a member name": "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"\xfe\":1}",
		"outside strings":  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\xff",
		"truncated rune":   "{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x98\",\"method\":\"ping\"}",
	} {
		t.Run(name, func(t *testing.T) {
			lines := serveRaw(t, line+"\n")
			want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not valid UTF-8; JSON text must be UTF-8"}}`
			if len(lines) != 1 || lines[0] != want {
				t.Errorf("got %q, want %s", lines, want)
			}
		})
	}
}

// A JSON-RPC reply from the client is never answered, whatever its id.
func TestClientRepliesAreNotAnswered(t *testing.T) {
	for _, tc := range idCases {
		if lines := serveRaw(t, `{"jsonrpc":"2.0","id":`+tc.raw+`,"result":{}}`+"\n"+`{"jsonrpc":"2.0","id":`+tc.raw+`,"error":{"code":1,"message":"x"}}`+"\n"); len(lines) != 0 {
			t.Errorf("%s: answered a reply: %q", tc.name, lines)
		}
	}
}

// Ids are compared exactly: 2^53 and 2^53+1 (equal as float64) are two
// calls in flight, a cancel names only its own call, and 1 and 1.0 are the
// same id, so the second is refused while the first runs.
func TestInFlightIDsComparedExactly(t *testing.T) {
	cancelled := make(chan string, 4)
	srv := newTestServer(tool("block", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tag := fmt.Sprint(req.GetArguments()["tag"])
		select {
		case <-ctx.Done():
			cancelled <- tag
			return nil, ctx.Err()
		case <-time.After(300 * time.Millisecond):
			return mcp.NewToolResultText(tag), nil
		}
	}))
	c := startServe(t, context.Background(), srv)
	c.send(initLine)
	c.untilID(`"init"`)
	call := func(id, tag string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"block","arguments":{"tag":"` + tag + `"}}}` + "\n"
	}
	c.send(call("9007199254740992", "a") + call("9007199254740993", "b") + call("1", "c") + call("1.0", "d") +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}` + "\n")
	got := map[string]string{}
	for len(got) < 3 {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				Content []mcp.TextContent `json:"content"`
			} `json:"result"`
			Error *struct{ Message string } `json:"error"`
		}
		l := c.next()
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.Error != nil:
			got[string(m.ID)] = "error: " + m.Error.Message
		case m.Result != nil && len(m.Result.Content) == 1:
			got[string(m.ID)] = m.Result.Content[0].Text
		default:
			t.Fatalf("unexpected line %s", l)
		}
	}
	want := map[string]string{
		"9007199254740992": "a",
		"1":                "c",
		"1.0":              "error: Invalid Request: id 1.0 is already in use by a request in progress",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("id %s: got %q, want %q", id, got[id], w)
		}
	}
	if tag := <-cancelled; tag != "b" {
		t.Errorf("the cancel for 9007199254740993 cancelled call %q", tag)
	}
	c.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n")
	if before, _ := c.untilID(`"after"`); len(before) != 0 {
		t.Errorf("extra lines (the cancelled call answered?): %s", before)
	}
}
