package urlguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// Dialer connects to an address only when the policy allows it. It is the
// enforcement point every fetch shares (http.Transport.DialContext, the
// browser's egress proxy): it resolves the host itself, checks every
// address the answer holds, and dials the checked address rather than the
// name, so a second lookup cannot return something else (DNS rebinding).
type Dialer struct {
	Policy Policy
	// Resolver looks host names up; nil means net.DefaultResolver.
	Resolver Resolver
	// Net makes the connection (timeouts, keep-alive); nil means a zero
	// net.Dialer. It is only ever given an IP address.
	Net *net.Dialer
}

// DialContext has the signature of http.Transport.DialContext. Only TCP
// is dialled. When any address of a name is refused the whole name is:
// a mixed answer is the shape of a rebinding attack.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	var ipNet string
	switch network {
	case "tcp":
		ipNet = "ip"
	case "tcp4":
		ipNet = "ip4"
	case "tcp6":
		ipNet = "ip6"
	default:
		return nil, fmt.Errorf("urlguard: network %q is not dialled; only TCP connections are made", network)
	}
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("urlguard: %w", err)
	}
	addrs, err := d.resolve(ctx, ipNet, host)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if err := d.Policy.checkAddr(host, a); err != nil {
			return nil, err
		}
	}
	nd := d.Net
	if nd == nil {
		nd = &net.Dialer{}
	}
	var errs []error
	for _, a := range addrs {
		conn, err := nd.DialContext(ctx, network, net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// resolve reads host as a browser would and looks up a name.
func (d *Dialer) resolve(ctx context.Context, ipNet, host string) ([]netip.Addr, error) {
	h, err := ParseHost(host)
	if err != nil {
		return nil, fmt.Errorf("urlguard: %w", err)
	}
	if h.Addr.IsValid() {
		return []netip.Addr{h.Addr}, nil
	}
	if err := d.Policy.checkName(host, h.Name); err != nil {
		return nil, err
	}
	r := d.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, ipNet, h.Name)
	if err != nil {
		return nil, fmt.Errorf("look up %s: %w", h.Name, err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("look up %s: no addresses", h.Name)
	}
	return addrs, nil
}

// DialContext returns a Dialer's DialContext with the default resolver.
func DialContext(p Policy, d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return (&Dialer{Policy: p, Net: d}).DialContext
}
