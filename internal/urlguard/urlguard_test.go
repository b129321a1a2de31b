package urlguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// fakeResolver answers from a table; unknown hosts fail to resolve.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range f[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if out == nil {
		return nil, errors.New("no such host")
	}
	return out, nil
}

func TestCheckURL(t *testing.T) {
	r := fakeResolver{
		"example.com":    {"93.184.215.14"},
		"rebind.example": {"93.184.215.14", "10.0.0.5"},
		"meta.example":   {"169.254.169.254"},
	}
	tests := []struct {
		url     string
		private bool
		want    error
	}{
		{"https://example.com/page", false, nil},
		{"http://127.0.0.1:8080/", false, ErrPrivate},
		{"http://127.0.0.1:8080/", true, nil},
		{"http://localhost/", false, ErrPrivate},
		{"http://[::1]/", false, ErrPrivate},
		{"http://192.168.1.10/", false, ErrPrivate},
		{"http://100.64.0.1/", false, ErrPrivate},
		{"http://169.254.169.254/latest/meta-data/", true, ErrMetadata},
		{"http://[::ffff:169.254.169.254]/", true, ErrMetadata},
		{"http://metadata.google.internal/computeMetadata/v1/", true, ErrMetadata},
		{"http://meta.example/", true, ErrMetadata},
		{"https://rebind.example/", false, ErrPrivate},
		{"https://example.com/?key=sk-abcdefghijklmnopqrstuvwx", true, ErrSecret},
		{"https://example.com/?key=sk%2Dabcdefghijklmnopqrstuvwx", true, ErrSecret},
		{"https://example.com/?phone=+4915112345678", false, nil},
		{"file:///etc/passwd", true, ErrScheme},
		{"ftp://example.com/", true, ErrScheme},
		{"https://unresolvable.example/", false, nil},
	}
	for _, tt := range tests {
		_, err := CheckURL(context.Background(), tt.url, Policy{AllowPrivate: tt.private}, r)
		if !errors.Is(err, tt.want) && !(err == nil && tt.want == nil) {
			t.Errorf("CheckURL(%q, private=%v) = %v, want %v", tt.url, tt.private, err, tt.want)
		}
	}
}

// The dialer refuses what the URL check would, after DNS, so redirects to a
// private address are stopped too.
func TestDialContextRefusesPrivateRedirect(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("secret internal page")) }))
	defer target.Close()
	client := &http.Client{Transport: &http.Transport{DialContext: DialContext(Policy{}, &net.Dialer{})}}
	_, err := client.Get(target.URL)
	if !errors.Is(err, ErrPrivate) {
		t.Fatalf("GET loopback with a strict policy: err = %v, want ErrPrivate", err)
	}
	allowed := &http.Client{Transport: &http.Transport{DialContext: DialContext(Policy{AllowPrivate: true}, nil)}}
	resp, err := allowed.Get(target.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
