package egress

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

var errForbidden = errors.New("forbidden by the test policy")

// policy refuses one host:port and dials the rest.
type policy struct {
	refuse string
	mu     sync.Mutex
	dialed []string
}

func (p *policy) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if addr == p.refuse {
		return nil, fmt.Errorf("%s: %w", addr, errForbidden)
	}
	p.mu.Lock()
	p.dialed = append(p.dialed, addr)
	p.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// start runs a proxy on pol and returns it with a reader of what it
// blocked so far.
func start(t *testing.T, pol *policy, check func(*url.URL) error) (*Proxy, func() []Blocked) {
	t.Helper()
	var mu sync.Mutex
	var blocked []Blocked
	p, err := Start(Config{
		Dial:        pol.dial,
		CheckURL:    check,
		UpstreamTLS: &tls.Config{RootCAs: testRoots(t)},
		Refused:     func(err error) bool { return errors.Is(err, errForbidden) },
		OnBlocked: func(b Blocked) {
			mu.Lock()
			blocked = append(blocked, b)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, func() []Blocked {
		mu.Lock()
		defer mu.Unlock()
		return append([]Blocked(nil), blocked...)
	}
}

// testRoots trusts the certificate every httptest TLS server shows.
func testRoots(t testing.TB) *x509.CertPool {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return pool
}

// client is a browser of p: it accepts what p shows for HTTPS hosts only
// when the certificate is of p's key, as Chromium is told to.
func client(p *Proxy) *http.Client {
	u, _ := url.Parse(p.URL())
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			Proxy:           http.ProxyURL(u),
			TLSClientConfig: browserTLS(p),
		},
	}
}

// browserTLS is Chromium's --ignore-certificate-errors-spki-list=p.SPKI():
// a certificate is good if it carries that key.
func browserTLS(p *Proxy) *tls.Config {
	return &tls.Config{
		InsecureSkipVerify: true, // replaced by the key check below
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("no certificate")
			}
			sum := sha256.Sum256(cs.PeerCertificates[0].RawSubjectPublicKeyInfo)
			if got := base64.StdEncoding.EncodeToString(sum[:]); got != p.SPKI() {
				return fmt.Errorf("certificate key %s, want the proxy's %s", got, p.SPKI())
			}
			return nil
		},
	}
}

func TestProxyEnforcesTheDialerOnEveryRoute(t *testing.T) {
	allowed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Connection") != "" {
			t.Errorf("hop-by-hop header passed on: %v", r.Header)
		}
		io.WriteString(w, "allowed page")
	}))
	defer allowed.Close()
	secret := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "SECRET")
	}))
	defer secret.Close()
	secretTLS := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "SECRET")
	}))
	defer secretTLS.Close()
	allowedTLS := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/collect" {
			t.Errorf("a request the URL check refused reached the host: %s", r.URL)
		}
		io.WriteString(w, "allowed tls page")
	}))
	defer allowedTLS.Close()

	tests := []struct {
		name, url, refuse string
		check             func(*url.URL) error
		wantBody          string
		wantStatus        int
		wantBlocked       string
	}{
		{name: "plain http allowed", url: allowed.URL + "/a", wantBody: "allowed page", wantStatus: 200},
		{name: "plain http to a refused address", url: secret.URL + "/x", refuse: hostPort(secret.URL), wantBlocked: secret.URL + "/x"},
		{name: "tunnel allowed", url: allowedTLS.URL + "/", wantBody: "allowed tls page", wantStatus: 200},
		{name: "tunnel to a refused address", url: secretTLS.URL + "/", refuse: hostPort(secretTLS.URL), wantBlocked: hostPort(secretTLS.URL)},
		{
			name: "URL check refuses before any dial", url: allowed.URL + "/?token=abc",
			check:       func(u *url.URL) error { return errors.New("credential in URL") },
			wantBlocked: allowed.URL + "/?…",
		},
		{
			// The path and query of an HTTPS request are read too: the
			// tunnel's host was allowed (and dialled), the request is not
			// sent.
			name: "URL check reads inside TLS", url: allowedTLS.URL + "/collect?token=abc",
			check: func(u *url.URL) error {
				if u.Scheme == "https" && u.Path == "/collect" && u.RawQuery == "token=abc" {
					return errors.New("credential in URL")
				}
				return nil
			},
			wantBlocked: allowedTLS.URL + "/collect?…",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := &policy{refuse: tt.refuse}
			p, blockedSoFar := start(t, pol, tt.check)
			resp, err := client(p).Get(tt.url)
			if tt.wantStatus == 0 {
				// A refusal fails the request itself: no page, not even
				// an error page, comes back.
				if err == nil {
					resp.Body.Close()
					t.Fatalf("a refused request got an answer: %d", resp.StatusCode)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.wantStatus || (tt.wantBody != "" && string(body) != tt.wantBody) {
					t.Errorf("got %d %q", resp.StatusCode, body)
				}
				if strings.Contains(string(body), "SECRET") {
					t.Errorf("a refused request's content reached the client: %q", body)
				}
			}
			blocked := blockedSoFar()
			switch {
			case tt.wantBlocked == "" && len(blocked) > 0:
				t.Errorf("blocked %v, want nothing blocked", blocked)
			case tt.wantBlocked != "" && (len(blocked) != 1 || blocked[0].Target != tt.wantBlocked):
				t.Errorf("blocked %v, want %s", blocked, tt.wantBlocked)
			}
			pol.mu.Lock()
			defer pol.mu.Unlock()
			if tt.check != nil && len(pol.dialed) > 0 && !strings.HasPrefix(tt.url, "https:") {
				t.Errorf("dialled %v for a URL the check refused", pol.dialed)
			}
			if tt.wantStatus != 0 && len(pol.dialed) != 1 {
				// The connection dialled (and checked) for the CONNECT
				// is the one the request inside uses.
				t.Errorf("dialled %v for one request, want one dial", pol.dialed)
			}
		})
	}
}

