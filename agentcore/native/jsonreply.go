package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
)

// maxJSONReply bounds how much of a non-streamed answer is read; a chat
// completion is far smaller, and a larger body is not one.
const maxJSONReply = 32 << 20

// jsonAsStream is a middleware for streamed requests: some local
// OpenAI-compatible servers (llama.cpp and Ollama variants) ignore
// "stream": true and answer with one ordinary chat.completion JSON. The SDK's
// event-stream decoder finds no events in it and the turn would end with an
// empty answer, so that body is rewritten into the equivalent event stream.
// A JSON body that is not a chat completion becomes an error naming the
// endpoint, never an empty answer.
func jsonAsStream(baseURL string) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		res, err := next(req)
		if err != nil || res.StatusCode != http.StatusOK {
			return res, err
		}
		mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
		if mt != "application/json" {
			return res, nil
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, maxJSONReply+1))
		res.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read the non-streamed answer of %s: %w", baseURL, err)
		}
		sse, err := completionToEvents(body)
		if err != nil {
			return nil, fmt.Errorf("model API at %s answered a streamed request with JSON that is not a chat completion (%w); check model.base_url points at an OpenAI-compatible /v1 endpoint", baseURL, err)
		}
		res.Header.Set("Content-Type", "text/event-stream")
		res.Header.Del("Content-Length")
		res.ContentLength = -1
		res.Body = io.NopCloser(bytes.NewReader(sse))
		return res, nil
	}
}

// completionToEvents turns a chat.completion body into the chunks a
// streaming server would have sent: the whole content and every tool call
// in one delta, then the usage, then [DONE].
func completionToEvents(body []byte) ([]byte, error) {
	if len(body) > maxJSONReply {
		return nil, fmt.Errorf("body larger than %d bytes", maxJSONReply)
	}
	var c openai.ChatCompletion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, err
	}
	if len(c.Choices) == 0 {
		return nil, fmt.Errorf("no choices in %s", abbreviate(body))
	}
	var b bytes.Buffer
	event := func(v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "data: %s\n\n", data)
		return nil
	}
	for _, ch := range c.Choices {
		delta := map[string]any{"role": "assistant", "content": ch.Message.Content}
		var calls []map[string]any
		for i, tc := range ch.Message.ToolCalls {
			calls = append(calls, map[string]any{"index": i, "id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Function.Name, "arguments": tc.Function.Arguments}})
		}
		if len(calls) > 0 {
			delta["tool_calls"] = calls
		}
		chunk := map[string]any{"id": c.ID, "object": "chat.completion.chunk", "created": c.Created, "model": c.Model,
			"choices": []any{map[string]any{"index": ch.Index, "delta": delta, "finish_reason": ch.FinishReason}}}
		if err := event(chunk); err != nil {
			return nil, err
		}
	}
	if c.JSON.Usage.Valid() {
		var raw struct {
			Usage json.RawMessage `json:"usage"`
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			return nil, err
		}
		chunk := map[string]any{"id": c.ID, "object": "chat.completion.chunk", "created": c.Created, "model": c.Model,
			"choices": []any{}, "usage": raw.Usage}
		if err := event(chunk); err != nil {
			return nil, err
		}
	}
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes(), nil
}

func abbreviate(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
