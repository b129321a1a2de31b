package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
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
		Dial:     pol.dial,
		CheckURL: check,
		Refused:  func(err error) bool { return errors.Is(err, errForbidden) },
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

func client(p *Proxy) *http.Client {
	u, _ := url.Parse(p.URL())
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			Proxy:           http.ProxyURL(u),
			TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test's own server
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
			if tt.check != nil && len(pol.dialed) > 0 {
				t.Errorf("dialled %v for a URL the check refused", pol.dialed)
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

// Close ends tunnels in use: no connection outlives the browser session.
func TestCloseEndsOpenTunnels(t *testing.T) {
	upstream, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer upstream.Close()
	go func() {
		for {
			c, err := upstream.Accept()
			if err != nil {
				return
			}
			go io.Copy(c, c) // echo
		}
	}()
	p, _ := start(t, &policy{}, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\nhello", upstream.Addr(), upstream.Addr())
	r := bufio.NewReader(conn)
	line, _ := r.ReadString('\n')
	if !strings.Contains(line, "200") {
		t.Fatalf("CONNECT answered %q", line)
	}
	for line != "\r\n" {
		if line, err = r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("tunnel echoed %q, %v (bytes sent with CONNECT must reach the host)", buf, err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err == nil {
		t.Error("the tunnel is still open after Close")
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
// GET to a page on 127.0.0.1, direct and through the proxy, on fresh
// connections (as a navigation to a new host is) and on kept-alive ones.
func BenchmarkProxyOverhead(b *testing.B) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 4096))
	}))
	defer page.Close()
	p, err := Start(Config{Dial: (&net.Dialer{}).DialContext})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	proxyURL, _ := url.Parse(p.URL())
	for _, keep := range []bool{false, true} {
		for _, via := range []string{"direct", "proxy"} {
			name := via + "/new-connection"
			if keep {
				name = via + "/kept-alive"
			}
			b.Run(name, func(b *testing.B) {
				tr := &http.Transport{DisableKeepAlives: !keep}
				if via == "proxy" {
					tr.Proxy = http.ProxyURL(proxyURL)
				}
				defer tr.CloseIdleConnections()
				c := &http.Client{Transport: tr}
				for b.Loop() {
					resp, err := c.Get(page.URL)
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

// A ws:// WebSocket handshake travels through CONNECT, but its request line
// is plain: the URL check applies to it as to a plain request. A TLS tunnel
// is passed through unread.
func TestTunnelledPlainHTTPIsChecked(t *testing.T) {
	tests := []struct {
		name, first string
		refused     bool
	}{
		{"ws handshake with a credential", "GET /socket?k=secret HTTP/1.1\r\nHost: x\r\n\r\n", true},
		{"ws handshake without", "GET /socket HTTP/1.1\r\nHost: x\r\n\r\n", false},
		{"TLS client hello", "\x16\x03\x01\x00\x05hello", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			upstream, got := oneConnection(t, func(c net.Conn) string {
				c.SetReadDeadline(time.Now().Add(3 * time.Second))
				b, _ := io.ReadAll(io.LimitReader(c, int64(len(tt.first))))
				return string(b)
			})
			check := func(u *url.URL) error {
				if strings.Contains(u.RawQuery, "k=") {
					return errors.New("credential in URL")
				}
				return nil
			}
			p, blocked := start(t, &policy{}, check)
			connectThrough(t, p, upstream, tt.first)
			select {
			case b := <-got:
				// A refused tunnel was connected (the address was
				// allowed) but carries not a byte.
				if tt.refused && b != "" {
					t.Errorf("the upstream received %q from a refused tunnel", b)
				} else if !tt.refused && b != tt.first {
					t.Errorf("the upstream received %q, want %q", b, tt.first)
				}
			case <-time.After(5 * time.Second):
				if !tt.refused {
					t.Error("the tunnel carried nothing")
				}
			}
			if n := len(blocked()); (n == 1) != tt.refused {
				t.Errorf("blocked %v", blocked())
			}
		})
	}
}

// After a handshake the server did not accept (401), nothing more from the
// client reaches it through that tunnel: the browser's retry would carry
// credentials from the URL. After a 101 the tunnel carries everything.
func TestHandshakeTunnelStopsUnlessUpgraded(t *testing.T) {
	for _, tt := range []struct {
		status   string
		wantMore bool
	}{{"401 Unauthorized", false}, {"101 Switching Protocols", true}} {
		t.Run(tt.status, func(t *testing.T) {
			upstream, got := oneConnection(t, func(c net.Conn) string {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				fmt.Fprintf(c, "HTTP/1.1 %s\r\nContent-Length: 0\r\n\r\n", tt.status)
				c.SetReadDeadline(time.Now().Add(2 * time.Second))
				rest, _ := io.ReadAll(r)
				return string(rest)
			})
			p, _ := start(t, &policy{}, func(*url.URL) error { return nil })
			conn := connectThrough(t, p, upstream, "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n")
			r := bufio.NewReader(conn)
			for _, want := range []string{"200", tt.status[:3]} {
				line, err := r.ReadString('\n')
				if err != nil || !strings.Contains(line, want) {
					t.Fatalf("read %q, %v; want %s", line, err, want)
				}
				for line != "\r\n" {
					if line, err = r.ReadString('\n'); err != nil {
						t.Fatal(err)
					}
				}
			}
			fmt.Fprint(conn, "GET /ws HTTP/1.1\r\nAuthorization: Basic dXNlcjpwdw==\r\n\r\n")
			rest := <-got
			if tt.wantMore != strings.Contains(rest, "Authorization") {
				t.Errorf("after %s the server received %q", tt.status, rest)
			}
		})
	}
}

// oneConnection listens on 127.0.0.1, hands the first connection to serve
// and delivers what serve returns.
func oneConnection(t *testing.T, serve func(c net.Conn) string) (addr string, got <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		ch <- serve(c)
	}()
	return ln.Addr().String(), ch
}

// connectThrough opens a tunnel to addr through p and sends first inside
// it right away, as a browser does.
func connectThrough(t *testing.T, p *Proxy, addr, first string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n%s", addr, addr, first)
	return conn
}