// A host that is down is a network failure, not a refusal: the browser
// shows it as such and nothing is reported as blocked.
func TestUnreachableIsNotARefusal(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	p, blocked := start(t, &policy{}, nil)
	resp, err := client(p).Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || len(blocked()) != 0 {
		t.Errorf("status %d, blocked %v", resp.StatusCode, blocked())
	}
}

func TestRejectsWhatIsNotAProxyRequest(t *testing.T) {
	p, _ := start(t, &policy{}, nil)
	resp, err := http.Get(p.URL() + "/direct")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("origin-form request answered %d", resp.StatusCode)
	}
	if _, err := Start(Config{}); err == nil {
		t.Error("Start without a dialer succeeded")
	}
}

func hostPort(raw string) string {
	u, _ := url.Parse(raw)
	return u.Host
}

// BenchmarkProxyOverhead is what the proxy adds to one request: the same
// GET to a page on 127.0.0.1, direct and through the proxy, over HTTP and
// HTTPS (which the proxy ends and opens again), on fresh connections (as a
// navigation to a new host is) and on kept-alive ones.
func BenchmarkProxyOverhead(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 4096))
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	secure := httptest.NewTLSServer(handler)
	defer secure.Close()
	roots := testRoots(b)
	p, err := Start(Config{Dial: (&net.Dialer{}).DialContext, UpstreamTLS: &tls.Config{RootCAs: roots}})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	proxyURL, _ := url.Parse(p.URL())
	for _, page := range []string{plain.URL, secure.URL} {
		for _, keep := range []bool{false, true} {
			for _, via := range []string{"direct", "proxy"} {
				name := via + "/" + strings.Split(page, ":")[0] + "/new-connection"
				if keep {
					name = via + "/" + strings.Split(page, ":")[0] + "/kept-alive"
				}
				b.Run(name, func(b *testing.B) {
					tr := &http.Transport{DisableKeepAlives: !keep, TLSClientConfig: &tls.Config{RootCAs: roots}}
					if via == "proxy" {
						tr.Proxy = http.ProxyURL(proxyURL)
						tr.TLSClientConfig = browserTLS(p)
					}
					defer tr.CloseIdleConnections()
					c := &http.Client{Transport: tr}
					for b.Loop() {
						resp, err := c.Get(page)
						if err != nil {
							b.Fatal(err)
						}
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				})
			}
		}
	}
}

