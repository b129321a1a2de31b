package stdio_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/mcpserver/stdio"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

const initLine = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// pipeClient drives Serve over in-memory pipes.
type pipeClient struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan json.RawMessage
	served chan error
}

func startServe(t *testing.T, ctx context.Context, srv jsonrpc.Opener) *pipeClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &pipeClient{t: t, in: inW, lines: make(chan json.RawMessage, 8192), served: make(chan error, 1)}
	go func() {
		c.served <- stdio.Serve(ctx, srv, inR, outW, stdio.Options{})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			c.lines <- append(json.RawMessage(nil), sc.Bytes()...)
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close(); inR.Close() })
	return c
}
func (c *pipeClient) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next returns the next output line, failing after a generous timeout.
func (c *pipeClient) next() json.RawMessage {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatal("server closed its output")
		}
		return l
	case <-time.After(10 * time.Second):
		c.t.Fatal("timed out waiting for server output")
	}
	return nil
}

// untilID reads lines until the response with the given id, returning the
// lines before it and the response.
func (c *pipeClient) untilID(id string) (before []json.RawMessage, resp json.RawMessage) {
	c.t.Helper()
	for {
		l := c.next()
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(l, &m); err != nil {
			c.t.Fatalf("non-JSON line %q", l)
		}
		if m.Method == "" && string(m.ID) == id {
			return before, l
		}
		before = append(before, l)
	}
}

// newTestServer is the real server, serving tools made for these tests
// and the loop methods of testMethods.
func newTestServer(tools ...tooldef.Tool) *mcpserver.Server {
	plan := toolsets.EveryTool(tooldef.Toolset{Name: "test", Description: "stdio test tools", Tools: tools})
	return mcpserver.New(mcpserver.Options{Version: "1", Plan: plan, Methods: testMethods()})
}

func tool(name string, h tooldef.Handler) tooldef.Tool {
	return tooldef.Tool{Name: name, Description: name, InputSchema: json.RawMessage(`{"type":"object"}`), Handler: h}
}

// text is a tool's plain-text result.
func text(s string) tooldef.Result { return tooldef.OK(s) }

