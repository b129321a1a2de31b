package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// The server answers tools/list itself (mcpserver/toolslist.go); what it
// sends must be what mcp-go would send for the same tools, in both
// protocol eras, with or without a cursor.
func TestToolsListMatchesMCPGo(t *testing.T) {
	home, _ := filepath.Abs("testdata/home")
	plan := toolsets.EveryTool(builtinToolsets(t, home)...)
	srv := mcpserver.New(mcpserver.Options{Version: "test", Plan: plan})
	ref := mcpserver.MCPGoReference(plan)
	const modern = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	cursor := base64.StdEncoding.EncodeToString([]byte("browser_click"))
	requests := map[string]string{
		"2": `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		"3": `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`,
		"4": `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{` + modern + `}}`,
		"5": `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"` + cursor + `"}}`,
		"6": `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"` + cursor + `",` + modern + `}}`,
		"7": `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"not base64!"}}`,
		"8": `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"cursor":5}}`,
	}
	input := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	for _, id := range []string{"2", "3", "4", "5", "6", "7", "8"} {
		input += requests[id] + "\n"
	}
	var out bytes.Buffer
	if err := srv.ServeStdio(context.Background(), strings.NewReader(input), &out); err != nil {
		t.Fatal(err)
	}
	ours := map[string]map[string]any{}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("not JSON: %s", sc.Bytes())
		}
		id, _ := json.Marshal(msg["id"])
		ours[string(id)] = msg
	}
	for id, req := range requests {
		resp := ref.HandleMessage(context.Background(), json.RawMessage(req))
		raw, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		var theirs map[string]any
		if err := json.Unmarshal(raw, &theirs); err != nil {
			t.Fatal(err)
		}
		got := ours[id]
		if got == nil {
			t.Errorf("request %s got no response", id)
			continue
		}
		if theirs["error"] != nil {
			code := func(m map[string]any) any { e, _ := m["error"].(map[string]any); return e["code"] }
			if code(got) != code(theirs) {
				t.Errorf("request %s: error %v, mcp-go answers %v", id, got["error"], theirs["error"])
			}
			continue
		}
		if !reflect.DeepEqual(got["result"], theirs["result"]) {
			a, _ := json.Marshal(got["result"])
			b, _ := json.Marshal(theirs["result"])
			t.Errorf("request %s: tools/list differs from mcp-go's\nours:   %.600s\nmcp-go: %.600s", id, a, b)
		}
	}
	if tools, _ := ours["5"]["result"].(map[string]any)["tools"].([]any); len(tools) == 0 || len(tools) >= len(plan.Entries) {
		t.Errorf("the cursor page has %d of %d tools", len(tools), len(plan.Entries))
	}
}

// A schema that is not valid JSON (the registry reads only its top level)
// fails tools/list with the tool's name rather than sending broken JSON.
func TestToolsListRefusesAnInvalidSchema(t *testing.T) {
	tl := tooldef.Tool{Name: "broken", Description: "d", InputSchema: json.RawMessage(`{"type":"object",}`),
		Handler: func(context.Context, json.RawMessage) (tooldef.Result, error) { return tooldef.OK("x"), nil }}
	reg, err := toolsets.NewRegistry(tooldef.Toolset{Name: "t", Description: "d", Tools: []tooldef.Tool{tl}})
	if err != nil {
		t.Fatalf("the registry reads only the top level and accepts it: %v", err)
	}
	plan, err := reg.Resolve(toolsets.Selection{Toolsets: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	in := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"
	if err := mcpserver.New(mcpserver.Options{Plan: plan}).ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"error"`) || !strings.Contains(out.String(), "tool broken: input schema") {
		t.Errorf("tools/list answered %s", out.String())
	}
}
