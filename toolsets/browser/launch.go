package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/hermes-go/hermes/internal/contain"
	"github.com/hermes-go/hermes/internal/egress"
)

// startTimeout bounds launching (or attaching to) the browser. A cold
// Chromium start is ~0.5 s on a 2-core machine; 30 s covers a loaded CI box.
const startTimeout = 30 * time.Second

// closeTimeout bounds the graceful shutdown before everything is killed.
const closeTimeout = 5 * time.Second

// launchFlags keep Chromium headless, quiet and on this machine: no
// background networking, component or safe-browsing updates, sync, metrics,
// field trials or domain-reliability reports, so the only traffic is what
// the pages we open ask for. The back/forward cache stays on (faster back);
// back() handles its restore explicitly.
func launchFlags(extra map[string]any) []chromedp.ExecAllocatorOption {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.Headless,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-breakpad", true),
		chromedp.Flag("disable-client-side-phishing-detection", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-component-extensions-with-background-pages", true),
		chromedp.Flag("disable-field-trial-config", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("no-service-autorun", true),
		chromedp.Flag("metrics-recording-only", true),
		chromedp.Flag("safebrowsing-disable-auto-update", true),
		chromedp.Flag("disable-search-engine-choice-screen", true),
		// One value: flags are a map, so a second disable-features would
		// replace the first.
		chromedp.Flag("disable-features", "Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,"+
			"CertificateTransparencyComponentUpdater,AutofillServerCommunication,InterestFeedContentSuggestions,"+
			"PrivacySandboxSettings4,GlobalMediaControls,NetworkTimeServiceQuerying"),
		// Chromium resolves no names itself (the egress proxy does), and
		// nothing leaves outside the proxy: no QUIC (above), no DNS
		// prefetch, no WebRTC UDP.
		chromedp.Flag("dns-prefetch-disable", true),
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-hang-monitor", true),
		chromedp.Flag("disable-prompt-on-repost", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("force-color-profile", "srgb"),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("use-mock-keychain", true),
	}
	for k, v := range extra {
		opts = append(opts, chromedp.Flag(k, v))
	}
	return opts
}

// runningBrowser is a started (or attached) browser and the tab the tools
// use.
type runningBrowser struct {
	allocCancel   context.CancelFunc
	browserCtx    context.Context
	browserCancel context.CancelFunc
	pid           int    // Chromium's pid and process group; 0 when attached
	profile       string // fresh user-data-dir, removed at close
	attached      bool
	// lost is closed when the connection to the browser drops: at close,
	// or when the browser died on its own (SIGKILL, the OOM killer, a
	// crash), after which Session.browser starts a new one.
	lost <-chan struct{}
	// log receives panics recovered on the browser's goroutines.
	log *slog.Logger
	// set is what the browser was started with; sessions' contexts are
	// held to its network policy.
	set settings
	// proxy carries every connection of a browser we launched; nil when
	// attached to one we did not start.
	proxy *egress.Proxy
	// guard checks every request's URL, in each tab, in a browser we did
	// not launch (whose requests the proxy does not see); nil otherwise.
	guard *requestGuard

	// setMu guards sets and closing. It is taken before any tab set's
	// tabMu, never after.
	setMu sync.Mutex
	// sets are the live tab sets, one per MCP session (see tabset.go);
	// browser events find the set a new page belongs to here.
	sets    []*tabSet
	closing bool // no more tab sets are taken on
	// dflt drives the browser's default context: the stdio session's, and
	// that of calls with no session.
	dflt *tabSet
}

// startBrowser launches Chromium, or attaches to set.browser.CDPURL, on a
// context of its own: the browser's life must not end with the call that
// happened to start it.
func startBrowser(set settings, log *slog.Logger, blocked *blockedLog) (*runningBrowser, error) {
	rb := &runningBrowser{log: log, set: set}
	var allocCtx context.Context
	if set.browser.CDPURL != "" {
		rb.attached = true
		rb.guard = &requestGuard{policy: set.policy(), blocked: blocked, log: log}
		// A browser someone else started keeps its own network settings:
		// only the URLs its pages request can be checked here.
		log.Warn("attached to a browser at " + set.browser.CDPURL + ": its connections do not go through hermes-tools' egress proxy, so host names are not checked after DNS; launch Chromium through hermes-tools for the full network policy")
		allocCtx, rb.allocCancel = remote.NewAllocator(context.Background(), set.browser.CDPURL)
	} else {
		path, err := findChromium(set.browser.ExecPath, set.lookPath)
		if err != nil {
			return nil, err
		}
		// A profile directory of our own (not chromedp's), so one that a
		// SIGKILLed server left behind can be recognised and swept by the
		// next server.
		sweepProfiles()
		dir, err := os.MkdirTemp("", profilePrefix)
		if err != nil {
			return nil, fmt.Errorf("create the browser profile directory (check TMPDIR): %w", err)
		}
		rb.profile = dir
		proxy, err := egress.Start(egressPolicy(set, blocked, log))
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
		rb.proxy = proxy
		opts := append(launchFlags(set.extraFlags),
			// Every request through the proxy, loopback included (Chromium
			// bypasses the proxy for loopback unless told not to).
			chromedp.ProxyServer(proxy.URL()),
			chromedp.Flag("proxy-bypass-list", "<-loopback>"),
			// The proxy reads HTTPS requests whole, with certificates of a
			// key of its own: the browser accepts that key, and verifies
			// every other certificate as always (the proxy verifies the
			// hosts' own).
			chromedp.Flag("ignore-certificate-errors-spki-list", proxy.SPKI()),
			chromedp.UserDataDir(dir),
			chromedp.ExecPath(path),
			chromedp.ModifyCmdFunc(ownProcessGroup),
		)
		allocCtx, rb.allocCancel = chromedp.NewExecAllocator(context.Background(), opts...)
	}
	// chromedp reports protocol oddities (an event for a tab it already
	// let go of) through these; a library does not print.
	logf := func(format string, args ...any) { rb.log.Debug(fmt.Sprintf(format, args...)) }
	rb.browserCtx, rb.browserCancel = chromedp.NewContext(allocCtx, chromedp.WithLogf(logf), chromedp.WithErrorf(logf))

	started := make(chan error, 1)
	go func() {
		started <- contain.Call(rb.log, "starting the browser", func() error { return chromedp.Do(rb.browserCtx) })
	}()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	select {
	case err := <-started:
		if err != nil {
			rb.kill()
			if rb.attached {
				return nil, fmt.Errorf("attach to the browser at %s (check %s / browser.cdp_url and that the browser runs with remote debugging): %w", set.browser.CDPURL, EnvCDPURL, err)
			}
			return nil, fmt.Errorf("start Chromium (check that it runs: chromium --headless --no-sandbox about:blank): %w", err)
		}
	case <-timer.C:
		rb.kill()
		return nil, fmt.Errorf("the browser did not start within %s", startTimeout)
	}
	if c := chromedp.FromContext(rb.browserCtx); c != nil && c.Browser != nil {
		rb.lost = c.Browser.LostConnection
		if c.Browser.Process() != nil {
			rb.pid = c.Browser.Process().Pid
		}
	}
	if rb.pid > 0 && rb.lost != nil {
		// A Chromium that dies on its own takes none of its helpers
		// with it (they lead no group and outlive their parent): its
		// group is killed at once, not when the next call notices, so
		// nothing of a dead browser lingers meanwhile; a graceful close
		// (which drops the connection too) is left to finish. Ends with
		// the browser's context, which kill always cancels.
		go func(pid int, lost <-chan struct{}, done <-chan struct{}) {
			select {
			case <-lost:
				rb.setMu.Lock()
				closing := rb.closing
				rb.setMu.Unlock()
				if !closing {
					killGroup(pid)
				}
			case <-done:
			}
		}(rb.pid, rb.lost, rb.browserCtx.Done())
	}
	// Pages our pages open become tabs of the session (see tabs.go); the
	// discovery is the browser's, so switch it on when attached too.
	if err := chromedp.ListenBrowser(rb.browserCtx, contain.Func(rb.log, "a browser event listener", rb.onBrowserEvent)); err != nil {
		rb.kill()
		return nil, fmt.Errorf("watch the browser: %w", err)
	}
	sctx, cancel := context.WithTimeout(rb.browserCtx, startTimeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(sctx, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		rb.kill()
		return nil, fmt.Errorf("watch the browser's tabs: %w", err)
	}
	// When attached, the first context took one of the user's tabs; drive
	// a tab of our own instead, and close only that one at the end.
	rb.dflt = newTabSet(rb, "", blocked, rb.guard)
	var t *tab
	var err error
	if rb.attached {
		t, err = rb.dflt.openBlank(sctx)
	} else {
		if t, err = firstTab(rb.browserCtx, rb.log); err == nil {
			rb.dflt.tabMu.Lock()
			rb.dflt.tabs = append(rb.dflt.tabs, t)
			rb.dflt.tabMu.Unlock()
		}
	}
	if err != nil {
		rb.kill()
		return nil, err
	}
	rb.dflt.setCurrent(t)
	rb.sets = append(rb.sets, rb.dflt)
	return rb, nil
}

// dead reports whether the browser is gone without having been closed:
// its connection dropped, or (a moment before that is noticed) its main
// process exited.
func (rb *runningBrowser) dead() bool {
	select {
	case <-rb.lost:
		return true
	default:
	}
	return rb.pid > 0 && processGone(rb.pid)
}

// releaseSets lets go of every session's tab set: no more are taken on.
func (rb *runningBrowser) releaseSets() {
	rb.setMu.Lock()
	rb.closing = true
	sets := rb.sets
	rb.sets = nil
	rb.setMu.Unlock()
	for _, ts := range sets {
		ts.release(true)
	}
}

// discard lets go of a browser that died on its own: its sessions' tab
// sets and proxies, whatever of its process group survived, its profile.
// Nothing is asked of the browser itself, which cannot answer.
func (rb *runningBrowser) discard() {
	rb.releaseSets()
	rb.kill()
}

// close shuts the browser down gracefully, then makes sure: the process
// group is killed and any process still using the profile is killed.
func (rb *runningBrowser) close() error {
	rb.releaseSets()
	if rb.attached {
		rb.allocCancel()
		return nil
	}
	done := make(chan error, 1)
	go func() {
		done <- contain.Call(rb.log, "closing the browser", func() error { return chromedp.Cancel(rb.browserCtx) })
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(closeTimeout):
		err = fmt.Errorf("the browser did not close within %s; killed it", closeTimeout)
	}
	rb.kill()
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	return err
}

// kill ends everything at once: the process group first, so no child is
// orphaned while the allocator waits for the main process.
func (rb *runningBrowser) kill() {
	if rb.pid > 0 {
		killGroup(rb.pid)
	}
	rb.browserCancel()
	rb.allocCancel() // waits for the main process
	if rb.pid > 0 {
		killGroup(rb.pid)
	}
	if rb.proxy != nil {
		_ = rb.proxy.Close()
	}
	if rb.profile != "" {
		// A child can still be writing for a moment after the kill.
		for i := 0; i < 20; i++ {
			if err := os.RemoveAll(rb.profile); err == nil {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
	}
}

// profilePrefix names our profile directories in the temp directory.
const profilePrefix = "hermes-browser-"

// sweepProfiles removes profile directories of earlier servers that were
// killed before they could clean up: older than a minute (a server that is
// starting right now has a fresh one) and used by no running process.
func sweepProfiles() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), profilePrefix+"*"))
	if len(dirs) == 0 {
		return
	}
	inUse := map[string]bool{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(cmd, []byte{0}) {
			if d, ok := bytes.CutPrefix(arg, []byte("--user-data-dir=")); ok {
				inUse[string(d)] = true
			}
		}
	}
	for _, d := range dirs {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() || inUse[d] || time.Since(fi.ModTime()) < time.Minute {
			continue
		}
		_ = os.RemoveAll(d)
	}
}

// ChromiumDescendants lists the pids of processes under root whose command
// line mentions chrom (tests and the benchmark use it to prove that nothing
// survives, and to measure the process tree).
func ChromiumDescendants(root int) []int {
	var out []int
	for _, pid := range Descendants(root) {
		cmd, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err == nil && bytes.Contains(bytes.ToLower(cmd), []byte("chrom")) {
			out = append(out, pid)
		}
	}
	return out
}

// Descendants returns every process below root (not root itself), from
// /proc. Processes reparented away from root (to init or a subreaper) are
// not found; callers that need those search by command line instead.
func Descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The comm field may hold spaces and parens; the ppid follows the
		// last ')'.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(stat[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
