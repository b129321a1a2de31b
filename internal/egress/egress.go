// Package egress is the one door between a browser and the network: an
// HTTP/CONNECT proxy on 127.0.0.1 that Chromium is started with, so every
// request it makes (navigations, redirects, subresources, fetch/XHR,
// WebSocket, EventSource, iframes, forms, popups, workers, prefetch) leaves
// through a dialer the server owns. The dialer resolves the host itself and
// checks the address it will connect to, so a policy holds on what is
// actually reached, whatever the page, the URL's spelling or DNS says.
//
// Chromium never resolves a name itself while it uses the proxy (it hands
// the proxy the host name), so answering differently to two lookups (DNS
// rebinding) gains an attacker nothing: the proxy dials the IP it checked.
//
// The proxy also reads every request whole, HTTPS and WebSocket ones
// included: it ends the browser's TLS itself (with a certificate of a key
// made for this proxy alone, which the browser is told to accept) and sends
// the request on over TLS of its own, verified as any client verifies. So
// the URL check (credentials in a path or query) applies to every request
// on the wire, from any page, frame, worker or popup, from its first byte.
// No password challenge reaches the browser either: it would answer one
// with the user:password@ of the URL, which never appears in a request.
package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
)

// Blocked is one request the proxy refused.
type Blocked struct {
	// Target is what was asked for: a URL (query and userinfo left out)
	// when the request was read, host:port when the connection itself was
	// refused.
	Target string
	// Reason is why, as the policy said it.
	Reason error
}

// Config is what the proxy enforces and whom it tells.
type Config struct {
	// Dial connects to addr ("host:port") after checking the address it
	// resolves to; its error is the refusal reported to the browser and to
	// OnBlocked. It must not be nil.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// CheckURL vets the URL of every request before it is sent
	// (credentials in the URL, say); nil accepts every URL.
	CheckURL func(*url.URL) error
	// Refused tells a dial error that is a policy refusal (reported, and
	// the request failed) from a network failure (answered 502, as a host
	// that is down); nil counts none as refusals.
	Refused func(error) bool
	// OnBlocked learns of every refused request; nil ignores them.
	OnBlocked func(Blocked)
	// UpstreamTLS is the TLS the proxy speaks to HTTPS hosts; nil verifies
	// their certificates against the system's roots.
	UpstreamTLS *tls.Config
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Proxy is a running proxy. Close stops it and every connection it carries.
type Proxy struct {
	cfg  Config
	ln   net.Listener
	srv  *http.Server // the proxy's own port: CONNECT and absolute-form requests
	tun  *http.Server // the requests read inside tunnels
	q    *connQueue   // hands tunnels to tun
	tr   *http.Transport
	rp   *httputil.ReverseProxy
	mint *minter
	log  *slog.Logger
	wg   sync.WaitGroup // the two servers

	mu     sync.Mutex
	conns  map[net.Conn]struct{} // the browser's tunnels and their first upstream
	closed bool
}

// Start listens on a free port of 127.0.0.1 and serves until Close.
func Start(cfg Config) (*Proxy, error) {
	if cfg.Dial == nil {
		return nil, errors.New("egress: Config.Dial is nil")
	}
	mint, err := newMinter()
	if err != nil {
		return nil, err
	}
	return serve(cfg, mint)
}

// Sibling starts another proxy, enforcing cfg, whose certificates carry
// p's key: a browser told to accept p's key accepts its certificates too.
// Browser contexts that must each have a proxy of their own (to know whose
// request was refused) share the one key the browser was started with.
func (p *Proxy) Sibling(cfg Config) (*Proxy, error) {
	if cfg.Dial == nil {
		return nil, errors.New("egress: Config.Dial is nil")
	}
	return serve(cfg, &minter{key: p.mint.key, spki: p.mint.spki, certs: map[string]*tls.Certificate{}})
}

func serve(cfg Config, mint *minter) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen on 127.0.0.1: %w", err)
	}
	p := &Proxy{cfg: cfg, ln: ln, log: cfg.Logger, mint: mint, q: newConnQueue(ln.Addr()), conns: map[net.Conn]struct{}{}}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	upstreamTLS := &tls.Config{}
	if cfg.UpstreamTLS != nil {
		upstreamTLS = cfg.UpstreamTLS.Clone()
	}
	// Each host is verified under its own name, over HTTP/1.1.
	upstreamTLS.ServerName = ""
	upstreamTLS.NextProtos = []string{"http/1.1"}
	if upstreamTLS.ClientSessionCache == nil {
		upstreamTLS.ClientSessionCache = tls.NewLRUClientSessionCache(256)
	}
	p.tr = &http.Transport{
		// Never another proxy: the environment's HTTP_PROXY would route
		// around the check.
		Proxy:           nil,
		DialContext:     p.dialUpstream,
		TLSClientConfig: upstreamTLS,
		// HTTP/1.1 upstream, as to the browser: a WebSocket upgrade
		// needs it, and one protocol is one behaviour to reason about.
		ForceAttemptHTTP2:   false,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     30 * time.Second,
		// No ResponseHeaderTimeout: long polls are the page's business,
		// and the browser has its own timeouts.
		TLSHandshakeTimeout: 10 * time.Second,
	}
	errorLog := slog.NewLogLogger(p.log.Handler(), slog.LevelDebug)
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The URL that was checked; Host stays as the browser sent it.
			pr.Out.URL = requestTarget(pr.In.Context())
		},
		Transport:      watchedTransport{p.tr},
		FlushInterval:  -1, // event streams and long polls arrive as sent
		ModifyResponse: p.answered,
		ErrorHandler:   p.upstreamFailed,
		ErrorLog:       errorLog,
	}
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          errorLog,
	}
	p.tun = &http.Server{
		Handler:           http.HandlerFunc(p.serveTunnelled),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       90 * time.Second,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*tunnelConn); ok {
				return context.WithValue(ctx, tunnelKey{}, tc.t)
			}
			return ctx
		},
		ErrorLog: errorLog,
	}
	for _, s := range []struct {
		srv *http.Server
		ln  net.Listener
	}{{p.srv, ln}, {p.tun, p.q}} {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			if err := s.srv.Serve(s.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				p.log.Warn("egress proxy stopped", "err", err)
			}
		}()
	}
	return p, nil
}

