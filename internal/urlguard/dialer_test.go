package urlguard

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// scriptResolver answers the n-th lookup with the n-th answer (the last
// one repeats): a rebinding DNS server that serves one address to the
// check and another to the connection.
type scriptResolver struct {
	mu      sync.Mutex
	answers [][]string
	calls   int
}

func (s *scriptResolver) LookupNetIP(_ context.Context, _, _ string) ([]netip.Addr, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ans := s.answers[min(s.calls, len(s.answers)-1)]
	s.calls++
	var out []netip.Addr
	for _, a := range ans {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func (s *scriptResolver) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// listener accepts on 127.0.0.1 and reports each connection, so a test
// sees what was actually dialled.
func listener(t *testing.T) (port string, accepted <-chan net.Addr) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan net.Addr, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			ch <- c.LocalAddr()
			c.Close()
		}
	}()
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, ch
}

// noneAccepted fails the test if the listener took a connection. Refused
// dials never reach connect, so there is nothing to wait for.
func noneAccepted(t *testing.T, accepted <-chan net.Addr) {
	t.Helper()
	select {
	case a := <-accepted:
		t.Errorf("a refused dial connected (%s)", a)
	default:
	}
}

// noNameResolution makes a net.Dialer fail the test if it is ever handed
// a name: the Dialer must give it only the address it checked.
func noNameResolution(t *testing.T) *net.Dialer {
	return &net.Dialer{Resolver: &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
		t.Error("net.Dialer resolved a name itself")
		return nil, errors.New("no DNS in this test")
	}}}
}

// 127.0.0.1 stands in for a public address here (private addresses are
// allowed), since it is the only one a test can listen on.
func TestDialerRebinding(t *testing.T) {
	port, accepted := listener(t)
	res := &scriptResolver{answers: [][]string{{"127.0.0.1"}, {"169.254.169.254"}}}
	d := &Dialer{Policy: Policy{AllowPrivate: true}, Resolver: res, Net: noNameResolution(t)}

	conn, err := d.DialContext(context.Background(), "tcp", "rebind.test:"+port)
	if err != nil {
		t.Fatalf("first dial: %v", err)
	}
	conn.Close()
	if got := (<-accepted).String(); got != "127.0.0.1:"+port {
		t.Errorf("dialled %s", got)
	}
	if res.count() != 1 {
		t.Errorf("%d lookups for one dial; the name must be resolved once and the checked address dialled", res.count())
	}

	// The rebinding answer: checked again at the next connection, refused.
	_, err = d.DialContext(context.Background(), "tcp", "rebind.test:"+port)
	var be *BlockedError
	if !errors.Is(err, ErrMetadata) || !errors.As(err, &be) || be.Target != "rebind.test" || be.Addr.String() != "169.254.169.254" {
		t.Fatalf("second dial: err = %v, want ErrMetadata naming rebind.test and the address", err)
	}
	noneAccepted(t, accepted)
}

// A URL checked with one answer is dialled with the next, through the
// same path web_extract takes: the check before the request does not
// vouch for the connection.
func TestDialerRecheckAfterCheckURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "metadata credentials") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	res := &scriptResolver{answers: [][]string{{"127.0.0.1"}, {"127.0.0.1", "169.254.169.254"}}}
	p := Policy{AllowPrivate: true}
	target := "http://rebind.test:" + port + "/latest/meta-data/"
	if _, err := CheckURL(context.Background(), target, p, res); err != nil {
		t.Fatalf("CheckURL with the first answer: %v", err)
	}
	d := &Dialer{Policy: p, Resolver: res, Net: noNameResolution(t)}
	client := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	_, err := client.Get(target)
	if !errors.Is(err, ErrMetadata) {
		t.Fatalf("GET after rebinding: err = %v, want ErrMetadata", err)
	}
}

