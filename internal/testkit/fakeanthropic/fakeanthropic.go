// Package fakeanthropic is a scripted fake of the Anthropic Messages API
// (POST /v1/messages, plain JSON or streamed as server-sent events)
// listening on 127.0.0.1, for driving the real Claude Code CLI offline in
// tests (ANTHROPIC_BASE_URL points at URL).
//
// A test queues one Reply per model request: a turn in which the model
// calls a tool takes two replies, the tool_use and then the final text.
// Streams use the event sequence of the real API (message_start,
// content_block_start/delta/stop with text_delta and input_json_delta,
// message_delta with the stop reason, message_stop), which is what the
// Anthropic SDK inside Claude Code parses.
//
// Anything the fake was not scripted for is answered with HTTP 400 in the
// API's error envelope, which the SDK does not retry, so a client asking
// for more than the test expects fails at once instead of hanging in
// backoff; Unexpected lists those requests for the test's failure message.
package fakeanthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

// ToolUse is one tool call the fake model makes.
type ToolUse struct {
	ID    string
	Name  string
	Input string // a JSON object, streamed in two input_json_delta pieces
}

// Reply scripts the answer to one request.
type Reply struct {
	// RetryAfter, when set, is sent as the Retry-After header (with a
	// 429 or 503 Status).
	RetryAfter string
	// Malformed answers 200 with a body that is not the API's JSON.
	Malformed bool
	// Status, when not 0 or 200, makes the reply an API error with
	// ErrorType (default invalid_request_error) and ErrorMessage.
	Status       int
	ErrorType    string
	ErrorMessage string
	// Text is the assistant's text block, streamed a few runes per delta.
	Text string
	// ToolUses follow Text as tool_use blocks; the stop reason is then
	// "tool_use".
	ToolUses []ToolUse
}

