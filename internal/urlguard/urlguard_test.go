package urlguard

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/netip"
	"strings"
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
		"mapped.example": {"::ffff:169.254.169.254"},
	}
	tests := []struct {
		url     string
		private bool
		want    error
	}{
		{"https://example.com/page", false, nil},
		{"https://EXAMPLE.com./page", false, nil},
		{"http://93.184.215.14/", false, nil},
		{"http://0x5DB8D70E/", false, nil},
		{"http://[2606:4700::1]/", false, nil},
		{"http://[64:ff9b::5db8:d70e]/", false, nil}, // NAT64 of a public address
		{"http://127.0.0.1:8080/", false, ErrPrivate},
		{"http://127.0.0.1:8080/", true, nil},
		{"http://localhost/", false, ErrPrivate},
		{"http://LOCALHOST./", false, ErrPrivate},
		{"http://a.localhost/", false, ErrPrivate},
		{"http://printer.local/", false, ErrPrivate},
		{"http://[::1]/", false, ErrPrivate},
		{"http://[::]/", false, ErrPrivate},
		{"http://0/", false, ErrPrivate},
		{"http://192.168.1.10/", false, ErrPrivate},
		{"http://100.64.0.1/", false, ErrPrivate},
		{"http://[fc00::1]/", false, ErrPrivate},
		{"http://[fd12:3456::1]/", false, ErrPrivate},
		{"http://[fe80::1%25eth0]/", false, ErrPrivate},
		{"http://[ff02::1]/", false, ErrPrivate},
		{"http://224.0.0.1/", false, ErrPrivate},
		{"http://255.255.255.255/", false, ErrPrivate},
		{"http://198.18.0.1/", false, ErrPrivate},
		{"http://[2001:db8::1]/", false, ErrPrivate},
		{"http://[::ffff:127.0.0.1]/", false, ErrPrivate},
		{"http://[::ffff:7f00:1]/", false, ErrPrivate},
		{"http://[::127.0.0.1]/", false, ErrPrivate},
		{"http://[64:ff9b::7f00:1]/", false, ErrPrivate},
		{"http://[64:ff9b::10.0.0.1]/", false, ErrPrivate},
		{"http://[2002:7f00:1::]/", false, ErrPrivate},
		{"http://2130706433/", false, ErrPrivate},
		{"http://0x7f.1/", false, ErrPrivate},
		{"http://017700000001/", false, ErrPrivate},
		{"http://127.1./", false, ErrPrivate},
		{"http://169.254.169.254/latest/meta-data/", true, ErrMetadata},
		{"http://2852039166/", true, ErrMetadata},
		{"http://0xA9FEA9FE/", true, ErrMetadata},
		{"http://0251.0376.0251.0376/", true, ErrMetadata},
		{"http://169.254.43518/", true, ErrMetadata},
		{"http://0xa9.0xfe.0xa9.0xfe/", true, ErrMetadata},
		{"http://169.16689662/", true, ErrMetadata},
		{"http://0xa9.254.0251.0xfe/", true, ErrMetadata},
		{"http://169.254.169.254./", true, ErrMetadata},
		{"HTTP://0XA9FEA9FE:80/", true, ErrMetadata},
		{"http://１６９．２５４．１６９．２５４/", true, ErrMetadata},
		{"http://[::ffff:169.254.169.254]/", true, ErrMetadata},
		{"http://[::ffff:a9fe:a9fe]/", true, ErrMetadata},
		{"http://[0:0:0:0:0:FFFF:A9FE:A9FE]/", true, ErrMetadata},
		{"http://[::a9fe:a9fe]/", true, ErrMetadata},
		{"http://[::ffff:0:a9fe:a9fe]/", true, ErrMetadata},
		{"http://[64:ff9b::a9fe:a9fe]/", true, ErrMetadata},
		{"http://[64:ff9b::169.254.169.254]/", true, ErrMetadata},
		{"http://[64:ff9b:1::a9fe:a9fe]/", true, ErrMetadata},
		{"http://[2002:a9fe:a9fe::1]/", true, ErrMetadata},
		{"http://[fd00:ec2::254]/", true, ErrMetadata},
		{"http://[FD00:EC2:0::254%25eth0]/", true, ErrMetadata},
		{"http://[fe80::a9fe:a9fe%25eth0]/", true, ErrMetadata},
		{"http://100.100.100.200/", true, ErrMetadata},
		{"http://168.63.129.16/", true, ErrMetadata},
		{"http://metadata.google.internal/computeMetadata/v1/", true, ErrMetadata},
		{"http://METADATA.Google.Internal./", true, ErrMetadata},
		{"http://metadata/", true, ErrMetadata},
		{"http://meta.example/", true, ErrMetadata},
		{"http://mapped.example/", true, ErrMetadata},
		{"https://rebind.example/", false, ErrPrivate},
		{"https://example.com/?key=sk-abcdefghijklmnopqrstuvwx", true, ErrSecret},
		{"https://example.com/?key=sk%2Dabcdefghijklmnopqrstuvwx", true, ErrSecret},
		// The attack: a malformed escape elsewhere hid the encoded key.
		{"https://example.com/?t=ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789&x=%zz", true, ErrSecret},
		{"https://example.com/%?t=ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789", true, ErrSecret},
		{"https://example.com/?t=ghp%255Fabcdefghijklmnopqrstuvwxyz0123456789&x=%", true, ErrSecret},
		{"https://example.com/?t=%67%68%70%5f%61%62%63%64%65%66%67%68%69%6a%6b%6c%6d%6e&x=%g1", true, ErrSecret},
		{"https://example.com/?t=+sk-abcdefghijklmnopqrst", true, ErrSecret},
		{"https://example.com/?phone=+4915112345678", false, nil},
		{"https://example.com/a?x=100%&y=%zz", false, nil},
		{"https://user:pass@example.com/", true, ErrUserinfo},
		{"https://user@example.com/", true, ErrUserinfo},
		{"https://:pass@example.com/", true, ErrUserinfo},
		{"https://@example.com/", true, ErrUserinfo},
		{"https://us%65r:p%zz@example.com/", true, ErrUserinfo},
		{"https://example.com/@user/post", false, nil},
		{"file:///etc/passwd", true, ErrScheme},
		{"ftp://example.com/", true, ErrScheme},
		{"ftp://user:pass@example.com/", true, ErrScheme},
		{"mailto:someone@example.com", true, ErrScheme},
		{"https://unresolvable.example/", false, nil},
	}
	for _, tt := range tests {
		_, err := CheckURL(context.Background(), tt.url, Policy{AllowPrivate: tt.private}, r)
		if !errors.Is(err, tt.want) && !(err == nil && tt.want == nil) {
			t.Errorf("CheckURL(%q, private=%v) = %v, want %v", tt.url, tt.private, err, tt.want)
		}
		var be *BlockedError
		if tt.want != nil && !errors.As(err, &be) {
			t.Errorf("CheckURL(%q): %T is not a *BlockedError", tt.url, err)
		}
	}
}