// A WebSocket handshake is read whole, ws:// (plain inside CONNECT) and
// wss:// (inside TLS) alike: the URL check applies to it, and so does the
// rule that a handshake carries no credentials (a page cannot set
// Authorization on a WebSocket: the browser takes it from the URL's
// user:password@).
func TestWebSocketHandshakesAreChecked(t *testing.T) {
	check := func(u *url.URL) error {
		if strings.Contains(u.RawQuery, "k=") {
			return errors.New("credential in URL")
		}
		return nil
	}
	for _, secure := range []bool{false, true} {
		for _, tt := range []struct {
			name, path, header string
			refused            bool
		}{
			{"credential in the query", "/socket?k=secret", "", true},
			{"credential from the URL's userinfo", "/socket", "Authorization: Basic dXNlcjpwdw==\r\n", true},
			{"clean", "/socket", "", false},
		} {
			name := "ws/" + tt.name
			if secure {
				name = "wss/" + tt.name
			}
			t.Run(name, func(t *testing.T) {
				host := echoServer(t, secure)
				p, blocked := start(t, &policy{}, check)
				conn := openTunnel(t, p, host.addr, secure)
				fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n%s\r\n", tt.path, host.addr, tt.header)
				r := bufio.NewReader(conn)
				line, err := r.ReadString('\n')
				switch {
				case tt.refused && err == nil:
					t.Errorf("a refused handshake was answered %q", line)
				case !tt.refused && !strings.Contains(line, "101"):
					t.Fatalf("handshake answered %q, %v; want 101", line, err)
				case !tt.refused:
					skipHead(t, r)
					fmt.Fprint(conn, "ping")
					buf := make([]byte, 4)
					if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "ping" {
						t.Errorf("the upgraded connection echoed %q, %v", buf, err)
					}
				}
				if n := host.handshakes(); tt.refused && n > 0 {
					t.Errorf("the host received %d handshakes from a refused tunnel", n)
				}
				if n := len(blocked()); (n == 1) != tt.refused {
					t.Errorf("blocked %v", blocked())
				}
			})
		}
	}
}

// No password challenge reaches the browser, which would answer it with
// the URL's user:password@: the 401 arrives without WWW-Authenticate, and
// the challenge is reported.
func TestPasswordChallengesAreNotPassedOn(t *testing.T) {
	for _, secure := range []bool{false, true} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.Header().Add("WWW-Authenticate", `Negotiate`)
			http.Error(w, "who are you", http.StatusUnauthorized)
		})
		srv := httptest.NewServer(h)
		if secure {
			srv.Close()
			srv = httptest.NewTLSServer(h)
		}
		t.Cleanup(srv.Close)
		p, blocked := start(t, &policy{}, nil)
		resp, err := client(p).Get(srv.URL + "/private?q=1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || len(resp.Header.Values("WWW-Authenticate")) != 0 {
			t.Errorf("secure=%v: got %d %v, want 401 with no challenge", secure, resp.StatusCode, resp.Header)
		}
		if b := blocked(); len(b) != 1 || b[0].Target != srv.URL+"/private?…" {
			t.Errorf("secure=%v: blocked %v, want the challenge reported", secure, b)
		}
	}
}

