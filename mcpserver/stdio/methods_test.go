package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// testMethods are the loop-served methods the tests use.
func testMethods() map[string]MethodFunc {
	return map[string]MethodFunc{
		"x/echo": func(ctx context.Context, params json.RawMessage) (any, error) {
			return map[string]any{"params": params, "modern": server.IsModernRequest(ctx), "version": server.RequestProtocolVersion(ctx)}, nil
		},
		"x/invalid": func(ctx context.Context, params json.RawMessage) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", &Error{Code: InvalidParams, Message: "No such thing", Data: map[string]string{"uri": "x://y"}})
		},
		"x/broken": func(ctx context.Context, params json.RawMessage) (any, error) {
			return nil, errors.New("disk on fire")
		},
		"x/panic": func(ctx context.Context, params json.RawMessage) (any, error) {
			panic("boom")
		},
		"x/array": func(ctx context.Context, params json.RawMessage) (any, error) {
			return []int{1}, nil
		},
		"x/own-meta": func(ctx context.Context, params json.RawMessage) (any, error) {
			return map[string]any{"resultType": "input_required", "_meta": map[string]any{"k": "v"}}, nil
		},
		// tools/list is mcp-go's; listing it here replaces it.
		"tools/list": func(ctx context.Context, params json.RawMessage) (any, error) {
			return map[string]any{"replaced": true}, nil
		},
	}
}

var testInfo = mcp.Implementation{Name: "t", Version: "1"}

// serveLines runs Serve over input until EOF and returns its output lines,
// re-encoded with sorted keys.
func serveLines(t *testing.T, input string) []string {
	t.Helper()
	var out bytes.Buffer
	err := Serve(context.Background(), newTestServer(), bytes.NewReader([]byte(input)), &out, Options{Methods: testMethods(), ServerInfo: testInfo})
	if err != nil {
		t.Fatalf("Serve: %v", err)
	}
	var lines []string
	for _, l := range bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, sortedJSON(t, l))
		}
	}
	return lines
}

