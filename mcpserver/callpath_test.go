package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// stackFiles adds the project's non-test files on the current stack.
func stackFiles(into map[string]bool) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, "mark3labs/mcp-go/server.") {
			into["mcp-go:"+f.Function] = true
		}
		if strings.Contains(f.Function, "hermes-go/hermes/") && !strings.HasSuffix(f.File, "_test.go") {
			into[f.File[strings.Index(f.File, "/mcpserver")+1:]] = true
		}
		if !more {
			return
		}
	}
}

type recordingWriter struct {
	mu    sync.Mutex
	files map[string]bool
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if strings.Contains(string(p), `"id":2`) {
		stackFiles(w.files)
	}
	return len(p), nil
}

// The files of ours a stdio tools/call crosses, from the read of its line
// to the write of its response: the stacks at the handler and at the
// write (functions that have returned by then, jsonrpc.Parse, argschema's
// Validate, tooldef.DecodeArgs, are not on them), and none of mcp-go's server.
func TestCallPathFiles(t *testing.T) {
	files := map[string]bool{}
	var mu sync.Mutex
	ts := tooldef.Toolset{Name: "t", Description: "d", Tools: []tooldef.Tool{{
		Name: "probe", Description: "probe", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
		Handler: func(_ context.Context, args json.RawMessage) (tooldef.Result, error) {
			if _, err := tooldef.DecodeArgs[struct{ N int }](args); err != nil {
				return tooldef.Result{}, err
			}
			mu.Lock()
			stackFiles(files)
			mu.Unlock()
			return tooldef.OK("ok"), nil
		},
	}}}
	srv := mcpserver.New(mcpserver.Options{Plan: toolsets.EveryTool(ts)})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe","arguments":{"n":3}}}` + "\n"
	w := &recordingWriter{files: files}
	if err := srv.ServeStdio(context.Background(), strings.NewReader(in), io.MultiWriter(w)); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	names := slices.Sorted(func(yield func(string) bool) {
		for f := range files {
			if !yield(f) {
				return
			}
		}
	})
	t.Logf("files on the call's stacks: %v", names)
	for _, n := range names {
		if strings.HasPrefix(n, "mcp-go:") {
			t.Errorf("a tools/call passes through mcp-go's server (%s): it is answered in dispatch.go", n)
		}
	}
	if !files["mcpserver/dispatch.go"] {
		t.Errorf("a tools/call does not pass through dispatch.go: %v", names)
	}
}