func callLine(id any, name string, meta string) string {
	p := fmt.Sprintf(`{"name":%q,"arguments":{}}`, name)
	if meta != "" {
		p = fmt.Sprintf(`{"name":%q,"arguments":{},"_meta":%s}`, name, meta)
	}
	idJSON, _ := json.Marshal(id)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`+"\n", idJSON, p)
}

// Twenty calls that each wait until all twenty are running: with a cap on
// concurrent calls (mcp-go's stdio default is 5) this deadlocks and the
// test times out.
func TestCallsRunConcurrentlyWithoutCap(t *testing.T) {
	const n = 20
	var started sync.WaitGroup
	started.Add(n)
	release := make(chan struct{})
	go func() { started.Wait(); close(release) }()
	srv := newTestServer(tool("gate", func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
		started.Done()
		select {
		case <-release:
			return text("through"), nil
		case <-ctx.Done():
			return tooldef.Result{}, ctx.Err()
		}
	}))
	c := startServe(t, context.Background(), srv)
	c.send(initLine)
	c.untilID(`"init"`)
	var batch strings.Builder
	for i := range n {
		batch.WriteString(callLine(i+1, "gate", ""))
	}
	c.send(batch.String())
	seen := map[string]bool{}
	for len(seen) < n {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result *mcp.CallToolResult
		}
		l := c.next()
		if err := json.Unmarshal(l, &m); err != nil || m.Result == nil {
			t.Fatalf("unexpected line %s", l)
		}
		seen[string(m.ID)] = true
	}
}

// A thousand notifications in a tight loop all arrive, in order, before the
// response (mcp-go's own transport delivers about 100, after it).
func TestProgressFloodDeliveredInOrderBeforeResponse(t *testing.T) {
	const n = 1000
	srv := newTestServer(tool("flood", func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
		for i := range n {
			tooldef.ReportProgress(ctx, float64(i+1), n, "")
		}
		return text("done"), nil
	}))
	c := startServe(t, context.Background(), srv)
	c.send(initLine)
	c.untilID(`"init"`)
	c.send(callLine(1, "flood", `{"progressToken":"p"}`))
	before, resp := c.untilID("1")
	if bytes.Contains(resp, []byte(`"isError":true`)) {
		t.Fatalf("call failed: %s", resp)
	}
	if len(before) != n {
		t.Fatalf("got %d notifications before the response, want %d", len(before), n)
	}
	for i, l := range before {
		var m struct {
			Params struct {
				Progress int `json:"progress"`
			} `json:"params"`
		}
		if err := json.Unmarshal(l, &m); err != nil || m.Params.Progress != i+1 {
			t.Fatalf("notification %d out of order: %s", i, l)
		}
	}
}

// A cancel written in the same write as its request must still cancel it:
// our map is filled before the call's goroutine starts.
func TestCancelInSameWriteAsRequest(t *testing.T) {
	cancelled := make(chan string, 100)
	srv := newTestServer(tool("block", func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
		select {
		case <-ctx.Done():
			cancelled <- "yes"
			return tooldef.Result{}, ctx.Err()
		case <-time.After(10 * time.Second):
			cancelled <- "no"
			return text("not cancelled"), nil
		}
	}))
	c := startServe(t, context.Background(), srv)
	c.send(initLine)
	c.untilID(`"init"`)
	const rounds = 50
	for i := range rounds {
		id := i + 1
		c.send(callLine(id, "block", "") +
			fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`+"\n", id))
	}
	for i := range rounds {
		if got := <-cancelled; got != "yes" {
			t.Fatalf("call %d was not cancelled", i)
		}
	}
	// No response was written for any cancelled call: the next line is the
	// ping's answer.
	c.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}` + "\n")
	if before, _ := c.untilID(`"after"`); len(before) != 0 {
		t.Fatalf("cancelled calls were answered: %s", before)
	}
}

// Cancelling Serve's context cancels running calls and Serve returns.
func TestContextCancelStopsServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	running := make(chan struct{})
	srv := newTestServer(tool("block", func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
		close(running)
		<-ctx.Done()
		return tooldef.Result{}, ctx.Err()
	}))
	c := startServe(t, ctx, srv)
	c.send(initLine)
	c.untilID(`"init"`)
	c.send(callLine(1, "block", ""))
	<-running
	cancel()
	select {
	case err := <-c.served:
		if err != context.Canceled {
			t.Fatalf("Serve returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

// A client that stops reading must not wedge the server forever: once the
// output fails, Serve reports the write error.
func TestWriteErrorEndsServe(t *testing.T) {
	srv := newTestServer()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	outR.Close() // the client went away
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), srv, inR, outW, stdio.Options{}) }()
	io.WriteString(inW, initLine)
	inW.Close()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "closed pipe") {
			t.Fatalf("Serve returned %v, want the write error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve hung after its output closed")
	}
}

// FuzzServe feeds arbitrary bytes to the loop, loop-served methods
// included: it must never panic or hang, and the wire must stay valid
// JSON-RPC (see checkWire).
func FuzzServe(f *testing.F) {
	f.Add([]byte(initLine + callLine(1, "echo", "")))
	f.Add([]byte("not json\n"))
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":null}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	f.Add([]byte("\x00\xff\n{}\n\n"))
	f.Add([]byte(initLine + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":[1,2]}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":3,"method":"x/echo","params":{` + modernMeta + `}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":4,"method":"x/own-meta","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":7}}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":5,"method":"x/panic","params":[1]}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":9007199254740992,"method":"ping"}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1180591620717411303424,"method":"x/echo"}` + "\n" + `{"jsonrpc":"2.0","id":-1.5e-3,"method":"tools/call","params":{"name":"echo"}}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"h\u00e9llo ☃","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"","method":"ping"}` + "\n"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xc3\"}\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":[1],"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1.0,"method":"x/echo"}` + "\n" + `{"ID":2,"jsonrpc":"2.0","method":"ping","id":"last"}` + "\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"s","method":"subscriptions/listen","params":{` + modernMeta + `}}` + "\n"))
	srv := newTestServer(tool("echo", func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
		return text(string(args)), nil
	}))
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- stdio.Serve(context.Background(), srv, bytes.NewReader(input), &out, stdio.Options{})
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Serve hung")
		}
		if err := checkWire(input, out.Bytes()); err != nil {
			t.Fatal(err)
		}
	})
}

// checkWire is the fuzz oracle, written apart from the loop's own parsing:
// every output line is a UTF-8 JSON object with jsonrpc "2.0"; a
// notification has no id; a response has exactly one of result and error,
// and its id is null (errors only) or the exact token of a request line.
// Unless the input cancels something, each request line is answered once,
// under its own token, and each unreadable line or unusable id once with
// id null.
func checkWire(input, output []byte) error {
	want := map[string]int{} // raw id token -> responses still expected
	nulls := 0               // null-id errors expected
	cancels := false
	for _, line := range bytes.Split(input, []byte("\n")) {
		line = bytes.Trim(line, " \t\r\n")
		if len(line) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if !utf8.Valid(line) || !json.Valid(line) || line[0] != '{' || json.Unmarshal(line, &m) != nil {
			nulls++
			continue
		}
		rawMethod, hasMethod := m["method"]
		if !hasMethod && (m["result"] != nil || m["error"] != nil) {
			continue // a reply: never answered
		}
		rawID, hasID := m["id"]
		if hasID && !bytes.ContainsAny(rawID[:1], `"-0123456789`) {
			nulls++ // null, true, false, an object or an array
			continue
		}
		var method string
		if !hasID {
			if json.Unmarshal(rawMethod, &method) == nil && method == "notifications/cancelled" {
				cancels = true
			} else if !hasMethod || json.Unmarshal(rawMethod, &method) != nil {
				nulls++ // not a notification either: invalid, with no id
			}
			continue
		}
		want[string(rawID)]++
	}
	for _, line := range bytes.Split(bytes.TrimSuffix(output, []byte("\n")), []byte("\n")) {
		if len(output) == 0 {
			break
		}
		if !utf8.Valid(line) {
			return fmt.Errorf("output line is not UTF-8: %q", line)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("output line is not a JSON object: %q", line)
		}
		if string(m["jsonrpc"]) != `"2.0"` {
			return fmt.Errorf("output line without jsonrpc 2.0: %q", line)
		}
		if _, ok := m["method"]; ok {
			if _, ok := m["id"]; ok {
				return fmt.Errorf("notification with an id: %q", line)
			}
			continue
		}
		id, ok := m["id"]
		_, isResult := m["result"]
		_, isError := m["error"]
		switch {
		case !ok:
			return fmt.Errorf("response without an id: %q", line)
		case isResult == isError:
			return fmt.Errorf("response needs exactly one of result and error: %q", line)
		case string(id) == "null":
			if !isError {
				return fmt.Errorf("result with id null: %q", line)
			}
			nulls--
		case want[string(id)] > 0:
			want[string(id)]--
		default:
			return fmt.Errorf("response id %s is not the token of any request line still unanswered: %q", id, line)
		}
	}
	if cancels {
		return nil // a cancelled call is not answered, if it was still running
	}
	if nulls != 0 {
		return fmt.Errorf("null-id errors: %d more expected than written", nulls)
	}
	for id, n := range want {
		if n != 0 {
			return fmt.Errorf("request %s: %d responses missing", id, n)
		}
	}
	return nil
}

