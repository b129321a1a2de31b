package native

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hermes-go/hermes/agentcore"
)

// SideRequest is one side-task call (a goal verdict, a title, a summary):
// a system and a user message, no tools, answered in one reply.
type SideRequest struct {
	System string
	User   string
	// MaxTokens bounds the reply; 0 leaves it to the server.
	MaxTokens int
	// Temperature is sent when not nil (the original's judge sends 0).
	Temperature *float64
}

// Complete runs one side-task request on cfg's model, outside any
// conversation, and returns the reply text. The request is not streamed:
// nobody watches a side task as it is written.
func Complete(ctx context.Context, cfg Config, req SideRequest) (string, agentcore.Usage, error) {
	var usage agentcore.Usage
	if err := cfg.validate("config.yaml"); err != nil {
		return "", usage, err
	}
	if strings.TrimSpace(req.User) == "" {
		return "", usage, errors.New("native: empty side-task request")
	}
	client := openai.NewClient(option.WithBaseURL(cfg.BaseURL), option.WithMaxRetries(cfg.MaxRetries),
		// Always set, even empty, so the SDK never takes OPENAI_API_KEY
		// from the environment for another provider.
		option.WithAPIKey(cfg.APIKey))
	var msgs []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		msgs = append(msgs, openai.SystemMessage(req.System))
	}
	msgs = append(msgs, openai.UserMessage(req.User))
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(cfg.Model), Messages: msgs}
	if req.MaxTokens > 0 {
		params.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	resp, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		return "", usage, fmt.Errorf("side task on model %s at %s: %s", cfg.Model, cfg.BaseURL, describeAPIError(err, cfg))
	}
	addUsage(&usage, resp.Usage)
	if len(resp.Choices) == 0 {
		return "", usage, fmt.Errorf("side task: model %s at %s answered with no choices", cfg.Model, cfg.BaseURL)
	}
	return resp.Choices[0].Message.Content, usage, nil
}
