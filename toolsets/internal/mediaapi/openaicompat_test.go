package mediaapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPostOpenAI(t *testing.T) {
	tests := []struct {
		name     string
		statuses []int  // answered in turn; the last repeats
		errBody  string // body of a non-2xx answer
		wantOK   bool
		wantHits int32
		wantErr  string
	}{
		{"ok", []int{200}, "", true, 1, ""},
		{"5xx retried once then ok", []int{503, 200}, `{"error":{"message":"busy"}}`, true, 2, ""},
		{"429 retried once then given up", []int{429}, `{"error":{"message":"slow down"}}`, false, 2, "HTTP 429: slow down"},
		{"400 not retried", []int{400}, `{"error":{"message":"bad model","type":"invalid_request_error"}}`, false, 1, "HTTP 400: bad model"},
		{"401 plain body", []int{401}, "no key\n", false, 1, "HTTP 401: no key"},
		{"string error", []int{404}, `{"error":"not here"}`, false, 1, "HTTP 404: not here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := int(hits.Add(1)) - 1
				if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer k" || r.Header.Get("Content-Type") != "application/json" {
					t.Errorf("request %s %s, auth %q", r.Method, r.URL.Path, r.Header.Get("Authorization"))
				}
				var body map[string]any
				if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["model"] != "m" {
					t.Errorf("body %v (%v)", body, err)
				}
				status := tt.statuses[min(n, len(tt.statuses)-1)]
				w.WriteHeader(status)
				if status == 200 {
					w.Write([]byte(`{"ok":true}`))
				} else {
					w.Write([]byte(tt.errBody))
				}
			}))
			defer srv.Close()
			e := NewEnv(Options{HTTPClient: srv.Client()})
			out, err := e.PostOpenAI(context.Background(), srv.URL+"/v1/", "k", "chat/completions", map[string]any{"model": "m"}, 5*time.Second)
			if tt.wantOK {
				if err != nil || string(out) != `{"ok":true}` {
					t.Fatalf("got %q, %v", out, err)
				}
			} else {
				var se *statusError
				if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a statusError containing %q", err, tt.wantErr)
				}
			}
			if got := hits.Load(); got != tt.wantHits {
				t.Errorf("server saw %d requests, want %d", got, tt.wantHits)
			}
		})
	}
}

func TestPostOpenAIHonoursTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	e := NewEnv(Options{HTTPClient: srv.Client()})
	_, err := e.PostOpenAI(context.Background(), srv.URL, "", "audio/speech", map[string]any{}, 100*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
}
