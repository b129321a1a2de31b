package tts

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

type httpProvider struct {
	name, fakeName, config, ext string
	env                         map[string]string
	badKey                      map[string]string
	audio                       []byte
	check                       func(t *testing.T, r fakeapis.Request)
}

func httpProviders(fake *fakeapis.Server) []httpProvider {
	mmURL := fake.Base(fakeapis.MiniMax) + "/v1/t2a_v2"
	return []httpProvider{
		{"minimax", fakeapis.MiniMax, "tts:\n  provider: minimax\n  minimax:\n    voice_id: Calm_Woman\n", ".mp3",
			map[string]string{"MINIMAX_API_KEY": fakeapis.MiniMaxKey, MiniMaxURLEnv: mmURL, "MINIMAX_GROUP_ID": "g1"},
			map[string]string{"MINIMAX_API_KEY": "wrong", MiniMaxURLEnv: mmURL},
			fakeapis.MP3(),
			func(t *testing.T, r fakeapis.Request) {
				var body struct {
					Model        string         `json:"model"`
					Text         string         `json:"text"`
					VoiceSetting map[string]any `json:"voice_setting"`
					AudioSetting map[string]any `json:"audio_setting"`
				}
				json.Unmarshal(r.Body, &body)
				if r.Path != "/v1/t2a_v2" || r.Query.Get("GroupId") != "g1" || r.Header.Get("Authorization") != "Bearer "+fakeapis.MiniMaxKey ||
					body.Model != "speech-02-hd" || body.VoiceSetting["voice_id"] != "Calm_Woman" || body.VoiceSetting["emotion"] != "neutral" ||
					body.AudioSetting["format"] != "mp3" || body.AudioSetting["sample_rate"] != float64(32000) || body.AudioSetting["channel"] != float64(1) {
					t.Errorf("request %s?%v %s", r.Path, r.Query, r.Body)
				}
			}},
		{"mistral", fakeapis.Mistral, "tts:\n  provider: mistral\n", ".mp3",
			map[string]string{"MISTRAL_API_KEY": fakeapis.MistralKey, MistralBaseEnv: fake.Base(fakeapis.Mistral)},
			map[string]string{"MISTRAL_API_KEY": "wrong", MistralBaseEnv: fake.Base(fakeapis.Mistral)},
			fakeapis.MP3(),
			func(t *testing.T, r fakeapis.Request) {
				if r.Path != "/v1/audio/speech" || r.Header.Get("Authorization") != "Bearer "+fakeapis.MistralKey ||
					!strings.Contains(string(r.Body), `"model":"voxtral-mini-tts-2603"`) || !strings.Contains(string(r.Body), `"voice_id":"c69964a6-ab8b-4f8a-9465-ec0925096ec8"`) ||
					!strings.Contains(string(r.Body), `"response_format":"mp3"`) {
					t.Errorf("request %s %s", r.Path, r.Body)
				}
			}},
		{"gemini", fakeapis.Gemini, "tts:\n  provider: gemini\n  gemini:\n    voice: Puck\n", ".wav",
			map[string]string{"GEMINI_API_KEY": fakeapis.GeminiKey, "GEMINI_BASE_URL": fake.Base(fakeapis.Gemini) + "/v1beta"},
			map[string]string{"GEMINI_API_KEY": "wrong-key-should-not-leak", "GEMINI_BASE_URL": fake.Base(fakeapis.Gemini) + "/v1beta"},
			wavFromPCM(fakeapis.GeminiPCM(), 24000),
			func(t *testing.T, r fakeapis.Request) {
				if r.Path != "/v1beta/models/gemini-2.5-flash-preview-tts:generateContent" || r.Query.Get("key") != fakeapis.GeminiKey ||
					!strings.Contains(string(r.Body), `"responseModalities":["AUDIO"]`) || !strings.Contains(string(r.Body), `"voiceName":"Puck"`) {
					t.Errorf("request %s %s", r.Path, r.Body)
				}
			}},
		{"xai", fakeapis.XAI, "tts:\n  provider: xai\n  speed: 2\n", ".mp3",
			map[string]string{"XAI_API_KEY": fakeapis.XAIKey, "XAI_BASE_URL": fake.Base(fakeapis.XAI)},
			map[string]string{"XAI_API_KEY": "wrong", "XAI_BASE_URL": fake.Base(fakeapis.XAI)},
			fakeapis.MP3(),
			func(t *testing.T, r fakeapis.Request) {
				if r.Path != "/v1/tts" || r.Header.Get("Authorization") != "Bearer "+fakeapis.XAIKey ||
					!strings.Contains(string(r.Body), `"voice_id":"eve"`) || !strings.Contains(string(r.Body), `"language":"en"`) ||
					!strings.Contains(string(r.Body), `"speed":1.5`) {
					t.Errorf("request %s %s", r.Path, r.Body)
				}
			}},
	}
}

