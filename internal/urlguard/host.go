package urlguard

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// Host is a URL host after the normalisation a browser applies before it
// connects: exactly one of Addr and Name is set.
type Host struct {
	// Addr is the address when the host is an IP address, in whatever
	// spelling it was written (2852039166, 0xA9FEA9FE, [::ffff:a9fe:a9fe]).
	Addr netip.Addr
	// Name is a host name in lower-case ASCII without trailing dots.
	Name string
}

// ErrHost marks a host no browser would connect to: one that ends in a
// number but is not an IPv4 address, a broken IPv6 literal, or one with a
// character hosts cannot contain. It is refused rather than looked up as a
// name, since resolvers disagree about such strings.
var ErrHost = errors.New("not a valid host")

// uts46 maps a host the way WHATWG's "domain to ASCII" does with beStrict
// unset: case folding, full-width digits and dots, ignored code points
// such as the soft hyphen. It is immutable.
var uts46 = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false),
	idna.CheckHyphens(false), idna.VerifyDNSLength(false))

// ParseHost normalises a URL host as written in a URL (brackets around an
// IPv6 literal optional, so both url.URL.Hostname and net.SplitHostPort
// results are accepted). It follows the WHATWG URL host parser, which is
// what Chromium runs: percent-decoding, UTS #46 mapping, and the IPv4
// parser for any host that ends in a number, with its octal, hex, and
// fewer-than-four-part forms. Go's parsers accept a subset of these
// spellings, so an address Go would connect to is recognised too.
func ParseHost(raw string) (Host, error) {
	if strings.HasPrefix(raw, "[") || strings.Contains(raw, ":") {
		return parseIPv6(raw)
	}
	// The host parser percent-decodes once; decoding leniently only adds
	// refusals, since a stray "%" is then a forbidden character.
	s := unescapeOnce(raw)
	s = mapDomain(s)
	if i := strings.IndexFunc(s, forbiddenInDomain); i >= 0 {
		return Host{}, fmt.Errorf("%w: %q contains %q", ErrHost, raw, s[i:i+1])
	}
	if endsInNumber(s) {
		a, ok := parseIPv4(s)
		if !ok {
			return Host{}, fmt.Errorf("%w: %q ends in a number but is not an IPv4 address", ErrHost, raw)
		}
		return Host{Addr: a}, nil
	}
	name := strings.TrimRight(s, ".")
	if name == "" {
		return Host{}, fmt.Errorf("%w: the host is empty", ErrHost)
	}
	return Host{Name: name}, nil
}

// parseIPv6 reads an IPv6 literal. A zone is kept: Go dials link-local
// addresses with one, and the policy ignores it.
func parseIPv6(raw string) (Host, error) {
	s := raw
	if strings.HasPrefix(s, "[") {
		if !strings.HasSuffix(s, "]") {
			return Host{}, fmt.Errorf("%w: %q has no closing bracket", ErrHost, raw)
		}
		s = s[1 : len(s)-1]
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is6() {
		return Host{}, fmt.Errorf("%w: %q is not an IPv6 address", ErrHost, raw)
	}
	return Host{Addr: a}, nil
}

// mapDomain applies UTS #46 mapping. ASCII maps to its lower case and
// nothing else, so it skips the tables.
func mapDomain(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			// On error the profile still returns its best mapping, which
			// is what the address checks below need; a name it could not
			// map fails to resolve later.
			mapped, _ := uts46.ToASCII(s)
			return strings.ToLower(mapped)
		}
	}
	return strings.ToLower(s)
}

// forbiddenInDomain reports WHATWG's forbidden domain code points.
func forbiddenInDomain(r rune) bool {
	if r <= 0x20 || r == 0x7f {
		return true
	}
	return strings.ContainsRune("#%/:<>?@[\\]^|", r)
}

// endsInNumber is WHATWG's "ends in a number checker": such a host is
// parsed as IPv4 or rejected, never looked up as a name.
func endsInNumber(s string) bool {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && strings.Trim(last, "0123456789") == "" {
		return true
	}
	_, ok := parseIPv4Number(last)
	return ok
}

// parseIPv4 is WHATWG's IPv4 parser: one to four parts, each decimal,
// octal (leading 0) or hex (0x); the last part fills the remaining bytes.
func parseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Number(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v += n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

// ipv4NumberCap is above every valid part; larger values saturate to it,
// so a long run of digits is a number (as the spec says) without
// overflowing.
const ipv4NumberCap = 1 << 33

// parseIPv4Number is WHATWG's IPv4 number parser.
func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i])
		if !ok || d >= base {
			return 0, false
		}
		n = min(n*base+d, ipv4NumberCap)
	}
	return n, true
}

func digitValue(c byte) (uint64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return uint64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return uint64(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}