// Hosts no browser accepts are refused, not looked up.
func TestCheckURLRefusesInvalidHosts(t *testing.T) {
	for _, u := range []string{"http://1.2.3.4.5/", "http://example.0/", "http://0x100000000/", "http:///x", "http:169.254.169.254", "http://[::1/"} {
		if _, err := CheckURL(context.Background(), u, Policy{AllowPrivate: true}, fakeResolver{}); err == nil {
			t.Errorf("CheckURL(%q) passed", u)
		}
	}
}

// Spellings are a rule, not a list: every generated spelling of a
// forbidden address is refused, in a URL as Go parses it.
func TestCheckURLGeneratedSpellings(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	meta, loop := netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("127.0.0.1")
	for range 5000 {
		if u := "http://" + spellIPv4(rng, meta) + "/latest/"; !errors.Is(check(u, true), ErrMetadata) {
			t.Fatalf("CheckURL(%q) = %v, want ErrMetadata", u, check(u, true))
		}
		if u := "http://" + spellIPv4(rng, loop) + ":8080/"; !errors.Is(check(u, false), ErrPrivate) {
			t.Fatalf("CheckURL(%q) = %v, want ErrPrivate", u, check(u, false))
		}
	}
}

func check(u string, private bool) error {
	_, err := CheckURL(context.Background(), u, Policy{AllowPrivate: private}, nil)
	return err
}

