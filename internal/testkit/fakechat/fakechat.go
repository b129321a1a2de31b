// Package fakechat is a local stand-in for the OpenAI chat-completions API
// (POST /v1/chat/completions), listening on 127.0.0.1 only, so runtime tests
// exercise the real client library and wire format without any network
// traffic. Responses are scripted: each request consumes the next Reply in
// the queue, and every request is recorded for assertions.
package fakechat

import (
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

// ToolCall is one function call the fake model makes.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON object text, sent in two deltas to exercise reassembly
}

// Usage is the token usage reported for one reply.
type Usage struct {
	PromptTokens     int64
	CompletionTokens int64
	CachedTokens     int64
	ReasoningTokens  int64
}

// Reply scripts the answer to one request.
type Reply struct {
	// Status, when not 0 or 200, makes the reply an API error with this HTTP
	// status and ErrorMessage in the OpenAI error envelope.
	Status       int
	ErrorMessage string
	// Text is the assistant text, streamed a few characters per chunk.
	Text string
	// ToolCalls are streamed as tool-call deltas after Text.
	ToolCalls []ToolCall
	// Usage is sent in a final usage chunk when the client asked for it
	// (stream_options.include_usage), and always on non-streaming replies.
	Usage *Usage
	// Hang makes the server stop after streaming Text and keep the
	// connection open until the client goes away, to test interrupts.
	Hang bool
	// ChunkDelay is slept between streamed chunks.
	ChunkDelay time.Duration
	// IgnoreStream answers with one non-streamed chat.completion JSON even
	// when the request asked for a stream, as some llama.cpp and Ollama
	// builds do.
	IgnoreStream bool
}

// Request is one request the fake received.
type Request struct {
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Messages returns the request's messages array.
func (r Request) Messages() []map[string]any {
	var out []map[string]any
	list, _ := r.Body["messages"].([]any)
	for _, m := range list {
		if mm, ok := m.(map[string]any); ok {
			out = append(out, mm)
		}
	}
	return out
}

// ToolNames returns the function names offered in the request's tools.
func (r Request) ToolNames() []string {
	var out []string
	list, _ := r.Body["tools"].([]any)
	for _, t := range list {
		tm, _ := t.(map[string]any)
		fn, _ := tm["function"].(map[string]any)
		if name, ok := fn["name"].(string); ok {
			out = append(out, name)
		}
	}
	return out
}

// Server is a running fake. Create it with New and stop it with Close.
type Server struct {
	http *fakeserver.Server
	// script's handler, when set, answers requests the queue has no
	// reply for.
	script fakeserver.Script[Reply, Request]
}

// New starts a fake on 127.0.0.1 with the replies queued in order. Like
// httptest.NewServer it panics when it cannot listen.
func New(replies ...Reply) *Server {
	s := &Server{}
	s.script.Enqueue(replies...)
	srv, err := fakeserver.Start("fakechat", http.HandlerFunc(s.serve))
	if err != nil {
		panic(err)
	}
	s.http = srv
	return s
}

// BaseURL is the value to use as the client's base URL (ends in /v1).
func (s *Server) BaseURL() string { return s.http.URL() + "/v1" }

// Close stops the server, cutting any hanging stream.
func (s *Server) Close() { s.http.Close() }

// Enqueue appends replies to the script.
func (s *Server) Enqueue(replies ...Reply) { s.script.Enqueue(replies...) }

// SetHandler answers requests with f once the queue is empty, for tests
// whose replies depend on the request (e.g. endless tool calls).
func (s *Server) SetHandler(f func(Request) Reply) { s.script.Handle(f) }

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request { return s.script.Requests() }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "fakechat only serves POST /v1/chat/completions, not "+r.Method+" "+r.URL.Path)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "reading body: "+err.Error())
		return
	}
	req := Request{Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		writeError(w, http.StatusBadRequest, "body is not JSON: "+err.Error())
		return
	}
	reply, ok := s.script.Take(req, nil)
	if !ok {
		writeError(w, http.StatusInternalServerError, "fakechat: no scripted reply left for this request")
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.ErrorMessage)
		return
	}
	model, _ := req.Body["model"].(string)
	if stream, _ := req.Body["stream"].(bool); !stream || reply.IgnoreStream {
		writeCompletion(w, model, reply)
		return
	}
	opts, _ := req.Body["stream_options"].(map[string]any)
	includeUsage, _ := opts["include_usage"].(bool)
	s.stream(w, r, model, reply, includeUsage)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	typ := "server_error"
	switch status {
	case http.StatusUnauthorized:
		typ = "invalid_request_error"
	case http.StatusTooManyRequests:
		typ = "rate_limit_exceeded"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil},
	})
}

