package httpmcp

import (
	"bytes"
	"net/http"
	"time"
)

// sse turns the newline-delimited JSON that stdio.Serve writes into
// Server-Sent Events, one message event per line. Serve writes through a
// bufio.Writer, so a Write may hold several lines or part of one; a line
// is sent once it is whole. Writes come from one goroutine at a time
// (stdio's output serialises them).
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	partial []byte
	frame   []byte
	// answered says a response was sent: a POST's stream carries one.
	answered bool
	// cancelled, when set, withholds the response while it reports the
	// call cancelled by the server (the handler then answers it itself).
	cancelled func() bool
}

func newSSE(w http.ResponseWriter, timeout time.Duration) *sse {
	return &sse{w: w, rc: http.NewResponseController(w), timeout: timeout}
}

// start sends the headers, so the client knows the stream is open before
// the first event.
func (s *sse) start() {
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx would otherwise buffer the stream
	s.w.WriteHeader(http.StatusOK)
	_ = s.rc.Flush()
}

func (s *sse) Write(p []byte) (int, error) {
	s.partial = append(s.partial, p...)
	s.frame = s.frame[:0]
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		// JSON text has no raw line breaks (the body was compacted and
		// encoding/json escapes them), so one data line holds the message.
		line := s.partial[:i]
		if isResponseLine(line) {
			if s.cancelled != nil && s.cancelled() {
				s.partial = s.partial[i+1:]
				continue
			}
			s.answered = true
		}
		s.frame = append(s.frame, "event: message\ndata: "...)
		s.frame = append(s.frame, s.partial[:i]...)
		s.frame = append(s.frame, "\n\n"...)
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) == 0 {
		s.partial = s.partial[:0:0]
	}
	if len(s.frame) == 0 {
		return len(p), nil
	}
	if err := s.send(s.frame); err != nil {
		return 0, err
	}
	return len(p), nil
}

// comment sends an SSE comment, which clients ignore and proxies see as
// traffic.
func (s *sse) comment() error { return s.send([]byte(": keep-alive\n\n")) }

func (s *sse) send(b []byte) error {
	// A client that stops reading is cut off after the timeout rather than
	// holding the call's goroutines forever.
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.rc.Flush()
}
