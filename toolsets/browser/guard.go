package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/hermes-go/hermes/internal/contain"
	"github.com/hermes-go/hermes/internal/egress"
	"github.com/hermes-go/hermes/internal/urlguard"
)

// The browser's network policy is enforced where connections are made:
// every connection Chromium makes goes through the egress proxy, which
// checks the address it dials (cloud metadata always refused; private,
// loopback, link-local, CGNAT and unique-local ranges unless
// browser.allow_private_urls) and reads every request whole, HTTPS
// included, to check its URL for credentials (see internal/egress).
//
// A browser we attached to (BROWSER_CDP_URL) does not use the proxy; there
// the requestGuard pauses each tab's requests (CDP Fetch) and checks their
// URLs, which is all that can be done for a browser someone else started.
//
// Refusals land in the log of the session whose pages made them (each
// session's browser context has a proxy, or guards, of its own; see
// tabset.go); each call's result lists those not yet reported (a page's
// script can make requests after the call that loaded it returned), and
// they are logged.

// blockedLog numbers the refusals so a call can take those after a mark.
type blockedLog struct {
	log      *slog.Logger
	mu       sync.Mutex
	seq      uint64
	reported uint64           // the last seq a result listed
	items    []blockedRequest // the most recent maxBlocked
}

type blockedRequest struct {
	seq    uint64
	target string
	reason string
}

const maxBlocked = 64

func (l *blockedLog) add(target string, reason error) {
	if l.log != nil {
		l.log.Info("network policy refused a request", "target", target, "reason", reason)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	l.items = append(l.items, blockedRequest{seq: l.seq, target: target, reason: reason.Error()})
	if len(l.items) > maxBlocked {
		l.items = l.items[len(l.items)-maxBlocked:]
	}
}

func (l *blockedLog) mark() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.seq
}

// unreported returns the refusals no result has listed yet, and counts
// them as listed.
func (l *blockedLog) unreported() []blockedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sinceLocked(l.reported)
	l.reported = l.seq
	return out
}

func (l *blockedLog) since(mark uint64) []blockedRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sinceLocked(mark)
}

func (l *blockedLog) sinceLocked(mark uint64) []blockedRequest {
	var out []blockedRequest
	for _, b := range l.items {
		if b.seq > mark {
			out = append(out, b)
		}
	}
	return out
}

// egressPolicy is the browser's network policy as the proxy applies it.
func egressPolicy(set settings, blocked *blockedLog, log *slog.Logger) egress.Config {
	policy := set.policy()
	dialer := &urlguard.Dialer{Policy: policy, Net: &net.Dialer{Timeout: 10 * time.Second}}
	return egress.Config{
		Dial: dialer.DialContext,
		CheckURL: func(u *url.URL) error {
			_, err := urlguard.CheckURL(context.Background(), u.String(), policy, nil)
			return err
		},
		Refused:   isRefusal,
		OnBlocked: func(b egress.Blocked) { blocked.add(b.Target, b.Reason) },
		Logger:    log,
	}
}

// requestGuard checks the URL of every request a tab's pages make, in a
// browser whose connections the proxy does not carry.
type requestGuard struct {
	policy  urlguard.Policy
	blocked *blockedLog
	log     *slog.Logger
}

// install pauses every request of the tab at ctx for check. It must run
// before the tab loads anything.
func (g *requestGuard) install(ctx context.Context) error {
	if g == nil {
		return nil
	}
	err := chromedp.Listen(ctx, contain.Func(g.log, "the request guard", func(ev any) {
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			// The listener runs on chromedp's read loop, which must not
			// wait on the browser: answer from a goroutine of the tab's.
			contain.Go(g.log, "answering a paused request", func() { g.decide(ctx, ev) })
		case *fetch.EventAuthRequired:
			// A server asked for a password. The browser would answer
			// with the user:password@ of the URL, which Fetch strips from
			// the URL it shows us: the credential would leave after all.
			// Nobody is here to type one, so the challenge is refused.
			contain.Go(g.log, "answering an auth challenge", func() {
				g.blocked.add(safeTarget(ev.Request.URL), errors.New("Blocked: the server asked for a password; credentials are never sent (a user:password@ in a URL is not used)"))
				_, _ = chromedp.Call(ctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{
					RequestID: ev.RequestID, AuthChallengeResponse: &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth},
				})
			})
		}
	}))
	if err != nil {
		return fmt.Errorf("watch the tab's requests: %w", err)
	}
	handleAuth := true
	_, err = chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: "*", RequestStage: fetch.RequestStageRequest},
	}, HandleAuthRequests: &handleAuth})
	if err != nil {
		return fmt.Errorf("check the tab's requests (Fetch.enable): %w", err)
	}
	return nil
}

func (g *requestGuard) decide(ctx context.Context, ev *fetch.EventRequestPaused) {
	if err := g.check(ev.Request.URL); err != nil {
		g.blocked.add(safeTarget(ev.Request.URL), err)
		_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
}

// check applies the URL part of the policy: credentials and userinfo in
// the URL, cloud metadata and (when disallowed) private hosts written as
// addresses. Names are the proxy's to resolve and check.
func (g *requestGuard) check(raw string) error {
	scheme, _, ok := strings.Cut(raw, ":")
	if !ok || (!strings.EqualFold(scheme, "http") && !strings.EqualFold(scheme, "https")) {
		// data:, blob:, chrome-error: and the like never leave the
		// browser. (WebSocket handshakes are not paused by Fetch; the
		// proxy checks ws:// ones, see internal/egress.)
		return nil
	}
	// The raw string, even one Go cannot parse: the browser sends it.
	_, err := urlguard.CheckURL(context.Background(), raw, g.policy, nil)
	return err
}

// safeTarget is a refused URL as it may be shown: scheme, host and path,
// never the query or userinfo, and any secret in the path redacted.
func safeTarget(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	return urlguard.RedactTarget(u)
}

// blockedSummary is what a result says about refusals during the call.
func blockedSummary(bs []blockedRequest) []string {
	const show = 5
	var out []string
	for i, b := range bs {
		if i == show {
			out = append(out, fmt.Sprintf("… and %d more", len(bs)-show))
			break
		}
		out = append(out, b.target+": "+b.reason)
	}
	return out
}

// isRefusal tells the policy's refusals from network failures.
func isRefusal(err error) bool {
	var b *urlguard.BlockedError
	return errors.As(err, &b)
}

// refusalOf finds the refusal of the page at target among bs: one whose
// target is that URL or its host (a subresource of the page before does not
// count).
func refusalOf(bs []blockedRequest, target string) (blockedRequest, bool) {
	u, err := url.Parse(target)
	if err != nil {
		return blockedRequest{}, false
	}
	host := u.Hostname()
	for _, b := range bs {
		t := b.target
		if strings.Contains(t, "://") {
			if bu, err := url.Parse(strings.TrimSuffix(t, "?…")); err == nil {
				t = bu.Host
			}
		}
		if h, _, err := net.SplitHostPort(t); err == nil {
			t = h
		}
		if strings.EqualFold(strings.Trim(t, "[]"), strings.Trim(host, "[]")) {
			return b, true
		}
	}
	return blockedRequest{}, false
}
