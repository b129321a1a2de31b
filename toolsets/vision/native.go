package vision

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
)

// anthropicMaxTokens is modest: a non-streamed Messages call with a model's
// full output ceiling is refused as too long, and a description needs far
// less.
const anthropicMaxTokens = 4096

// geminiMaxTokens is what the original asks Gemini for.
const geminiMaxTokens = 65535

// splitDataURL returns a data URL's media type and base64 payload.
func splitDataURL(dataURL string) (mediaType, data string) {
	meta, data, _ := strings.Cut(strings.TrimPrefix(dataURL, "data:"), ",")
	mediaType, _, _ = strings.Cut(meta, ";")
	if mediaType == "" {
		mediaType = "image/png"
	}
	return mediaType, data
}

// askAnthropic sends the image through Anthropic's Messages API.
func (v *Client) askAnthropic(ctx context.Context, conf resolved, dataURL, prompt string) (string, error) {
	mt, data := splitDataURL(dataURL)
	h := http.Header{}
	h.Set("x-api-key", conf.APIKey)
	h.Set("anthropic-version", "2023-06-01")
	raw, err := v.e.PostJSON(ctx, conf.BaseURL+"/v1/messages", h, map[string]any{
		"model":      conf.Model,
		"max_tokens": anthropicMaxTokens,
		"messages": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": prompt},
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": mt, "data": data}},
		}}},
		"temperature": conf.Temperature,
	}, conf.timeout)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", mediaapi.APIError("the vision model "+conf.Model, conf.BaseURL, conf.KeyHint, err)
	}
	var resp struct {
		Type    string `json:"type"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || resp.Type != "message" {
		return "", fmt.Errorf("the vision model %s answered with something other than an Anthropic message: %s", conf.Model, clip(raw))
	}
	var out []string
	for _, b := range resp.Content {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			out = append(out, b.Text)
		}
	}
	if len(out) == 0 {
		if resp.StopReason == "refusal" {
			return "", errors.New("the vision model refused")
		}
		return "", fmt.Errorf("the vision model %s returned no answer; check that it accepts images", conf.Model)
	}
	return strings.Join(out, ""), nil
}

// askGemini sends the image through Gemini's generateContent, the key in
// x-goog-api-key (never in the URL, which errors may quote).
func (v *Client) askGemini(ctx context.Context, conf resolved, dataURL, prompt string) (string, error) {
	mt, data := splitDataURL(dataURL)
	h := http.Header{}
	h.Set("x-goog-api-key", conf.APIKey)
	raw, err := v.e.PostJSON(ctx, conf.BaseURL+"/models/"+url.PathEscape(conf.Model)+":generateContent", h, map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{
			map[string]any{"text": prompt},
			map[string]any{"inlineData": map[string]any{"mimeType": mt, "data": data}},
		}}},
		"generationConfig": map[string]any{"temperature": conf.Temperature, "maxOutputTokens": geminiMaxTokens},
	}, conf.timeout)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", mediaapi.APIError("the vision model "+conf.Model, conf.BaseURL, conf.KeyHint, err)
	}
	var resp struct {
		Candidates *[]struct {
			Content struct {
				Parts []struct {
					Text    string `json:"text"`
					Thought bool   `json:"thought"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		PromptFeedback *struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || (resp.Candidates == nil && resp.PromptFeedback == nil) {
		return "", fmt.Errorf("the vision model %s answered with something other than a generateContent response: %s", conf.Model, clip(raw))
	}
	if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
		return "", fmt.Errorf("the vision model refused: %s", resp.PromptFeedback.BlockReason)
	}
	var out []string
	if resp.Candidates != nil {
		for _, c := range *resp.Candidates {
			for _, p := range c.Content.Parts {
				if !p.Thought && p.Text != "" {
					out = append(out, p.Text)
				}
			}
			break
		}
	}
	if strings.TrimSpace(strings.Join(out, "")) == "" {
		return "", fmt.Errorf("the vision model %s returned no answer; check that it accepts images", conf.Model)
	}
	return strings.Join(out, ""), nil
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