func TestBlockedErrorMessage(t *testing.T) {
	hint := AllowPrivateHint("/home/u/.hermes", "web.allow_private_urls")
	p := Policy{AllowHint: hint}
	tests := []struct {
		url  string
		want string
	}{
		{"http://2130706433:8080/", "Blocked: URL targets a private or internal network address (host 2130706433, address 127.0.0.1); to allow it, set web.allow_private_urls: true in /home/u/.hermes/config.yaml"},
		{"http://10.1.2.3/", "Blocked: URL targets a private or internal network address (host 10.1.2.3); to allow it, set web.allow_private_urls: true in /home/u/.hermes/config.yaml"},
		{"http://0xA9FEA9FE/", "Blocked: URL targets a cloud metadata endpoint (host 0xA9FEA9FE, address 169.254.169.254)"},
		{"https://example.com/?k=sk%2Dabcdefghijklmnopqrstuvwx&x=%zz", "Blocked: URL contains what appears to be an API key or token (host example.com). Secrets must not be sent in URLs."},
		{"https://sk-abcdefghijklmnopqrstuvwx.evil.example/", "Blocked: URL contains what appears to be an API key or token. Secrets must not be sent in URLs."},
		{"https://bob:hunter2@example.com/", "Blocked: URL contains a user name or password (user:password@…) (host example.com); credentials must not be sent in URLs."},
		{"gopher://example.com/", "Blocked: only http and https URLs can be fetched (scheme gopher)"},
	}
	for _, tt := range tests {
		_, err := CheckURL(context.Background(), tt.url, p, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("CheckURL(%q) =\n  %v\nwant\n  %s", tt.url, err, tt.want)
		}
	}
	if got := AllowPrivateHint("", "browser.allow_private_urls"); got != "set browser.allow_private_urls: true in config.yaml" {
		t.Errorf("hint without a home = %q", got)
	}
}

func TestRedactURL(t *testing.T) {
	for _, u := range []string{
		"https://example.com/?k=sk-abcdefghijklmnopqrstuvwx",
		"https://example.com/?k=sk%2Dabcdefghijklmnopqrstuvwx&x=%zz",
		"https://example.com/?k=sk%252Dabcdefghijklmnopqrstuvwx&x=%",
		"https://bob:abcdefghijklmnop@example.com/",
		"https://bob:abcdefghijklmnop@example.com\\@evil.example/",
	} {
		got := RedactURL(u)
		for _, d := range []string{got, unescapeOnce(got), unescapeOnce(unescapeOnce(got))} {
			if strings.Contains(d, "abcdefghijklmnop") {
				t.Errorf("RedactURL(%q) = %q still shows the secret", u, got)
			}
		}
	}
	if got := RedactURL("https://example.com/a%zz?q=1"); got != "https://example.com/a%zz?q=1" {
		t.Errorf("RedactURL changed a clean URL: %q", got)
	}
}

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr          string
		strict, loose error
	}{
		{"93.184.215.14", nil, nil},
		{"2606:4700::1", nil, nil},
		{"127.0.0.1", ErrPrivate, nil},
		{"::1", ErrPrivate, nil},
		{"10.0.0.1", ErrPrivate, nil},
		{"172.16.0.1", ErrPrivate, nil},
		{"192.168.0.1", ErrPrivate, nil},
		{"100.64.0.1", ErrPrivate, nil},
		{"169.254.1.1", ErrPrivate, nil},
		{"0.0.0.0", ErrPrivate, nil},
		{"::", ErrPrivate, nil},
		{"fc00::1", ErrPrivate, nil},
		{"fe80::1%eth0", ErrPrivate, nil},
		{"fec0::1", ErrPrivate, nil},
		{"ff05::1", ErrPrivate, nil},
		{"239.1.1.1", ErrPrivate, nil},
		{"240.0.0.1", ErrPrivate, nil},
		{"192.0.2.1", ErrPrivate, nil},
		{"::ffff:10.0.0.1", ErrPrivate, nil},
		{"64:ff9b::a00:1", ErrPrivate, nil},
		{"2002:c0a8:1::1", ErrPrivate, nil},
		{"169.254.169.254", ErrMetadata, ErrMetadata},
		{"169.254.170.2", ErrMetadata, ErrMetadata},
		{"::ffff:169.254.169.254", ErrMetadata, ErrMetadata},
		{"64:ff9b::a9fe:a9fe", ErrMetadata, ErrMetadata},
		{"fd00:ec2::254", ErrMetadata, ErrMetadata},
		{"fd00:ec2::254%eth0", ErrMetadata, ErrMetadata},
		{"fd20:ce::254", ErrMetadata, ErrMetadata},
	}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		for _, c := range []struct {
			private bool
			want    error
		}{{false, tt.strict}, {true, tt.loose}} {
			err := CheckAddr(a, Policy{AllowPrivate: c.private})
			if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
				t.Errorf("CheckAddr(%s, private=%v) = %v, want %v", a, c.private, err, c.want)
			}
		}
	}
	if err := CheckAddr(netip.Addr{}, Policy{AllowPrivate: true}); err == nil {
		t.Error("CheckAddr accepted the zero address")
	}
}
