//go:build linux

package browser_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// restarted is the part of browserRestartedNote the tests look for.
const restarted = "was started again"

// crashChromium SIGKILLs Chromium's whole process tree, as the OOM killer or
// a crash would end it, and waits until every process of it is gone. It
// returns the pids and the profile directories they used.
func crashChromium(t *testing.T, procs []int) (profiles []string) {
	t.Helper()
	if len(procs) == 0 {
		t.Fatal("no Chromium process to kill")
	}
	for _, pid := range procs {
		cmd, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		for _, arg := range strings.Split(string(cmd), "\x00") {
			if d, ok := strings.CutPrefix(arg, "--user-data-dir="); ok && !slices.Contains(profiles, d) {
				profiles = append(profiles, d)
			}
		}
	}
	for _, pid := range procs {
		if g, _ := syscall.Getpgid(pid); g == pid {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left []int
		for _, pid := range procs {
			if alive(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return profiles
		}
		if time.Now().After(deadline) {
			t.Fatalf("Chromium processes %v survived SIGKILL", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone waits until none of paths exists.
func waitGone(t *testing.T, what string, paths []string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var left []string
		for _, p := range paths {
			if _, err := os.Stat(p); err == nil {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s left behind: %v", what, left)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestBrowserComesBackAfterChromiumDies runs the real hermes-tools-mcp, lets
// it start Chromium, and SIGKILLs Chromium's process tree: the next call
// starts a new Chromium, works, and says the old tabs are gone; the calls
// after it say nothing more; the new browser keeps the egress policy (its
// proxy refuses a page's request to the metadata service, the tool refuses
// the address itself); and nothing of the dead browser is left.
func TestBrowserComesBackAfterChromiumDies(t *testing.T) {
	needChromium(t)
	base := site(t)
	p := realServer(t, t.TempDir())
	server := p.Cmd.Process.Pid
	res, err := p.CallTool("browser_navigate", map[string]any{"url": base + "/login.html"})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "Sign in") || strings.Contains(res.Text(), restarted) {
		t.Fatalf("first navigate: %v %s", err, res.Text())
	}
	old := browser.ChromiumDescendants(server)
	profiles := crashChromium(t, old)

	res, err = p.CallTool("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "Dashboard") {
		t.Fatalf("navigate after Chromium died: %v %s", err, res.Text())
	}
	if !strings.Contains(res.Text(), restarted) || !strings.Contains(res.Text(), "refs") {
		t.Errorf("the first result on the new browser does not say the old one is gone: %s", res.Text())
	}
	fresh := browser.ChromiumDescendants(server)
	if len(fresh) == 0 {
		t.Fatalf("no Chromium runs under the server after the restart")
	}
	for _, pid := range fresh {
		if slices.Contains(old, pid) {
			t.Errorf("pid %d of the dead browser is listed again", pid)
		}
	}
	waitGone(t, "the dead browser's profile", profiles)

	res, err = p.CallTool("browser_snapshot", map[string]any{})
	if err != nil || res.IsError || strings.Contains(res.Text(), restarted) {
		t.Errorf("the next call repeats the note or fails: %v %s", err, res.Text())
	}

	res, err = p.CallTool("browser_navigate", map[string]any{"url": base + "/metadata-img.html"})
	if err != nil || res.IsError || !strings.Contains(res.Text(), "blocked_requests") || !strings.Contains(res.Text(), "169.254.169.254") {
		t.Errorf("the new browser's page reached past the egress proxy (no refusal of the metadata image): %v %s", err, res.Text())
	}
	res, err = p.CallTool("browser_navigate", map[string]any{"url": "http://169.254.169.254/latest/meta-data/"})
	if err != nil || !res.IsError || !strings.Contains(res.Text(), "metadata") {
		t.Errorf("navigate to the metadata service after the restart: %v %s", err, res.Text())
	}
}

// TestSessionsAfterBrowserRestart: after Chromium died, each MCP session's
// next call is told (once), gets tabs of its own again on the new browser,
// in a browser context of its own (what one session stores, another does
// not see), under the egress policy; closing the server then leaves no
// Chromium process of either browser.
func TestSessionsAfterBrowserRestart(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{CallTimeout: 30 * time.Second})
	stA, stB := sessionstate.New("a"), sessionstate.New("b")
	t.Cleanup(func() { _ = stA.Close(); _ = stB.Close() })
	a, b := d.in(stA), d.in(stB)
	a.ok("browser_navigate", map[string]any{"url": base + "/login.html"})
	b.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})

	oldPID := browser.BrowserPID(d.s)
	if oldPID == 0 {
		t.Fatal("no launched browser")
	}
	old := append([]int{oldPID}, browser.Descendants(oldPID)...)
	crashChromium(t, old)

	for _, tc := range []struct {
		name string
		d    *driver
	}{{"a", a}, {"b", b}} {
		res := tc.d.ok("browser_navigate", map[string]any{"url": base + "/cookies"})
		if !strings.Contains(fmt.Sprint(res["note"]), restarted) {
			t.Errorf("session %s was not told the browser was restarted: %v", tc.name, res)
		}
		if res := tc.d.ok("browser_snapshot", nil); strings.Contains(fmt.Sprint(res["note"]), restarted) {
			t.Errorf("session %s was told twice: %v", tc.name, res)
		}
	}
	newPID := browser.BrowserPID(d.s)
	if newPID == 0 || newPID == oldPID {
		t.Fatalf("browser pid %d after the restart (was %d)", newPID, oldPID)
	}

	if got := eval(a, `document.cookie = "who=a; path=/"; document.cookie`); got != "who=a" {
		t.Fatalf("cookie in session a = %v", got)
	}
	b.ok("browser_navigate", map[string]any{"url": base + "/cookies"})
	if got := eval(b, "document.title"); got != "cookies:" {
		t.Errorf("session b's requests carry %q: the sessions share a browser context after the restart", got)
	}
	if got := urlsOf(a); !slices.Equal(got, []string{base + "/cookies"}) {
		t.Errorf("session a's tabs = %v", got)
	}
	def, others := contextPages(t, d.s)
	if len(def) != 1 || len(others) != 1 {
		t.Errorf("pages after the restart: default context %v, others %v; want one page each in two contexts", def, others)
	}
	res := b.ok("browser_navigate", map[string]any{"url": base + "/metadata-img.html"})
	if !strings.Contains(fmt.Sprint(res["blocked_requests"]), "169.254.169.254") {
		t.Errorf("session b's page on the new browser was not held to the egress policy: %v", res)
	}

	newProcs := append([]int{newPID}, browser.Descendants(newPID)...)
	if err := d.s.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	for _, pid := range append(old, newProcs...) {
		if alive(pid) {
			t.Errorf("pid %d survived the session's close", pid)
		}
	}
}
