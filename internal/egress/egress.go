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
package egress

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Blocked is one request the proxy refused.
type Blocked struct {
	// Target is what was asked for: a URL for plain HTTP, host:port for a
	// tunnel (HTTPS, WebSocket), whose path the proxy never sees.
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
	// CheckURL vets the URL of a plain-HTTP request before it is sent
	// (credentials in the URL, say); nil accepts every URL. Tunnelled
	// requests carry their URL inside TLS, out of the proxy's sight: the
	// browser checks those itself.
	CheckURL func(*url.URL) error
	// Refused tells a dial error that is a policy refusal (reported, and
	// answered 403) from a network failure (answered 502, as a host that is
	// down); nil counts none as refusals.
	Refused func(error) bool
	// OnBlocked learns of every refused request; nil ignores them.
	OnBlocked func(Blocked)
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Proxy is a running proxy. Close stops it and every tunnel it carries.
type Proxy struct {
	cfg  Config
	ln   net.Listener
	srv  *http.Server
	tr   *http.Transport
	log  *slog.Logger
	done chan struct{}

	mu      sync.Mutex
	tunnels map[net.Conn]struct{}
	closed  bool
}

// Start listens on a free port of 127.0.0.1 and serves until Close.
func Start(cfg Config) (*Proxy, error) {
	if cfg.Dial == nil {
		return nil, errors.New("egress: Config.Dial is nil")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen on 127.0.0.1: %w", err)
	}
	p := &Proxy{cfg: cfg, ln: ln, log: cfg.Logger, done: make(chan struct{}), tunnels: map[net.Conn]struct{}{}}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	p.tr = &http.Transport{
		// Never another proxy: the environment's HTTP_PROXY would route
		// around the check.
		Proxy:                 nil,
		DialContext:           cfg.Dial,
		ForceAttemptHTTP2:     false,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
	}
	p.srv = &http.Server{
		Handler:           http.HandlerFunc(p.serve),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
	}
	go func() {
		defer close(p.done)
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Warn("egress proxy stopped", "err", err)
		}
	}()
	return p, nil
}

// URL is the proxy's address as Chromium's --proxy-server takes it.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Close stops accepting, ends every open tunnel and idle connection, and
// waits for the server to stop.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.tunnels {
		_ = c.Close()
	}
	p.mu.Unlock()
	err := p.srv.Close()
	p.tr.CloseIdleConnections()
	<-p.done
	return err
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodConnect:
		p.tunnel(w, r)
	case r.URL.IsAbs() && (r.URL.Scheme == "http" || r.URL.Scheme == "ws"):
		p.forward(w, r)
	default:
		http.Error(w, "this is an egress proxy: send absolute-form requests or CONNECT", http.StatusBadRequest)
	}
}

