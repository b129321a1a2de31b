// Package dnsstub is a DNS server for tests that answers A queries from a
// script, so a test can make a name resolve to one address and then to
// another (DNS rebinding). It answers on UDP only, with TTL 0, and says
// "no such name" for names it was not given.
package dnsstub

import (
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"

	"golang.org/x/net/dns/dnsmessage"
)

// Server answers DNS queries on a UDP socket until Close.
type Server struct {
	conn    net.PacketConn
	mu      sync.Mutex
	answers map[string][]netip.Addr // name -> answer per query; the last repeats
	queries map[string]int
	done    chan struct{}
}

// Start serves on addr (e.g. "127.0.0.1:53"). answers maps a name (no
// trailing dot) to the IPv4 address to give on each successive A query;
// once the list runs out its last address is repeated.
func Start(addr string, answers map[string][]netip.Addr) (*Server, error) {
	conn, err := net.ListenPacket("udp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{conn: conn, answers: map[string][]netip.Addr{}, queries: map[string]int{}, done: make(chan struct{})}
	for name, as := range answers {
		s.answers[strings.ToLower(strings.TrimSuffix(name, "."))] = as
	}
	go s.serve()
	return s, nil
}

// Queries reports how many A queries name has had.
func (s *Server) Queries(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[strings.ToLower(name)]
}

// Close stops the server.
func (s *Server) Close() error {
	err := s.conn.Close()
	<-s.done
	return err
}

func (s *Server) serve() {
	defer close(s.done)
	buf := make([]byte, 1500)
	for {
		n, from, err := s.conn.ReadFrom(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			continue
		}
		if out, ok := s.answer(buf[:n]); ok {
			_, _ = s.conn.WriteTo(out, from)
		}
	}
}

func (s *Server) answer(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(q)
	s.mu.Lock()
	list, known := s.answers[name]
	var addr netip.Addr
	if known && q.Type == dnsmessage.TypeA {
		i := s.queries[name]
		s.queries[name]++
		addr = list[min(i, len(list)-1)]
	}
	s.mu.Unlock()
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
		b = dnsmessage.NewBuilder(nil, rh)
		_ = b.StartQuestions()
		_ = b.Question(q)
	}
	_ = b.StartAnswers()
	if addr.Is4() {
		_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}, dnsmessage.AResource{A: addr.As4()})
	}
	out, err := b.Finish()
	return out, err == nil
}