// Request is one /v1/messages request the fake received.
type Request struct {
	N      int // 1-based arrival order
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Server is a running fake. Its methods are safe for concurrent use:
// Close, URL, Enqueue, Requests and Unexpected, which fakeserver.Fake
// documents. URL is the value for ANTHROPIC_BASE_URL (no /v1: the SDK appends it).
type Server struct {
	*fake
	script *fakeserver.Script[Reply, *Request]
}

// fake is embedded under an unexported name so that only its methods,
// not a field, join Server's API.
type fake = fakeserver.Fake[Reply, *Request]

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start() (*Server, error) {
	s := &Server{script: &fakeserver.Script[Reply, *Request]{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.serveMessages)
	f, err := fakeserver.StartFake("fakeanthropic", mux, s.script, writeRefusal)
	if err != nil {
		return nil, err
	}
	s.fake = f
	return s, nil
}

// New starts a server that is closed when tb ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	return fakeserver.ForTest(tb, Start)
}

func (s *Server) refuse(w http.ResponseWriter, what, why string) {
	writeRefusal(w, s.script.Refuse(what, why))
}

// writeRefusal answers a request the fake was not scripted for with 400,
// which the SDK does not retry.
func writeRefusal(w http.ResponseWriter, line string) {
	writeError(w, http.StatusBadRequest, "invalid_request_error", "fakeanthropic: "+line)
}

func (s *Server) serveMessages(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "fakeanthropic: reading body: "+err.Error())
		return
	}
	req := &Request{Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		s.refuse(w, "POST /v1/messages", "body is not a JSON object: "+err.Error())
		return
	}
	reply, scripted := s.script.Take(req, func(n int) { req.N = n })
	if !scripted {
		s.refuse(w, fmt.Sprintf("POST /v1/messages #%d", req.N), "no reply scripted")
		return
	}
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	if reply.Malformed {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"candidates": [{"content": unterminated`)
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		typ := reply.ErrorType
		if typ == "" {
			typ = "invalid_request_error"
		}
		writeError(w, reply.Status, typ, reply.ErrorMessage)
		return
	}
	model, _ := req.Body["model"].(string)
	id := fmt.Sprintf("msg_fake%04d", req.N)
	if stream, _ := req.Body["stream"].(bool); stream {
		writeStream(r.Context(), w, id, model, reply)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(message(id, model, reply, true))
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type": "error", "error": map[string]any{"type": typ, "message": msg},
	})
}

func stopReason(r Reply) string {
	if len(r.ToolUses) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// blocks are the reply's content blocks, complete (for a JSON reply) or
// empty as content_block_start announces them.
func blocks(r Reply, complete bool) []map[string]any {
	var out []map[string]any
	if r.Text != "" || len(r.ToolUses) == 0 {
		text := ""
		if complete {
			text = r.Text
		}
		out = append(out, map[string]any{"type": "text", "text": text})
	}
	for _, tu := range r.ToolUses {
		input := json.RawMessage("{}")
		if complete && tu.Input != "" {
			input = json.RawMessage(tu.Input)
		}
		out = append(out, map[string]any{"type": "tool_use", "id": tu.ID, "name": tu.Name, "input": input})
	}
	return out
}

func usage(in, out int) map[string]any {
	return map[string]any{"input_tokens": in, "output_tokens": out,
		"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
}

func message(id, model string, r Reply, complete bool) map[string]any {
	m := map[string]any{"id": id, "type": "message", "role": "assistant", "model": model,
		"stop_sequence": nil, "usage": usage(10, 1)}
	if complete {
		m["content"] = blocks(r, true)
		m["stop_reason"] = stopReason(r)
	} else {
		m["content"] = []any{}
		m["stop_reason"] = nil
	}
	return m
}

// writeStream sends the reply as the real API streams it.
func writeStream(ctx context.Context, w http.ResponseWriter, id, model string, r Reply) {
	w.Header().Set("Cache-Control", "no-cache")
	sse := fakeserver.OpenSSE(ctx, w, "\n\n")
	send := func(name string, data map[string]any) bool {
		data["type"] = name
		return sse.Event(name, data)
	}
	if !send("message_start", map[string]any{"message": message(id, model, r, false)}) ||
		!send("ping", map[string]any{}) {
		return
	}
	bl := blocks(r, false)
	firstTool := len(bl) - len(r.ToolUses)
	for i, b := range bl {
		if !send("content_block_start", map[string]any{"index": i, "content_block": b}) {
			return
		}
		var deltas []map[string]any
		if b["type"] == "text" {
			for _, piece := range fakeserver.Chunks(r.Text, 4) {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": piece})
			}
		} else {
			in := r.ToolUses[i-firstTool].Input
			half := len(in) / 2
			for _, part := range []string{in[:half], in[half:]} {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": part})
			}
		}
		for _, d := range deltas {
			if !send("content_block_delta", map[string]any{"index": i, "delta": d}) {
				return
			}
		}
		if !send("content_block_stop", map[string]any{"index": i}) {
			return
		}
	}
	if !send("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5},
	}) {
		return
	}
	send("message_stop", map[string]any{})
}

// ToolNames returns the names of the tools offered in the request.
func (r *Request) ToolNames() []string {
	var out []string
	list, _ := r.Body["tools"].([]any)
	for _, t := range list {
		tm, _ := t.(map[string]any)
		if name, ok := tm["name"].(string); ok {
			out = append(out, name)
		}
	}
	return out
}

// ToolResult is a tool_result block a client sent back.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	Text      string // the text of its content, string or text blocks
}

// ToolResults returns the tool_result blocks of the request's user
// messages, in order.
func (r *Request) ToolResults() []ToolResult {
	var out []ToolResult
	msgs, _ := r.Body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] != "user" {
			continue
		}
		content, _ := mm["content"].([]any)
		for _, c := range content {
			cm, _ := c.(map[string]any)
			if cm["type"] != "tool_result" {
				continue
			}
			tr := ToolResult{}
			tr.ToolUseID, _ = cm["tool_use_id"].(string)
			tr.IsError, _ = cm["is_error"].(bool)
			tr.Text = fakeserver.ContentText(cm["content"])
			out = append(out, tr)
		}
	}
	return out
}
