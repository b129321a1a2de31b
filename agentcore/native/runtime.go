// Package native is the runtime where Hermes owns the agent loop: an
// OpenAI-compatible chat-completions model (streamed through openai-go)
// calls tools served by MCP clients, and the loop runs until the model
// answers without tool calls, the turn budget (agent.max_turns) is spent,
// the API fails or the caller cancels.
package native

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/respjson"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hermes-go/hermes/agentcore"
	"github.com/hermes-go/hermes/agentcore/mcpclients"
)

// Tools is where tool calls go; *mcpclients.Manager implements it.
type Tools interface {
	Tools() []mcpclients.Tool
	// Call returns the tool message text; it reports failures in the text
	// (as {"error": ...}) so the model can react.
	Call(ctx context.Context, name, argsJSON string) string
}

// Options configure a Runtime.
type Options struct {
	Config Config
	// Tools may be nil for a model without tools.
	Tools Tools
	// SystemPrompt, when set, is sent first on every request; Notes (such
	// as mcpclients.Manager.FailureNote) are appended to it so the model
	// knows which servers are missing.
	SystemPrompt string
	Notes        []string
	// OnText receives assistant text deltas as they stream, for a CLI to
	// print. Called from the RunTurn goroutine, never concurrently.
	OnText func(delta string)
	// OnToolCall is told about each tool call before it runs (from the
	// RunTurn goroutine), for a CLI to show progress.
	OnToolCall func(call agentcore.ToolCall)
	// HTTPClient overrides the client used for API requests.
	HTTPClient *http.Client
	// BeforeCall, when set, is offered the transcript before each model
	// call after a turn's first (a tool round grew it); a non-nil result
	// replaces it: the conversation compressed it to fit the context.
	BeforeCall func(ctx context.Context, msgs []agentcore.Message) []agentcore.Message
}

// Runtime runs user turns. It holds no conversation state: callers pass
// the history in and keep Result.Messages.
type Runtime struct {
	opts   Options
	client openai.Client
}

// New checks the options and builds the API client.
func New(opts Options) (*Runtime, error) {
	if err := opts.Config.validate("config.yaml"); err != nil {
		return nil, err
	}
	reqOpts := []option.RequestOption{
		option.WithBaseURL(opts.Config.BaseURL),
		option.WithMaxRetries(opts.Config.MaxRetries),
	}
	// Always set, even empty: the SDK would otherwise take
	// OPENAI_API_KEY from the process environment and send an OpenAI key
	// to another provider.
	reqOpts = append(reqOpts, option.WithAPIKey(opts.Config.APIKey))
	if opts.HTTPClient != nil {
		reqOpts = append(reqOpts, option.WithHTTPClient(opts.HTTPClient))
	}
	return &Runtime{opts: opts, client: openai.NewClient(reqOpts...)}, nil
}

// RunTurn sends userText after history and runs the tool loop. Failures of
// the model API, the turn budget and interrupts are reported in the Result
// (Error, Completed, Partial, Interrupted), not as an error; the error is
// only for a call that cannot start (empty userText). Result.Messages is
// the whole conversation: history, the user message, and what this turn
// added, so the caller can store it and pass it back next turn.
func (r *Runtime) RunTurn(ctx context.Context, history []agentcore.Message, userText string) (agentcore.Result, error) {
	res := agentcore.Result{Model: r.opts.Config.Model, Provider: r.opts.Config.Provider}
	if strings.TrimSpace(userText) == "" {
		return res, errors.New("native: empty user message; nothing to send")
	}
	msgs := append(append([]agentcore.Message(nil), history...), agentcore.Message{Role: "user", Content: userText})
	res.Messages = msgs
	tools := r.toolParams()

	for res.APICalls < r.opts.Config.MaxTurns {
		if ctx.Err() != nil {
			return r.interrupted(res), nil
		}
		if res.APICalls > 0 && r.opts.BeforeCall != nil {
			if next := r.opts.BeforeCall(ctx, res.Messages); next != nil {
				res.Messages = next
			}
		}
		params := openai.ChatCompletionNewParams{
			Model:         shared.ChatModel(r.opts.Config.Model),
			Messages:      r.toParams(res.Messages),
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		}
		if e := r.opts.Config.ReasoningEffort; e != "" {
			params.ReasoningEffort = shared.ReasoningEffort(e)
		}
		if len(tools) > 0 {
			params.Tools = tools
		}
		msg, usage, err := r.stream(ctx, params)
		res.APICalls++
		addUsage(&res.Usage, usage)
		if err != nil {
			if msg.Content != "" {
				// Keep what streamed before the failure: the user saw it.
				res.Messages = append(res.Messages, agentcore.Message{Role: "assistant", Content: msg.Content})
			}
			if ctx.Err() != nil {
				return r.interrupted(res), nil
			}
			res.Error = describeAPIError(err, r.opts.Config)
			res.ErrorKind = classifyAPIError(err)
			res.Partial = true
			return res, nil
		}
		res.Messages = append(res.Messages, msg)
		if len(msg.ToolCalls) == 0 {
			res.FinalResponse = msg.Content
			res.Completed = true
			return res, nil
		}
		res.Messages = append(res.Messages, r.runTools(ctx, msg.ToolCalls)...)
		res.ToolIterations += len(msg.ToolCalls)
		if ctx.Err() != nil {
			return r.interrupted(res), nil
		}
	}
	res.Partial = true
	res.Error = fmt.Sprintf("stopped after %d model calls without a final answer (agent.max_turns = %d); raise agent.max_turns in config.yaml or ask the model to continue", res.APICalls, r.opts.Config.MaxTurns)
	return res, nil
}