// refuse fails a refused request at once, and reports it. A refused
// tunnel gets 403, which the browser treats as a network error; a plain
// request gets its connection closed without an answer, since a 403 page
// would load as the page itself and look like a successful navigation.
func (p *Proxy) refuse(w http.ResponseWriter, r *http.Request, target string, reason error) {
	p.log.Info("egress refused", "target", target, "reason", reason)
	if p.cfg.OnBlocked != nil {
		p.cfg.OnBlocked(Blocked{Target: target, Reason: reason})
	}
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

func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if _, _, err := net.SplitHostPort(target); err != nil {
		http.Error(w, "CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	upstream, err := p.cfg.Dial(r.Context(), "tcp", target)
	if err != nil {
		p.refuseOrFail(w, r, target, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "tunnels unsupported", http.StatusInternalServerError)
		return
	}
	client, rw, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if !p.track(client, upstream) {
		client.Close()
		upstream.Close()
		return
	}
	defer p.untrack(client, upstream)
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	head, err := p.checkTunnelled(client, rw.Reader, target)
	if err != nil {
		p.log.Info("egress refused", "target", target, "reason", err)
		if p.cfg.OnBlocked != nil {
			p.cfg.OnBlocked(Blocked{Target: target, Reason: err})
		}
		// Nothing was sent upstream; both ends close unused.
		client.Close()
		upstream.Close()
		return
	}
	if head > 0 {
		spliceHandshake(client, rw.Reader, upstream, head)
		return
	}
	splice(client, rw.Reader, upstream)
}

// spliceHandshake carries a checked plain-HTTP handshake (a ws://
// WebSocket): the head that was checked goes upstream, and the client's
// further bytes follow only if the server switches protocols (101). A
// server that answers otherwise (a 401 password challenge, say) gets no
// second request on this tunnel: the browser would retry here with
// credentials taken from the URL, unchecked.
func spliceHandshake(client net.Conn, buffered *bufio.Reader, upstream net.Conn, head int) {
	defer client.Close()
	defer upstream.Close()
	buf := make([]byte, head)
	if _, err := io.ReadFull(buffered, buf); err != nil {
		return
	}
	if _, err := upstream.Write(buf); err != nil {
		return
	}
	ur := bufio.NewReader(upstream)
	status, err := ur.Peek(len("HTTP/1.1 101"))
	if err != nil {
		return
	}
	upgraded := string(status[len("HTTP/1.1 "):]) == "101"
	if !upgraded {
		// The server sees the end of the request stream, answers and
		// closes; the answer still reaches the browser.
		closeWrite(upstream)
		_, _ = io.Copy(client, ur)
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(upstream, buffered)
		closeWrite(upstream)
	}()
	_, _ = io.Copy(client, ur)
	closeWrite(client)
	<-done
}

// checkTunnelled applies CheckURL to a tunnel that carries plain HTTP: a
// ws:// WebSocket handshake comes through CONNECT like HTTPS, but its
// request line, with the path and query, is readable. A tunnel whose first
// byte starts a TLS handshake (0x16), or whose client says nothing for a
// moment (a protocol where the server speaks first), is not HTTP to read.
//
// It returns the length of the checked request head (with its blank line)
// when the tunnel carries plain HTTP, 0 when it is not read.
func (p *Proxy) checkTunnelled(client net.Conn, r *bufio.Reader, target string) (int, error) {
	if p.cfg.CheckURL == nil {
		return 0, nil
	}
	_ = client.SetReadDeadline(time.Now().Add(2 * time.Second))
	defer client.SetReadDeadline(time.Time{})
	first, perr := r.Peek(1)
	if perr != nil || first[0] == 0x16 {
		return 0, nil
	}
	// Peek what has arrived, asking for one byte more only while the end
	// of the request head is not in sight (a Peek of more than has arrived
	// waits for it).
	var line, head []byte
	for {
		buf, err := r.Peek(r.Buffered())
		if i := bytes.Index(buf, []byte("\r\n\r\n")); i >= 0 {
			head = buf[:i+4]
			line, _, _ = bytes.Cut(head, []byte("\n"))
			break
		}
		if err != nil || r.Buffered() >= r.Size() {
			return 0, nil
		}
		if _, err := r.Peek(r.Buffered() + 1); err != nil {
			return 0, nil
		}
	}
	fields := strings.Fields(string(line))
	if len(fields) != 3 || !strings.HasPrefix(fields[2], "HTTP/") || !strings.HasPrefix(fields[1], "/") {
		return 0, nil
	}
	u, err := url.Parse("http://" + target + fields[1])
	if err != nil {
		return 0, fmt.Errorf("an unreadable request in a tunnel to %s: %w", target, err)
	}
	if err := p.cfg.CheckURL(u); err != nil {
		return 0, err
	}
	// A page cannot set Authorization on a WebSocket; the browser does,
	// from the user:password@ of the URL, which it left out of the request
	// line.
	for _, h := range bytes.Split(head, []byte("\n"))[1:] {
		name, _, _ := bytes.Cut(h, []byte(":"))
		if strings.EqualFold(strings.TrimSpace(string(name)), "Authorization") {
			return 0, errors.New("Blocked: the request carries credentials from its URL (user:password@); credentials must not be sent in URLs")
		}
	}
	return len(head), nil
}

// splice copies both ways until either side ends, then closes both.
func splice(client net.Conn, buffered *bufio.Reader, upstream net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		// Bytes the client sent right after CONNECT may sit in the buffer.
		_, _ = io.Copy(upstream, buffered)
		closeWrite(upstream)
	}()
	go func() {
		defer wg.Done()
		_, _ = io.Copy(client, upstream)
		closeWrite(client)
	}()
	wg.Wait()
	client.Close()
	upstream.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	for _, c := range conns {
		p.tunnels[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.tunnels, c)
	}
}

// hopHeaders are per-connection headers a proxy must not pass on
// (RFC 9110 §7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	target := r.URL.String()
	if p.cfg.CheckURL != nil {
		if err := p.cfg.CheckURL(r.URL); err != nil {
			p.refuse(w, r, redactedURL(r.URL), err)
			return
		}
	}
	if r.Header.Get("Upgrade") != "" {
		// Chromium tunnels WebSockets with CONNECT; an upgrade in plain
		// form is not something it sends.
		http.Error(w, "upgrades go through CONNECT", http.StatusBadRequest)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		p.refuseOrFail(w, r, target, err)
		return
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
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

// redactedURL is a URL safe to log and report: no query, no userinfo.
func redactedURL(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		c.RawQuery = "…"
	}
	c.Fragment = ""
	return strings.Replace(c.String(), "?%E2%80%A6", "?…", 1)
}
