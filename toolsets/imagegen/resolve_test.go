package imagegen

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// The checks hide a tool with a reason that says what to set; each case is
// the Check of the named toolset's tool. wantErr "" means available.
func TestChecks(t *testing.T) {
	toolsets := map[string]func(Options) tooldef.Toolset{"image_gen": Toolset}
	tests := []struct {
		name, toolset string
		env           map[string]string
		config        string
		espeak        bool
		wantErr       string
	}{
		{"image without keys", "image_gen", nil, "", false, "image generation needs FAL_KEY or OPENAI_API_KEY"},
		{"image with FAL_KEY", "image_gen", map[string]string{"FAL_KEY": "f"}, "", false, ""},
		{"image with OPENAI_API_KEY", "image_gen", map[string]string{"OPENAI_API_KEY": "k"}, "", false, ""},
		{"image fal without FAL_KEY", "image_gen", map[string]string{"OPENAI_API_KEY": "k"}, "image_gen:\n  provider: fal\n", false, "image_gen.provider is fal but FAL_KEY is not set"},
		{"image openai without key", "image_gen", map[string]string{"FAL_KEY": "f"}, "image_gen:\n  provider: openai\n", false, "image_gen.provider is openai but OPENAI_API_KEY is not set"},
		{"image openai-compatible server needs no key", "image_gen", nil, "image_gen:\n  provider: openai\n  base_url: http://127.0.0.1:8080/v1\n", false, ""},
		{"image unsupported provider", "image_gen", map[string]string{"OPENAI_API_KEY": "k"}, "image_gen:\n  provider: midjourney\n", false, `image_gen.provider "midjourney" is not supported`},
		{"image krea without key", "image_gen", nil, "image_gen:\n  provider: krea\n", false, "KREA_API_KEY is not set"},
		{"image xai without key", "image_gen", nil, "image_gen:\n  provider: xai\n", false, "XAI_API_KEY is not set"},
		{"image xai bad resolution", "image_gen", map[string]string{"XAI_API_KEY": "x"}, "image_gen:\n  provider: xai\n  xai:\n    resolution: 8k\n", false, "must be 1k or 2k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := mediatest.Options(t, tt.env, tt.config, tt.espeak)
			err := mediatest.OnlyTool(t, toolsets[tt.toolset](opts)).Check()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check = %v, want available", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Check = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestResolveImage(t *testing.T) {
	tests := []struct {
		name                          string
		env                           map[string]string
		config                        string
		wantProvider, wantModel, base string
	}{
		{"FAL_KEY wins when unset", map[string]string{"FAL_KEY": "f", "OPENAI_API_KEY": "k"}, "", ProviderFAL, DefaultFALModel, defaultFALBase},
		{"OpenAI default model", map[string]string{"OPENAI_API_KEY": "k"}, "", ProviderOpenAI, DefaultOpenAIModel, mediaapi.DefaultOpenAIBase},
		{"env overrides", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_IMAGE_MODEL": "em", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "", ProviderOpenAI, "em", "http://127.0.0.1:9/v1"},
		{"config beats env", map[string]string{"FAL_KEY": "f", "FAL_IMAGE_MODEL": "em"}, "image_gen:\n  provider: FAL\n  model: fal-ai/gpt-image-2\n  base_url: http://127.0.0.1:7\n", ProviderFAL, "fal-ai/gpt-image-2", "http://127.0.0.1:7"},
		{"unknown FAL id falls back to the default", map[string]string{"FAL_KEY": "f", "FAL_IMAGE_MODEL": "fal-ai/flux/schnell"}, "", ProviderFAL, DefaultFALModel, defaultFALBase},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Resolve(mediatest.Options(t, tt.env, tt.config, false))
			if err != nil || b.Provider != tt.wantProvider || b.Model != tt.wantModel || b.BaseURL != tt.base || b.APIKey == "" {
				t.Errorf("got %+v, %v", b, err)
			}
		})
	}
}
