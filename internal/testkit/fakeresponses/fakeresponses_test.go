package fakeresponses

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

// post sends a request body the way codex does and returns the status and
// the SSE events (type and data), read until the stream ends.
func post(t *testing.T, ctx context.Context, s *Server, body string) (int, []event) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/responses", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Originator", "hermes")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	return resp.StatusCode, readEvents(t, resp.Body)
}

type event = fakeserver.Event

// readEvents reads the stream as the SDK does, checking that every event
// is named after its data's type.
func readEvents(t *testing.T, r io.Reader) []event {
	evs, err := fakeserver.ReadTypedSSE(r)
	if err != nil {
		t.Error(err)
	}
	return evs
}

func names(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

const body = `{"model":"fake-model","stream":true,"input":[` +
	`{"type":"message","role":"developer","content":[{"type":"input_text","text":"be nice"}]},` +
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]},` +
	`{"type":"function_call","call_id":"c1","name":"echo","namespace":"mcp__x","arguments":"{}"},` +
	`{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"Wall time"},{"type":"input_text","text":"Echo: hi"}]},` +
	`{"type":"message","role":"developer","content":"mid-turn note"},` +
	`{"type":"custom_tool_call_output","call_id":"c2","output":"patched"}],` +
	`"tools":[{"type":"function","name":"exec_command"},{"type":"namespace","name":"mcp__x","tools":[{"type":"function","name":"echo"}]},{"type":"web_search"}]}`

func TestStream(t *testing.T) {
	s := New(t)
	s.Enqueue(Reply{
		Items: []Item{
			Reasoning([]string{"think"}, []string{"raw"}),
			Message("héllo wörld"),
			MCPCall("c3", "hermes-tools", "skills_list", map[string]any{"q": 1}),
			CustomToolCall("c4", "apply_patch", "*** Begin Patch\n*** End Patch\n"),
		},
		Usage: &Usage{InputTokens: 10, CachedTokens: 2, OutputTokens: 3, ReasoningTokens: 1},
	})
	status, evs := post(t, context.Background(), s, body)
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	want := []string{"response.created", "response.output_item.done", "response.output_item.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_item.done",
		"response.output_item.done", "response.output_item.done", "response.completed"}
	if got := names(evs); !reflect.DeepEqual(got, want) {
		t.Fatalf("events %q", got)
	}
	for i, e := range evs {
		if e.Data["sequence_number"] != float64(i) {
			t.Errorf("event %d sequence_number %v", i, e.Data["sequence_number"])
		}
	}
	if d := evs[3].Data["delta"].(string) + evs[4].Data["delta"].(string); d != "héllo wörld" {
		t.Errorf("deltas %q", d)
	}
	msg := evs[5].Data["item"].(map[string]any)
	if msg["type"] != "message" || msg["role"] != "assistant" || msg["id"] != evs[3].Data["item_id"] {
		t.Errorf("message item %v", msg)
	}
	call := evs[6].Data["item"].(map[string]any)
	if call["namespace"] != "mcp__hermes_tools" || call["name"] != "skills_list" || call["arguments"] != `{"q":1}` || call["call_id"] != "c3" {
		t.Errorf("call item %v", call)
	}
	done := evs[8].Data["response"].(map[string]any)
	usage := done["usage"].(map[string]any)
	if done["id"] != "resp_1" || usage["input_tokens"] != float64(10) || usage["total_tokens"] != float64(13) {
		t.Errorf("completed %v", done)
	}

	req := s.Requests()[0]
	if req.N != 1 || req.Model != "fake-model" || req.Header.Get("Originator") != "hermes" || len(req.Input) != 6 {
		t.Errorf("request %+v", req)
	}
	if got := req.UserTexts(); !reflect.DeepEqual(got, []string{"hi"}) || req.LastUserText() != "hi" {
		t.Errorf("user texts %q", got)
	}
	if got := req.ToolOutputs(); !reflect.DeepEqual(got, []ToolOutput{{"c1", "Wall time\nEcho: hi"}, {"c2", "patched"}}) {
		t.Errorf("tool outputs %q", got)
	}
	if out, ok := req.ToolOutput("c2"); !ok || out != "patched" {
		t.Errorf("ToolOutput(c2) = %q, %v", out, ok)
	}
	if !req.AfterToolOutput() {
		t.Error("AfterToolOutput false")
	}
	if got := req.ToolNames(); !reflect.DeepEqual(got, []string{"exec_command", "mcp__x.echo", "web_search"}) {
		t.Errorf("tool names %q", got)
	}
	if end, err := req.StreamEnd(context.Background()); err != nil || end.IsZero() {
		t.Errorf("StreamEnd = %v, %v", end, err)
	}
}

func TestErrorsAndEndings(t *testing.T) {
	s := New(t)
	s.Enqueue(Error(500, "boom"), Reply{Items: []Item{Message("cut")}, Truncate: true},
		Reply{Failed: &APIError{Code: "insufficient_quota", Message: "no money"}})

	if status, _ := post(t, context.Background(), s, body); status != 500 {
		t.Errorf("error reply status %d", status)
	}
	_, evs := post(t, context.Background(), s, body)
	if last := evs[len(evs)-1].Name; last != "response.output_item.done" {
		t.Errorf("truncated stream ends with %s", last)
	}
	_, evs = post(t, context.Background(), s, body)
	failed := evs[len(evs)-1]
	errObj := failed.Data["response"].(map[string]any)["error"].(map[string]any)
	if failed.Name != "response.failed" || errObj["code"] != "insufficient_quota" {
		t.Errorf("failed event %v", failed)
	}
	// Nothing scripted: a visible 500.
	if status, _ := post(t, context.Background(), s, body); status != 500 {
		t.Errorf("unscripted status %d", status)
	}
	// A handler answers once the queue is empty.
	s.Handle(func(r *Request) Reply { return Text("handled " + r.LastUserText()) })
	_, evs = post(t, context.Background(), s, body)
	if item := evs[len(evs)-2].Data["item"].(map[string]any); item["content"].([]any)[0].(map[string]any)["text"] != "handled hi" {
		t.Errorf("handler reply %v", item)
	}
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET /models status %d", resp.StatusCode)
	}
}

func TestHold(t *testing.T) {
	s := New(t)
	release := make(chan struct{})
	s.Enqueue(
		Reply{Items: []Item{PartialMessage("part"), Hold(release), Message("rest")}},
		Reply{Items: []Item{PartialMessage("forever"), Hold(nil)}},
	)
	done := make(chan []event)
	go func() {
		_, evs := post(t, context.Background(), s, body)
		done <- evs
	}()
	req, err := s.WaitRequest(ctxT(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		t.Fatal("stream ended before release")
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	evs := <-done
	if got := names(evs); got[len(got)-1] != "response.completed" {
		t.Errorf("events %q", got)
	}
	if _, err := req.StreamEnd(ctxT(t)); err != nil {
		t.Error(err)
	}

	// A hold without release ends when the client goes away.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = s.WaitRequest(ctxT(t), 2)
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	req2, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/responses", strings.NewReader(body))
	if resp, err := http.DefaultClient.Do(req2); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	r2, _ := s.WaitRequest(ctxT(t), 2)
	if _, err := r2.StreamEnd(ctxT(t)); err != nil {
		t.Errorf("held stream did not end after disconnect: %v", err)
	}
}

func TestCodexConfig(t *testing.T) {
	s := New(t)
	args := strings.Join(s.CodexArgs(), " ")
	for _, want := range []string{`model="fake-model"`, `model_provider="hermes_fake"`, `base_url="` + s.URL() + `"`, `wire_api="responses"`, "request_max_retries=0"} {
		if !strings.Contains(args, want) {
			t.Errorf("CodexArgs lack %s: %s", want, args)
		}
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Errorf("URL %s", s.URL())
	}
	toml := s.ConfigTOML()
	if !strings.Contains(toml, "[model_providers.hermes_fake]\n") || !strings.Contains(toml, `base_url = "`+s.URL()+`"`) {
		t.Errorf("ConfigTOML:\n%s", toml)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}
