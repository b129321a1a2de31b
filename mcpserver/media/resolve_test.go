package media

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// options returns Options over a fresh home holding configYAML (none when
// empty), an environment of exactly env, and espeak-ng found or not.
func declOptions(t *testing.T, env map[string]string, configYAML string, espeak bool) Options {
	t.Helper()
	home := t.TempDir()
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return Options{
		Home:   home,
		Getenv: func(k string) string { return env[k] },
		LookPath: func(file string) (string, error) {
			if espeak {
				return "/usr/bin/" + file, nil
			}
			return "", exec.ErrNotFound
		},
	}
}

// only returns the one tool of a media toolset.
func onlyTool(t *testing.T, ts tooldef.Toolset) tooldef.Tool {
	t.Helper()
	if len(ts.Tools) != 1 {
		t.Fatalf("toolset %s has %d tools", ts.Name, len(ts.Tools))
	}
	return ts.Tools[0]
}

// The checks hide a tool with a reason that says what to set; each case is
// the Check of the named toolset's tool. wantErr "" means available.
func TestChecks(t *testing.T) {
	toolsets := map[string]func(Options) tooldef.Toolset{
		"vision": VisionToolset, "image_gen": ImageToolset, "tts": TTSToolset,
	}
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
		{"vision unsupported provider", "vision", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: gemini\n    model: x\n", false, `auxiliary.vision.provider "gemini" is not supported`},
		{"vision bad YAML", "vision", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary: [\n", false, "fix the YAML"},
		{"image without keys", "image_gen", nil, "", false, "image generation needs FAL_KEY or OPENAI_API_KEY"},
		{"image with FAL_KEY", "image_gen", map[string]string{"FAL_KEY": "f"}, "", false, ""},
		{"image with OPENAI_API_KEY", "image_gen", map[string]string{"OPENAI_API_KEY": "k"}, "", false, ""},
		{"image fal without FAL_KEY", "image_gen", map[string]string{"OPENAI_API_KEY": "k"}, "image_gen:\n  provider: fal\n", false, "image_gen.provider is fal but FAL_KEY is not set"},
		{"image openai without key", "image_gen", map[string]string{"FAL_KEY": "f"}, "image_gen:\n  provider: openai\n", false, "image_gen.provider is openai but OPENAI_API_KEY is not set"},
		{"image openai-compatible server needs no key", "image_gen", nil, "image_gen:\n  provider: openai\n  base_url: http://127.0.0.1:8080/v1\n", false, ""},
		{"image unsupported provider", "image_gen", map[string]string{"OPENAI_API_KEY": "k"}, "image_gen:\n  provider: krea\n", false, `image_gen.provider "krea" is not supported`},
		{"tts espeak-ng missing", "tts", nil, "", false, "apt-get install espeak-ng"},
		{"tts espeak-ng found", "tts", nil, "", true, ""},
		{"tts edge falls back to espeak-ng", "tts", nil, "tts:\n  provider: edge\n", true, ""},
		{"tts openai without key", "tts", nil, "tts:\n  provider: openai\n", false, "tts.provider is openai but OPENAI_API_KEY is not set"},
		{"tts openai", "tts", map[string]string{"OPENAI_API_KEY": "k"}, "tts:\n  provider: openai\n", false, ""},
		{"tts elevenlabs without key", "tts", nil, "tts:\n  provider: elevenlabs\n", false, "tts.provider is elevenlabs but ELEVENLABS_API_KEY is not set"},
		{"tts elevenlabs", "tts", map[string]string{"ELEVENLABS_API_KEY": "e"}, "tts:\n  provider: elevenlabs\n", false, ""},
		{"tts unsupported provider", "tts", nil, "tts:\n  provider: minimax\n", true, `tts.provider "minimax" is not supported`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := declOptions(t, tt.env, tt.config, tt.espeak)
			err := onlyTool(t, toolsets[tt.toolset](opts)).Check()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check = %v, want available", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Check = %v, want an error containing %q", err, tt.wantErr)
			}
			if tt.toolset == "vision" && VisionCheck(opts) == nil {
				t.Error("VisionCheck passed where vision_analyze's Check failed")
			}
		})
	}
}

