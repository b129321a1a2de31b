package main

// Benchmarks of the built binary, against a bare one-tool mcp-go server
// (testdata/baseline) built and measured in the same run:
//
//	make bench   (go test -run '^$' -bench . -benchtime 1x ./cmd/hermes-tools-mcp)
//
// Each benchmark runs its own repetitions and reports medians and
// percentiles as custom metrics; b.N is irrelevant. Targets (issue 14):
// spawn to tools/list with the default toolsets at most 3x the baseline
// (startup-ratio), idle peak RSS at most 25 MB.

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
)

const benchSpawns = 41

// BenchmarkStartup spawns the server with the default toolsets and the
// baseline, interleaved, and times spawn to the tools/list response.
func BenchmarkStartup(b *testing.B) {
	ours, base := benchBinaries(b)
	home := benchHome(b, 50)
	// Keys (never used) make the provider-backed default tools available,
	// so the listing is as long as a configured user's.
	for _, k := range []string{"TAVILY_API_KEY", "OPENAI_API_KEY", "FAL_KEY"} {
		b.Setenv(k, "bench-unused-key")
	}
	want := exposedTools(b, ours, home)
	cmds := map[string][]string{
		"hermes": {ours, "--hermes-home", home},
		"base":   {base},
	}
	init := map[string][]float64{}
	list := map[string][]float64{}
	var rss, baseRSS []float64
	// Interleave the two servers so machine noise hits both alike.
	for range benchSpawns {
		for _, name := range []string{"hermes", "base"} {
			s := spawn(b, cmds[name])
			init[name] = append(init[name], s.initMS)
			list[name] = append(list[name], s.listMS)
			if name == "hermes" {
				rss = append(rss, s.rssMB)
				if s.tools != want {
					b.Fatalf("hermes listed %d tools, doctor says %d are exposed", s.tools, want)
				}
			} else {
				baseRSS = append(baseRSS, s.rssMB)
			}
		}
	}
	b.ReportMetric(median(init["hermes"]), "init-ms")
	b.ReportMetric(median(list["hermes"]), "list-ms")
	b.ReportMetric(median(init["base"]), "base-init-ms")
	b.ReportMetric(median(list["base"]), "base-list-ms")
	// The spawns are paired (each hermes spawn next to a baseline spawn), so
	// the ratio is the median of the pairs' ratios: load on the shared
	// machine drifts over a run and moves both halves of a pair alike.
	ratios := make([]float64, len(list["hermes"]))
	for i := range ratios {
		ratios[i] = list["hermes"][i] / list["base"][i]
	}
	b.ReportMetric(median(ratios), "startup-ratio")
	b.ReportMetric(median(rss), "idle-peak-rss-MB")
	b.ReportMetric(median(baseRSS), "base-peak-rss-MB")
	b.ReportMetric(float64(want), "tools")
}

