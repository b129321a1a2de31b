package fakeserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Do sends one request to a fake, failing tb if it cannot be sent; the
// response body is closed when tb ends. It is for the fakes' own tests.
func Do(tb testing.TB, method, url, body string) *http.Response {
	tb.Helper()
	req, err := http.NewRequestWithContext(tb.Context(), method, url, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Event is one server-sent event as a client reads it.
type Event struct {
	Name string // the "event:" line; empty without one
	Data map[string]any
}

// ReadSSE reads events until r ends, the way an SDK splits a stream: an
// "event:" and a "data:" line (CRLF or LF), ended by a blank line. Every
// data line must be a JSON object. A stream cut short (a fake closed
// mid-reply) just ends the events: what was read is returned.
func ReadSSE(r io.Reader) ([]Event, error) {
	var out []Event
	sc := bufio.NewScanner(r)
	// Responses replies carry whole items in one line.
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var cur Event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.Data); err != nil {
				return out, fmt.Errorf("data line %q is not a JSON object: %w", line, err)
			}
		case line == "":
			out = append(out, cur)
			cur = Event{}
		}
	}
	return out, nil
}

// ReadTypedSSE is ReadSSE for APIs that name each event after its data's
// "type" (Anthropic Messages, OpenAI Responses): an event whose name and
// type differ is an error.
func ReadTypedSSE(r io.Reader) ([]Event, error) {
	evs, err := ReadSSE(r)
	if err != nil {
		return evs, err
	}
	for i, e := range evs {
		if e.Data["type"] != e.Name {
			return evs, fmt.Errorf("event %d %q carries type %v", i, e.Name, e.Data["type"])
		}
	}
	return evs, nil
}
