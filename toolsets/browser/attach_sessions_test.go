//go:build linux

package browser_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets/browser"
)

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// userBrowser starts a Chromium of "the user's" with remote debugging, as
// BROWSER_CDP_URL expects one, and returns its DevTools address.
func userBrowser(t *testing.T) string {
	t.Helper()
	exe, err := browser.FindChromium(os.Getenv(browser.EnvChromePath))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"--headless", "--remote-debugging-port=0", "--user-data-dir=" + t.TempDir(),
		"--window-size=1280,800", "about:blank"}, chromiumArgs...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("the user's Chromium did not report its DevTools address")
		return ""
	}
}

// TestAttachedSessions: attached to a browser we did not start, sessions
// after the first get contexts of their own there too, with the request
// guard reporting a refusal to the session whose page made it; a session
// that ends leaves no context behind in the user's browser.
func TestAttachedSessions(t *testing.T) {
	needChromium(t)
	base := site(t)
	d := newDriver(t, browser.Options{CDPURL: userBrowser(t)})
	st1, st2 := sessionstate.New("first"), sessionstate.New("second")
	t.Cleanup(func() { _ = st1.Close(); _ = st2.Close() })
	first, second := d.in(st1), d.in(st2)

	first.ok("browser_navigate", map[string]any{"url": base + "/welcome.html"})
	eval(first, `document.cookie = "who=first; path=/"; 1`)
	res := second.ok("browser_navigate", map[string]any{"url": base + "/metadata-img.html"})
	if b := fmt.Sprint(res["blocked_requests"]); !strings.Contains(b, "169.254.169.254") {
		t.Errorf("the request guard did not refuse the second session's metadata image: %v", res)
	}
	if got := eval(second, "document.cookie"); got != "" {
		t.Errorf("the second session sees the first's cookie %q", got)
	}
	// A request made after the second session's call returned is its to
	// hear of, not the first's.
	eval(second, `setTimeout(() => { new Image().src = "http://169.254.169.254/late.png" }, 100); 1`)
	time.Sleep(time.Second)
	if res := first.ok("browser_snapshot", nil); res["blocked_requests"] != nil {
		t.Errorf("the first session was told of the second's refusal: %v", res["blocked_requests"])
	}
	if res := second.ok("browser_snapshot", nil); !strings.Contains(fmt.Sprint(res["blocked_requests"]), "late.png") {
		t.Errorf("the second session was not told of its page's refused request: %v", res)
	}
	if got := urlsOf(first); len(got) != 1 || got[0] != base+"/welcome.html" {
		t.Errorf("first session's tabs: %v", got)
	}

	if _, others := contextPages(t, d.s); len(others) != 1 {
		t.Fatalf("contexts besides the default: %v, want the second session's", others)
	}
	if err := st2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, others := contextPages(t, d.s); len(others) != 0 {
		t.Errorf("the second session's context outlived it in the user's browser: %v", others)
	}
	first.ok("browser_snapshot", nil)
}
