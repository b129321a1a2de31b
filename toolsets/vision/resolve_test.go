package vision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// The checks hide a tool with a reason that says what to set; each case is
// the Check of the named toolset's tool. wantErr "" means available.
func TestChecks(t *testing.T) {
	toolsets := map[string]func(Options) tooldef.Toolset{"vision": Toolset}
	tests := []struct {
		name, toolset string
		env           map[string]string
		config        string
		espeak        bool
		wantErr       string
	}{
		{"vision without key", "vision", nil, "auxiliary:\n  vision:\n    model: m\n", false, "vision needs an API key: set OPENAI_API_KEY"},
		{"vision with only a key", "vision", map[string]string{"OPENAI_API_KEY": "k"}, "", false, ""},
		{"vision on a custom server without model", "vision", nil, "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n", false, "no vision model configured"},
		{"vision configured", "vision", map[string]string{"OPENAI_API_KEY": "k", "AUXILIARY_VISION_MODEL": "vm"}, "", false, ""},
		{"vision unsupported provider", "vision", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: bedrock\n    model: x\n", false, `auxiliary.vision.provider "bedrock" is not supported`},
		{"vision anthropic without key", "vision", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: anthropic\n", false, "set ANTHROPIC_API_KEY"},
		{"vision gemini without key", "vision", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: gemini\n", false, "set GEMINI_API_KEY"},
		{"vision anthropic key alone", "vision", map[string]string{"ANTHROPIC_API_KEY": "a"}, "", false, ""},
		{"vision bad YAML", "vision", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary: [\n", false, "fix the YAML"},
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
			if tt.toolset == "vision" && Check(opts) == nil {
				t.Error("Check passed where vision_analyze's Check failed")
			}
		})
	}
}

// config.yaml is read on every check, so enabling a backend needs no
// restart.
func TestChecksReadConfigEveryCall(t *testing.T) {
	opts := mediatest.Options(t, nil, "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n", false)
	check := mediatest.OnlyTool(t, Toolset(opts)).Check
	if check() == nil {
		t.Fatal("available without a model")
	}
	if err := os.WriteFile(filepath.Join(opts.Home, "config.yaml"), []byte("auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n    model: m\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := check(); err != nil {
		t.Fatalf("still hidden after config.yaml named a model: %v", err)
	}
}

func TestResolveVision(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		config    string
		wantBase  string
		wantModel string
		wantErr   string
	}{
		{"no key", nil, "auxiliary:\n  vision:\n    model: m\n", "", "", "set OPENAI_API_KEY"},
		{"OpenAI key alone: OpenAI's default vision model", map[string]string{"OPENAI_API_KEY": "k"}, "", mediaapi.DefaultOpenAIBase, DefaultOpenAIModel, ""},
		{"OpenRouter key alone: Hermes' OpenRouter default", map[string]string{"OPENROUTER_API_KEY": "or"}, "", openRouterBase, DefaultOpenRouterModel, ""},
		{"Nous key alone: Hermes' Nous default", map[string]string{"NOUS_API_KEY": "nk"}, "", nousBase, DefaultNousModel, ""},
		{"main provider openrouter wins over an OpenAI key", map[string]string{"OPENAI_API_KEY": "k", "OPENROUTER_API_KEY": "or"}, "model:\n  default: anthropic/claude-x\n  provider: openrouter\n", openRouterBase, DefaultOpenRouterModel, ""},
		{"nous without key", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: nous\n", "", "", "NOUS_API_KEY"},
		{"custom server needs a model", nil, "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n", "", "", "auxiliary.vision.model"},
		{"env model", map[string]string{"OPENAI_API_KEY": "k", "AUXILIARY_VISION_MODEL": "vm"}, "", mediaapi.DefaultOpenAIBase, "vm", ""},
		{"main model as fallback", map[string]string{"OPENAI_API_KEY": "k"}, "model: gpt-main\n", mediaapi.DefaultOpenAIBase, "gpt-main", ""},
		{"main model mapping with endpoint", nil, "model:\n  default: local-llava\n  provider: custom\n  base_url: http://127.0.0.1:11434/v1\n", "http://127.0.0.1:11434/v1", "local-llava", ""},
		{"OPENAI_BASE_URL", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "auxiliary:\n  vision:\n    model: m\n", "http://127.0.0.1:9/v1", "m", ""},
		{"custom server without key", nil, "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n    model: qwen-vl\n", "http://127.0.0.1:8080/v1", "qwen-vl", ""},
		{"openrouter", map[string]string{"OPENROUTER_API_KEY": "or"}, "auxiliary:\n  vision:\n    provider: openrouter\n    model: google/gemini-flash\n", "https://openrouter.ai/api/v1", "google/gemini-flash", ""},
		{"openrouter without key", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: openrouter\n    model: x\n", "", "", "OPENROUTER_API_KEY"},
		{"unsupported provider", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: bedrock\n    model: x\n", "", "", "not supported"},
		{"anthropic: default model", map[string]string{"ANTHROPIC_API_KEY": "a"}, "auxiliary:\n  vision:\n    provider: anthropic\n", defaultAnthropicBase, DefaultAnthropicModel, ""},
		{"anthropic: OpenRouter-style name, config before env", map[string]string{"ANTHROPIC_API_KEY": "a", "AUXILIARY_VISION_MODEL": "env-model"}, "auxiliary:\n  vision:\n    provider: anthropic\n    model: anthropic/claude-sonnet-4.6\n", defaultAnthropicBase, "claude-sonnet-4-6", ""},
		{"anthropic key alone: auto reaches native Anthropic", map[string]string{"ANTHROPIC_API_KEY": "a"}, "", defaultAnthropicBase, DefaultAnthropicModel, ""},
		{"main provider anthropic with its key", map[string]string{"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "a"}, "model:\n  default: claude-x\n  provider: anthropic\n", defaultAnthropicBase, DefaultAnthropicModel, ""},
		{"anthropic base_url and key_env", map[string]string{"MY_KEY": "mk"}, "auxiliary:\n  vision:\n    provider: anthropic\n    base_url: http://127.0.0.1:7/\n    key_env: MY_KEY\n", "http://127.0.0.1:7", DefaultAnthropicModel, ""},
		{"gemini: google alias, GOOGLE_API_KEY, base normalised", map[string]string{"GOOGLE_API_KEY": "g", "GEMINI_BASE_URL": "http://127.0.0.1:9/openai"}, "auxiliary:\n  vision:\n    provider: google\n    model: google/gemini-x\n", "http://127.0.0.1:9/v1beta", "gemini-x", ""},
		{"gemini default", map[string]string{"GEMINI_API_KEY": "g"}, "auxiliary:\n  vision:\n    provider: gemini\n", defaultGeminiBase, DefaultGeminiModel, ""},
		{"main provider gemini with its key", map[string]string{"GEMINI_API_KEY": "g"}, "model:\n  default: gemini-pro\n  provider: gemini\n", defaultGeminiBase, DefaultGeminiModel, ""},
		{"main model of another provider is not borrowed", map[string]string{"OPENAI_API_KEY": "k"}, "model:\n  default: claude-x\n  provider: anthropic\n", mediaapi.DefaultOpenAIBase, DefaultOpenAIModel, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := mediatest.Options(t, tt.env, tt.config, false)
			conf, err := Resolve(opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				if Check(opts) == nil {
					t.Error("Check passed for an unusable configuration")
				}
				return
			}
			if err != nil || conf.BaseURL != tt.wantBase || conf.Model != tt.wantModel {
				t.Errorf("got base %q model %q err %v; want %q %q", conf.BaseURL, conf.Model, err, tt.wantBase, tt.wantModel)
			}
		})
	}
	t.Run("timeouts and URL policy", func(t *testing.T) {
		opts := mediatest.Options(t, map[string]string{"OPENAI_API_KEY": "k"},
			"auxiliary:\n  vision:\n    model: m\n    timeout: 7.5\n    download_timeout: 2\nweb:\n  allow_private_urls: true\n", false)
		conf, err := Resolve(opts)
		if err != nil || conf.Timeout != 7.5 || conf.DownloadTimeout != 2*time.Second || !conf.AllowPrivateURLs || conf.KeyHint != "OPENAI_API_KEY" {
			t.Errorf("got %+v, %v", conf, err)
		}
		opts = mediatest.Options(t, map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    model: m\n", false)
		if conf, _ := Resolve(opts); conf.Timeout != 0 || conf.DownloadTimeout != 30*time.Second || conf.AllowPrivateURLs {
			t.Errorf("defaults: %+v", conf)
		}
	})
}
