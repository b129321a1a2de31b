package browser

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
)

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
	// lookPath finds Chromium.
	lookPath func(string) (string, error)
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
	s.lookPath = opts.LookPath
	if s.lookPath == nil {
		s.lookPath = exec.LookPath
	}
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
	// startMu is held while a browser is started (or a dead one
	// replaced), so that one is, however many calls find it missing.
	startMu sync.Mutex
	// first is the session that drives the browser's default context (see
	// tabset.go).
	first *sessionstate.State
	// noSession is the browser calls without a session last used.
	noSession seenBrowser
}

// browserRestartedNote is added to the first result of each session (and
// of calls without one) on a browser that replaced one that died.
const browserRestartedNote = "The browser had stopped (its process exited) and was started again for this call: the earlier tabs, refs, cookies and logins are gone; take a new snapshot before using refs."

// seenBrowser is the browser a session last used, so that the first
// call on a new one can say the old one is gone.
type seenBrowser struct {
	mu sync.Mutex
	rb *runningBrowser
}

// seenKey keys a session's seenBrowser in its state.
type seenKey struct{ s *Session }

// replacedFor records rb as the browser of the session ctx carries (or of
// the calls without one) and reports whether it replaced another that
// session had used: then the session's tabs died with that one, which the
// call is to tell the model once.
func (s *Session) replacedFor(ctx context.Context, rb *runningBrowser) bool {
	seen := &s.noSession
	if st := sessionstate.FromContext(ctx); st != nil {
		v, err := st.Value(seenKey{s}, func() (any, error) { return &seenBrowser{}, nil })
		if err != nil {
			return false
		}
		seen = v.(*seenBrowser)
	}
	seen.mu.Lock()
	defer seen.mu.Unlock()
	prev := seen.rb
	seen.rb = rb
	return prev != nil && prev != rb
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
