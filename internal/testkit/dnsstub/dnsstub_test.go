package dnsstub

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"testing"
)

func TestAnswersInTurnThenRepeatsTheLast(t *testing.T) {
	first, second := netip.MustParseAddr("192.0.2.1"), netip.MustParseAddr("192.0.2.2")
	s, err := Start("127.0.0.1:0", map[string][]netip.Addr{"rebind.test": {first, second}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", s.conn.LocalAddr().String())
	}}
	var got []netip.Addr
	for range 3 {
		addrs, err := r.LookupNetIP(context.Background(), "ip4", "rebind.test")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, addrs...)
	}
	if want := []netip.Addr{first, second, second}; !slices.Equal(got, want) {
		t.Errorf("answers %v, want %v", got, want)
	}
	if _, err := r.LookupNetIP(context.Background(), "ip4", "unknown.test"); err == nil {
		t.Error("an unknown name resolved")
	}
	if n := s.Queries("rebind.test"); n != 3 {
		t.Errorf("%d queries counted", n)
	}
}