func TestTextToSpeechHTTPProviders(t *testing.T) {
	fake := fakeapis.Start(t)
	for _, p := range httpProviders(fake) {
		t.Run(p.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, p.env, p.config)
			tl := mediatest.OnlyTool(t, Toolset(f.Opts))
			if err := tl.Check(); err != nil {
				t.Fatal(err)
			}
			before := len(fake.Requests(p.fakeName))
			out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"text": "hello there"})
			if res.IsError {
				t.Fatalf("failed: %v", out)
			}
			path, _ := out["file_path"].(string)
			if out["provider"] != p.name || filepath.Ext(path) != p.ext {
				t.Errorf("result = %v", out)
			}
			if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, p.audio) {
				t.Errorf("saved audio differs: %v", err)
			}
			if p.ext == ".wav" {
				b, _ := os.ReadFile(path)
				if err := checkWAV(b); err != nil {
					t.Error(err)
				}
			}
			reqs := fake.Requests(p.fakeName)[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			p.check(t, reqs[0])
		})
	}
}

func TestTextToSpeechHTTPProviderErrors(t *testing.T) {
	fake := fakeapis.Start(t)
	wants := map[string]map[string]string{
		"minimax": {"401": "MiniMax TTS API error (code 1004): login fail", "429": "retry after 7s", "500": "HTTP 500", "malformed": "not its t2a_v2 response"},
		"mistral": {"401": "HTTP 401: Unauthorized (check MISTRAL_API_KEY)", "429": "retry after 7s", "500": "HTTP 500", "malformed": "not a speech response"},
		"gemini":  {"401": "API key not valid", "429": "retry after 7s", "500": "HTTP 500", "malformed": "not a generateContent response"},
		"xai":     {"401": "check XAI_API_KEY", "429": "retry after 7s", "500": "HTTP 500", "malformed": "not audio"},
	}
	for _, p := range httpProviders(fake) {
		for _, c := range []struct{ name, text string }{{"401", "x"}, {"429", "trigger-429"}, {"500", "trigger-500"}, {"malformed", "trigger-malformed"}, {"timeout", "trigger-slow"}} {
			t.Run(p.name+" "+c.name, func(t *testing.T) {
				env := p.env
				if c.name == "401" {
					env = p.badKey
				}
				f := mediatest.NewFixture(t, fake, env, p.config)
				if c.name == "timeout" {
					f.Opts.Timeout = 300 * time.Millisecond
				}
				out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": c.text})
				want := wants[p.name][c.name]
				if c.name == "timeout" {
					want = "did not answer in time"
				}
				msg, _ := out["error"].(string)
				if !res.IsError || !strings.Contains(msg, want) || !strings.HasPrefix(msg, "TTS failed ("+p.name+")") || strings.Contains(msg, "should-not-leak") {
					t.Errorf("got %v, want %q", out, want)
				}
				if entries, _ := os.ReadDir(filepath.Join(f.Home, "cache", "audio")); len(entries) != 0 {
					t.Errorf("a failed call left files: %v", entries)
				}
			})
		}
	}
}
