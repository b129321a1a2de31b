// Package agentcore is the thin Hermes agent: one conversation loop over
// the same tools on two runtimes, native (an OpenAI-compatible chat
// completions model, the tool loop in Go) and codex (codex app-server owns
// the loop and calls back into hermes-tools).
package agentcore

// Kinds of Result.ErrorKind.
const (
	ErrorTransient = "transient"
	ErrorTerminal  = "terminal"
)

// Usage counts tokens for one turn.
type Usage struct {
	InputTokens     int64 `json:"input_tokens"`
	OutputTokens    int64 `json:"output_tokens"`
	CacheReadTokens int64 `json:"cache_read_tokens"`
	ReasoningTokens int64 `json:"reasoning_tokens"`
	TotalTokens     int64 `json:"total_tokens"`
}

// Result is what one user turn produced, with the keys the Python Hermes'
// run_conversation returns (and its tests expect).
type Result struct {
	FinalResponse string    `json:"final_response"`
	Messages      []Message `json:"messages"`
	APICalls      int       `json:"api_calls"`
	// ToolIterations counts the tool calls the turn ran; the skill nudge
	// counter adds it up across turns.
	ToolIterations int  `json:"tool_iterations"`
	Completed      bool `json:"completed"`
	Partial        bool `json:"partial"`
	Interrupted    bool `json:"interrupted"`
	// Error says what went wrong and how to recover (e.g. how to fall back
	// to the native runtime); empty on success.
	Error string `json:"error,omitempty"`
	// ErrorKind classifies a model API failure: ErrorTransient (rate
	// limits, overload, server errors: worth retrying later) or
	// ErrorTerminal (rejected credentials, an unknown model: retrying
	// cannot help); empty for anything else. A kanban worker's exit code
	// says which, for the dispatcher.
	ErrorKind     string `json:"error_kind,omitempty"`
	Model         string `json:"model,omitempty"`
	Provider      string `json:"provider,omitempty"`
	SessionID     string `json:"session_id,omitempty"`
	CodexThreadID string `json:"codex_thread_id,omitempty"`
	CodexTurnID   string `json:"codex_turn_id,omitempty"`
	// Notes are things the user should know about the turn that are not
	// part of the answer (a tool codex refused, and how to allow it).
	Notes []string `json:"notes,omitempty"`
	Usage
}