// The Dialer reads hosts as ParseHost does, so a spelling Go's resolver
// would send to DNS (or a C resolver would read as an address) is the
// address it names.
func TestDialerSpellings(t *testing.T) {
	port, accepted := listener(t)
	res := &scriptResolver{answers: [][]string{{"93.184.215.14"}}}
	open := &Dialer{Policy: Policy{AllowPrivate: true}, Resolver: res, Net: noNameResolution(t)}
	for _, host := range []string{"2130706433", "0x7f.1", "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]"} {
		conn, err := open.DialContext(context.Background(), "tcp", host+":"+port)
		if err != nil {
			t.Errorf("dial %s: %v", host, err)
			continue
		}
		conn.Close()
		if got := (<-accepted).String(); got != "127.0.0.1:"+port {
			t.Errorf("dial %s reached %s", host, got)
		}
	}
	strict := &Dialer{Policy: Policy{AllowHint: "set x: true"}, Resolver: res}
	for _, host := range []string{"2130706433", "0x7f.1", "[::1]", "[64:ff9b::7f00:1]", "localhost"} {
		_, err := strict.DialContext(context.Background(), "tcp", host+":"+port)
		if !errors.Is(err, ErrPrivate) || !strings.HasSuffix(err.Error(), "; to allow it, set x: true") {
			t.Errorf("strict dial %s: err = %v, want ErrPrivate with the hint", host, err)
		}
	}
	for _, host := range []string{"0xA9FEA9FE", "[::ffff:a9fe:a9fe]", "metadata.google.internal.", "METADATA"} {
		if _, err := open.DialContext(context.Background(), "tcp", host+":80"); !errors.Is(err, ErrMetadata) {
			t.Errorf("dial %s: err = %v, want ErrMetadata", host, err)
		}
	}
	if n := res.count(); n != 0 {
		t.Errorf("%d lookups; addresses and metadata names need none", n)
	}
	for _, bad := range []struct{ network, addr string }{{"udp", "127.0.0.1:53"}, {"unix", "/tmp/x"}, {"tcp", "1.2.3.4.5:80"}, {"tcp", "no-port"}} {
		if _, err := open.DialContext(context.Background(), bad.network, bad.addr); err == nil {
			t.Errorf("dial %s %s succeeded", bad.network, bad.addr)
		}
	}
	noneAccepted(t, accepted)
}

// Any refused address in an answer refuses the name, even when another
// one would be allowed.
func TestDialerMixedAnswer(t *testing.T) {
	port, accepted := listener(t)
	for _, ans := range [][]string{{"127.0.0.1", "169.254.169.254"}, {"169.254.169.254", "127.0.0.1"}, {"127.0.0.1", "fd00:ec2::254"}} {
		d := &Dialer{Policy: Policy{AllowPrivate: true}, Resolver: &scriptResolver{answers: [][]string{ans}}}
		if _, err := d.DialContext(context.Background(), "tcp", "mixed.test:"+port); !errors.Is(err, ErrMetadata) {
			t.Errorf("answer %v: err = %v, want ErrMetadata", ans, err)
		}
	}
	strict := &Dialer{Resolver: &scriptResolver{answers: [][]string{{"93.184.215.14", "10.0.0.1"}}}}
	if _, err := strict.DialContext(context.Background(), "tcp", "mixed.test:"+port); !errors.Is(err, ErrPrivate) {
		t.Errorf("public+private answer: err = %v, want ErrPrivate", err)
	}
	noneAccepted(t, accepted)
}

// DialContext, the function form, enforces the same policy.
func TestDialContextRefusesPrivate(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "internal page") }))
	defer target.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: DialContext(Policy{}, &net.Dialer{})}}
	if _, err := client.Get(target.URL); !errors.Is(err, ErrPrivate) {
		t.Fatalf("GET loopback with a strict policy: err = %v, want ErrPrivate", err)
	}
	allowed := &http.Client{Transport: &http.Transport{DialContext: DialContext(Policy{AllowPrivate: true}, nil)}}
	resp, err := allowed.Get(target.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
