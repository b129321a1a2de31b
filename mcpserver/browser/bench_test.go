package browser_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/browser"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

// BenchmarkVsPlaywrightMCP runs the same local pages through our server and
// through Microsoft's Playwright MCP (@playwright/mcp, pinned in
// .ci/npm/package.json, on the same Debian Chromium), both over stdio
// JSON-RPC, in one run. The two servers run side by side and every
// iteration calls both, alternately, so load from other work on the
// machine hits both equally. Per page it reports:
//
//   - hermes-ms, playwright-ms, time-ratio: browser_navigate with a warm
//     browser; both return the page's snapshot in that response, so this is
//     navigate+snapshot as a model sees it (target ratio <= 1.0);
//   - hermes-bytes, playwright-bytes, bytes-ratio: the text a model
//     receives from browser_snapshot with every interactive element present
//     (ours with max_chars raised so nothing is cut; both are checked for the
//     page's controls, the last row's included) (target ratio <= 0.5);
//   - hermes-peak-MiB, playwright-peak-MiB: the peak summed PSS so far of
//     each server's whole process tree (server plus every Chromium process),
//     sampled every 100 ms.
//
// Without Playwright MCP installed (make deps) only our figures are
// reported, except in CI, where that is an error.
func BenchmarkVsPlaywrightMCP(b *testing.B) {
	needChromium(b)
	base := site(b)
	pages := []struct {
		name, path string
		// controls must all appear in a complete snapshot.
		controls []string
	}{
		{"login", "/login.html", []string{"Username", "Password", "Remember me", "Language", "Sign in", "dashboard"}},
		{"iframe", "/frames.html?same", []string{"Inner name", "Inner button"}},
		{"shadow", "/shadow.html", []string{"Shadow field", "Shadow button"}},
		{"rows1000", "/big", []string{"Order 999", "Note 999", "Cancel 999", "Order 0", "Cancel 0"}},
	}
	type server struct {
		name     string
		p        *mcptest.Client
		mem      *memSampler
		snapArgs map[string]any // asks for a complete snapshot
	}
	servers := []*server{{name: "hermes", p: realServer(b, b.TempDir()), snapArgs: map[string]any{"max_chars": 200000}}}
	if pw := startPlaywright(b); pw != nil {
		servers = append(servers, &server{name: "playwright", p: pw, snapArgs: map[string]any{}})
	}
	for _, s := range servers {
		s.mem = sampleMemory(s.p.Cmd.Process.Pid)
		defer s.mem.stop()
		// Warm the browser: the first navigation starts it.
		if res, err := s.p.CallTool("browser_navigate", map[string]any{"url": base + "/login.html"}); err != nil || res.IsError {
			b.Fatalf("%s: warm-up navigate: %v %s", s.name, err, res.Text())
		}
	}
	for _, pg := range pages {
		b.Run(pg.name, func(b *testing.B) {
			url := base + pg.path
			spent := make([]time.Duration, len(servers))
			n := 0
			for b.Loop() {
				for i, s := range servers {
					start := time.Now()
					res, err := s.p.CallTool("browser_navigate", map[string]any{"url": url})
					spent[i] += time.Since(start)
					if err != nil || res.IsError {
						b.Fatalf("%s: navigate: %v %.300s", s.name, err, res.Text())
					}
				}
				n++
			}
			size := make([]int, len(servers))
			for i, s := range servers {
				res, err := s.p.CallTool("browser_snapshot", s.snapArgs)
				text := res.Text()
				if err != nil || res.IsError {
					b.Fatalf("%s: snapshot: %v %.300s", s.name, err, text)
				}
				for _, c := range pg.controls {
					if !strings.Contains(text, c) {
						b.Errorf("%s snapshot of %s lacks %q", s.name, pg.name, c)
					}
				}
				size[i] = len(text)
				ms := float64(spent[i].Microseconds()) / 1000 / float64(n)
				b.ReportMetric(ms, s.name+"-ms")
				b.ReportMetric(float64(size[i]), s.name+"-bytes")
				b.ReportMetric(s.mem.peakMiB(), s.name+"-peak-MiB")
			}
			if len(servers) == 2 {
				b.ReportMetric(float64(spent[0])/float64(spent[1]), "time-ratio")
				b.ReportMetric(float64(size[0])/float64(size[1]), "bytes-ratio")
			}
			// ns/op is both servers together; the per-server figures above
			// are the ones to read.
		})
	}
}

// startPlaywright starts the pinned Playwright MCP on Debian's Chromium
// with the same quiet, local-only flags as ours; nil when not installed.
func startPlaywright(b *testing.B) *mcptest.Client {
	b.Helper()
	cli, _ := filepath.Abs("../../.ci/npm/node_modules/@playwright/mcp/cli.js")
	node, err := exec.LookPath("node")
	if _, serr := os.Stat(cli); serr != nil || err != nil {
		if os.Getenv("CI") != "" {
			b.Fatalf("Playwright MCP is not installed (run `make deps`): %v %v", serr, err)
		}
		b.Log("Playwright MCP not installed (make deps); reporting our figures only")
		return nil
	}
	exe, err := browser.FindChromium(os.Getenv(browser.EnvChromePath))
	if err != nil {
		b.Fatal(err)
	}
	cfg := map[string]any{
		"browser": map[string]any{
			"browserName": "chromium",
			"isolated":    true,
			"launchOptions": map[string]any{
				"executablePath":  exe,
				"headless":        true,
				"chromiumSandbox": false,
				"args": []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
					"--disable-background-networking", "--disable-component-update", "--disable-sync",
					"--disable-dev-shm-usage"},
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
