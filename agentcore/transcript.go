package agentcore

import "encoding/json"

// Message is one entry of an OpenAI chat-completions style transcript, the
// shape Hermes keeps its conversation history in. Both runtimes produce it:
// the native runtime from the model's replies, the codex runtime by
// converting the projection of codex's items. Its JSON is what state.db and
// the Python Hermes read, so field names and encoding must not change.
type Message struct {
	// Role is "user", "assistant" or "tool".
	Role string `json:"role"`
	// Content is the text. It is sent as JSON null on an assistant message
	// that carries ToolCalls, as the chat-completions format has it.
	Content string `json:"content"`
	// Reasoning is the model's reasoning (summary, then raw text) that
	// preceded this assistant message.
	Reasoning string `json:"reasoning,omitempty"`
	// ToolCalls are the calls an assistant message makes.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID names the call a "tool" message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// MarshalJSON writes content as null on tool-calling assistant messages.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	if len(m.ToolCalls) > 0 && m.Content == "" {
		return json.Marshal(struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
			plain
		}{Role: m.Role, plain: plain(m)})
	}
	return json.Marshal(plain(m))
}

// ToolCall is one function call in an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // always "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and carries its arguments as a JSON
// object in text form.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
