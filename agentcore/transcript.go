package agentcore

import "github.com/hermes-go/hermes/internal/chatmsg"

// The transcript both runtimes produce: the native runtime from the model's
// replies, the codex runtime from the bridge's projection of codex's items,
// which is the same type.
type (
	Message      = chatmsg.Message
	ToolCall     = chatmsg.ToolCall
	FunctionCall = chatmsg.FunctionCall
)