// URL is the proxy's address as Chromium's --proxy-server takes it.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// SPKI is the base64 SHA-256 of the public key in every certificate the
// proxy shows the browser, as Chromium's --ignore-certificate-errors-spki-list
// takes it.
func (p *Proxy) SPKI() string { return p.mint.spki }

// Close stops accepting, ends every open connection, and waits for the
// servers to stop.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	err := p.srv.Close()
	_ = p.tun.Close()
	p.tr.CloseIdleConnections()
	p.wg.Wait()
	return err
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(w, r)
	case r.URL.IsAbs() && r.URL.Scheme == "http" && r.URL.Host != "":
		if r.Header.Get("Upgrade") != "" {
			// Chromium tunnels WebSockets with CONNECT; an upgrade here
			// would leave a connection the proxy no longer tracks.
			http.Error(w, "upgrades go through CONNECT", http.StatusBadRequest)
			return
		}
		u := *r.URL
		p.send(w, r, &u)
	default:
		http.Error(w, "this is an egress proxy: send absolute-form requests or CONNECT", http.StatusBadRequest)
	}
}

// serveTunnelled answers a request read inside a tunnel: its URL is the
// tunnel's scheme and host:port with the request's own path and query.
func (p *Proxy) serveTunnelled(w http.ResponseWriter, r *http.Request) {
	t, _ := r.Context().Value(tunnelKey{}).(*tunnel)
	if t == nil || r.Method == http.MethodConnect || !strings.HasPrefix(r.RequestURI, "/") {
		http.Error(w, "inside a tunnel, requests are in origin form (GET /path)", http.StatusBadRequest)
		return
	}
	if !sameHost(r.Host, t.authority, t.scheme) {
		http.Error(w, "the request's Host is not the tunnel's host", http.StatusBadRequest)
		return
	}
	u, err := url.Parse(t.scheme + "://" + t.authority + r.RequestURI)
	if err != nil {
		p.refuse(w, r, t.scheme+"://"+t.authority, fmt.Errorf("Blocked: an unreadable request URL: %w", err))
		return
	}
	p.send(w, r, u)
}

type targetKey struct{}

func requestTarget(ctx context.Context) *url.URL {
	u, _ := ctx.Value(targetKey{}).(*url.URL)
	return u
}

