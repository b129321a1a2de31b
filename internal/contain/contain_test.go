package contain

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPanicsAreContainedAndLogged(t *testing.T) {
	tests := []struct {
		name string
		run  func(log *slog.Logger) error
	}{
		{"Go", func(log *slog.Logger) error {
			Go(log, "worker", func() { panic("boom") })
			return nil
		}},
		{"Call", func(log *slog.Logger) error {
			return Call(log, "worker", func() error { panic("boom") })
		}},
		{"Func", func(log *slog.Logger) error {
			Func(log, "worker", func(int) { panic("boom") })(1)
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := &logBuffer{wrote: make(chan struct{})}
			err := tt.run(slog.New(slog.NewTextHandler(buf, nil)))
			if tt.name == "Call" && (err == nil || !strings.Contains(err.Error(), "boom")) {
				t.Errorf("Call returned %v, want the panic as an error", err)
			}
			select {
			case <-buf.wrote:
			case <-time.After(10 * time.Second):
				t.Fatal("nothing was logged")
			}
			if out := buf.String(); !strings.Contains(out, "in=worker") || !strings.Contains(out, "panic=boom") || !strings.Contains(out, "stack=") {
				t.Errorf("log = %q", out)
			}
		})
	}
}

func TestCallPassesErrorsThrough(t *testing.T) {
	want := errors.New("plain failure")
	if err := Call(nil, "x", func() error { return want }); err != want {
		t.Errorf("Call = %v, want %v", err, want)
	}
	if err := Call(nil, "x", func() error { return nil }); err != nil {
		t.Errorf("Call = %v, want nil", err)
	}
}

// logBuffer is a log destination that says when it was first written.
type logBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (s *logBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() == 0 {
		defer close(s.wrote)
	}
	return s.b.Write(p)
}

func (s *logBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
