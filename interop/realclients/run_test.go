//go:build unix

package realclients

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testCaches.remove()
	os.Exit(code)
}

// The real-client tests: hermes-migrate writes a client's config in a
// throwaway home exactly as a user would run it, then the client itself,
// pinned in .ci/npm, runs headless against a fake model on 127.0.0.1, loads
// our hermes-tools entry, calls a tool and answers. Each client process
// gets an environment built from nothing (no variable of the developer's
// leaks in) in which every proxy variable names a black hole, so a request
// to anything but the fake fails the test instead of leaving the machine.

// clientTimeout bounds one client run; the process group is killed then.
// OpenCode takes ~35 s on a loaded 2-core machine, so the bound leaves room:
// it is there to end a hung client, not to time one.
const clientTimeout = 150 * time.Second

// npmFile returns a file of the pinned npm packages, skipping the test when
// it is not installed, or failing it under CI, where it must be.
func npmFile(t *testing.T, rel string) string {
	t.Helper()
	return npmFileIn(t, "npm", rel)
}

// npmFileIn is npmFile for the packages pinned in .ci/<dir> (npm-noscripts:
// those installed without their install scripts).
func npmFileIn(t *testing.T, dir, rel string) string {
	t.Helper()
	p := filepath.Join(codextest.RepoRoot(t), ".ci", dir, "node_modules", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing (%v): %s", rel, err, codextest.InstallHint)
		}
		t.Skipf("%s missing (%v): %s", rel, err, codextest.InstallHint)
	}
	return p
}

// clientHome is a throwaway user: HOME with the XDG directories in it, a
// Hermes home at the default ~/.hermes holding skills, and an empty working
// directory to start the client in.
type clientHome struct {
	home, work, tmp string
	toolsBin        string
	proxy           *codextest.Proxy
}

func newClientHome(t *testing.T) *clientHome {
	t.Helper()
	root := t.TempDir()
	h := &clientHome{
		home:     filepath.Join(root, "home"),
		work:     filepath.Join(root, "work"),
		tmp:      filepath.Join(root, "tmp"),
		toolsBin: toolsbuild.ServerBinary(t),
		proxy:    codextest.NewProxy(t),
	}
	for _, d := range []string{h.home, h.work, h.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Runs before TempDir removes root (cleanups run last-in first-out).
	t.Cleanup(func() { killEscaped(t, root) })
	if err := os.CopyFS(filepath.Join(h.home, ".hermes"), toolsHome(t)); err != nil {
		t.Fatal(err)
	}
	return h
}

// sharedCache links dir (relative to the home, e.g. ".cache/copilot/pkg") to
// one directory that every client home of this test process shares and
// that TestMain removes at the end. A client that unpacks itself on first
// run (Copilot CLI: 235 MB in .cache/copilot/pkg) then does so once per `go test`, not once
// per test: CI machines have run out of disk on the per-test copies.
func (h *clientHome) sharedCache(t *testing.T, dir string) {
	t.Helper()
	shared, err := testCaches.dir(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(h.home, dir)
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, link); err != nil && !errors.Is(err, fs.ErrExist) {
		t.Fatal(err)
	}
}

// testCaches are the directories sharedCache hands out, under one
// temporary root made on first use.
var testCaches caches

type caches struct {
	mu   sync.Mutex
	root string
}

func (c *caches) dir(name string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root == "" {
		root, err := os.MkdirTemp("", "hermes-migrate-client-caches-")
		if err != nil {
			return "", fmt.Errorf("shared client cache: %w", err)
		}
		c.root = root
	}
	d := filepath.Join(c.root, filepath.FromSlash(name))
	return d, os.MkdirAll(d, 0o755)
}

func (c *caches) remove() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root != "" {
		os.RemoveAll(c.root)
		c.root = ""
	}
}