func (r *Runtime) interrupted(res agentcore.Result) agentcore.Result {
	res.Interrupted = true
	res.Partial = true
	return res
}

func addUsage(total *agentcore.Usage, u openai.CompletionUsage) {
	total.InputTokens += u.PromptTokens
	total.OutputTokens += u.CompletionTokens
	total.CacheReadTokens += u.PromptTokensDetails.CachedTokens
	total.ReasoningTokens += u.CompletionTokensDetails.ReasoningTokens
	total.TotalTokens += u.TotalTokens
}

// toolParams converts the tool list once per turn; the MCP tool set does
// not change during a turn.
func (r *Runtime) toolParams() []openai.ChatCompletionToolUnionParam {
	if r.opts.Tools == nil {
		return nil
	}
	var out []openai.ChatCompletionToolUnionParam
	for _, t := range r.opts.Tools.Tools() {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(t.Parameters)}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		out = append(out, openai.ChatCompletionFunctionTool(fn))
	}
	return out
}

func (r *Runtime) systemPrompt() string {
	parts := []string{}
	if r.opts.SystemPrompt != "" {
		parts = append(parts, r.opts.SystemPrompt)
	}
	for _, n := range r.opts.Notes {
		if n != "" {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "\n\n")
}

func (r *Runtime) toParams(msgs []agentcore.Message) []openai.ChatCompletionMessageParamUnion {
	var out []openai.ChatCompletionMessageParamUnion
	if sp := r.systemPrompt(); sp != "" {
		out = append(out, openai.SystemMessage(sp))
	}
	for _, m := range msgs {
		switch m.Role {
		case "system":
			out = append(out, openai.SystemMessage(m.Content))
		case "user":
			out = append(out, openai.UserMessage(m.Content))
		case "tool":
			out = append(out, openai.ToolMessage(m.Content, m.ToolCallID))
		case "assistant":
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Content)
			}
			if m.Reasoning != "" || (len(m.ToolCalls) > 0 && echoesReasoning(r.opts.Config)) {
				// Thinking providers (DeepSeek, Kimi) answer 400 to a tool
				// turn whose assistant message lacks reasoning_content, and
				// others use it to keep the chain of thought across calls;
				// the empty string satisfies the check for a message that
				// had none (one stored before we kept reasoning).
				a.SetExtraFields(map[string]any{"reasoning_content": m.Reasoning})
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Function.Name, Arguments: tc.Function.Arguments},
					},
				})
			}
			out = append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		}
	}
	return out
}

// stream runs one streamed request and reassembles the assistant message;
// tool-call fragments arrive keyed by index, with id and name first and
// the arguments in pieces.
func (r *Runtime) stream(ctx context.Context, params openai.ChatCompletionNewParams) (agentcore.Message, openai.CompletionUsage, error) {
	s := r.client.Chat.Completions.NewStreaming(ctx, params, option.WithMiddleware(jsonAsStream(r.opts.Config.BaseURL)))
	defer s.Close()
	var (
		chunks int
		text   strings.Builder
		reason strings.Builder
		calls  []*agentcore.ToolCall
		index  = map[int64]*agentcore.ToolCall{}
		usage  openai.CompletionUsage
	)
	for s.Next() {
		chunk := s.Current()
		chunks++
		if chunk.Usage.TotalTokens > 0 || chunk.Usage.PromptTokens > 0 {
			usage = chunk.Usage
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue // n > 1 is never requested
			}
			reason.WriteString(reasoningDelta(ch.Delta.JSON.ExtraFields))
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				if r.opts.OnText != nil {
					r.opts.OnText(d)
				}
			}
			for _, tc := range ch.Delta.ToolCalls {
				c := index[tc.Index]
				if c == nil {
					c = &agentcore.ToolCall{Type: "function"}
					index[tc.Index] = c
					calls = append(calls, c)
				}
				if tc.ID != "" {
					c.ID = tc.ID
				}
				if tc.Function.Name != "" {
					c.Function.Name += tc.Function.Name
				}
				c.Function.Arguments += tc.Function.Arguments
			}
		}
	}
	msg := agentcore.Message{Role: "assistant", Content: text.String(), Reasoning: reason.String()}
	if err := s.Err(); err != nil {
		return msg, usage, err
	}
	if chunks == 0 {
		// A body with no events (an HTML page, plain text) would
		// otherwise be an empty answer the user cannot tell from silence.
		return msg, usage, fmt.Errorf("the server sent no chat-completion chunks; check model.base_url (%s) is an OpenAI-compatible /v1 endpoint", r.opts.Config.BaseURL)
	}
	for i, c := range calls {
		if c.ID == "" {
			// Some compatible servers omit ids; the tool message must
			// still name the call it answers.
			c.ID = fmt.Sprintf("call_%d_%d", len(params.Messages), i)
		}
		msg.ToolCalls = append(msg.ToolCalls, *c)
	}
	return msg, usage, nil
}

