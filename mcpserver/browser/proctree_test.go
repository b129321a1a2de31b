package browser_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/browser"
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

// TestNoChromiumSurvives serves the toolset from a subprocess over stdio,
// lets it start Chromium, then ends the server — with SIGKILL, which runs
// no cleanup at all, and by closing stdin, the normal exit — and checks
// that every Chromium process it started is gone.
func TestNoChromiumSurvives(t *testing.T) {
	needChromium(t)
	base := site(t)
	for _, tc := range []struct {
		name string
		end  func(p *mcpProc)
	}{
		{"SIGKILL", func(p *mcpProc) { _ = p.cmd.Process.Signal(syscall.SIGKILL) }},
		{"stdin closed", func(p *mcpProc) { _ = p.in.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := selfServer(t, t.TempDir())
			text, isErr, err := p.callTool("browser_navigate", map[string]any{"url": base + "/login.html"})
			if err != nil || isErr || !strings.Contains(text, "Sign in") {
				t.Fatalf("navigate over stdio: %v %v %s", err, isErr, text)
			}
			server := p.cmd.Process.Pid
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
			_ = p.cmd.Wait()
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
