// Package browser serves the `browser` toolset: browser_* tools that drive
// a real Chromium through the DevTools protocol (chromedp), with the names,
// parameters and result shapes of the Python Hermes (tools/browser_tool.py)
// plus browser_tabs.
//
// One Session owns one browser per server process. It is started on the
// first tool call, on a context of its own (never the call's, so a call's
// timeout cannot take the browser down), reused by every later call, and
// closed by Session.Close when the server exits. Chromium runs
// in its own process group with a parent-death signal, so it dies with the
// server even when the server is killed with SIGKILL. Each MCP session
// (sessionstate.State) drives tabs of its own in that browser, in a browser
// context of its own once there is more than one session (see tabset.go).
//
// Pages are described by an accessibility outline with refs ([ref=eN]) that
// the model passes back as @eN. Refs are never reused within a session: a
// ref from a page that has since navigated or reloaded, or whose element
// left the DOM, gives "stale ref, take a new snapshot" instead of acting on
// whatever element now has the number. Refs belong to the tab whose
// snapshot listed them.
//
// No page can wedge the session. A page a page opens (target=_blank,
// window.open) becomes the current tab, as a user's view would follow it,
// and the result says so; browser_tabs goes back. A JavaScript dialog ends
// the call that caused it at once, with the dialog in its result, and is
// answered with browser_dialog. Every call has a deadline; one that runs
// into it stops the script that froze the page (or replaces a tab that
// still does not answer), so the next call works.
package browser

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
)

// VisionFunc answers a question about a PNG screenshot with a vision model.
type VisionFunc func(ctx context.Context, imagePNG []byte, question string) (string, error)

// Options configures the browser toolset.
type Options struct {
	// Home is HERMES_HOME; config.yaml there supplies browser.* settings
	// and screenshots go to Home/cache/screenshots. Empty: no config file.
	Home string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// ExecPath is the Chromium binary (a command-line flag); it wins over
	// $CHROME_PATH and discovery.
	ExecPath string
	// CDPURL attaches to an existing browser; it wins over
	// $BROWSER_CDP_URL and browser.cdp_url.
	CDPURL string
	// AllowPrivateURLs overrides browser.allow_private_urls (default true:
	// the local browser may open loopback and private-network pages). Cloud
	// metadata addresses are refused whatever this says.
	AllowPrivateURLs *bool
	// CallTimeout bounds every tool call; zero means
	// browser.command_timeout seconds, default 30 s.
	CallTimeout time.Duration
	// Vision backs browser_vision; nil hides that tool.
	Vision VisionFunc
	// VisionUnavailable is the reason shown when Vision is nil; it should
	// say which setting enables vision.
	VisionUnavailable string
	// ScreenshotDir receives browser_vision screenshots; empty means
	// Home/cache/screenshots, or the temp directory without a Home.
	ScreenshotDir string
	// ExtraFlags are added to Chromium's command line (name -> value, as
	// chromedp.Flag takes them); tests and benchmarks use it.
	ExtraFlags map[string]any
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// policy is the network policy every request of the browser is held to.
func (s settings) policy() urlguard.Policy {
	return urlguard.Policy{AllowPrivate: s.allowPrivate, AllowHint: s.allowHint}
}

// settings is Options resolved against the environment and config.yaml.
type settings struct {
	browser      Browser
	allowPrivate bool
	// allowHint names the setting that allows private addresses, for
	// refusals: config.yaml's, or the option that overrode it.
	allowHint   string
	callTimeout time.Duration
	shotDir     string
	extraFlags  map[string]any
}

// resolveSettings reads config.yaml's browser section and resolves which
// browser to drive, once for the checks and the calls, so a call drives the
// browser the checks found.
func resolveSettings(opts Options) (settings, error) {
	cfg, err := ReadConfig(opts.Home)
	if err != nil {
		return settings{}, err
	}
	s := settings{allowPrivate: true, callTimeout: 30 * time.Second, extraFlags: opts.ExtraFlags}
	if cfg.AllowPrivateURLs != nil {
		s.allowPrivate = *cfg.AllowPrivateURLs
	}
	s.allowHint = urlguard.AllowPrivateHint(opts.Home, "browser.allow_private_urls")
	if opts.AllowPrivateURLs != nil {
		s.allowHint = ""
		s.allowPrivate = *opts.AllowPrivateURLs
	}
	if cfg.CommandTimeout > 0 {
		s.callTimeout = time.Duration(cfg.CommandTimeout * float64(time.Second))
	}
	if opts.CallTimeout > 0 {
		s.callTimeout = opts.CallTimeout
	}
	s.browser = ResolveBrowser(opts, cfg)
	s.shotDir = opts.ScreenshotDir
	if s.shotDir == "" {
		if opts.Home != "" {
			s.shotDir = filepath.Join(opts.Home, "cache", "screenshots")
		} else {
			s.shotDir = filepath.Join(os.TempDir(), "hermes-screenshots")
		}
	}
	return s, nil
}

// Session owns the browser of one server process and, per MCP session,
// the tabs the tools drive. It is safe for concurrent use: the calls of
// one MCP session are serialised, since its current tab is a single
// cursor; those of different sessions run at once.
type Session struct {
	opts Options
	log  *slog.Logger

	// setErr is a config.yaml or option error, reported on every call
	// rather than at construction, so a broken config hides nothing.
	set    settings
	setErr error

	// blocked records what the network policy refused the default
	// context's pages, for the calls during which it happened to report
	// (other sessions' contexts have logs of their own).
	blocked blockedLog

	mu       sync.Mutex
	closed   bool
	br       *runningBrowser // nil until the first call
	starting sync.WaitGroup  // a browser start under way
	// first is the session that drives the browser's default context (see
	// tabset.go).
	first *sessionstate.State
}

// New returns a Session that starts its browser on first use.
func New(opts Options) *Session {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Session{opts: opts, log: log, blocked: blockedLog{log: log}}
	s.set, s.setErr = resolveSettings(opts)
	return s
}

// Close shuts the browser down (or, when attached with BROWSER_CDP_URL,
// closes only the tab this session opened) and waits for Chromium and every
// process it started to be gone. Later calls fail with a clear error.
func (s *Session) Close() error {
	s.mu.Lock()
	s.closed = true
	br := s.br
	s.br = nil
	s.mu.Unlock()
	var err error
	if br != nil {
		err = br.close()
	}
	s.starting.Wait()
	return err
}
