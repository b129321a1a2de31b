package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/internal/contain"
	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// A bug in one tool must not end the session for the others: a panic in a
// handler is that call's isError result, and a panic on a goroutine the
// toolset started (through contain) is logged while the server goes on.
func TestPanicsDoNotTakeTheServerDown(t *testing.T) {
	logged := make(chan struct{})
	var once sync.Once
	log := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte("recovered from a panic")) {
			once.Do(func() { close(logged) })
		}
		return len(p), nil
	}), nil))
	tool := func(name string, h tooldef.Handler) tooldef.Tool {
		return tooldef.Tool{Name: name, Description: name, InputSchema: json.RawMessage(`{"type":"object"}`), Handler: h}
	}
	ts := tooldef.Toolset{Name: "t", Description: "d", Tools: []tooldef.Tool{
		tool("handler_panics", func(context.Context, json.RawMessage) (tooldef.Result, error) { panic("in the handler") }),
		tool("goroutine_panics", func(context.Context, json.RawMessage) (tooldef.Result, error) {
			contain.Go(log, "a toolset goroutine", func() { panic("on a goroutine") })
			<-logged
			return tooldef.OK("started"), nil
		}),
		tool("fine", func(context.Context, json.RawMessage) (tooldef.Result, error) { return tooldef.OK("still here"), nil }),
	}}
	call := func(id int, name string) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": map[string]any{}}})
		return string(b) + "\n"
	}
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		call(1, "handler_panics") + call(2, "goroutine_panics") + call(3, "fine")
	var out bytes.Buffer
	srv := mcpserver.New(mcpserver.Options{Plan: toolsets.EveryTool(ts), Logger: log})
	if err := srv.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	results := map[int]struct {
		IsError bool
		Text    string
	}{}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad line %q: %v", line, err)
		}
		if len(m.Result.Content) > 0 {
			results[m.ID] = struct {
				IsError bool
				Text    string
			}{m.Result.IsError, m.Result.Content[0].Text}
		}
	}
	if r := results[1]; !r.IsError {
		t.Errorf("a panicking handler answered %+v, want an isError result", r)
	}
	if r := results[2]; r.IsError || !strings.Contains(r.Text, "started") {
		t.Errorf("the call whose goroutine panicked answered %+v", r)
	}
	if r := results[3]; r.IsError || !strings.Contains(r.Text, "still here") {
		t.Errorf("the next call answered %+v, want it served", r)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
