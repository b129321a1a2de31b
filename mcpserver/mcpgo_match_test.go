package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// mcpGoResult is a tool's result as the server handed it to mcp-go before
// it encoded results itself: JSON text content, a string as plain text,
// structuredContent for tools with an output schema, images after the text.
func mcpGoResult(t tooldef.Tool, res tooldef.Result, modern bool, info mcp.Implementation) (*mcp.CallToolResult, error) {
	var text string
	plain := false
	switch v := res.Value.(type) {
	case string:
		text, plain = v, true
	case json.RawMessage:
		text = string(v)
	default:
		b, err := tooldef.EncodeJSON(v)
		if err != nil {
			return nil, err
		}
		text = string(b)
	}
	out := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(text)}, IsError: res.IsError}
	if len(t.OutputSchema) > 0 && !res.IsError && !plain {
		out.StructuredContent = json.RawMessage(text)
	}
	for _, img := range res.Images {
		out.Content = append(out.Content, mcp.NewImageContent(base64.StdEncoding.EncodeToString(img.Data), img.MIMEType))
	}
	if modern {
		out.SetResultType(mcp.ResultTypeComplete)
		out.EnsureResultMeta().SetServerInfo(info)
	}
	return out, nil
}

// earlierLine is the response line the server wrote for r before it
// encoded results itself: mcp-go built r, and the stdio writer encoded it
// compactly without HTML escaping, _meta and resultType first.
func earlierLine(t *testing.T, id string, r *mcp.CallToolResult) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	value := func(v any) {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{`)
	if r.Meta != nil {
		buf.WriteString(`"_meta":`)
		value(r.Meta)
		buf.WriteByte(',')
	}
	if r.ResultType != "" {
		buf.WriteString(`"resultType":`)
		value(r.ResultType)
		buf.WriteByte(',')
	}
	buf.WriteString(`"content":`)
	value(r.Content)
	if r.StructuredContent != nil {
		buf.WriteString(`,"structuredContent":`)
		value(r.StructuredContent)
	}
	if r.IsError {
		buf.WriteString(`,"isError":true`)
	}
	buf.WriteString("}}")
	return buf.Bytes()
}

// The response line the dispatcher writes for a tool's result is, byte for
// byte, the one the server wrote when mcp-go built the result, and the
// same JSON as mcp-go's own encoding of it: both protocol eras, every kind
// of value, errors, images and text that JSON escapes.
func TestToolResultMatchesMCPGo(t *testing.T) {
	withSchema := tooldef.Tool{Name: "structured", OutputSchema: json.RawMessage(`{"type":"object"}`)}
	plainTool := tooldef.Tool{Name: "plain"}
	png := []byte("\x89PNG\r\n\x1a\nnot really")
	cases := []struct {
		name string
		tool tooldef.Tool
		res  tooldef.Result
	}{
		{"plain string", plainTool, tooldef.OK("done: <b>&</b> \u2028 \"quoted\"\n\x1b[31m")},
		{"object", plainTool, tooldef.OK(map[string]any{"success": true, "html": "<p>a & b</p>", "n": 3})},
		{"raw JSON", plainTool, tooldef.OK(json.RawMessage(`{"a":[1,2,{"b":null}]}`))},
		{"structured", withSchema, tooldef.OK(map[string]any{"items": []string{"x", "<y>"}})},
		{"structured error", withSchema, tooldef.Errorf("no such item %q", "z")},
		{"structured string", withSchema, tooldef.OK("a plain answer")},
		{"error text", plainTool, failure("invalid arguments for plain: bad")},
		{"images", plainTool, tooldef.Result{Value: map[string]any{"saved": "shot.png"}, Images: []tooldef.Image{{MIMEType: "image/png", Data: png}, {MIMEType: "image/jpeg", Data: []byte{0xff, 0xd8}}}}},
	}
	id, err := jsonrpc.ParseID(json.RawMessage("7"))
	if err != nil {
		t.Fatal(err)
	}
	info := mcp.Implementation{Name: ServerName, Version: "test"}
	s := &Server{info: info, modernMeta: modernResultMeta(info)}
	for _, tc := range cases {
		for _, modern := range []bool{false, true} {
			ref, err := mcpGoResult(tc.tool, tc.res, modern, info)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.appendToolResult(nil, id, tc.tool, tc.res, modern)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got = bytes.TrimSpace(got)
			if want := earlierLine(t, "7", ref); !bytes.Equal(got, want) {
				t.Errorf("%s (modern %v):\n   ours: %s\nearlier: %s", tc.name, modern, got, want)
			}
			marshalled, err := json.Marshal(mcp.JSONRPCResponse{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(7)), Result: ref})
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			if json.Unmarshal(got, &a) != nil || json.Unmarshal(marshalled, &b) != nil || !reflect.DeepEqual(a, b) {
				t.Errorf("%s (modern %v): not the JSON mcp-go writes:\n  ours: %s\nmcp-go: %s", tc.name, modern, got, marshalled)
			}
		}
	}
}

// A tools/call that goes wrong before its tool runs gets the error mcp-go
// gives, in mcp-go's order of checks: the envelope, the request's era,
// params that do not decode, an unknown tool.
func TestCallErrorsMatchMCPGo(t *testing.T) {
	ts := tooldef.Toolset{Name: "t", Description: "d", Tools: []tooldef.Tool{{
		Name: "echo", Description: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`),
		Handler: func(context.Context, json.RawMessage) (tooldef.Result, error) { return tooldef.OK("ok"), nil },
	}}}
	plan := toolsets.EveryTool(ts)
	srv := New(Options{Version: "test", Plan: plan})
	ref := MCPGoReference(plan)
	const caps = `"io.modelcontextprotocol/clientCapabilities":{}`
	requests := []string{
		`{"jsonrpc":"1.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1,2]}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"n":1e999}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01",` + caps + `}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"quite_unrelated_name","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{},"_meta":5}}`,
	}
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		strings.Join(requests, "\n") + "\n"
	var out bytes.Buffer
	if err := srv.ServeStdio(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatal(err)
	}
	ours := map[string]string{}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %s", sc.Bytes())
		}
		ours[string(m.ID)] = sc.Text()
	}
	ctx := context.Background()
	refInit := ref.HandleMessage(ctx, json.RawMessage(strings.SplitN(input, "\n", 2)[0]))
	if _, ok := refInit.(mcp.JSONRPCResponse); !ok {
		t.Fatalf("reference initialize: %v", refInit)
	}
	for _, req := range requests {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(req), &m)
		want, err := json.Marshal(ref.HandleMessage(ctx, json.RawMessage(req)))
		if err != nil {
			t.Fatal(err)
		}
		if got := ours[string(m.ID)]; got != string(want) {
			t.Errorf("%s\n ours: %s\nmcp-go: %s", req, got, want)
		}
	}
}
