package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
)

// A tunnel is one CONNECT: the host:port the browser asked for, what it
// speaks inside (TLS, which the proxy ends, or plain HTTP for a ws://
// WebSocket), and the connection to the host the CONNECT dialled, which
// the first request inside uses.
type tunnel struct {
	authority string // host:port, as in the CONNECT
	scheme    string // "https" or "http"

	mu  sync.Mutex
	pre net.Conn // dialled and checked at CONNECT; nil once used or closed
	p   *Proxy
}

// take hands over the connection dialled at CONNECT, once, to a request
// for the same host:port.
func (t *tunnel) take(addr string) net.Conn {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pre == nil || addr != t.authority {
		return nil
	}
	c := t.pre
	t.pre = nil
	t.p.untrack(c)
	return c
}

// release closes the CONNECT's connection if no request used it: the
// tunnel's first request got another (idle in the pool), or the browser
// sent nothing.
func (t *tunnel) release() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pre != nil {
		t.p.untrack(t.pre)
		_ = t.pre.Close()
		t.pre = nil
	}
}

type tunnelKey struct{}

// dialUpstream is the transport's dialer: the CONNECT's own connection
// when the request came through that tunnel, a checked dial otherwise.
func (p *Proxy) dialUpstream(ctx context.Context, network, addr string) (net.Conn, error) {
	if t, ok := ctx.Value(tunnelKey{}).(*tunnel); ok {
		if c := t.take(addr); c != nil {
			return c, nil
		}
	}
	return p.cfg.Dial(ctx, network, addr)
}

// tunnel answers a CONNECT. The address is checked by dialling it, so a
// refused host never sees a byte and the browser gets 403 at once; then
// the proxy reads what the browser sends inside, as HTTPS or plain HTTP.
func (p *Proxy) tunnel(w http.ResponseWriter, r *http.Request) {
	authority := r.Host
	host, _, err := net.SplitHostPort(authority)
	if err != nil {
		http.Error(w, "CONNECT needs host:port", http.StatusBadRequest)
		return
	}
	// The host name is part of the URL: a secret in it would leave in the
	// DNS query the dial makes, so it is checked first.
	if p.cfg.CheckURL != nil {
		probe := &url.URL{Scheme: "https", Host: authority, Path: "/"}
		if err := p.cfg.CheckURL(probe); err != nil {
			p.refuse(w, r, redactedAuthority(authority), err)
			return
		}
	}
	upstream, err := p.cfg.Dial(r.Context(), "tcp", authority)
	if err != nil {
		p.refuseOrFail(w, r, redactedAuthority(authority), err)
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
	t := &tunnel{authority: authority, pre: upstream, p: p}
	tc := &tunnelConn{t: t, raw: client, p: p}
	fail := func() {
		t.release()
		p.untrack(client)
		client.Close()
	}
	if _, err := io.WriteString(client, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		fail()
		return
	}
	// The browser speaks first in both protocols the proxy carries.
	_ = client.SetReadDeadline(time.Now().Add(10 * time.Second))
	first, err := rw.Reader.Peek(1)
	_ = client.SetReadDeadline(time.Time{})
	if err != nil {
		fail()
		return
	}
	in := &bufferedConn{Conn: client, r: rw.Reader}
	if first[0] != 0x16 { // not a TLS handshake record: plain HTTP
		t.scheme = "http"
		tc.Conn = in
		p.q.push(tc)
		return
	}
	t.scheme = "https"
	cert, err := p.mint.cert(host)
	if err != nil {
		p.log.Warn("egress: no certificate for a tunnel", "host", redactedAuthority(host), "err", err)
		fail()
		return
	}
	tlsConn := tls.Server(in, &tls.Config{
		Certificates: []tls.Certificate{*cert},
		NextProtos:   []string{"http/1.1"},
		MinVersion:   tls.VersionTLS12,
	})
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	if err := tlsConn.HandshakeContext(ctx); err != nil {
		p.log.Debug("egress: TLS with the browser failed", "host", redactedAuthority(host), "err", err)
		fail()
		return
	}
	tc.Conn = tlsConn
	p.q.push(tc)
}

// tunnelConn is a tunnel's connection from the browser, as the server of
// tunnelled requests reads it.
type tunnelConn struct {
	net.Conn // TLS over raw, or raw with what was read ahead
	raw      net.Conn
	t        *tunnel
	p        *Proxy
	once     sync.Once
}

func (c *tunnelConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.t.release()
		c.p.untrack(c.raw)
		_ = c.raw.Close()
	})
	return err
}

// bufferedConn reads first what was read ahead of the handshake.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// connQueue is the listener the tunnelled-request server accepts tunnels
// from.
type connQueue struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
	addr net.Addr
}

func newConnQueue(addr net.Addr) *connQueue {
	return &connQueue{ch: make(chan net.Conn), done: make(chan struct{}), addr: addr}
}

func (q *connQueue) push(c net.Conn) {
	select {
	case q.ch <- c:
	case <-q.done:
		_ = c.Close()
	}
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.ch:
		return c, nil
	case <-q.done:
		return nil, fmt.Errorf("egress tunnels: %w", net.ErrClosed)
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

func (q *connQueue) Addr() net.Addr { return q.addr }

// redactedAuthority is a host[:port] safe to log and report.
func redactedAuthority(a string) string {
	return strings.TrimPrefix(urlguard.RedactURL("https://"+a), "https://")
}

// sameHost reports whether a request's Host names the tunnel's authority
// (a default port may be left out).
func sameHost(reqHost, authority, scheme string) bool {
	h, p, err := net.SplitHostPort(authority)
	if err != nil {
		return false
	}
	if strings.EqualFold(reqHost, authority) {
		return true
	}
	def := (scheme == "https" && p == "443") || (scheme == "http" && p == "80")
	return def && strings.EqualFold(strings.Trim(reqHost, "[]"), strings.Trim(h, "[]"))
}
