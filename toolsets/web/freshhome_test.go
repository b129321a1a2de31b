package web_test

// A fresh install searches: the real hermes-tools-mcp, over a Hermes home
// with nothing in it and no key in its environment, lists web_search in
// doctor and tools/list, and a call returns results from the keyless
// tier, here the vendors' fakes on 127.0.0.1 (the endpoint variables are
// the only thing set).

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// freshEnv is a process environment with no key at all: PATH, an empty
// HOME and Hermes home, and the keyless endpoints pointed at fake (every
// ring vendor, so the random start can pick any of them).
func freshEnv(t *testing.T, fake *fakeapis.Server) (env []string, home string) {
	home = t.TempDir()
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "HERMES_HOME=" + home,
		"HERMES_EXA_MCP_URL=" + fake.Base(fakeapis.ExaMCP),
		"HERMES_PARALLEL_MCP_URL=" + fake.Base(fakeapis.ParallelMCP),
		"HERMES_FIRECRAWL_KEYLESS_URL=" + fake.Base(fakeapis.Firecrawl),
		"HERMES_KEENABLE_URL=" + fake.Base(fakeapis.Keenable),
	}, home
}

func TestFreshHomeSearches(t *testing.T) {
	bin := toolsbuild.ServerBinary(t)
	fake := fakeapis.Start(t)
	env, home := freshEnv(t, fake)

	doctor := exec.Command(bin, "doctor", "--json", "--hermes-home", home, "--toolsets", "all")
	doctor.Env = env
	out, err := doctor.Output()
	if err != nil {
		t.Fatalf("doctor: %v\n%s", err, out)
	}
	var rep struct {
		Tools []struct {
			Name    string `json:"name"`
			Enabled bool   `json:"enabled"`
			Reason  string `json:"reason"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	state := map[string]string{}
	for _, tl := range rep.Tools {
		state[tl.Name] = tl.Reason
		if tl.Enabled {
			state[tl.Name] = "enabled"
		}
	}
	if state[catalog.WebSearch] != "enabled" || state[catalog.WebExtract] != "enabled" {
		t.Errorf("doctor on a fresh home: web_search %q, web_extract %q; want both enabled", state[catalog.WebSearch], state[catalog.WebExtract])
	}
	if r := state[catalog.XSearchTool]; r == "enabled" || !strings.Contains(r, "XAI_API_KEY") {
		t.Errorf("doctor: x_search %q, want hidden with a reason naming XAI_API_KEY", r)
	}

	cmd := exec.Command(bin, "--hermes-home", home)
	cmd.Env = env
	c := mcptest.Start(t, cmd)
	names, err := c.ToolNames()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+strings.Join(names, " ")+" ", " web_search ") {
		t.Fatalf("tools/list on a fresh home lacks web_search: %v", names)
	}
	res := c.MustCall(t, "web_search", map[string]any{"query": "fresh install", "limit": 3})
	if res.IsError {
		t.Fatalf("web_search: %s\nstderr:\n%s", res.Text(), c.Stderr())
	}
	var got struct {
		Success bool `json:"success"`
		Data    struct {
			Web []map[string]any `json:"web"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(res.Text()), &got); err != nil || !got.Success || len(got.Data.Web) != 3 ||
		got.Data.Web[0]["title"] != "Result 1 for fresh install" {
		t.Fatalf("web_search result: %s", res.Text())
	}
	asked := 0
	for _, p := range []string{fakeapis.ExaMCP, fakeapis.ParallelMCP, fakeapis.Firecrawl, fakeapis.Keenable} {
		asked += len(fake.Requests(p))
	}
	if asked != 1 {
		t.Errorf("the keyless vendors' fakes got %d requests, want 1", asked)
	}
}