// errURLCredentials is the refusal of a WebSocket handshake that carries
// the URL's user:password@ as Authorization.
var errURLCredentials = errors.New("Blocked: the request carries credentials from its URL (user:password@); credentials must not be sent in URLs")

// send checks the request's URL and carries it to the host.
func (p *Proxy) send(w http.ResponseWriter, r *http.Request, u *url.URL) {
	if p.cfg.CheckURL != nil {
		if err := p.cfg.CheckURL(u); err != nil {
			p.refuse(w, r, redactedURL(u), err)
			return
		}
	}
	// A page cannot set Authorization on a WebSocket; the browser does,
	// from the user:password@ of the URL, which the request line leaves
	// out.
	if r.Header.Get("Upgrade") != "" && r.Header.Get("Authorization") != "" {
		p.refuse(w, r, redactedURL(u), errURLCredentials)
		return
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), targetKey{}, u)))
}

// answered passes a response on, less any password challenge: the browser
// would answer one with the user:password@ of the URL (or the machine's
// own login, for Negotiate and NTLM), and nobody is there to type one.
func (p *Proxy) answered(resp *http.Response) error {
	if len(resp.Header.Values(challengeHeader)) == 0 {
		return nil
	}
	resp.Header.Del(challengeHeader)
	p.report(redactedURL(resp.Request.URL), errors.New("Blocked: the server asked for a password; challenges are not passed to the browser, so no credential (a URL's user:password@ included) is sent"))
	return nil
}

// upstreamFailed tells a policy refusal (reported, the request failed
// without an answer) from a network failure (502, as a host that is down).
func (p *Proxy) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) {
		return // the browser went away
	}
	target := "(unknown)"
	if u := requestTarget(r.Context()); u != nil {
		target = redactedURL(u)
	}
	var verify *tls.CertificateVerificationError
	if errors.As(err, &verify) {
		// Not a page: the browser would have refused the host itself.
		p.refuse(w, r, target, fmt.Errorf("Blocked: the host's certificate did not verify: %w", verify.Err))
		return
	}
	p.refuseOrFail(w, r, target, err)
}

// challengeHeader is what a password challenge is sent in.
const challengeHeader = "Www-Authenticate"

// watchedTransport strips challenges from informational (1xx) answers too,
// which ReverseProxy passes on before any final response, and lets a
// tunnel's unused CONNECT connection go once its first request has one.
type watchedTransport struct{ tr *http.Transport }

func (w watchedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	trace := &httptrace.ClientTrace{
		Got1xxResponse: func(_ int, h textproto.MIMEHeader) error {
			h.Del(challengeHeader)
			return nil
		},
	}
	if t, ok := r.Context().Value(tunnelKey{}).(*tunnel); ok {
		trace.GotConn = func(httptrace.GotConnInfo) { t.release() }
	}
	return w.tr.RoundTrip(r.WithContext(httptrace.WithClientTrace(r.Context(), trace)))
}

func (p *Proxy) report(target string, reason error) {
	// The receiver of OnBlocked logs what it reports; this is detail.
	p.log.Debug("egress refused", "target", target, "reason", reason)
	if p.cfg.OnBlocked != nil {
		p.cfg.OnBlocked(Blocked{Target: target, Reason: reason})
	}
}

// refuse fails a refused request at once, and reports it. A refused
// tunnel gets 403, which the browser treats as a network error; a request
// gets its connection closed without an answer, since a 403 page would
// load as the page itself and look like a successful navigation.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, target string, reason error) {
	p.report(target, reason)
	if r.Method != http.MethodConnect {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
	}
	http.Error(w, "Blocked by hermes-tools: "+reason.Error(), http.StatusForbidden)
}

// refuseOrFail tells a policy refusal (reported) from a network failure
// (the host is down), which the browser shows as such.
func (p *Proxy) refuseOrFail(w http.ResponseWriter, r *http.Request, target string, err error) {
	if p.cfg.Refused != nil && p.cfg.Refused(err) {
		p.refuse(w, r, target, err)
		return
	}
	http.Error(w, "upstream: "+err.Error(), http.StatusBadGateway)
}

// redactedURL is a URL safe to log and report.
func redactedURL(u *url.URL) string { return urlguard.RedactTarget(u) }

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}
