// Package fakeserver is the scaffold the scripted fakes of model APIs
// (fakeanthropic, fakegemini, fakechat, fakeresponses) share: an HTTP
// server on 127.0.0.1 that the fake owns, a script of replies used in
// order with a log of the requests, and a writer of server-sent events.
// Each fake keeps its own wire format; this package knows none.
package fakeserver

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Server serves one handler on 127.0.0.1 until Close.
type Server struct {
	ln  net.Listener
	srv *http.Server
	// wg tracks the serving goroutine and the handlers, so that Close
	// returns only when nothing of the server runs any more.
	wg sync.WaitGroup
}

// Start listens on a free port of 127.0.0.1 and serves h. name prefixes
// errors (the fake's package name).
func Start(name string, h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%s: listen: %w", name, err)
	}
	s := &Server{ln: ln}
	tracked := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.wg.Add(1)
		defer s.wg.Done()
		h.ServeHTTP(w, r)
	})
	s.srv = &http.Server{Handler: tracked, ReadHeaderTimeout: 10 * time.Second}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is http://127.0.0.1:port, without a trailing slash.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server, cutting open streams (their request contexts
// end), and waits for its goroutines and handlers to finish.
func (s *Server) Close() {
	_ = s.srv.Close()
	s.wg.Wait()
}

// ForTest starts a fake with start and closes it when tb ends; the fakes'
// New(tb) are this.
func ForTest[S interface{ Close() }](tb testing.TB, start func() (S, error)) S {
	tb.Helper()
	s, err := start()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}
