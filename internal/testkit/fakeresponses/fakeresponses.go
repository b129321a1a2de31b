// Package fakeresponses is a scripted fake of the OpenAI Responses API
// (POST /v1/responses, streamed as server-sent events) listening on
// 127.0.0.1, for driving the real codex CLI offline in tests.
//
// A test queues one Reply per model request (a "sampling step"): codex makes
// one request per step, so a turn in which the model calls a tool takes two
// replies, the call and then the final message. Replies are written in the
// exact event shapes of the real API (response.created, output_item.added,
// output_text.delta, output_item.done, response.completed), which is what
// codex parses; see codex-app-server.md §12.4. Every request is recorded and
// decoded enough to assert on what codex sent: the input items, tool
// outputs, tools offered and headers.
//
// Point codex at the server with CodexArgs (-c overrides) or ConfigTOML.
package fakeresponses

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

// ProviderID is the model_providers key CodexArgs and ConfigTOML define.
const ProviderID = "hermes_fake"

// DefaultModel is an unknown model slug: codex falls back to generic model
// metadata (and says so in a warning notification), which gives the simplest
// tool surface: plain function tools, MCP servers as namespaces.
const DefaultModel = "fake-model"

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	http   *fakeserver.Server
	script fakeserver.Script[Reply, *Request]
}

// Start listens on 127.0.0.1 on a free port and serves until Close.
func Start() (*Server, error) {
	s := &Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.serveResponses)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// Anything else codex might try (a models list, a websocket
		// upgrade) is not part of the fake; a 404 makes that visible.
		http.Error(w, "fakeresponses: not implemented: "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	})
	srv, err := fakeserver.Start("fakeresponses", mux)
	if err != nil {
		return nil, err
	}
	s.http = srv
	return s, nil
}

// New starts a server that is closed when tb ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	return fakeserver.ForTest(tb, Start)
}

// Close stops the server, ending any streams still open (held replies
// included), and waits for its goroutines to finish.
func (s *Server) Close() { s.http.Close() }

// URL is the provider base URL codex needs, ending in /v1.
func (s *Server) URL() string { return s.http.URL() + "/v1" }

// CodexArgs are `codex app-server` arguments that make DefaultModel on this
// server the model: a custom provider with retries off, so that an error
// reply fails the turn at once instead of being retried with backoff.
func (s *Server) CodexArgs() []string {
	return []string{
		"-c", `model="` + DefaultModel + `"`,
		"-c", `model_provider="` + ProviderID + `"`,
		"-c", `model_providers.` + ProviderID + `={name="Hermes fake Responses", base_url="` + s.URL() +
			`", wire_api="responses", request_max_retries=0, stream_max_retries=0}`,
	}
}

// ConfigTOML is the config.toml equivalent of CodexArgs.
func (s *Server) ConfigTOML() string {
	return fmt.Sprintf("model = %q\nmodel_provider = %q\n\n[model_providers.%s]\nname = \"Hermes fake Responses\"\n"+
		"base_url = %q\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n",
		DefaultModel, ProviderID, ProviderID, s.URL())
}

// Enqueue appends replies, used in order, one per request.
func (s *Server) Enqueue(replies ...Reply) { s.script.Enqueue(replies...) }

// Handle sets the function that answers requests once the queue is empty.
// Without one (and with an empty queue) a request gets HTTP 500 naming the
// missing script, which fails the turn visibly.
func (s *Server) Handle(fn func(*Request) Reply) { s.script.Handle(fn) }

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []*Request { return s.script.Requests() }

// WaitRequest waits until at least n requests have arrived and returns the
// n-th (1-based).
func (s *Server) WaitRequest(ctx context.Context, n int) (*Request, error) {
	r, err := s.script.WaitRequest(ctx, n)
	if err != nil {
		return nil, fmt.Errorf("fakeresponses: %w", err)
	}
	return r, nil
}

func (s *Server) serveResponses(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{Header: r.Header.Clone(), Body: body, done: make(chan struct{})}
	if err := req.decode(); err != nil {
		req.finish()
		http.Error(w, "fakeresponses: "+err.Error(), http.StatusBadRequest)
		return
	}

	reply, scripted := s.script.Take(req, func(n int) { req.N = n })
	defer req.finish()

	if !scripted {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("fakeresponses: no reply scripted for request %d", req.N), "", 0)
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		writeError(w, reply.Status, reply.ErrorMessage, reply.ErrorType, reply.ResetsAt)
		return
	}
	if reply.ID == "" {
		reply.ID = "resp_" + strconv.Itoa(req.N)
	}
	st := &stream{w: w, ctx: r.Context(), respID: reply.ID}
	if f, ok := w.(http.Flusher); ok {
		st.flush = f.Flush
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st.writeReply(reply)
}

