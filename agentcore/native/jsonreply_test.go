package native

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/internal/testkit/fakechat"
)

// TestServerIgnoresStream: a server that answers a streamed request with
// one chat.completion JSON still gives the whole answer, tool calls and
// usage, through the same path (OnText, the tool loop) as a stream.
func TestServerIgnoresStream(t *testing.T) {
	fc := fakechat.New(
		fakechat.Reply{IgnoreStream: true, ToolCalls: []fakechat.ToolCall{{ID: "c1", Name: "wait", Arguments: `1`}, {ID: "c2", Name: "wait", Arguments: `2`}}, Usage: &fakechat.Usage{PromptTokens: 3, CompletionTokens: 4}},
		fakechat.Reply{IgnoreStream: true, Text: "both done", Usage: &fakechat.Usage{PromptTokens: 10, CompletionTokens: 2}},
	)
	defer fc.Close()
	bt := &barrierTools{}
	bt.wg.Add(2)
	var printed strings.Builder
	r := newRuntime(t, Options{Config: testConfig(fc), Tools: bt, OnText: func(d string) { printed.WriteString(d) }})
	res, err := r.RunTurn(context.Background(), nil, "go")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Completed || res.FinalResponse != "both done" || printed.String() != "both done" || res.APICalls != 2 {
		t.Fatalf("result = %+v, printed %q", res, printed.String())
	}
	calls := res.Messages[1].ToolCalls
	if len(calls) != 2 || calls[0].ID != "c1" || calls[1].Function.Arguments != "2" || res.Messages[2].Content != `{"ok":1}` {
		t.Errorf("tool calls = %+v, messages %+v", calls, res.Messages)
	}
	if want := (agentcore.Usage{InputTokens: 13, OutputTokens: 6, TotalTokens: 19}); res.Usage != want {
		t.Errorf("usage = %+v, want %+v", res.Usage, want)
	}
	if stream, _ := fc.Requests()[0].Body["stream"].(bool); !stream {
		t.Error("the request did not ask for a stream; the test does not test the ignored-stream case")
	}
}

// TestBodiesThatAreNoAnswer: whatever else a server sends with 200 OK, the
// turn fails with a message naming the endpoint, never an empty answer.
func TestBodiesThatAreNoAnswer(t *testing.T) {
	for _, tc := range []struct{ name, ctype, body string }{
		{"json without choices", "application/json", `{"object":"list","data":[]}`},
		{"json not an object", "application/json; charset=utf-8", `[1,2]`},
		{"html page", "text/html", "<html><body>It works!</body></html>"},
		{"empty event stream", "text/event-stream", "data: [DONE]\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			cfg := Config{Model: "m", Provider: "custom", BaseURL: srv.URL + "/v1", MaxTurns: 3}
			var printed strings.Builder
			res, err := newRuntime(t, Options{Config: cfg, OnText: func(d string) { printed.WriteString(d) }}).RunTurn(context.Background(), nil, "hi")
			if err != nil {
				t.Fatal(err)
			}
			if res.Completed || res.Error == "" || !strings.Contains(res.Error, srv.URL) || printed.Len() > 0 {
				t.Fatalf("result = %+v, printed %q; want a failed turn naming %s", res, printed.String(), srv.URL)
			}
		})
	}
}

// FuzzCompletionToEvents: whatever JSON a server sends, the rewrite either
// refuses it or yields well-formed events ending in [DONE] that carry the
// completion's content and tool calls unchanged.
func FuzzCompletionToEvents(f *testing.F) {
	f.Add(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi \"there\"\n"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`)
	f.Add(`{"choices":[{"index":0,"message":{"content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}}]}`)
	f.Add(`{"choices":[]}`)
	f.Add(`null`)
	f.Add(`{"choices":[{"message":{"content":"\u2028<script>"}}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		out, err := completionToEvents([]byte(body))
		if err != nil {
			return
		}
		var c openai.ChatCompletion
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			t.Fatalf("accepted a body that does not parse: %v", err)
		}
		if !strings.HasSuffix(string(out), "data: [DONE]\n\n") {
			t.Fatalf("events do not end with [DONE]:\n%s", out)
		}
		var content, args strings.Builder
		for _, ev := range strings.Split(strings.TrimSuffix(string(out), "data: [DONE]\n\n"), "\n\n") {
			if ev == "" {
				continue
			}
			data, ok := strings.CutPrefix(ev, "data: ")
			if !ok || strings.Contains(data, "\n") {
				t.Fatalf("malformed event %q", ev)
			}
			var chunk openai.ChatCompletionChunk
			if err := json.Unmarshal([]byte(data), &chunk); err != nil {
				t.Fatalf("event is not a chunk: %v\n%s", err, data)
			}
			for _, ch := range chunk.Choices {
				content.WriteString(ch.Delta.Content)
				for _, tc := range ch.Delta.ToolCalls {
					args.WriteString(tc.Function.Arguments)
				}
			}
		}
		var wantContent, wantArgs strings.Builder
		for _, ch := range c.Choices {
			wantContent.WriteString(ch.Message.Content)
			for _, tc := range ch.Message.ToolCalls {
				wantArgs.WriteString(tc.Function.Arguments)
			}
		}
		// Invalid UTF-8 cannot travel in JSON; the encoder replaces it.
		if utf8.ValidString(body) && (content.String() != wantContent.String() || args.String() != wantArgs.String()) {
			t.Fatalf("content %q args %q; want %q %q", content.String(), args.String(), wantContent.String(), wantArgs.String())
		}
	})
}
