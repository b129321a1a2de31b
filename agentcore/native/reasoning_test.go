package native

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/mcpclients"
	"github.com/hermes-go/hermes/internal/testkit/fakeserver"
)

// deepseekFake speaks DeepSeek's thinking mode: every streamed reply
// carries reasoning_content deltas, and a request holding an assistant
// message with tool_calls but no reasoning_content is refused with a 400,
// as api.deepseek.com does.
type deepseekFake struct {
	mu       sync.Mutex
	calls    int
	bodies   []map[string]any
	rejected int
}

func (f *deepseekFake) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	msgs, _ := body["messages"].([]any)
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		if mm["role"] != "assistant" || mm["tool_calls"] == nil {
			continue
		}
		if _, ok := mm["reasoning_content"].(string); !ok {
			f.rejected++
			f.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"Missing reasoning_content field in the assistant message at message index %d","type":"invalid_request_error","code":"invalid_request_error"}}`, i)
			return
		}
	}
	f.calls++
	n := f.calls
	f.mu.Unlock()

	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta string) {
		fmt.Fprintf(w, "data: {\"id\":\"c%d\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"deepseek-reasoner\",\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":null}]}\n\n", n, delta)
	}
	chunk(`{"role":"assistant","content":null,"reasoning_content":"I should "}`)
	chunk(fmt.Sprintf(`{"reasoning_content":"think %d"}`, n))
	if n == 1 {
		chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{}"}}]}`)
	} else {
		chunk(`{"content":"done"}`)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

type lookupTools struct{}

func (lookupTools) Tools() []mcpclients.Tool {
	return []mcpclients.Tool{{Name: "lookup", Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}
}

func (lookupTools) Call(context.Context, string, string) string { return `{"ok":true}` }

func TestReasoningContentEchoedOnToolTurns(t *testing.T) {
	for _, tc := range []struct {
		name     string
		provider string
		history  []agentcore.Message
	}{
		{name: "reasoning from this turn", provider: "deepseek"},
		{name: "stored tool call without reasoning", provider: "deepseek", history: []agentcore.Message{
			{Role: "user", Content: "earlier"},
			{Role: "assistant", ToolCalls: []agentcore.ToolCall{{ID: "old", Type: "function", Function: agentcore.FunctionCall{Name: "lookup", Arguments: "{}"}}}},
			{Role: "tool", ToolCallID: "old", Content: "{}"},
			{Role: "assistant", Content: "earlier answer"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &deepseekFake{}
			srv, err := fakeserver.Start("deepseek", http.HandlerFunc(f.serve))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cfg := Config{Model: "deepseek-reasoner", Provider: tc.provider, BaseURL: srv.URL() + "/v1", APIKey: "sk-test", MaxTurns: 5}
			r := newRuntime(t, Options{Config: cfg, Tools: lookupTools{}})
			res, err := r.RunTurn(context.Background(), tc.history, "go")
			if err != nil {
				t.Fatal(err)
			}
			if !res.Completed || res.FinalResponse != "done" || f.rejected != 0 {
				t.Fatalf("result = %+v, rejected = %d", res, f.rejected)
			}
			var reasons []string
			for _, m := range res.Messages[len(tc.history):] {
				if m.Role == "assistant" {
					reasons = append(reasons, m.Reasoning)
				}
			}
			if strings.Join(reasons, "|") != "I should think 1|I should think 2" {
				t.Errorf("kept reasoning = %q", reasons)
			}
			last := f.bodies[len(f.bodies)-1]["messages"].([]any)
			var echoed []any
			for _, m := range last {
				mm := m.(map[string]any)
				if mm["role"] == "assistant" && mm["tool_calls"] != nil {
					echoed = append(echoed, mm["reasoning_content"])
				}
			}
			if got := echoed[len(echoed)-1]; got != "I should think 1" {
				t.Errorf("echoed reasoning_content = %v", echoed)
			}
		})
	}
}