// exposedTools counts the tools the default toolsets expose (doctor).
func exposedTools(b *testing.B, bin, home string) int {
	b.Helper()
	out, err := exec.Command(bin, "doctor", "--json", "--hermes-home", home).Output()
	if err != nil {
		b.Fatalf("doctor: %v", err)
	}
	var rep struct {
		Tools []struct {
			Enabled bool `json:"enabled"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out, &rep); err != nil || len(rep.Tools) == 0 {
		b.Fatalf("doctor --json: %v: %s", err, out)
	}
	n := 0
	for _, t := range rep.Tools {
		if t.Enabled {
			n++
		}
	}
	return n
}

func BenchmarkSkillsListCall(b *testing.B) {
	ours, base := benchBinaries(b)
	home := benchHome(b, 50)
	const calls = 3000
	measure := func(c *mcptest.Client, tool string, args map[string]any, check func(mcptest.ToolResult)) []float64 {
		lat := make([]float64, 0, calls)
		if args == nil {
			args = map[string]any{}
		}
		params := map[string]any{"name": tool, "arguments": args}
		for i := range calls + 100 {
			// The raw round trip: decoding the result is the client's
			// cost, not the server's, so it is done once, outside the
			// timing.
			start := time.Now()
			raw, err := c.Request("tools/call", params, time.Minute)
			d := msSince(start)
			if err != nil {
				b.Fatalf("%s: %v", tool, err)
			}
			if i == 0 {
				var res mcptest.ToolResult
				if err := json.Unmarshal(raw, &res); err != nil || res.IsError {
					b.Fatalf("%s: %v %.300s", tool, err, raw)
				}
				if check != nil {
					check(res)
				}
			}
			if i >= 100 { // warm-up excluded
				lat = append(lat, d)
			}
		}
		return lat
	}
	c := mcptest.Start(b, exec.Command(ours, "--hermes-home", home))
	lat := measure(c, "skills_list", nil, func(res mcptest.ToolResult) {
		if n, _ := res.JSON()["count"].(float64); n != 50 {
			b.Fatalf("skills_list did not list the 50 fixture skills: %.300s", res.Text())
		}
	})
	b.ReportMetric(percentile(lat, 50), "p50-ms")
	b.ReportMetric(percentile(lat, 95), "p95-ms")
	b.ReportMetric(closeAndRSS(b, c), "peak-rss-MB")

	// The floor: the same client against the bare server's echo tool.
	c = mcptest.Start(b, exec.Command(base))
	lat = measure(c, "echo", map[string]any{"message": "hi"}, nil)
	b.ReportMetric(percentile(lat, 50), "base-echo-p50-ms")
	b.ReportMetric(closeAndRSS(b, c), "base-peak-rss-MB")
}

// spawned is what one spawn measured.
type spawned struct {
	initMS, listMS, rssMB float64
	tools                 int
}

// spawn starts a server and times spawn to the initialize response and to
// the tools/list response; rssMB is its peak RSS once idle after that.
func spawn(b *testing.B, argv []string) spawned {
	b.Helper()
	var s spawned
	start := time.Now()
	c, err := mcptest.Launch(exec.Command(argv[0], argv[1:]...))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize("2025-11-25", time.Minute); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	s.initMS = msSince(start)
	raw, err := c.Request("tools/list", map[string]any{}, time.Minute)
	s.listMS = msSince(start)
	if err != nil {
		b.Fatalf("tools/list: %v", err)
	}
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		b.Fatalf("tools/list: %v: %.300s", err, raw)
	}
	s.tools = len(r.Tools)
	s.rssMB = closeAndRSS(b, c)
	return s
}

// closeAndRSS reads the server's peak resident set size (VmHWM, in MB)
// while it still runs, then closes stdin and waits for a clean exit. The
// rusage from wait4 is no use here: Linux carries the parent's high-water
// mark across a vfork+exec, so it reports the test binary's size.
func closeAndRSS(b *testing.B, c *mcptest.Client) float64 {
	rss := vmHWM(b, c.Cmd.Process.Pid)
	c.CloseInput()
	if err := c.Wait(30 * time.Second); err != nil {
		b.Fatalf("server exit: %v\n%s", err, c.Stderr())
	}
	return rss
}

func vmHWM(b *testing.B, pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatalf("read VmHWM: %v", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb float64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb); err != nil {
				b.Fatalf("parse VmHWM %q: %v", rest, err)
			}
			return kb / 1024
		}
	}
	b.Fatal("no VmHWM in /proc status")
	return 0
}

// benchBinaries returns the server as `make build` builds it, and the
// baseline built the same way.
func benchBinaries(b *testing.B) (ours, base string) {
	b.Helper()
	ours, err := toolsbuild.Binary(toolsbuild.Server)
	if err != nil {
		b.Fatal(err)
	}
	base = filepath.Join(b.TempDir(), "baseline")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", base, "./testdata/baseline")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("build the baseline: %v\n%s", err, out)
	}
	return ours, base
}

// BenchmarkWebExtractCall measures a call that does real work in process:
// web_extract reads a page served on 127.0.0.1 with the keyless extractor
// (readability, Markdown), so nothing leaves the machine. It reports the
// first call of a session (which pays the extraction libraries' first
// use) and later ones.
func BenchmarkWebExtractCall(b *testing.B) {
	ours, _ := benchBinaries(b)
	home := benchHome(b, 0)
	// The page is on loopback, which web_extract refuses unless allowed,
	// and the extraction is the keyless one.
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("web:\n  allow_private_urls: true\n  extract_backend: local\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><head><title>Bench</title></head><body><article><h1>Bench page</h1><p>"+strings.Repeat("Some text to extract. ", 200)+"</p></article></body></html>")
	}))
	defer page.Close()
	const sessions, calls = 5, 200
	var first, later, rss []float64
	for range sessions {
		c := mcptest.Start(b, exec.Command(ours, "--hermes-home", home, "--toolsets", "web"))
		for i := range calls {
			start := time.Now()
			res, err := c.CallTool("web_extract", map[string]any{"urls": []string{page.URL}})
			d := msSince(start)
			if err != nil || res.IsError || !strings.Contains(res.Text(), "Bench page") {
				b.Fatalf("web_extract did not read the page: %v %.300s", err, res.Text())
			}
			if i == 0 {
				first = append(first, d)
			} else {
				later = append(later, d)
			}
		}
		rss = append(rss, closeAndRSS(b, c))
	}
	b.ReportMetric(median(first), "first-call-ms")
	b.ReportMetric(percentile(later, 50), "call-p50-ms")
	b.ReportMetric(percentile(later, 95), "call-p95-ms")
	b.ReportMetric(median(rss), "peak-rss-MB")
}

// benchHome writes a Hermes home with n skills, half of them in categories,
// and a config.yaml like a user's (testdata/bench-config.yaml: a model, MCP
// servers, auxiliary models, backends), which every toolset reads.
func benchHome(b *testing.B, n int) string {
	b.Helper()
	home := b.TempDir()
	config, err := os.ReadFile("testdata/bench-config.yaml")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), config, 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		rel := fmt.Sprintf("skill-%02d", i)
		if i%2 == 1 {
			rel = filepath.Join(fmt.Sprintf("category-%d", i%5), rel)
		}
		dir := filepath.Join(home, "skills", rel)
		if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
			b.Fatal(err)
		}
		body := fmt.Sprintf("---\nname: skill-%02d\ndescription: Benchmark skill number %d, which does a specific thing well.\nmetadata:\n  hermes:\n    tags: [bench, n%d]\n---\n# Skill %d\n\nSteps to follow.\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "references", "notes.md"), []byte("notes\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// A real library was not written a moment ago. The skills cache
	// distrusts files modified within the last seconds (their mtime cannot
	// prove they have not changed since), so age the tree as a user's is.
	old := time.Now().Add(-time.Hour)
	err = filepath.WalkDir(home, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		b.Fatal(err)
	}
	// Chtimes cannot age the change time, by which the server trusts an
	// unchanged config.yaml without re-reading it (hermeshome), and only
	// once it is over 2 s old. A user's file is older than that.
	time.Sleep(2500 * time.Millisecond)
	return home
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Nanoseconds()) / 1e6 }

func median(xs []float64) float64 { return percentile(xs, 50) }

func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}
