package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

func TestZZCov(t *testing.T) {
	ts := tooldef.Toolset{Name: "t", Description: "d", Tools: []tooldef.Tool{{
		Name: "probe", Description: "probe", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		Handler: func(_ context.Context, args json.RawMessage) (tooldef.Result, error) {
			v, err := tooldef.DecodeArgs[struct{ N int }](args)
			if err != nil {
				return tooldef.Result{}, err
			}
			return tooldef.OK(map[string]any{"n": v.N}), nil
		},
	}}}
	srv := mcpserver.New(mcpserver.Options{Plan: toolsets.EveryTool(ts)})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe","arguments":{"n":3}}}` + "\n"
	if os.Getenv("ZZCALL") == "1" {
		in += `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"probe","arguments":{"n":4}}}` + "\n"
	}
	if err := srv.ServeStdio(context.Background(), strings.NewReader(in), io.Discard); err != nil {
		t.Fatal(err)
	}
}