// The proxy verifies the hosts it speaks TLS to as any client does: a
// certificate it cannot trust fails the request (as the browser would have
// failed it) and is reported; it never serves the host's page.
func TestUntrustedHostCertificateFails(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "IMPOSTOR")
	}))
	defer srv.Close()
	var blocked []Blocked
	var mu sync.Mutex
	p, err := Start(Config{Dial: (&policy{}).dial, OnBlocked: func(b Blocked) { // system roots, which do not hold the test's certificate
		mu.Lock()
		blocked = append(blocked, b)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	resp, err := client(p).Get(srv.URL + "/")
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("got %d %q, want the request failed", resp.StatusCode, body)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(blocked) != 1 || !strings.Contains(blocked[0].Reason.Error(), "certificate") {
		t.Errorf("blocked %v, want the certificate named", blocked)
	}
}

// A host name is part of the URL: one carrying a secret is refused at
// CONNECT, before the dial would send it to DNS, and is not repeated.
func TestSecretInHostNameRefusedBeforeDNS(t *testing.T) {
	const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	check := func(u *url.URL) error {
		if strings.Contains(u.Host, token) {
			return errors.New("Blocked: credential in URL")
		}
		return nil
	}
	pol := &policy{}
	p, blocked := start(t, pol, check)
	if resp, err := client(p).Get("https://" + token + ".example:443/"); err == nil {
		resp.Body.Close()
		t.Error("the request was answered")
	}
	pol.mu.Lock()
	defer pol.mu.Unlock()
	if len(pol.dialed) > 0 {
		t.Errorf("dialled %v", pol.dialed)
	}
	b := blocked()
	if len(b) != 1 {
		t.Fatalf("blocked %v, want one refusal", b)
	}
	if strings.Contains(b[0].Target, token) {
		t.Errorf("the report %q repeats the host", b[0].Target)
	}
}

// Inside a tunnel only origin-form requests for the tunnel's own host are
// carried: no CONNECT through the tunnel, no Host pointing elsewhere; and an
// upgrade outside a tunnel is not taken.
func TestTunnelCarriesOnlyItsOwnHost(t *testing.T) {
	host := echoServer(t, true)
	p, _ := start(t, &policy{}, nil)
	for _, req := range []string{
		"CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: metadata.google.internal\r\n\r\n",
		"GET http://elsewhere.example/ HTTP/1.1\r\nHost: elsewhere.example\r\n\r\n",
	} {
		conn := openTunnel(t, p, host.addr, true)
		fmt.Fprint(conn, req)
		line, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil || !strings.Contains(line, "400") {
			t.Errorf("%q answered %q, %v; want 400", req, line, err)
		}
	}
	if n := host.handshakes(); n > 0 {
		t.Errorf("the host received %d requests", n)
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET http://%s/ws HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", host.addr, host.addr)
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(line, "400") {
		t.Errorf("an absolute-form upgrade answered %q, %v; want 400", line, err)
	}
}

// An informational answer carries no challenge to the browser either.
func TestChallengeInInformationalAnswerStripped(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("WWW-Authenticate")
		io.WriteString(w, "page")
	}))
	defer srv.Close()
	p, _ := start(t, &policy{}, nil)
	var got []textproto.MIMEHeader
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
			got = append(got, h)
			return nil
		},
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/", nil)
	resp, err := client(p).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(got) != 1 || got[0].Get("Link") == "" || got[0].Get("WWW-Authenticate") != "" {
		t.Errorf("1xx answers seen: %v; want one, with Link and without WWW-Authenticate", got)
	}
}

// Each certificate the browser sees names the host it asked for and
// carries the proxy's key, which no other proxy shares.
func TestCertificatesAreForTheHostAndTheProxysKey(t *testing.T) {
	p, _ := start(t, &policy{}, nil)
	other, _ := start(t, &policy{}, nil)
	if p.SPKI() == other.SPKI() {
		t.Fatal("two proxies share a key")
	}
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	for _, host := range []string{srv.Listener.Addr().String(), "localhost:" + strings.Split(srv.Listener.Addr().String(), ":")[1]} {
		conn := openTunnel(t, p, host, true).(*tls.Conn)
		leaf := conn.ConnectionState().PeerCertificates[0]
		name, _, _ := net.SplitHostPort(host)
		if err := leaf.VerifyHostname(name); err != nil {
			t.Errorf("certificate for %s: %v", host, err)
		}
	}
}

