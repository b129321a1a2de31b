// Package codextest runs the real codex CLI pinned in .ci/npm in tests:
// it finds the binary, gives codex a throwaway HOME and CODEX_HOME, and
// points every proxy variable at a local black hole, so codex's only
// network traffic (the curated-plugin sync at start-up: git ls-remote to
// github.com, then api.github.com and chatgpt.com) never leaves 127.0.0.1,
// not even for DNS. `--disable plugins` would also stop the sync, but it
// empties plugin/list.
package codextest

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

const InstallHint = "run `make test` (it installs .ci/npm and .ci/npm-noscripts)"

// The codex versions .ci/npm pins: Pinned is "@openai/codex", the one
// every test runs; Previous is the "codex-0.169" alias, kept to prove that
// the oldest version bridge supports still works.
const (
	Pinned   = "0.171.0"
	Previous = "0.169.0"
)

// Binary returns the pinned codex binary (Pinned), skipping the test when it
// is not installed, or failing it under CI, where it must be.
func Binary(t testing.TB) string {
	t.Helper()
	return binary(t, filepath.Join(RepoRoot(t), ".ci", "npm", "node_modules"))
}

// PreviousBinary returns the codex binary of version Previous, installed
// under the npm alias codex-0.169.
func PreviousBinary(t testing.TB) string {
	t.Helper()
	return binary(t, filepath.Join(RepoRoot(t), ".ci", "npm", "node_modules", "codex-0.169", "node_modules"))
}

func binary(t testing.TB, modules string) string {
	t.Helper()
	var pkg, triple string
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		pkg, triple = "codex-linux-x64", "x86_64-unknown-linux-musl"
	case "linux/arm64":
		pkg, triple = "codex-linux-arm64", "aarch64-unknown-linux-musl"
	case "darwin/arm64":
		pkg, triple = "codex-darwin-arm64", "aarch64-apple-darwin"
	case "darwin/amd64":
		pkg, triple = "codex-darwin-x64", "x86_64-apple-darwin"
	default:
		t.Skipf("no pinned codex build for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	bin := filepath.Join(modules, "@openai", pkg, "vendor", triple, "bin", "codex")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("codex CLI missing (%v): %s", err, InstallHint)
		}
		t.Skipf("codex CLI missing (%v): %s", err, InstallHint)
	}
	return bin
}

// RepoRoot is the directory holding go.mod above the working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Proxy is an HTTP proxy on 127.0.0.1 that refuses everything and
// remembers what was asked for.
type Proxy struct {
	ln      net.Listener
	wg      sync.WaitGroup
	mu      sync.Mutex
	targets []string
}

// NewProxy starts a black-hole proxy, closed when the test ends.
func NewProxy(t testing.TB) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				line, _ := bufio.NewReader(conn).ReadString('\n')
				p.mu.Lock()
				p.targets = append(p.targets, strings.TrimSpace(line))
				p.mu.Unlock()
				_, _ = conn.Write([]byte("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		p.wg.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		t.Logf("blocked proxy requests: %q", p.targets)
	})
	return p
}

// URL is the proxy address for *_PROXY variables.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Targets returns the request lines refused so far, oldest first.
func (p *Proxy) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

// Home is a throwaway HOME and CODEX_HOME for one codex.
type Home struct {
	Home, CodexHome string
}

// NewHome makes the two directories under t.TempDir().
func NewHome(t testing.TB) Home {
	t.Helper()
	dir := t.TempDir()
	h := Home{Home: filepath.Join(dir, "home"), CodexHome: filepath.Join(dir, "codex-home")}
	for _, d := range []string{h.Home, h.CodexHome} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// Env is a minimal environment for codex: nothing of ours (API keys
// included) leaks into it, and all traffic goes through proxy.
func (h Home) Env(proxy string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"HOME=" + h.Home,
		"CODEX_HOME=" + h.CodexHome,
		"RUST_LOG=warn",
		"HTTPS_PROXY=" + proxy, "https_proxy=" + proxy,
		"HTTP_PROXY=" + proxy, "http_proxy=" + proxy,
		"ALL_PROXY=" + proxy, "all_proxy=" + proxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
}