const completionID = "chatcmpl-fake"

func usageJSON(u *Usage) map[string]any {
	return map[string]any{
		"prompt_tokens":             u.PromptTokens,
		"completion_tokens":         u.CompletionTokens,
		"total_tokens":              u.PromptTokens + u.CompletionTokens,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.CachedTokens},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
	}
}

func finishReason(r Reply) string {
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func writeCompletion(w http.ResponseWriter, model string, r Reply) {
	msg := map[string]any{"role": "assistant", "content": r.Text}
	if len(r.ToolCalls) > 0 {
		var calls []map[string]any
		for _, tc := range r.ToolCalls {
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"] = calls
		if r.Text == "" {
			msg["content"] = nil
		}
	}
	u := r.Usage
	if u == nil {
		u = &Usage{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": completionID, "object": "chat.completion", "created": time.Now().Unix(), "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finishReason(r), "logprobs": nil}},
		"usage":   usageJSON(u),
	})
}

// stream writes the reply as server-sent events the way the real API does:
// a role chunk, content deltas, tool-call deltas (id and name first, then
// the arguments in pieces), a finish chunk, an optional usage chunk with no
// choices, and "data: [DONE]".
func (s *Server) stream(w http.ResponseWriter, r *http.Request, model string, reply Reply, includeUsage bool) {
	w.Header().Set("Cache-Control", "no-cache")
	sse := fakeserver.OpenSSE(r.Context(), w, "\n\n")
	created := time.Now().Unix()
	send := func(choices []any, usage map[string]any) bool {
		chunk := map[string]any{"id": completionID, "object": "chat.completion.chunk", "created": created,
			"model": model, "choices": choices}
		if usage != nil {
			chunk["usage"] = usage
		}
		if !sse.Event("", chunk) {
			return false
		}
		if reply.ChunkDelay > 0 {
			select {
			case <-time.After(reply.ChunkDelay):
			case <-r.Context().Done():
				return false
			}
		}
		return r.Context().Err() == nil
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "finish_reason": finish, "logprobs": nil}}
	}
	if !send(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil) {
		return
	}
	for _, piece := range fakeserver.Chunks(reply.Text, 4) {
		if !send(delta(map[string]any{"content": piece}, nil), nil) {
			return
		}
	}
	if reply.Hang {
		<-r.Context().Done()
		return
	}
	for i, tc := range reply.ToolCalls {
		first := map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""}}
		if !send(delta(map[string]any{"tool_calls": []any{first}}, nil), nil) {
			return
		}
		half := len(tc.Arguments) / 2
		for _, part := range []string{tc.Arguments[:half], tc.Arguments[half:]} {
			d := map[string]any{"index": i, "function": map[string]any{"arguments": part}}
			if !send(delta(map[string]any{"tool_calls": []any{d}}, nil), nil) {
				return
			}
		}
	}
	if !send(delta(map[string]any{}, finishReason(reply)), nil) {
		return
	}
	if includeUsage && reply.Usage != nil {
		if !send([]any{}, usageJSON(reply.Usage)) {
			return
		}
	}
	sse.Data("", "[DONE]")
}

// TextOf returns a message's content as text, whether it was sent as a
// string or as an array of text parts.
func TextOf(m map[string]any) string { return fakeserver.ContentText(m["content"]) }
