package urlguard

import (
	"net/netip"
	"slices"
	"strings"
)

// metadataHosts are names that reach instance metadata services. They are
// refused without a lookup: a resolver may answer them from /etc/hosts or
// a search domain with anything.
var metadataHosts = map[string]bool{
	"metadata.google.internal":     true,
	"metadata.goog":                true,
	"metadata":                     true,
	"instance-data":                true,
	"instance-data.ec2.internal":   true,
	"metadata.tencentyun.com":      true,
	"metadata.platformequinix.com": true,
	"metadata.packet.net":          true,
}

// metadataAddrs are the metadata services' addresses, refused whatever the
// policy allows: AWS/GCP/Azure/OCI/OpenStack (169.254.169.254), ECS and
// EKS Pod Identity (169.254.170.2, .23), Tencent (169.254.0.23), Alibaba
// (100.100.100.200), Azure's WireServer (168.63.129.16, a public address),
// OCI's legacy endpoint (192.0.0.192), and the IPv6 ones of AWS, EKS, GCP
// and OpenStack.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("169.254.170.2"),
	netip.MustParseAddr("169.254.170.23"),
	netip.MustParseAddr("169.254.0.23"),
	netip.MustParseAddr("100.100.100.200"),
	netip.MustParseAddr("168.63.129.16"),
	netip.MustParseAddr("192.0.0.192"),
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("fd00:ec2::23"),
	netip.MustParseAddr("fd20:ce::254"),
	netip.MustParseAddr("fe80::a9fe:a9fe"),
}

// reserved are the ranges netip has no predicate for that are not
// globally reachable (IANA special-purpose registries): they reach this
// host, its networks or nothing at all.
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and broadcast
	netip.MustParsePrefix("::/96"),           // unspecified, loopback, IPv4-compatible
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments, Teredo
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("3fff::/20"),       // documentation
	netip.MustParsePrefix("5f00::/16"),       // segment routing
	netip.MustParsePrefix("fec0::/10"),       // deprecated site-local
}

// embedders are IPv6 ranges whose addresses carry an IPv4 address that
// the packet ends up at (through the host's own stack, a NAT64 gateway or
// a 6to4 relay), with the byte offset of that address.
var embedders = []struct {
	prefix netip.Prefix
	offset int
}{
	{netip.MustParsePrefix("::ffff:0:0/96"), 12},   // IPv4-mapped
	{netip.MustParsePrefix("::/96"), 12},           // IPv4-compatible (deprecated)
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12}, // IPv4-translated (SIIT)
	{netip.MustParsePrefix("64:ff9b::/96"), 12},    // NAT64 well-known prefix
	{netip.MustParsePrefix("64:ff9b:1::/48"), 12},  // local-use NAT64, /96 layout
	{netip.MustParsePrefix("2002::/16"), 2},        // 6to4
}

// embeddedIPv4 returns the IPv4 address an IPv6 address stands for.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	for _, e := range embedders {
		if e.prefix.Contains(a) {
			return netip.AddrFrom4([4]byte(b[e.offset : e.offset+4])), true
		}
	}
	return netip.Addr{}, false
}

// addrRefusal returns the sentinel an address is refused with, or nil.
func addrRefusal(a netip.Addr, allowPrivate bool) error {
	if !a.IsValid() {
		return ErrPrivate
	}
	a = a.WithZone("").Unmap()
	if slices.Contains(metadataAddrs, a) {
		return ErrMetadata
	}
	if v4, ok := embeddedIPv4(a); ok {
		if err := addrRefusal(v4, allowPrivate); err != nil {
			return err
		}
	}
	if allowPrivate {
		return nil
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() ||
		slices.ContainsFunc(reserved, func(p netip.Prefix) bool { return p.Contains(a) }) {
		return ErrPrivate
	}
	return nil
}

// nameRefusal returns the sentinel a normalised host name is refused with
// before any lookup, or nil.
func nameRefusal(name string, allowPrivate bool) error {
	if metadataHosts[name] {
		return ErrMetadata
	}
	if !allowPrivate && (name == "localhost" || hasLabelSuffix(name, "localhost", "local", "internal", "home.arpa")) {
		return ErrPrivate
	}
	return nil
}

func hasLabelSuffix(name string, suffixes ...string) bool {
	return slices.ContainsFunc(suffixes, func(s string) bool { return strings.HasSuffix(name, "."+s) })
}
