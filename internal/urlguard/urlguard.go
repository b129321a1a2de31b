// Package urlguard decides whether a URL a model asked for may be fetched:
// never a cloud metadata endpoint, never a URL carrying a secret, and a
// private or loopback address only when the configuration allows it. The
// check runs on the URL and again on every connection (Dialer), so a DNS
// answer or a redirect cannot smuggle a request to a forbidden address.
package urlguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
)

// The refusal texts are the Python Hermes' own, so a model sees the same
// words whichever implementation serves it.
var (
	ErrSecret   = errors.New("Blocked: URL contains what appears to be an API key or token. Secrets must not be sent in URLs.")
	ErrMetadata = errors.New("Blocked: URL targets a cloud metadata endpoint")
	ErrPrivate  = errors.New("Blocked: URL targets a private or internal network address")
	ErrScheme   = errors.New("Blocked: only http and https URLs can be fetched")
)

// Policy says what a caller may reach.
type Policy struct {
	// AllowPrivate permits loopback, private-range and link-local
	// addresses (cloud metadata stays refused).
	AllowPrivate bool
}

// Resolver looks up a host's addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// metadataHosts are names that reach instance metadata services.
var metadataHosts = map[string]bool{
	"metadata.google.internal":   true,
	"metadata.goog":              true,
	"metadata":                   true,
	"instance-data":              true,
	"instance-data.ec2.internal": true,
}

// metadataAddrs are the metadata services' addresses: AWS/GCP/Azure/OCI
// (169.254.169.254), AWS IPv6, ECS task metadata, Alibaba Cloud.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("100.100.100.200"),
}

// CheckURL validates a URL before any request: scheme, secrets, and the host
// as written. Hostnames are resolved too when r is non-nil.
func CheckURL(ctx context.Context, raw string, p Policy, r Resolver) (*url.URL, error) {
	if redact.ContainsToken(raw) {
		return nil, ErrSecret
	}
	if dec, err := url.QueryUnescape(raw); err == nil && redact.ContainsToken(dec) {
		return nil, ErrSecret
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, ErrScheme
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return nil, fmt.Errorf("URL %q has no host", raw)
	}
	if metadataHosts[host] {
		return nil, ErrMetadata
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		return u, CheckAddr(addr, p)
	}
	if !p.AllowPrivate && (host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local")) {
		return nil, ErrPrivate
	}
	if r == nil {
		return u, nil
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil {
		// Unresolvable is not a policy question; the fetch will report it.
		return u, nil
	}
	for _, a := range addrs {
		if err := CheckAddr(a, p); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// CheckAddr applies the policy to one IP address.
func CheckAddr(a netip.Addr, p Policy) error {
	a = a.Unmap()
	for _, m := range metadataAddrs {
		if a == m {
			return ErrMetadata
		}
	}
	if p.AllowPrivate {
		return nil
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() || isSharedOrReserved(a) {
		return ErrPrivate
	}
	return nil
}

// isSharedOrReserved covers ranges netip has no predicate for: carrier-grade
// NAT (100.64/10), benchmarking (198.18/15), "this network" (0/8) and the
// reserved 240/4.
func isSharedOrReserved(a netip.Addr) bool {
	for _, p := range []netip.Prefix{
		netip.MustParsePrefix("100.64.0.0/10"),
		netip.MustParsePrefix("198.18.0.0/15"),
		netip.MustParsePrefix("0.0.0.0/8"),
		netip.MustParsePrefix("240.0.0.0/4"),
		netip.MustParsePrefix("64:ff9b:1::/48"),
	} {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// DialContext returns a dial function for an http.Transport that checks
// the address actually connected to, after DNS, on every connection (so
// also after redirects).
func DialContext(p Policy, d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if d == nil {
		d = &net.Dialer{}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, err
		}
		var lastErr error
		for _, ip := range ips {
			if err := CheckAddr(ip, p); err != nil {
				lastErr = err
				continue
			}
			conn, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
			if err == nil {
				return conn, nil
			}
			lastErr = err
		}
		if lastErr == nil {
			lastErr = fmt.Errorf("no address for %s", host)
		}
		return nil, lastErr
	}
}
