//go:build linux

package browser_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || len(stat) < i+3 || stat[i+2] != 'Z'
}

// TestNoChromiumSurvives runs the real hermes-tools-mcp, lets it start
// Chromium, then ends the server — by closing stdin (a client's normal
// exit), with SIGTERM (a supervisor's stop) and with SIGKILL, which runs no
// cleanup at all — and checks that every Chromium process it started is
// gone.
func TestNoChromiumSurvives(t *testing.T) {
	needChromium(t)
	base := site(t)
	for _, tc := range []struct {
		name string
		end  func(p *mcptest.Client)
	}{
		{"stdin closed", func(p *mcptest.Client) { _ = p.CloseInput() }},
		{"SIGTERM", func(p *mcptest.Client) { _ = p.Cmd.Process.Signal(syscall.SIGTERM) }},
		{"SIGKILL", func(p *mcptest.Client) { _ = p.Cmd.Process.Signal(syscall.SIGKILL) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := realServer(t, t.TempDir())
			res, err := p.CallTool("browser_navigate", map[string]any{"url": base + "/login.html"})
			if err != nil || res.IsError || !strings.Contains(res.Text(), "Sign in") {
				t.Fatalf("navigate over stdio: %v %s", err, res.Text())
			}
			server := p.Cmd.Process.Pid
			procs := browser.ChromiumDescendants(server)
			if len(procs) < 2 {
				t.Fatalf("expected Chromium processes under the server (pid %d), found %v", server, procs)
			}
			// Chromium leads its own process group; nothing in that group
			// may survive either (children forked after the listing).
			pgid := 0
			for _, pid := range procs {
				if g, _ := syscall.Getpgid(pid); g == pid {
					pgid = pid
				}
			}
			if pgid == 0 {
				t.Errorf("Chromium does not lead a process group of its own: %v", procs)
			}
			for _, pid := range procs {
				cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
				for _, arg := range strings.Split(string(cmd), "\x00") {
					if d, ok := strings.CutPrefix(arg, "--user-data-dir="); ok && strings.Contains(d, "hermes-browser-") {
						t.Cleanup(func() { _ = os.RemoveAll(d) })
					}
				}
			}
			tc.end(p)
			_ = p.Wait(30 * time.Second)
			deadline := time.Now().Add(10 * time.Second)
			for {
				var left []int
				for _, pid := range append(procs, groupMembers(pgid)...) {
					if alive(pid) {
						left = append(left, pid)
					}
				}
				if len(left) == 0 {
					t.Logf("%d Chromium processes gone", len(procs))
					return
				}
				if time.Now().After(deadline) {
					for _, pid := range left {
						cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
						t.Errorf("pid %d survived the server: %.120s", pid, strings.ReplaceAll(string(cmd), "\x00", " "))
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}

// groupMembers lists the processes of process group pgid.
func groupMembers(pgid int) []int {
	if pgid == 0 {
		return nil
	}
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			out = append(out, pid)
		}
	}
	return out
}
