// Package sessionstate holds what belongs to one MCP client session rather
// than to the Hermes home: a todo list kept for the session only, a
// browser page. A transport makes one State per session (per stdio
// connection, per Streamable HTTP session), puts it in the context of every
// call it serves, and closes it when the session ends, which releases what
// tools stored there.
package sessionstate

import (
	"context"
	"errors"
	"io"
	"sync"
)

// State is one session's tool state.
type State struct {
	id     string
	mu     sync.Mutex
	vals   map[any]any
	order  []any // keys by first use, so Close releases in reverse
	closed bool
}

// New returns the empty state of the session known as id.
func New(id string) *State { return &State{id: id, vals: map[any]any{}} }

// ID is the session's id, for logs; it is not a name clients may pass
// back, since a session's state is reachable only through its context.
func (s *State) ID() string { return s.id }

// ErrClosed is returned by Value once the session has ended.
var ErrClosed = errors.New("the MCP session has ended")

// Value returns the value kept under key, made by create on first use.
// Keys are compared like map keys; use an unexported type per package, as
// for context keys. After Close it returns ErrClosed, so a call that
// outlives its session cannot leave state nobody will release.
func (s *State) Value(key any, create func() (any, error)) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if v, ok := s.vals[key]; ok {
		return v, nil
	}
	v, err := create()
	if err != nil {
		return nil, err
	}
	s.vals[key] = v
	s.order = append(s.order, key)
	return v, nil
}

// Close releases the session's values: each one that is an io.Closer is
// closed, the last made first. It is safe to call more than once.
func (s *State) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	vals, order := s.vals, s.order
	s.vals, s.order = nil, nil
	s.mu.Unlock()
	var errs []error
	for i := len(order) - 1; i >= 0; i-- {
		if c, ok := vals[order[i]].(io.Closer); ok {
			errs = append(errs, c.Close())
		}
	}
	return errors.Join(errs...)
}

type ctxKey struct{}

// NewContext returns ctx carrying st.
func NewContext(ctx context.Context, st *State) context.Context {
	return context.WithValue(ctx, ctxKey{}, st)
}

// FromContext returns the session state ctx carries, or nil.
func FromContext(ctx context.Context) *State {
	st, _ := ctx.Value(ctxKey{}).(*State)
	return st
}
