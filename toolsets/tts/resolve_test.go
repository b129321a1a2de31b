package tts

import (
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// The checks hide a tool with a reason that says what to set; each case is
// the Check of the named toolset's tool. wantErr "" means available.
func TestChecks(t *testing.T) {
	toolsets := map[string]func(Options) tooldef.Toolset{"tts": Toolset}
	tests := []struct {
		name, toolset string
		env           map[string]string
		config        string
		espeak        bool
		wantErr       string
	}{
		{"tts default is Edge, keyless", "tts", nil, "", false, ""},
		{"tts edge without espeak-ng", "tts", nil, "tts:\n  provider: edge\n", false, ""},
		{"tts edge endpoint not a websocket", "tts", map[string]string{EdgeURLEnv: "https://example.com/x"}, "", false, "not a ws:// or wss:// URL"},
		{"tts espeak-ng missing", "tts", nil, "tts:\n  provider: espeak-ng\n", false, "apt-get install espeak-ng"},
		{"tts espeak-ng found", "tts", nil, "tts:\n  provider: local\n", true, ""},
		{"tts openai without key", "tts", nil, "tts:\n  provider: openai\n", false, "tts.provider is openai but OPENAI_API_KEY is not set"},
		{"tts openai", "tts", map[string]string{"OPENAI_API_KEY": "k"}, "tts:\n  provider: openai\n", false, ""},
		{"tts elevenlabs without key", "tts", nil, "tts:\n  provider: elevenlabs\n", false, "tts.provider is elevenlabs but ELEVENLABS_API_KEY is not set"},
		{"tts elevenlabs", "tts", map[string]string{"ELEVENLABS_API_KEY": "e"}, "tts:\n  provider: elevenlabs\n", false, ""},
		{"tts unsupported provider", "tts", nil, "tts:\n  provider: kittentts\n", true, `tts.provider "kittentts" is not supported`},
		{"tts minimax without key", "tts", nil, "tts:\n  provider: minimax\n", false, "MINIMAX_API_KEY (or MINIMAX_CN_API_KEY) is not set"},
		{"tts minimax cn key", "tts", map[string]string{"MINIMAX_CN_API_KEY": "k"}, "tts:\n  provider: minimax\n", false, ""},
		{"tts mistral without key", "tts", nil, "tts:\n  provider: mistral\n", false, "MISTRAL_API_KEY is not set"},
		{"tts gemini without key", "tts", nil, "tts:\n  provider: gemini\n", false, "GEMINI_API_KEY (or GOOGLE_API_KEY) is not set"},
		{"tts gemini google key", "tts", map[string]string{"GOOGLE_API_KEY": "g"}, "tts:\n  provider: gemini\n", false, ""},
		{"tts xai without key", "tts", nil, "tts:\n  provider: xai\n", false, "XAI_API_KEY is not set"},
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

// A failed resolution still names the provider it recognised:
// text_to_speech's error says which one is misconfigured.
func TestResolveTTS(t *testing.T) {
	b, err := Resolve(mediatest.Options(t, nil, "tts:\n  provider: OpenAI\n", false))
	if err == nil || b.Provider != ProviderOpenAI {
		t.Errorf("got %+v, %v", b, err)
	}
	b, err = Resolve(mediatest.Options(t, nil, "tts:\n  provider: local\n  espeak:\n    voice: de\n    speed: 120\n", true))
	if err != nil || b.Provider != ProviderEspeak || b.Espeak != "/usr/bin/espeak-ng" || b.Settings.Espeak.Voice != "de" || b.Settings.Espeak.Speed != 120 {
		t.Errorf("got %+v, %v", b, err)
	}
	b, err = Resolve(mediatest.Options(t, map[string]string{"ELEVENLABS_API_KEY": "e"}, "tts:\n  provider: elevenlabs\n", false))
	if err != nil || b.BaseURL != defaultElevenBase || b.APIKey != "e" {
		t.Errorf("got %+v, %v", b, err)
	}
}