// reasoningDelta is the reasoning text a chunk carries outside the
// OpenAI schema: DeepSeek and Kimi name it reasoning_content, OpenRouter
// and vLLM reasoning. Only one is taken so a server sending both does not
// double the text.
func reasoningDelta(extra map[string]respjson.Field) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		f, ok := extra[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// echoesReasoning reports whether the provider rejects an assistant tool
// call sent back without reasoning_content.
func echoesReasoning(cfg Config) bool {
	p := strings.ToLower(cfg.Provider)
	if p == "deepseek" || p == "kimi" || p == "kimi-coding" || p == "moonshot" {
		return true
	}
	host := strings.ToLower(cfg.BaseURL)
	return strings.Contains(host, "api.deepseek.com") || strings.Contains(host, "moonshot") || strings.Contains(host, "api.kimi.com")
}

// runTools executes the calls concurrently (the model asked for them in
// one response, so they are independent) and returns the tool messages in
// the order of the calls.
func (r *Runtime) runTools(ctx context.Context, calls []agentcore.ToolCall) []agentcore.Message {
	out := make([]agentcore.Message, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		if r.opts.OnToolCall != nil {
			r.opts.OnToolCall(c)
		}
		out[i] = agentcore.Message{Role: "tool", ToolCallID: c.ID}
		if r.opts.Tools == nil {
			out[i].Content = `{"error":"no tools are available in this session"}`
			continue
		}
		wg.Go(func() { out[i].Content = r.opts.Tools.Call(ctx, c.Function.Name, c.Function.Arguments) })
	}
	wg.Wait()
	return out
}

// classifyAPIError sorts a failed model call the way the Python Hermes'
// kanban workers report it: rate limits, overload, server errors and
// timeouts are transient; rejected credentials and an unknown model or
// endpoint are terminal; anything else is neither.
func classifyAPIError(err error) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		switch code := apiErr.StatusCode; {
		case code == http.StatusUnauthorized || code == http.StatusForbidden || code == http.StatusNotFound:
			return agentcore.ErrorTerminal
		case code == http.StatusTooManyRequests || code == http.StatusPaymentRequired || code == http.StatusRequestTimeout || code >= 500:
			// 402 is the original's "billing" reason: credit or quota
			// runs out and comes back; it requeues such a worker.
			return agentcore.ErrorTransient
		}
		return ""
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return agentcore.ErrorTransient
	}
	return ""
}

// describeAPIError says what failed and what the user can do about it.
func describeAPIError(err error, cfg Config) string {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		msg := apiErr.Message
		if msg == "" {
			msg = http.StatusText(apiErr.StatusCode)
		}
		switch code := apiErr.StatusCode; {
		case code == http.StatusUnauthorized || code == http.StatusForbidden:
			return fmt.Sprintf("model API rejected the credentials (HTTP %d: %s); set model.api_key in config.yaml or %s", code, msg, cmp.Or(cfg.KeyHint, "the provider's API key variable"))
		case code == http.StatusNotFound:
			return fmt.Sprintf("model API answered HTTP 404 (%s); check model.default (%q) and model.base_url (%s)", msg, cfg.Model, cfg.BaseURL)
		case code == http.StatusTooManyRequests:
			return fmt.Sprintf("model API rate limit or quota hit (HTTP 429: %s); wait and retry, or check your plan", msg)
		case code >= 500:
			return fmt.Sprintf("model API server error (HTTP %d: %s) after %d retries; retry later or switch model.base_url", code, msg, cfg.MaxRetries)
		default:
			return fmt.Sprintf("model API error (HTTP %d: %s)", code, msg)
		}
	}
	return fmt.Sprintf("model API request to %s failed: %v; check model.base_url and your network", cfg.BaseURL, err)
}
