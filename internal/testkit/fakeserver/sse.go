package fakeserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// SSE writes server-sent events to one response, flushing each so that the
// client sees it at once, as a real streaming API sends it.
type SSE struct {
	ctx     context.Context
	w       http.ResponseWriter
	flusher http.Flusher
	end     string
}

// OpenSSE answers 200 with Content-Type text/event-stream (plus whatever
// headers the caller set on w before). end terminates each event: "\n\n",
// or "\r\n\r\n" for APIs that send CRLF.
func OpenSSE(ctx context.Context, w http.ResponseWriter, end string) *SSE {
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return &SSE{ctx: ctx, w: w, flusher: flusher, end: end}
}

// Event sends data as JSON in one event, named by an "event:" line unless
// name is empty. It reports whether the stream goes on: false once a write
// fails or the request's context ended (the client left, or the server is
// closing).
func (s *SSE) Event(name string, data any) bool {
	b, err := json.Marshal(data)
	if err != nil {
		// The fakes marshal maps of plain values; failing here is a bug
		// in the fake, which the client sees as a cut stream.
		return false
	}
	return s.Data(name, string(b))
}

// Data is Event with the data line given as is (e.g. "[DONE]").
func (s *SSE) Data(name, data string) bool {
	var b strings.Builder
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	b.WriteString("data: " + data + s.end)
	if _, err := io.WriteString(s.w, b.String()); err != nil {
		return false
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return s.ctx.Err() == nil
}

// Chunks cuts s into pieces of at most n runes (n < 1: one piece), so that
// a client has to reassemble streamed text. An empty s has no pieces.
func Chunks(s string, n int) []string {
	if s == "" {
		return nil
	}
	if n < 1 {
		return []string{s}
	}
	var out []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(n, len(runes))
		out = append(out, string(runes[:k]))
		runes = runes[k:]
	}
	return out
}

// ContentText flattens message content given as a string or as an array of
// parts, concatenating the parts' "text" fields.
func ContentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				if t, ok := pm["text"].(string); ok {
					b.WriteString(t)
				}
			}
		}
		return b.String()
	}
	return ""
}