// A client that stops reading ends the connection even while its side of
// stdin stays open, and cancels the calls that could no longer be answered.
func TestWriteErrorEndsServeWithStdinOpen(t *testing.T) {
	cancelled := make(chan struct{})
	srv := newTestServer(tool("block", func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
		<-ctx.Done()
		close(cancelled)
		return tooldef.Result{}, ctx.Err()
	}))
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), srv, inR, outW, stdio.Options{}) }()
	io.WriteString(inW, callLine(1, "block", ""))
	time.Sleep(50 * time.Millisecond)
	outR.Close() // the client went away without closing its end of stdin
	io.WriteString(inW, initLine)
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "write to the client") {
			t.Fatalf("Serve returned %v, want the write error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve kept running after its output failed")
	}
	select {
	case <-cancelled:
	default:
		t.Error("the call in flight was not cancelled")
	}
}

// A progress token comes back in notifications/progress exactly as the
// client wrote it, a number past 2^53 or with an exponent included.
func TestProgressTokenEchoedExactly(t *testing.T) {
	srv := newTestServer(tool("tick", func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
		tooldef.ReportProgress(ctx, 1, 0, "")
		return text("done"), nil
	}))
	c := startServe(t, context.Background(), srv)
	c.send(initLine)
	c.untilID(`"init"`)
	for i, tok := range []string{`9007199254740993`, `1180591620717411303424`, `1e3`, `-7`, `"p-1"`, `"hermes-stdio-id:x"`} {
		id := fmt.Sprint(i + 1)
		c.send(callLine(i+1, "tick", `{"progressToken":`+tok+`}`))
		before, _ := c.untilID(id)
		if len(before) != 1 {
			t.Fatalf("token %s: %d notifications", tok, len(before))
		}
		var m struct {
			Params struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"params"`
		}
		if err := json.Unmarshal(before[0], &m); err != nil || string(m.Params.ProgressToken) != tok {
			t.Errorf("token %s came back as %s (%v)", tok, m.Params.ProgressToken, err)
		}
	}
}

// testMethods are the loop-served methods the tests use.
func testMethods() map[string]jsonrpc.MethodFunc {
	return map[string]jsonrpc.MethodFunc{
		"x/echo": func(ctx context.Context, params json.RawMessage) (any, error) {
			return map[string]any{"params": params, "modern": server.IsModernRequest(ctx), "version": server.RequestProtocolVersion(ctx)}, nil
		},
		"x/invalid": func(ctx context.Context, params json.RawMessage) (any, error) {
			return nil, fmt.Errorf("wrapped: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "No such thing", Data: map[string]string{"uri": "x://y"}})
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

// serveLines runs Serve over input until EOF and returns its output lines,
// re-encoded with sorted keys.
func serveLines(t *testing.T, input string) []string {
	t.Helper()
	var out bytes.Buffer
	err := stdio.Serve(context.Background(), newTestServer(), bytes.NewReader([]byte(input)), &out, stdio.Options{})
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
			`{"id":6,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hermes-tools","version":"1"}},"modern":true,"params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}},"resultType":"complete","version":"2026-07-28"}}`},
		{"modern keeps what the method set", `{"jsonrpc":"2.0","id":7,"method":"x/own-meta","params":{` + modernMeta + `}}`,
			`{"id":7,"jsonrpc":"2.0","result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hermes-tools","version":"1"},"k":"v"},"resultType":"input_required"}}`},
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
	methods := map[string]jsonrpc.MethodFunc{
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
		plan := toolsets.EveryTool(tooldef.Toolset{Name: "test", Description: "none"})
		served <- stdio.Serve(context.Background(), mcpserver.New(mcpserver.Options{Plan: plan, Methods: methods}), inR, outW, stdio.Options{})
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

// Protocol errors of loop-served methods and of tools/call are the ones
// mcp-go gives for its own methods, so a client cannot tell who answered.
func TestMethodProtocolErrorsMatchMCPGo(t *testing.T) {
	bare := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
	metas := []string{
		`{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":7}`,
	}
	for _, meta := range metas {
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"none","_meta":` + meta + `}}`
		got := append(serveLines(t, `{"jsonrpc":"2.0","id":1,"method":"x/echo","params":{"_meta":`+meta+`}}`+"\n"),
			serveLines(t, call+"\n")...)
		theirs, err := json.Marshal(bare.HandleMessage(context.Background(), json.RawMessage(call)))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, sortedJSON(t, theirs))
		if len(got) != 3 || got[0] != got[1] || got[1] != got[2] {
			t.Errorf("_meta %s: the loop method, tools/call and mcp-go answered differently:\n%s", meta, strings.Join(got, "\n"))
		}
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
	srv := newTestServer(tool("echo", func(ctx context.Context, _ json.RawMessage) (tooldef.Result, error) {
		return text("echo"), nil
	}))
	if err := stdio.Serve(context.Background(), srv, strings.NewReader(input), &out, stdio.Options{}); err != nil {
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
	srv := newTestServer(tool("block", func(ctx context.Context, args json.RawMessage) (tooldef.Result, error) {
		a, err := tooldef.DecodeArgs[struct{ Tag string }](args)
		if err != nil {
			return tooldef.Result{}, err
		}
		select {
		case <-ctx.Done():
			cancelled <- a.Tag
			return tooldef.Result{}, ctx.Err()
		case <-time.After(300 * time.Millisecond):
			return text(a.Tag), nil
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