func sortedJSON(t *testing.T, raw []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("output %q is not JSON: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestMethods(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"legacy result", `{"jsonrpc":"2.0","id":1,"method":"x/echo","params":{"a":1}}`,
			`{"id":1,"jsonrpc":"2.0","result":{"modern":false,"params":{"a":1},"version":""}}`},
		{"no params and a string id", `{"jsonrpc":"2.0","id":"s","method":"x/echo"}`,
			`{"id":"s","jsonrpc":"2.0","result":{"modern":false,"params":null,"version":""}}`},
		{"typed error with data", `{"jsonrpc":"2.0","id":2,"method":"x/invalid"}`,
			`{"error":{"code":-32602,"data":{"uri":"x://y"},"message":"No such thing"},"id":2,"jsonrpc":"2.0"}`},
		{"other error", `{"jsonrpc":"2.0","id":3,"method":"x/broken"}`,
			`{"error":{"code":-32603,"message":"disk on fire"},"id":3,"jsonrpc":"2.0"}`},
		{"panic", `{"jsonrpc":"2.0","id":4,"method":"x/panic"}`,
			`{"error":{"code":-32603,"message":"Internal error: boom"},"id":4,"jsonrpc":"2.0"}`},
		{"bad jsonrpc version", `{"jsonrpc":"1.0","id":5,"method":"x/echo"}`,
			`{"error":{"code":-32600,"message":"Invalid JSON-RPC version"},"id":5,"jsonrpc":"2.0"}`},
		{"modern result is decorated", `{"jsonrpc":"2.0","id":6,"method":"x/echo","params":{` + modernMeta + `}}`,
			`{"id":6,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"}},"modern":true,"params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"resultType":"complete","version":"2026-07-28"}}`},
		{"modern keeps what the method set", `{"jsonrpc":"2.0","id":7,"method":"x/own-meta","params":{` + modernMeta + `}}`,
			`{"id":7,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"t","version":"1"},"k":"v"},"resultType":"input_required"}}`},
		{"modern non-object result", `{"jsonrpc":"2.0","id":8,"method":"x/array","params":{` + modernMeta + `}}`,
			`{"error":{"code":-32603,"message":"Internal error: encode result: result is not a JSON object"},"id":8,"jsonrpc":"2.0"}`},
		{"legacy non-object result passes", `{"jsonrpc":"2.0","id":9,"method":"x/array"}`,
			`{"id":9,"jsonrpc":"2.0","result":[1]}`},
		{"modern unsupported version", `{"jsonrpc":"2.0","id":10,"method":"x/echo","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			`{"error":{"code":-32022,"data":{"requested":"2099-01-01","supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"]},"message":"unsupported protocol version: \"2099-01-01\" (supported: [2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05])"},"id":10,"jsonrpc":"2.0"}`},
		{"modern without client capabilities", `{"jsonrpc":"2.0","id":11,"method":"x/echo","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"error":{"code":-32602,"message":"missing or invalid _meta field io.modelcontextprotocol/clientCapabilities"},"id":11,"jsonrpc":"2.0"}`},
		{"replaces an mcp-go method", `{"jsonrpc":"2.0","id":12,"method":"tools/list"}`,
			`{"id":12,"jsonrpc":"2.0","result":{"replaced":true}}`},
		{"notifications are not routed", `{"jsonrpc":"2.0","method":"x/echo"}`, ``},
		{"unlisted methods reach mcp-go", `{"jsonrpc":"2.0","id":13,"method":"x/none"}`,
			`{"error":{"code":-32601,"message":"Method x/none not found"},"id":13,"jsonrpc":"2.0"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := serveLines(t, tt.line+"\n")
			switch {
			case tt.want == "" && len(got) != 0:
				t.Fatalf("got %v, want no output", got)
			case tt.want == "":
			case len(got) != 1 || got[0] != sortedJSON(t, []byte(tt.want)):
				t.Fatalf("got\n%v\nwant\n%s", got, sortedJSON(t, []byte(tt.want)))
			}
		})
	}
}

// A loop-served method runs on its own goroutine like any request, and a
// client's cancel reaches its context and suppresses its response.
func TestMethodConcurrencyAndCancel(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan error, 1)
	methods := map[string]MethodFunc{
		"x/block": func(ctx context.Context, _ json.RawMessage) (any, error) {
			close(started)
			<-ctx.Done()
			cancelled <- ctx.Err()
			return map[string]any{}, nil
		},
		"x/quick": func(ctx context.Context, _ json.RawMessage) (any, error) {
			return map[string]any{"ok": true}, nil
		},
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), newTestServer(), inR, outW, Options{Methods: methods})
		outW.Close()
	}()
	out := make(chan string, 16)
	go func() {
		var buf bytes.Buffer
		b := make([]byte, 4096)
		for {
			n, err := outR.Read(b)
			buf.Write(b[:n])
			for {
				line, rest, ok := bytes.Cut(buf.Bytes(), []byte("\n"))
				if !ok {
					break
				}
				out <- string(line)
				buf = *bytes.NewBuffer(append([]byte(nil), rest...))
			}
			if err != nil {
				close(out)
				return
			}
		}
	}()
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"x/block"}`+"\n")
	<-started
	// The blocked call holds no lock the next request needs.
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"x/quick"}`+"\n")
	select {
	case line := <-out:
		if sortedJSON(t, []byte(line)) != `{"id":2,"jsonrpc":"2.0","result":{"ok":true}}` {
			t.Fatalf("first response = %s, want the quick call's", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("quick call not answered while another call blocks")
	}
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ctx.Err() = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancel did not reach the method")
	}
	inW.Close()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for line := range out {
		t.Errorf("unexpected output after cancel: %s", line)
	}
}

// Protocol errors of loop-served methods are the ones mcp-go gives for its
// own methods, so a client cannot tell who answered.
func TestMethodProtocolErrorsMatchMCPGo(t *testing.T) {
	metas := []string{
		`{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":7}`,
	}
	for _, meta := range metas {
		got := append(serveLines(t, `{"jsonrpc":"2.0","id":1,"method":"x/echo","params":{"_meta":`+meta+`}}`+"\n"),
			serveLines(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"none","_meta":`+meta+`}}`+"\n")...)
		if len(got) != 2 || got[0] != got[1] {
			t.Errorf("_meta %s: loop and mcp-go answered differently:\n%s", meta, got)
		}
	}
}
