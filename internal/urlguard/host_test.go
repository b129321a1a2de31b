package urlguard

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"testing"
)

func TestParseHost(t *testing.T) {
	tests := []struct {
		host string
		addr string // want an address
		name string // or a name
	}{
		// Every spelling of the metadata address the attacks used, and
		// their relatives.
		{"169.254.169.254", "169.254.169.254", ""},
		{"2852039166", "169.254.169.254", ""},
		{"0xA9FEA9FE", "169.254.169.254", ""},
		{"0xa9fea9fe", "169.254.169.254", ""},
		{"0XA9FEA9FE", "169.254.169.254", ""},
		{"0251.0376.0251.0376", "169.254.169.254", ""},
		{"169.254.43518", "169.254.169.254", ""},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254", ""},
		{"169.16689662", "169.254.169.254", ""},
		{"0xa9.254.0251.0xfe", "169.254.169.254", ""},
		{"0251.0xfe.43518", "169.254.169.254", ""},
		{"0000251.0000376.0251.0376", "169.254.169.254", ""},
		{"0x00000a9.0xfe.0xa9.0xfe", "169.254.169.254", ""},
		{"169.254.169.254.", "169.254.169.254", ""},
		{"2852039166.", "169.254.169.254", ""},
		{"0x.0x.0x.0x", "0.0.0.0", ""},
		{"0", "0.0.0.0", ""},
		{"127.1", "127.0.0.1", ""},
		{"0x7f.1", "127.0.0.1", ""},
		{"2130706433", "127.0.0.1", ""},
		{"017700000001", "127.0.0.1", ""},
		{"%32%31%33%30%37%30%36%34%33%33", "127.0.0.1", ""},
		{"１２７．０．０．１", "127.0.0.1", ""},
		{"127。0。0。1", "127.0.0.1", ""},
		{"1\u00ad27.0.0.1", "127.0.0.1", ""},
		{"０ｘＡ９ＦＥＡ９ＦＥ", "169.254.169.254", ""},
		// IPv6, bracketed or not, with embedded IPv4 and zones.
		{"[::ffff:169.254.169.254]", "::ffff:169.254.169.254", ""},
		{"::ffff:a9fe:a9fe", "::ffff:169.254.169.254", ""},
		{"[::FFFF:A9FE:A9FE]", "::ffff:169.254.169.254", ""},
		{"[64:ff9b::a9fe:a9fe]", "64:ff9b::a9fe:a9fe", ""},
		{"[64:ff9b::169.254.169.254]", "64:ff9b::a9fe:a9fe", ""},
		{"fe80::1%eth0", "fe80::1%eth0", ""},
		// Names.
		{"example.com", "", "example.com"},
		{"EXAMPLE.com.", "", "example.com"},
		{"ＭＥＴＡＤＡＴＡ.google.internal", "", "metadata.google.internal"},
		{"1.2.3.4.example", "", "1.2.3.4.example"},
		{"0x.example", "", "0x.example"},
		{"0xg", "", "0xg"}, // not a hex number, so a name
		{"bücher.de", "", "xn--bcher-kva.de"},
	}
	for _, tt := range tests {
		h, err := ParseHost(tt.host)
		if err != nil {
			t.Errorf("ParseHost(%q): %v", tt.host, err)
			continue
		}
		if tt.addr != "" && h.Addr != netip.MustParseAddr(tt.addr) || tt.name != h.Name {
			t.Errorf("ParseHost(%q) = %+v, want addr %q name %q", tt.host, h, tt.addr, tt.name)
		}
	}
}

// A host that ends in a number is an address or nothing: browsers refuse
// the URL, and it must not reach a resolver that reads it another way.
func TestParseHostRefusesBrokenNumbers(t *testing.T) {
	for _, host := range []string{
		"1.2.3.4.5", "example.0", "foo.09", "a.b.0x", "08", "0x100000000", "4294967296",
		"256.256.256.256", "1.2.3.256", "1.2.65536", "1.16777216", "99999999999999999999999",
		"00000169.254.169.254" /* octal has no 9 */, "1..2", ".1", "[::1", "[1.2.3.4]", "::ffff:1.2.3.04",
		"exa mple.com", "a%zz.com", "a%3a80", "１２７．０．０．１．5",
	} {
		if h, err := ParseHost(host); !errors.Is(err, ErrHost) {
			t.Errorf("ParseHost(%q) = %+v, %v; want ErrHost", host, h, err)
		}
	}
}

// Every WHATWG spelling of a random address reads back as that address.
func TestParseHostRecoversGeneratedSpellings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], rng.Uint32())
		want := netip.AddrFrom4(b)
		s := spellIPv4(rng, want)
		h, err := ParseHost(s)
		if err != nil || h.Addr != want {
			t.Fatalf("ParseHost(%q) = %+v, %v; want %v", s, h, err, want)
		}
	}
}

// What Go itself accepts as an address, ParseHost reads the same way.
func TestParseHostAgreesWithGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var b [16]byte
		binary.BigEndian.PutUint64(b[:8], rng.Uint64())
		binary.BigEndian.PutUint64(b[8:], rng.Uint64())
		for _, a := range []netip.Addr{netip.AddrFrom16(b), netip.AddrFrom4([4]byte(b[:4])), netip.AddrFrom16(b).Unmap()} {
			h, err := ParseHost(a.String())
			if err != nil || h.Addr != a {
				t.Fatalf("ParseHost(%q) = %+v, %v", a, h, err)
			}
		}
	}
}

// spellIPv4 writes a in a random spelling the WHATWG IPv4 parser accepts:
// one to four parts, each decimal, octal or hex with optional leading
// zeros, any case, an optional trailing dot, and sometimes full-width
// characters, which UTS #46 maps back.
func spellIPv4(rng *rand.Rand, a netip.Addr) string {
	b := a.As4()
	v := uint64(binary.BigEndian.Uint32(b[:]))
	n := 1 + rng.IntN(4)
	var parts []string
	for i := range n - 1 {
		parts = append(parts, spellNumber(rng, uint64(b[i])))
	}
	parts = append(parts, spellNumber(rng, v&(1<<(8*(5-n))-1)))
	s := strings.Join(parts, ".")
	if rng.IntN(4) == 0 {
		s += "."
	}
	if rng.IntN(3) == 0 {
		s = strings.ToUpper(s)
	}
	if rng.IntN(5) == 0 {
		s = strings.Map(func(r rune) rune {
			switch {
			case r == '.':
				return []rune{'.', '．', '。', '｡'}[rng.IntN(4)]
			case r < 0x80 && rng.IntN(2) == 0:
				return r - 0x20 + 0xff00 // the full-width form
			}
			return r
		}, s)
	}
	return s
}

func spellNumber(rng *rand.Rand, n uint64) string {
	zeros := strings.Repeat("0", rng.IntN(4))
	switch rng.IntN(3) {
	case 0:
		return strconv.FormatUint(n, 10)
	case 1:
		return "0" + zeros + strconv.FormatUint(n, 8)
	default:
		digits := zeros + strconv.FormatUint(n, 16)
		if n == 0 && rng.IntN(2) == 0 {
			digits = ""
		}
		if rng.IntN(2) == 0 {
			digits = strings.ToUpper(digits)
		}
		return []string{"0x", "0X"}[rng.IntN(2)] + digits
	}
}