// config.yaml is read on every check, so enabling a backend needs no
// restart.
func TestChecksReadConfigEveryCall(t *testing.T) {
	opts := declOptions(t, nil, "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n", false)
	check := onlyTool(t, VisionToolset(opts)).Check
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
		{"OpenAI key alone: OpenAI's default vision model", map[string]string{"OPENAI_API_KEY": "k"}, "", defaultOpenAIBase, DefaultOpenAIVisionModel, ""},
		{"OpenRouter key alone: Hermes' OpenRouter default", map[string]string{"OPENROUTER_API_KEY": "or"}, "", openRouterBase, DefaultOpenRouterVisionModel, ""},
		{"Nous key alone: Hermes' Nous default", map[string]string{"NOUS_API_KEY": "nk"}, "", nousBase, DefaultNousVisionModel, ""},
		{"main provider openrouter wins over an OpenAI key", map[string]string{"OPENAI_API_KEY": "k", "OPENROUTER_API_KEY": "or"}, "model:\n  default: anthropic/claude-x\n  provider: openrouter\n", openRouterBase, DefaultOpenRouterVisionModel, ""},
		{"nous without key", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: nous\n", "", "", "NOUS_API_KEY"},
		{"custom server needs a model", nil, "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n", "", "", "auxiliary.vision.model"},
		{"env model", map[string]string{"OPENAI_API_KEY": "k", "AUXILIARY_VISION_MODEL": "vm"}, "", defaultOpenAIBase, "vm", ""},
		{"main model as fallback", map[string]string{"OPENAI_API_KEY": "k"}, "model: gpt-main\n", defaultOpenAIBase, "gpt-main", ""},
		{"main model mapping with endpoint", nil, "model:\n  default: local-llava\n  provider: custom\n  base_url: http://127.0.0.1:11434/v1\n", "http://127.0.0.1:11434/v1", "local-llava", ""},
		{"OPENAI_BASE_URL", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "auxiliary:\n  vision:\n    model: m\n", "http://127.0.0.1:9/v1", "m", ""},
		{"custom server without key", nil, "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n    model: qwen-vl\n", "http://127.0.0.1:8080/v1", "qwen-vl", ""},
		{"openrouter", map[string]string{"OPENROUTER_API_KEY": "or"}, "auxiliary:\n  vision:\n    provider: openrouter\n    model: google/gemini-flash\n", "https://openrouter.ai/api/v1", "google/gemini-flash", ""},
		{"openrouter without key", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: openrouter\n    model: x\n", "", "", "OPENROUTER_API_KEY"},
		{"unsupported provider", map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    provider: gemini\n    model: x\n", "", "", "not supported"},
		{"main model of another provider is not borrowed", map[string]string{"OPENAI_API_KEY": "k"}, "model:\n  default: claude-x\n  provider: anthropic\n", defaultOpenAIBase, DefaultOpenAIVisionModel, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := declOptions(t, tt.env, tt.config, false)
			conf, err := ResolveVision(opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
				if VisionCheck(opts) == nil {
					t.Error("VisionCheck passed for an unusable configuration")
				}
				return
			}
			if err != nil || conf.BaseURL != tt.wantBase || conf.Model != tt.wantModel {
				t.Errorf("got base %q model %q err %v; want %q %q", conf.BaseURL, conf.Model, err, tt.wantBase, tt.wantModel)
			}
		})
	}
	t.Run("timeouts and URL policy", func(t *testing.T) {
		opts := declOptions(t, map[string]string{"OPENAI_API_KEY": "k"},
			"auxiliary:\n  vision:\n    model: m\n    timeout: 7.5\n    download_timeout: 2\nweb:\n  allow_private_urls: true\n", false)
		conf, err := ResolveVision(opts)
		if err != nil || conf.Timeout != 7.5 || conf.DownloadTimeout != 2*time.Second || !conf.AllowPrivateURLs || conf.KeyHint != "OPENAI_API_KEY" {
			t.Errorf("got %+v, %v", conf, err)
		}
		opts = declOptions(t, map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    model: m\n", false)
		if conf, _ := ResolveVision(opts); conf.Timeout != 0 || conf.DownloadTimeout != 30*time.Second || conf.AllowPrivateURLs {
			t.Errorf("defaults: %+v", conf)
		}
	})
}

func TestResolveImage(t *testing.T) {
	tests := []struct {
		name                          string
		env                           map[string]string
		config                        string
		wantProvider, wantModel, base string
	}{
		{"FAL_KEY wins when unset", map[string]string{"FAL_KEY": "f", "OPENAI_API_KEY": "k"}, "", ImageFAL, DefaultFALModel, defaultFALBase},
		{"OpenAI default model", map[string]string{"OPENAI_API_KEY": "k"}, "", ImageOpenAI, DefaultOpenAIImageModel, defaultOpenAIBase},
		{"env overrides", map[string]string{"OPENAI_API_KEY": "k", "OPENAI_IMAGE_MODEL": "em", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "", ImageOpenAI, "em", "http://127.0.0.1:9/v1"},
		{"config beats env", map[string]string{"FAL_KEY": "f", "FAL_IMAGE_MODEL": "em"}, "image_gen:\n  provider: FAL\n  model: cm\n  base_url: http://127.0.0.1:7\n", ImageFAL, "cm", "http://127.0.0.1:7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := ResolveImage(declOptions(t, tt.env, tt.config, false))
			if err != nil || b.Provider != tt.wantProvider || b.Model != tt.wantModel || b.BaseURL != tt.base || b.APIKey == "" {
				t.Errorf("got %+v, %v", b, err)
			}
		})
	}
}

// A failed resolution still names the provider it recognised:
// text_to_speech's error says which one is misconfigured.
func TestResolveTTS(t *testing.T) {
	b, err := ResolveTTS(declOptions(t, nil, "tts:\n  provider: OpenAI\n", false))
	if err == nil || b.Provider != TTSOpenAI {
		t.Errorf("got %+v, %v", b, err)
	}
	b, err = ResolveTTS(declOptions(t, nil, "tts:\n  provider: local\n  espeak:\n    voice: de\n    speed: 120\n", true))
	if err != nil || b.Provider != TTSEspeak || b.Espeak != "/usr/bin/espeak-ng" || b.Settings.Espeak.Voice != "de" || b.Settings.Espeak.Speed != 120 {
		t.Errorf("got %+v, %v", b, err)
	}
	b, err = ResolveTTS(declOptions(t, map[string]string{"ELEVENLABS_API_KEY": "e"}, "tts:\n  provider: elevenlabs\n", false))
	if err != nil || b.BaseURL != defaultElevenBase || b.APIKey != "e" {
		t.Errorf("got %+v, %v", b, err)
	}
}