// A sibling proxy shows certificates of its parent's key, so the browser
// that accepts the parent's accepts them, and it enforces its own config:
// its refusals reach its own OnBlocked, not the parent's.
func TestSiblingSharesTheKeyNotTheReports(t *testing.T) {
	p, parentBlocked := start(t, &policy{}, nil)
	var mu sync.Mutex
	var blocked []Blocked
	pol := &policy{}
	sib, err := p.Sibling(Config{
		Dial: pol.dial,
		CheckURL: func(u *url.URL) error {
			if strings.Contains(u.Path, "refused") {
				return fmt.Errorf("%w: %s", errForbidden, u.Path)
			}
			return nil
		},
		UpstreamTLS: &tls.Config{RootCAs: testRoots(t)},
		Refused:     func(err error) bool { return errors.Is(err, errForbidden) },
		OnBlocked: func(b Blocked) {
			mu.Lock()
			blocked = append(blocked, b)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sib.Close()
	if sib.SPKI() != p.SPKI() || sib.URL() == p.URL() {
		t.Fatalf("sibling: key %s at %s, parent: key %s at %s; want the parent's key on a port of its own", sib.SPKI(), sib.URL(), p.SPKI(), p.URL())
	}
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	// The request is read, and refused, only once the client, which
	// accepts nothing but p's key, took the sibling's certificate.
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(t, sib.URL())), TLSClientConfig: browserTLS(p)}}
	resp, err := c.Get(srv.URL + "/refused-by-the-sibling")
	if err == nil {
		resp.Body.Close()
	} else if strings.Contains(err.Error(), "certificate") {
		t.Fatalf("through the sibling with the parent's key: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(blocked) == 0 || !strings.Contains(blocked[0].Target, "/refused-by-the-sibling") {
		t.Errorf("sibling's refusals = %v, want the refused URL", blocked)
	}
	if got := parentBlocked(); len(got) != 0 {
		t.Errorf("the parent heard of the sibling's refusals: %v", got)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Close ends tunnels in use, upgraded ones included: no connection
// outlives the browser session.
func TestCloseEndsOpenTunnels(t *testing.T) {
	host := echoServer(t, true)
	p, _ := start(t, &policy{}, nil)
	conn := openTunnel(t, p, host.addr, true)
	fmt.Fprintf(conn, "GET /socket HTTP/1.1\r\nHost: %s\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", host.addr)
	r := bufio.NewReader(conn)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "101") {
		t.Fatalf("handshake answered %q, %v", line, err)
	}
	skipHead(t, r)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := r.ReadByte()
	var ne net.Error
	if err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("the tunnel is still open after Close (read: %v)", err)
	}
}

// echo is a host that accepts WebSocket-style upgrades and echoes what
// follows, and counts the handshakes it received.
type echo struct {
	addr string
	mu   sync.Mutex
	n    int
}

func (e *echo) handshakes() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.n
}

func echoServer(t *testing.T, secure bool) *echo {
	t.Helper()
	e := &echo{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.n++
		e.mu.Unlock()
		conn, rw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		rw.WriteString("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
		rw.Flush()
		io.Copy(conn, rw)
	})
	srv := httptest.NewUnstartedServer(h)
	if secure {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	e.addr = srv.Listener.Addr().String()
	return e
}

// openTunnel CONNECTs to addr through p, as a browser does, and returns
// the tunnel: inside TLS (checking the certificate as the browser is told
// to) when secure.
func openTunnel(t *testing.T, p *Proxy, addr string, secure bool) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
	r := bufio.NewReader(conn)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("CONNECT answered %q, %v", line, err)
	}
	skipHead(t, r)
	if r.Buffered() > 0 {
		t.Fatal("the proxy spoke before the browser")
	}
	if !secure {
		return conn
	}
	host, _, _ := net.SplitHostPort(addr)
	cfg := browserTLS(p)
	cfg.ServerName = host
	tc := tls.Client(conn, cfg)
	if err := tc.Handshake(); err != nil {
		t.Fatalf("TLS inside the tunnel: %v", err)
	}
	return tc
}

func skipHead(t *testing.T, r *bufio.Reader) {
	t.Helper()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading a response head: %v", err)
		}
		if line == "\r\n" {
			return
		}
	}
}

// What is reported of a refused request never carries the secret that got
// it refused, wherever in the URL it was.
func TestReportsCarryNoSecret(t *testing.T) {
	const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	refuseAll := func(*url.URL) error { return errors.New("Blocked: credential in URL") }
	p, blocked := start(t, &policy{}, refuseAll)
	for _, path := range []string{"/collect/" + token, "/collect?k=" + token, "/a/" + url.PathEscape(token) + "/b"} {
		if resp, err := client(p).Get(srv.URL + path); err == nil {
			resp.Body.Close()
			t.Errorf("%s was answered", path)
		}
	}
	b := blocked()
	if len(b) != 3 {
		t.Fatalf("blocked %v, want 3", b)
	}
	for _, r := range b {
		if strings.Contains(r.Target, token) || strings.Contains(r.Target, "0123456789abcdefghij") {
			t.Errorf("reported target %q carries the token", r.Target)
		}
	}
}
