package fakechat

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

func TestStreamAndRefusals(t *testing.T) {
	tests := []struct {
		name       string
		replies    []Reply
		body       string
		wantStatus int
		wantBody   []string // substrings, in order
	}{
		{"stream", []Reply{{Text: "héllo wörld", Usage: &Usage{PromptTokens: 3, CompletionTokens: 2}}},
			`{"model":"m","stream":true,"stream_options":{"include_usage":true}}`, 200,
			[]string{`"role":"assistant"`, `"content":"héll"`, `"finish_reason":"stop"`, `"total_tokens":5`, "data: [DONE]\n\n"}},
		{"tool call", []Reply{{ToolCalls: []ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`}}}},
			`{"model":"m","stream":true}`, 200,
			[]string{`"id":"c1"`, `"arguments":"{\"a"`, `"arguments":"\":1}"`, `"finish_reason":"tool_calls"`, "data: [DONE]"}},
		{"no script left", nil, `{"model":"m"}`, 500, []string{"no scripted reply left"}},
		{"scripted error", []Reply{{Status: 429, ErrorMessage: "slow down"}}, `{"model":"m"}`, 429,
			[]string{"slow down", `"rate_limit_exceeded"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.replies...)
			t.Cleanup(s.Close)
			resp := fakeserver.Do(t, "POST", s.BaseURL()+"/chat/completions", tt.body)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, b)
			}
			rest := string(b)
			for _, w := range tt.wantBody {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("body lacks %q (in order) in %s", w, b)
				}
				rest = rest[i+len(w):]
			}
			if len(s.Requests()) != 1 {
				t.Errorf("recorded %d requests, want 1", len(s.Requests()))
			}
		})
	}
}

// TestCloseCutsHangingStream: a Hang reply holds the stream open until the
// client leaves; Close must cut it rather than wait forever.
func TestCloseCutsHangingStream(t *testing.T) {
	s := New(Reply{Text: "partial", Hang: true})
	resp := fakeserver.Do(t, "POST", s.BaseURL()+"/chat/completions", `{"model":"m","stream":true}`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	closed := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		s.Close()
		close(closed)
	}()
	b, _ := io.ReadAll(resp.Body)
	<-closed
	if !strings.Contains(string(b), `"content":"part"`) || strings.Contains(string(b), "[DONE]") {
		t.Errorf("hanging stream before Close: %s", b)
	}
}