// writeError answers like the real API does for a failed request: a JSON
// error object.
func writeError(w http.ResponseWriter, status int, msg, typ string, resetsAt int64) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	if typ == "" {
		typ = "server_error"
	}
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if resetsAt != 0 {
		e["resets_at"] = resetsAt
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// Reply is the scripted answer to one request.
type Reply struct {
	// Items are streamed in order; see Message, FunctionCall and the other
	// constructors, including the Hold and PartialMessage stream controls.
	Items []Item
	// ID is the response id; default resp_<n>.
	ID string
	// Usage, when set, is reported in response.completed.
	Usage *Usage
	// Status, when neither 0 nor 200, makes the reply a plain HTTP error
	// with ErrorMessage in the standard error body, and no stream.
	Status       int
	ErrorMessage string
	// ErrorType is the error body's type (default "server_error"), e.g.
	// "usage_limit_reached" with a 429; ResetsAt, when set, is its
	// resets_at (Unix seconds), as the ChatGPT backend reports a limit.
	ErrorType string
	ResetsAt  int64
	// Truncate ends the stream without response.completed, which codex
	// reports as "stream disconnected before completion".
	Truncate bool
	// Failed ends the stream with response.failed carrying this error
	// instead of response.completed.
	Failed *APIError
}

// Usage is the token usage of one response.
type Usage struct {
	InputTokens     int64
	CachedTokens    int64
	OutputTokens    int64
	ReasoningTokens int64
}

// APIError is a Responses API error object (response.failed).
type APIError struct {
	Code    string
	Message string
}

// Text is a reply with one assistant message.
func Text(text string) Reply { return Reply{Items: []Item{Message(text)}} }

// Call is a reply with one function call.
func Call(callID, name string, args any) Reply {
	return Reply{Items: []Item{FunctionCall(callID, name, args)}}
}

// Error is an HTTP error reply.
func Error(status int, msg string) Reply { return Reply{Status: status, ErrorMessage: msg} }

// Item is one element of a streamed reply.
type Item interface {
	write(st *stream)
}

type outputItem struct {
	item map[string]any
	// deltas streams a message's text as output_text.delta events between
	// output_item.added and output_item.done, as the real API does.
	deltas []string
	// partial stops after the deltas: the item is never done.
	partial bool
}

// Message is an assistant message, streamed as two text deltas and then the
// complete item.
func Message(text string) Item {
	mid := len(text) / 2
	for mid < len(text) && !utf8Start(text[mid]) {
		mid++
	}
	return &outputItem{
		item:   messageItem(text),
		deltas: []string{text[:mid], text[mid:]},
	}
}

// PartialMessage starts an assistant message and streams text, but never
// finishes it: follow it with Hold to leave a turn mid-message.
func PartialMessage(text string) Item {
	return &outputItem{item: messageItem(text), deltas: []string{text}, partial: true}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func messageItem(text string) map[string]any {
	return map[string]any{
		"type": "message", "role": "assistant", "status": "completed",
		"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}},
	}
}

// FunctionCall is a call of a top-level function tool (codex's built-ins
// such as exec_command, or a dynamic tool). args is marshalled to the JSON
// string the API sends, unless it already is a string or json.RawMessage.
func FunctionCall(callID, name string, args any) Item {
	return NamespacedCall(callID, "", name, args)
}

// NamespacedCall is a call of a tool inside a namespace; codex offers the
// tools of MCP server <s> as namespace "mcp__<s>" (dashes become
// underscores), and the tool name is the MCP tool's.
func NamespacedCall(callID, namespace, name string, args any) Item {
	it := map[string]any{
		"type": "function_call", "call_id": callID, "name": name,
		"arguments": argString(args), "status": "completed",
	}
	if namespace != "" {
		it["namespace"] = namespace
	}
	return &outputItem{item: it}
}

// MCPCall calls tool of the MCP server named server (as configured in
// codex), using codex's namespace naming.
func MCPCall(callID, server, tool string, args any) Item {
	return NamespacedCall(callID, MCPNamespace(server), tool, args)
}

// MCPNamespace is the namespace codex gives the tools of an MCP server.
func MCPNamespace(server string) string {
	return "mcp__" + strings.ReplaceAll(server, "-", "_")
}

// CustomToolCall is a call of a freeform tool, e.g. apply_patch for models
// that have it (gpt-5.5).
func CustomToolCall(callID, name, input string) Item {
	return &outputItem{item: map[string]any{
		"type": "custom_tool_call", "call_id": callID, "name": name, "input": input, "status": "completed",
	}}
}

// Reasoning is a reasoning item with summary and raw reasoning text.
func Reasoning(summary, content []string) Item {
	sum := []any{}
	for _, s := range summary {
		sum = append(sum, map[string]any{"type": "summary_text", "text": s})
	}
	con := []any{}
	for _, c := range content {
		con = append(con, map[string]any{"type": "reasoning_text", "text": c})
	}
	return &outputItem{item: map[string]any{"type": "reasoning", "summary": sum, "content": con}}
}

// Raw is an output item sent verbatim in output_item.done.
func Raw(item map[string]any) Item { return &outputItem{item: item} }

func argString(args any) string {
	switch a := args.(type) {
	case nil:
		return "{}"
	case string:
		return a
	case json.RawMessage:
		return string(a)
	}
	b, err := json.Marshal(args)
	if err != nil {
		panic(fmt.Sprintf("fakeresponses: arguments %#v: %v", args, err))
	}
	return string(b)
}

// Hold flushes what has been streamed so far and waits until release is
// closed or codex disconnects (an interrupt closes the request). A nil
// release waits for the disconnect.
func Hold(release <-chan struct{}) Item { return holdItem{release} }

type holdItem struct{ release <-chan struct{} }

func (h holdItem) write(st *stream) {
	if st.err != nil {
		return
	}
	st.flushNow()
	select {
	case <-h.release:
	case <-st.ctx.Done():
		st.err = st.ctx.Err()
	}
}

// Delay pauses the stream for d (or until codex disconnects).
func Delay(d time.Duration) Item { return delayItem(d) }

type delayItem time.Duration

func (d delayItem) write(st *stream) {
	if st.err != nil {
		return
	}
	st.flushNow()
	t := time.NewTimer(time.Duration(d))
	defer t.Stop()
	select {
	case <-t.C:
	case <-st.ctx.Done():
		st.err = st.ctx.Err()
	}
}

// stream writes SSE events.
type stream struct {
	w      io.Writer
	flush  func()
	ctx    context.Context
	respID string
	seq    int
	index  int // output_index of the next item
	buf    bytes.Buffer
	err    error
}

func (st *stream) event(typ string, fields map[string]any) {
	if st.err != nil {
		return
	}
	fields["type"] = typ
	fields["sequence_number"] = st.seq
	st.seq++
	b, err := json.Marshal(fields)
	if err != nil {
		st.err = err
		return
	}
	st.buf.WriteString("event: ")
	st.buf.WriteString(typ)
	st.buf.WriteString("\ndata: ")
	st.buf.Write(b)
	st.buf.WriteString("\n\n")
}

func (st *stream) flushNow() {
	if st.err != nil || st.buf.Len() == 0 {
		return
	}
	if _, err := st.w.Write(st.buf.Bytes()); err != nil {
		st.err = err
		return
	}
	st.buf.Reset()
	if st.flush != nil {
		st.flush()
	}
}

func (st *stream) response(status string, extra map[string]any) map[string]any {
	r := map[string]any{"id": st.respID, "object": "response", "status": status, "model": DefaultModel}
	for k, v := range extra {
		r[k] = v
	}
	return r
}

func (st *stream) writeReply(r Reply) {
	st.event("response.created", map[string]any{"response": st.response("in_progress", map[string]any{"output": []any{}})})
	st.flushNow()
	for _, it := range r.Items {
		it.write(st)
	}
	switch {
	case r.Truncate:
	case r.Failed != nil:
		st.event("response.failed", map[string]any{"response": st.response("failed", map[string]any{
			"error": map[string]any{"code": r.Failed.Code, "message": r.Failed.Message},
		})})
	default:
		extra := map[string]any{}
		if u := r.Usage; u != nil {
			extra["usage"] = map[string]any{
				"input_tokens":          u.InputTokens,
				"input_tokens_details":  map[string]any{"cached_tokens": u.CachedTokens},
				"output_tokens":         u.OutputTokens,
				"output_tokens_details": map[string]any{"reasoning_tokens": u.ReasoningTokens},
				"total_tokens":          u.InputTokens + u.OutputTokens,
			}
		}
		st.event("response.completed", map[string]any{"response": st.response("completed", extra)})
	}
	st.flushNow()
}

func (it *outputItem) write(st *stream) {
	idx := st.index
	st.index++
	item := make(map[string]any, len(it.item)+1)
	for k, v := range it.item {
		item[k] = v
	}
	if _, ok := item["id"]; !ok {
		item["id"] = fmt.Sprintf("item_%s_%d", st.respID, idx)
	}
	if item["type"] == "message" {
		added := make(map[string]any, len(item))
		for k, v := range item {
			added[k] = v
		}
		added["status"] = "in_progress"
		added["content"] = []any{}
		st.event("response.output_item.added", map[string]any{"output_index": idx, "item": added})
		for _, d := range it.deltas {
			st.event("response.output_text.delta", map[string]any{
				"item_id": item["id"], "output_index": idx, "content_index": 0, "delta": d, "logprobs": []any{},
			})
		}
		if it.partial {
			return
		}
	}
	st.event("response.output_item.done", map[string]any{"output_index": idx, "item": item})
}

// Request is one request codex made.
type Request struct {
	// N is the request's position, from 1.
	N      int
	Header http.Header
	// Body is the raw JSON body.
	Body []byte
	// Model is the requested model slug.
	Model string
	// Input is the input array, in order.
	Input []InputItem
	// Tools is the tools array, raw.
	Tools []json.RawMessage

	done chan struct{}
	end  time.Time
}

// InputItem is an element of a request's input, decoded loosely: which
// fields are set depends on Type.
type InputItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	Output    json.RawMessage `json:"output"`
	// Raw is the whole item.
	Raw json.RawMessage `json:"-"`
}

func (r *Request) decode() error {
	var body struct {
		Model string            `json:"model"`
		Input []json.RawMessage `json:"input"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return fmt.Errorf("request body: %w", err)
	}
	r.Model, r.Tools = body.Model, body.Tools
	for _, raw := range body.Input {
		var it InputItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return fmt.Errorf("input item %s: %w", raw, err)
		}
		it.Raw = raw
		r.Input = append(r.Input, it)
	}
	return nil
}

func (r *Request) finish() {
	r.end = time.Now()
	close(r.done)
}

// StreamEnd waits until the reply to r has been written completely (its last
// byte flushed to codex, or the stream abandoned) and returns when that was.
func (r *Request) StreamEnd(ctx context.Context) (time.Time, error) {
	select {
	case <-r.done:
		return r.end, nil
	case <-ctx.Done():
		return time.Time{}, fmt.Errorf("fakeresponses: request %d still streaming: %w", r.N, ctx.Err())
	}
}

// Text flattens a message's content (a string, or input_text/output_text
// parts) or a tool output to plain text, parts joined by newlines.
func (it InputItem) Text() string {
	raw := it.Content
	if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
		raw = it.Output
	}
	return flattenText(raw)
}

func flattenText(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return ""
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n")
}

// ToolOutput is the result of a tool call as sent back to the model.
type ToolOutput struct {
	CallID string
	Text   string
}

// ToolOutputs lists the function and custom tool outputs in the input.
func (r *Request) ToolOutputs() []ToolOutput {
	var out []ToolOutput
	for _, it := range r.Input {
		if it.Type == "function_call_output" || it.Type == "custom_tool_call_output" {
			out = append(out, ToolOutput{CallID: it.CallID, Text: it.Text()})
		}
	}
	return out
}

// ToolOutput returns the output for callID, if the request carries one.
func (r *Request) ToolOutput(callID string) (string, bool) {
	for _, o := range r.ToolOutputs() {
		if o.CallID == callID {
			return o.Text, true
		}
	}
	return "", false
}

// UserTexts lists the text of the user messages, in order. Codex's own
// context messages (environment context, instructions) are user or
// developer messages too; they are included.
func (r *Request) UserTexts() []string {
	var out []string
	for _, it := range r.Input {
		if it.Type == "message" && it.Role == "user" {
			out = append(out, it.Text())
		}
	}
	return out
}

// LastUserText is the text of the last user message.
func (r *Request) LastUserText() string {
	u := r.UserTexts()
	if len(u) == 0 {
		return ""
	}
	return u[len(u)-1]
}

// AfterToolOutput reports whether a tool output follows the last user
// message: the model is being asked to continue after a tool ran. Codex adds
// developer messages mid-turn, so looking only at the last item is wrong.
func (r *Request) AfterToolOutput() bool {
	for i := len(r.Input) - 1; i >= 0; i-- {
		it := r.Input[i]
		switch {
		case it.Type == "function_call_output" || it.Type == "custom_tool_call_output":
			return true
		case it.Type == "message" && it.Role == "user":
			return false
		}
	}
	return false
}

// ToolNames lists the names of the tools offered: functions by name,
// namespaces as "<namespace>.<function>".
func (r *Request) ToolNames() []string {
	var out []string
	for _, raw := range r.Tools {
		var t struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if json.Unmarshal(raw, &t) != nil {
			continue
		}
		if t.Type == "namespace" {
			for _, sub := range t.Tools {
				out = append(out, t.Name+"."+sub.Name)
			}
			continue
		}
		if t.Name != "" {
			out = append(out, t.Name)
		} else {
			out = append(out, t.Type)
		}
	}
	return out
}
