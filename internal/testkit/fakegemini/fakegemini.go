// Package fakegemini is a scripted fake of the Gemini API's
// models/{model}:generateContent and :streamGenerateContent?alt=sse
// endpoints (v1beta) listening on 127.0.0.1, for driving the real Gemini
// CLI offline in tests (GOOGLE_GEMINI_BASE_URL points at URL).
//
// A test queues one Reply per model request: a turn in which the model
// calls a tool takes two replies, the functionCall and then the final
// text. Streams are what the real API sends for alt=sse: one
// GenerateContentResponse per "data:" event, separated by CRLF CRLF, the
// last carrying finishReason and usageMetadata, with no end marker.
//
// Anything the fake was not scripted for is answered with HTTP 400 in the
// API's error envelope (not retried by the CLI), and listed by Unexpected.
package fakegemini

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

// FunctionCall is one tool call the fake model makes.
type FunctionCall struct {
	Name string
	Args string // a JSON object
}

// Reply scripts the answer to one request.
type Reply struct {
	// RetryAfter, when set, is sent as the Retry-After header (with a
	// 429 or 503 Status).
	RetryAfter string
	// Malformed answers 200 with a body that is not the API's JSON.
	Malformed bool
	// Status, when not 0 or 200, makes the reply an API error with
	// ErrorMessage.
	Status       int
	ErrorMessage string
	// Text is the model's text, streamed a few runes per event.
	Text string
	// FunctionCalls follow Text, in one event.
	FunctionCalls []FunctionCall
}

// Request is one generateContent request the fake received.
type Request struct {
	N      int // 1-based arrival order
	Model  string
	Method string // "generateContent" or "streamGenerateContent"
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Server is a running fake. Its methods are safe for concurrent use:
// Close, URL, Enqueue, Requests and Unexpected, which fakeserver.Fake
// documents. URL is the value for GOOGLE_GEMINI_BASE_URL (the SDK appends
// /v1beta).
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
	// The model and method share one path segment ("gemini-x:method"),
	// which a ServeMux wildcard cannot split.
	mux.HandleFunc("POST /v1beta/models/{call}", s.serveModels)
	f, err := fakeserver.StartFake("fakegemini", mux, s.script, writeRefusal)
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
// which the CLI does not retry.
func writeRefusal(w http.ResponseWriter, line string) {
	writeError(w, http.StatusBadRequest, "fakegemini: "+line)
}

func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) {
	what := "POST " + r.URL.Path
	model, method, _ := strings.Cut(r.PathValue("call"), ":")
	stream := method == "streamGenerateContent"
	switch {
	case method == "generateContent":
	case stream && r.URL.Query().Get("alt") == "sse":
	default:
		s.refuse(w, what+"?"+r.URL.RawQuery, "only :generateContent and :streamGenerateContent?alt=sse are served")
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "fakegemini: reading body: "+err.Error())
		return
	}
	req := &Request{Model: model, Method: method, Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		s.refuse(w, what, "body is not a JSON object: "+err.Error())
		return
	}
	reply, scripted := s.script.Take(req, func(n int) { req.N = n })
	if !scripted {
		s.refuse(w, fmt.Sprintf("%s #%d", what, req.N), "no reply scripted")
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
		writeError(w, reply.Status, reply.ErrorMessage)
		return
	}
	id := fmt.Sprintf("fake-response-%d", req.N)
	if !stream {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_ = json.NewEncoder(w).Encode(response(id, model, append(textParts(reply.Text, 0), callParts(reply)...), true))
		return
	}
	writeStream(r.Context(), w, id, model, reply)
}

// writeError uses the envelope of Google APIs' errors.
func writeError(w http.ResponseWriter, status int, msg string) {
	state := "INVALID_ARGUMENT"
	switch status {
	case http.StatusTooManyRequests:
		state = "RESOURCE_EXHAUSTED"
	case http.StatusInternalServerError:
		state = "INTERNAL"
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"code": status, "message": msg, "status": state},
	})
}

// textParts splits text into parts of n runes (0: one part).
func textParts(text string, n int) []map[string]any {
	var out []map[string]any
	for _, piece := range fakeserver.Chunks(text, n) {
		out = append(out, map[string]any{"text": piece})
	}
	return out
}

func callParts(r Reply) []map[string]any {
	var out []map[string]any
	for _, fc := range r.FunctionCalls {
		args := json.RawMessage("{}")
		if fc.Args != "" {
			args = json.RawMessage(fc.Args)
		}
		out = append(out, map[string]any{"functionCall": map[string]any{"name": fc.Name, "args": args}})
	}
	return out
}

func response(id, model string, parts []map[string]any, last bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": model, "responseId": id}
	if last {
		cand["finishReason"] = "STOP"
		resp["usageMetadata"] = map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}
	}
	return resp
}

// writeStream sends one event per text piece, then the function calls in
// one event; the final event carries finishReason and usage.
func writeStream(ctx context.Context, w http.ResponseWriter, id, model string, r Reply) {
	var events [][]map[string]any
	for _, p := range textParts(r.Text, 4) {
		events = append(events, []map[string]any{p})
	}
	if calls := callParts(r); len(calls) > 0 {
		events = append(events, calls)
	}
	if len(events) == 0 {
		events = append(events, []map[string]any{{"text": ""}})
	}
	sse := fakeserver.OpenSSE(ctx, w, "\r\n\r\n")
	for i, parts := range events {
		if !sse.Event("", response(id, model, parts, i == len(events)-1)) {
			return
		}
	}
}

// ToolNames returns the function declarations' names offered in the
// request.
func (r *Request) ToolNames() []string {
	var out []string
	tools, _ := r.Body["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		decls, _ := tm["functionDeclarations"].([]any)
		for _, d := range decls {
			dm, _ := d.(map[string]any)
			if name, ok := dm["name"].(string); ok {
				out = append(out, name)
			}
		}
	}
	return out
}

// FunctionResponse is a functionResponse part a client sent back.
type FunctionResponse struct {
	Name     string
	Response json.RawMessage // the response object as sent
}

// FunctionResponses returns the functionResponse parts of the request's
// contents, in order.
func (r *Request) FunctionResponses() []FunctionResponse {
	var out []FunctionResponse
	contents, _ := r.Body["contents"].([]any)
	for _, c := range contents {
		cm, _ := c.(map[string]any)
		parts, _ := cm["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			fr, ok := pm["functionResponse"].(map[string]any)
			if !ok {
				continue
			}
			name, _ := fr["name"].(string)
			resp, _ := json.Marshal(fr["response"])
			out = append(out, FunctionResponse{Name: name, Response: resp})
		}
	}
	return out
}
