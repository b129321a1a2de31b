package fakeserver

import (
	"context"
	"fmt"
	"sync"
)

// Script holds a fake's scripted replies R and the requests Q it received.
// The zero value is an empty script. Its methods are safe for concurrent
// use.
type Script[R, Q any] struct {
	mu         sync.Mutex
	queue      []R
	handler    func(Q) R
	requests   []Q
	unexpected []string
	arrived    chan struct{} // closed and replaced on every request
}

// Enqueue appends replies, used in order, one per request.
func (s *Script[R, Q]) Enqueue(replies ...R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Handle sets the function that answers requests once the queue is empty,
// for replies that depend on the request. It is called with the script
// locked, so it must not call the script's methods.
func (s *Script[R, Q]) Handle(fn func(Q) R) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = fn
}

// Take records req and returns the reply for it: the next queued one, else
// the handler's; ok is false when there is neither. numbered, when not nil,
// is given req's 1-based arrival number before any other goroutine can see
// req.
func (s *Script[R, Q]) Take(req Q, numbered func(n int)) (reply R, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if numbered != nil {
		numbered(len(s.requests))
	}
	if s.arrived != nil {
		close(s.arrived)
		s.arrived = nil
	}
	switch {
	case len(s.queue) > 0:
		reply, s.queue = s.queue[0], s.queue[1:]
		return reply, true
	case s.handler != nil:
		return s.handler(req), true
	}
	return reply, false
}

// Requests returns the requests received so far, oldest first.
func (s *Script[R, Q]) Requests() []Q {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Q(nil), s.requests...)
}

// WaitRequest waits until at least n requests have arrived and returns the
// n-th (1-based).
func (s *Script[R, Q]) WaitRequest(ctx context.Context, n int) (Q, error) {
	for {
		s.mu.Lock()
		if len(s.requests) >= n {
			r := s.requests[n-1]
			s.mu.Unlock()
			return r, nil
		}
		if s.arrived == nil {
			s.arrived = make(chan struct{})
		}
		ch := s.arrived
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			var zero Q
			return zero, fmt.Errorf("waiting for request %d: %w", n, ctx.Err())
		}
	}
}

// Refuse records a request the fake was not scripted for and returns the
// "what: why" line it recorded, for the fake's error reply.
func (s *Script[R, Q]) Refuse(what, why string) string {
	line := what + ": " + why
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unexpected = append(s.unexpected, line)
	return line
}

// Unexpected returns the lines Refuse recorded, oldest first.
func (s *Script[R, Q]) Unexpected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.unexpected...)
}
