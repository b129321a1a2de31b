// Package chatmsg is the OpenAI chat-completions message shape Hermes keeps
// its conversation history in. The agent's runtimes write it and the codex
// bridge projects codex's items into it; both name this one type, so the
// two cannot drift apart. Its JSON is what state.db and the Python Hermes
// read: field names and encoding must not change.
package chatmsg

import "encoding/json"

// Message is one entry of a transcript.
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
