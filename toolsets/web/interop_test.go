package web_test

// The progress test drives a real MCP server over stdio with the official
// TypeScript SDK client, so it checks what a client actually receives:
// progress notifications tied to the call's token, in order, before the
// result. The server is this test binary re-executed in serve mode
// (mcptest), serving only the web toolset; the pages it reads come from a
// fake on 127.0.0.1.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/web"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfChild(func() ([]tooldef.Toolset, func() error) {
		return []tooldef.Toolset{web.Toolset(web.Options{Home: os.Getenv("HERMES_HOME")})}, nil
	})
	os.Exit(m.Run())
}

func TestProgressThroughTypeScriptSDK(t *testing.T) {
	fake := fakeapis.Start(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("web:\n  allow_private_urls: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	urls := []string{
		fake.Page("slow?ms=150&name=article"),
		fake.Page("slow?ms=450&name=table"),
		fake.Page("slow?ms=750&name=login"),
	}
	// Without provider keys the served toolset uses the keyless extractor
	// and never a real provider.
	out := mcptest.RunProgressClient(t, "web_extract", map[string]any{"urls": urls},
		web.Toolset(web.Options{}).EnvVars, "HERMES_HOME="+home)
	if out.Result.IsError || len(out.Result.Content) == 0 || !strings.Contains(out.Result.Content[0].Text, "Harbour Lights") {
		t.Fatalf("result = %+v", out.Result)
	}
	var got []float64
	for _, p := range out.Progress {
		got = append(got, p.Progress)
		if p.Total == nil || *p.Total != 3 || p.Message == "" {
			t.Errorf("progress %+v: want total 3 and a message", p)
		}
	}
	if !slices.Equal(got, []float64{0, 1, 2}) {
		t.Errorf("progress values = %v, want [0 1 2] (start, then each URL but the last, in order)", got)
	}
	if out.LateProgress != 0 {
		t.Errorf("%d progress notifications arrived after the result", out.LateProgress)
	}
}
