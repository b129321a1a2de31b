package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
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

func startServe(t *testing.T, ctx context.Context, srv *server.MCPServer) *pipeClient {
	t.Helper()
	return startServeWith(t, ctx, srv, Options{})
}

func startServeWith(t *testing.T, ctx context.Context, srv *server.MCPServer, opts Options) *pipeClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &pipeClient{t: t, in: inW, lines: make(chan json.RawMessage, 8192), served: make(chan error, 1)}
	go func() {
		c.served <- Serve(ctx, srv, inR, outW, opts)
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

func newTestServer(tools ...server.ServerTool) *server.MCPServer {
	s := server.NewMCPServer("t", "1", server.WithToolCapabilities(false), server.WithLogging())
	s.AddTools(tools...)
	return s
}

func tool(name string, h server.ToolHandlerFunc) server.ServerTool {
	return server.ServerTool{Tool: mcp.NewTool(name), Handler: h}
}

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
	srv := newTestServer(tool("gate", func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started.Done()
		select {
		case <-release:
			return mcp.NewToolResultText("through"), nil
		case <-ctx.Done():
			return nil, ctx.Err()
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
	srv := newTestServer(tool("flood", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s := server.ServerFromContext(ctx)
		for i := range n {
			err := s.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
				"progressToken": req.Params.Meta.ProgressToken, "progress": i + 1, "total": n,
			})
			if err != nil {
				return nil, fmt.Errorf("notification %d: %w", i, err)
			}
		}
		return mcp.NewToolResultText("done"), nil
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
	srv := newTestServer(tool("block", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-ctx.Done():
			cancelled <- "yes"
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
			cancelled <- "no"
			return mcp.NewToolResultText("not cancelled"), nil
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
	srv := newTestServer(tool("block", func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(running)
		<-ctx.Done()
		return nil, ctx.Err()
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
	go func() { done <- Serve(context.Background(), srv, inR, outW, Options{}) }()
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
	srv := newTestServer(tool("echo", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint(req.Params.Arguments)), nil
	}))
	f.Fuzz(func(t *testing.T, input []byte) {
		var out bytes.Buffer
		done := make(chan error, 1)
		go func() {
			done <- Serve(context.Background(), srv, bytes.NewReader(input), &out, Options{Methods: testMethods(), ServerInfo: testInfo})
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

// The direct tool-response encoder must say exactly what the generic path
// says.
func TestMarshalToolResponseMatchesGeneric(t *testing.T) {
	meta := &mcp.Meta{AdditionalFields: map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "x"}}}
	results := []*mcp.CallToolResult{
		{Content: []mcp.Content{mcp.NewTextContent(`{"a":"<b> & \"q\"\n"}`)}},
		{Content: []mcp.Content{mcp.NewTextContent(`{"a":1}`)}, StructuredContent: json.RawMessage(`{"a":1}`)},
		{Content: []mcp.Content{mcp.NewTextContent("bad"), mcp.NewImageContent("aGk=", "image/png")}, IsError: true},
		{Result: mcp.Result{Meta: meta, ResultType: "complete"}, Content: []mcp.Content{}, StructuredContent: map[string]any{"k": []int{1}}},
		{Content: nil},
	}
	for i, r := range results {
		fast, err := marshalLine(reply{id: mustID(t, fmt.Sprint(i)), body: mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(1000+i)), r)})
		if err != nil {
			t.Fatal(err)
		}
		generic, err := json.Marshal(mcp.NewJSONRPCResultResponse(mcp.NewRequestId(int64(i)), r))
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if err := json.Unmarshal(fast, &a); err != nil {
			t.Fatalf("case %d: fast path wrote invalid JSON %q: %v", i, fast, err)
		}
		json.Unmarshal(generic, &b)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("case %d:\nfast    %s\ngeneric %s", i, fast, generic)
		}
		if bytes.Count(fast, []byte("\n")) != 1 || fast[len(fast)-1] != '\n' {
			t.Errorf("case %d: not exactly one line: %q", i, fast)
		}
	}
}

// Requests wait for Options.Ready; the handshake does not, and a request
// cancelled while it waits gets no answer.
func TestRequestsWaitForReady(t *testing.T) {
	srv := newTestServer(tool("echo", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("echo"), nil
	}))
	ready := make(chan struct{})
	c := startServeWith(t, context.Background(), srv, Options{Ready: ready})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	if _, resp := c.untilID("1"); !strings.Contains(string(resp), `"serverInfo"`) {
		t.Fatalf("initialize: %s", resp)
	}
	c.send(callLine(2, "echo", ""))
	c.send(callLine(3, "echo", ""))
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}` + "\n")
	select {
	case l := <-c.lines:
		t.Fatalf("answered before the server was ready: %s", l)
	case <-time.After(100 * time.Millisecond):
	}
	close(ready)
	if _, resp := c.untilID("2"); !strings.Contains(string(resp), `"echo"`) {
		t.Fatalf("tools/call after ready: %s", resp)
	}
	c.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n")
	if before, _ := c.untilID("4"); len(before) != 0 {
		t.Errorf("the cancelled request was answered: %s", before)
	}
}

// A client that stops reading ends the connection even while its side of
// stdin stays open, and cancels the calls that could no longer be answered.
func TestWriteErrorEndsServeWithStdinOpen(t *testing.T) {
	cancelled := make(chan struct{})
	srv := newTestServer(tool("block", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}))
	inR, inW := io.Pipe()
	defer inW.Close()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), srv, inR, outW, Options{}) }()
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

// Lines written before a notification slot that ends up skipped are
// flushed, not left in the buffer until some later output.
func TestSkippedSlotDoesNotHoldBackEarlierLines(t *testing.T) {
	pr, pw := io.Pipe()
	o := newOutput(pw, nil)
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	go o.run()
	defer func() { o.close(); pw.Close() }()
	first := o.notificationSlot()
	o.send(reply{id: mustID(t, "7"), body: errorBody{Code: codeInternalError, Message: "the response"}})
	second := o.notificationSlot()
	first <- mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/message"}}
	// A notification that cannot be encoded (NaN) is skipped.
	second <- mcp.JSONRPCNotification{JSONRPC: "2.0", Notification: mcp.Notification{Method: "notifications/progress",
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"progress": math.NaN()}}}}
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, "the response") {
				return
			}
		case <-deadline:
			t.Fatal("the response stayed in the buffer")
		}
	}
}

// A progress token comes back in notifications/progress exactly as the
// client wrote it, a number past 2^53 or with an exponent included.
func TestProgressTokenEchoedExactly(t *testing.T) {
	srv := newTestServer(tool("tick", func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		err := server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress", map[string]any{
			"progressToken": req.Params.Meta.ProgressToken, "progress": 1,
		})
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("done"), nil
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
