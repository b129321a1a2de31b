package fakeserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestScriptTake(t *testing.T) {
	type req struct{ n int }
	tests := []struct {
		name      string
		queue     []string
		handler   func(*req) string
		requests  int
		want      []string // "" where no reply was scripted
		wantOrder []int
	}{
		{"queue in order then none", []string{"a", "b"}, nil, 3, []string{"a", "b", ""}, []int{1, 2, 3}},
		{"empty script", nil, nil, 2, []string{"", ""}, []int{1, 2}},
		{"handler after queue", []string{"a"}, func(r *req) string { return "h" + string(rune('0'+r.n)) }, 3,
			[]string{"a", "h2", "h3"}, []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Script[string, *req]
			s.Enqueue(tt.queue...)
			if tt.handler != nil {
				s.Handle(tt.handler)
			}
			for i := range tt.requests {
				r := &req{}
				got, ok := s.Take(r, func(n int) { r.n = n })
				if ok != (tt.want[i] != "") || got != tt.want[i] {
					t.Errorf("request %d: got %q, %v; want %q", i+1, got, ok, tt.want[i])
				}
			}
			rs := s.Requests()
			if len(rs) != len(tt.wantOrder) {
				t.Fatalf("recorded %d requests, want %d", len(rs), len(tt.wantOrder))
			}
			for i, r := range rs {
				if r.n != tt.wantOrder[i] {
					t.Errorf("request %d numbered %d", i+1, r.n)
				}
			}
		})
	}
}

func TestScriptRefuseRecordsEveryRefusal(t *testing.T) {
	var s Script[int, int]
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := s.Refuse("GET /x", "why"); got != "GET /x: why" {
				t.Errorf("refusal %d: line %q", i, got)
			}
		}()
	}
	wg.Wait()
	if n := len(s.Unexpected()); n != 50 {
		t.Errorf("Unexpected has %d lines, want 50", n)
	}
}

func TestScriptWaitRequest(t *testing.T) {
	var s Script[int, string]
	go func() {
		for _, r := range []string{"one", "two"} {
			time.Sleep(5 * time.Millisecond)
			s.Take(r, nil)
		}
	}()
	got, err := s.WaitRequest(t.Context(), 2)
	if err != nil || got != "two" {
		t.Fatalf("WaitRequest(2) = %q, %v", got, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.WaitRequest(ctx, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitRequest(3) on a cancelled context: %v, want context.Canceled", err)
	}
}

// TestCloseEndsOpenStreams: a handler streaming until its request ends
// must be cut by Close, and Close must wait for it.
func TestCloseEndsOpenStreams(t *testing.T) {
	handlerDone := make(chan struct{})
	srv, err := Start("test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer close(handlerDone)
		sse := OpenSSE(r.Context(), w, "\n\n")
		for sse.Event("tick", map[string]int{"n": 1}) {
			time.Sleep(time.Millisecond)
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(srv.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %q is not on 127.0.0.1", srv.URL())
	}
	resp, err := http.Get(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "event: tick\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	srv.Close()
	select {
	case <-handlerDone:
	default:
		t.Fatal("Close returned while a handler was still streaming")
	}
}

func TestSSEFormat(t *testing.T) {
	tests := []struct {
		name, event, end string
		data             any
		raw              string
		want             string
	}{
		{"named", "ping", "\n\n", map[string]any{"a": 1}, "", "event: ping\ndata: {\"a\":1}\n\n"},
		{"unnamed crlf", "", "\r\n\r\n", []int{1}, "", "data: [1]\r\n\r\n"},
		{"raw", "", "\n\n", nil, "[DONE]", "data: [DONE]\n\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := Start("test", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sse := OpenSSE(r.Context(), w, tt.end)
				if tt.raw != "" {
					sse.Data(tt.event, tt.raw)
				} else {
					sse.Event(tt.event, tt.data)
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			resp, err := http.Get(srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
				t.Errorf("Content-Type %q", ct)
			}
			if string(b) != tt.want {
				t.Errorf("body %q, want %q", b, tt.want)
			}
		})
	}
}

// FuzzChunks checks the rule streamed text relies on: the pieces put
// back together are the text, and none is longer than n runes.
func FuzzChunks(f *testing.F) {
	f.Add("Hello, wörld!", 4)
	f.Add("", 3)
	f.Add("日本語のテキスト", 1)
	f.Add("abc", 0)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if !utf8.ValidString(s) {
			return // the fakes stream JSON strings, which are valid UTF-8
		}
		pieces := Chunks(s, n)
		if got := strings.Join(pieces, ""); got != s {
			t.Fatalf("Chunks(%q, %d) joins to %q", s, n, got)
		}
		for _, p := range pieces {
			if p == "" || (n >= 1 && utf8.RuneCountInString(p) > n) {
				t.Fatalf("Chunks(%q, %d) has piece %q", s, n, p)
			}
		}
	})
}

func TestContentText(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"string", "hi", "hi"},
		{"parts", []any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "image"}, "x",
			map[string]any{"text": "b"}}, "ab"},
		{"nil", nil, ""},
		{"number", 3.0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContentText(tt.in); got != tt.want {
				t.Errorf("ContentText = %q, want %q", got, tt.want)
			}
		})
	}
}