// env is the whole environment of a process run as this user, plus extra.
func (h *clientHome) env(extra ...string) []string {
	env := []string{
		"HOME=" + h.home,
		"USER=hermes-test",
		"PATH=/usr/bin:/bin",
		"LANG=C.UTF-8",
		"TMPDIR=" + h.tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(h.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(h.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(h.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(h.home, ".cache"),
	}
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"} {
		env = append(env, k+"="+h.proxy.URL())
	}
	env = append(env, "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1")
	return append(env, extra...)
}

// migrate runs hermes-migrate --client client [flags] as its own process:
// the built hermes-migrate, installed beside the real hermes-tools-mcp (so
// that is the one it registers), in the user's environment plus the
// VAR=value items among flagsAndEnv.
func (h *clientHome) migrate(t *testing.T, client string, flagsAndEnv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := []string{"--client", client}
	var extra []string
	for _, a := range flagsAndEnv {
		if strings.HasPrefix(a, "-") {
			args = append(args, a)
		} else {
			extra = append(extra, a)
		}
	}
	cmd := exec.CommandContext(ctx, migrateBinary(t, h.toolsBin), args...)
	cmd.Env = h.env(extra...)
	cmd.Dir = h.work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hermes-migrate %q: %v\n%s", args, err, out)
	}
	return string(out)
}

// migrateBinary is the built hermes-migrate, which must be beside tools,
// the hermes-tools-mcp it will find and register.
func migrateBinary(t *testing.T, tools string) string {
	t.Helper()
	bin, err := toolsbuild.Binary("hermes-migrate")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(bin) != filepath.Dir(tools) {
		t.Fatalf("%s is not beside %s: build both into one directory (make test-bins)", bin, tools)
	}
	return bin
}

// toolsHome is the Hermes home fixture the real server serves skills
// from.
func toolsHome(t *testing.T) fs.FS {
	t.Helper()
	return os.DirFS(filepath.Join(codextest.RepoRoot(t), "cmd", "hermes-tools-mcp", "testdata", "home"))
}

// runClient runs a client in its own process group with the user's
// environment and returns its stdout and stderr. On timeout, and after it
// exits, the whole group is killed, so neither the client nor an MCP
// server it started outlives the test.
func (h *clientHome) runClient(t *testing.T, env []string, name string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), clientTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Dir = h.work
	cmd.Stdin = nil // headless: stdin is /dev/null
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	err = cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if ctx.Err() != nil {
		err = errors.Join(err, ctx.Err())
	}
	return out.String(), errb.String(), err
}

// runChecked runs a client as runClient does and returns its stdout,
// after logging its output; it fails t when the run failed or the client
// asked for anything but the fake's scripted requests (unexpected lists
// those the fake got).
func (h *clientHome) runChecked(t *testing.T, label string, unexpected func() []string, env []string, name string, args ...string) string {
	t.Helper()
	stdout, stderr, err := h.runClient(t, env, name, args...)
	t.Logf("%s %q stdout:\n%s\nstderr:\n%s", label, args, stdout, stderr)
	checkOffline(t, h.proxy, unexpected())
	if err != nil {
		t.Fatalf("%s %q: %v", label, args, err)
	}
	return stdout
}

// checkOffline fails t when the client asked for anything but the fake's
// scripted requests.
func checkOffline(t *testing.T, p *codextest.Proxy, unexpected []string) {
	t.Helper()
	if got := p.Targets(); len(got) > 0 {
		t.Errorf("the client tried to reach other hosts (refused by the test's proxy): %q", got)
	}
	if len(unexpected) > 0 {
		t.Errorf("the fake model got requests it was not scripted for: %q", unexpected)
	}
}

// killEscaped kills every process still running in, or naming, the
// throwaway user's directory root. runClient kills the client's process
// group, but a client may leave a daemon in a session of its own (Cline
// CLI 3.0.65 starts a hub daemon with setsid that outlives the run, and a
// later run would talk to it instead of starting one in its own home), and
// no test may leave a process behind. Where there is no /proc, it does
// nothing.
func killEscaped(t *testing.T, root string) {
	t.Helper()
	for pass := 0; pass < 3; pass++ {
		procs, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		killed := 0
		for _, p := range procs {
			pid, err := strconv.Atoi(p.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			dir := filepath.Join("/proc", p.Name())
			cwd, _ := os.Readlink(filepath.Join(dir, "cwd"))
			cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
			// A zombie has no command line, and nothing left to kill.
			if len(cmdline) == 0 || !strings.HasPrefix(cwd, root) && !strings.Contains(string(cmdline), root) {
				continue
			}
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed++
				t.Logf("killed a process the client left behind: %d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
		if killed == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// recorder is a remote MCP server entry's far end on 127.0.0.1: it keeps a
// copy of every request (what a client sent: path, headers) and refuses
// it, so the client carries on without the server.
type recorder struct {
	*fakeserver.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newRecorder(t *testing.T, name string) *recorder {
	t.Helper()
	r := &recorder{}
	srv, err := fakeserver.Start(name, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Clone(context.Background()))
		r.mu.Unlock()
		http.Error(w, "probe: no MCP here", http.StatusInternalServerError)
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	r.Server = srv
	return r
}

// requests are those received so far.
func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reqs)
}

// writeFile writes a fixture file in a throwaway home, making its
// directory.
func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// writeJSON writes v as indented JSON with writeFile.
func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, b)
}

// delayedArgs are /bin/sh's arguments for running the MCP server bin with
// every client message of the given method held back 2 s: the way to probe
// what a client's timeouts cover, and in which unit.
func delayedArgs(bin, method string) []string {
	return []string{"-c", `while IFS= read -r line; do
  case "$line" in *'"` + method + `"'*) sleep 2;; esac
  printf '%s\n' "$line"
done | exec "$0"`, bin}
}
