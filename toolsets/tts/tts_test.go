package tts

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

// espeakOrSkip finds espeak-ng: CI must have it (make test installs it), a
// developer machine without it skips.
func espeakOrSkip(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("espeak-ng is not installed: run `make test` (it installs espeak-ng)")
		}
		t.Skip("espeak-ng is not installed; run `make test` (it installs espeak-ng)")
	}
}

func TestTextToSpeechEspeak(t *testing.T) {
	espeakOrSkip(t)
	f := mediatest.NewFixture(t, nil, nil, "tts:\n  provider: espeak-ng\n")
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))
	if err := tl.Check(); err != nil {
		t.Fatal(err)
	}
	out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"text": "-v Hello from the Hermes tools; this line starts with a dash."})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
	path, _ := out["file_path"].(string)
	if out["provider"] != "espeak-ng" || out["media_tag"] != "MEDIA:"+path || out["voice_compatible"] != false ||
		filepath.Dir(path) != filepath.Join(f.Home, "cache", "audio") || filepath.Ext(path) != ".wav" {
		t.Errorf("result = %v", out)
	}
	wav, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkWAV(wav); err != nil {
		t.Fatalf("not a valid WAV: %v", err)
	}
	// 16-bit mono PCM with a real data chunk: more than a header's worth
	// of samples.
	if len(wav) < 22050 || !bytes.Contains(wav[:64], []byte("data")) {
		t.Errorf("WAV of %d bytes looks empty", len(wav))
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}

	// A named output that exists is never overwritten.
	out, res = mediatest.Call(t, context.Background(), tl, map[string]any{"text": "again", "output_path": path})
	if !res.IsError || !strings.Contains(out["error"].(string), "already exists") {
		t.Errorf("overwrite: %v", out)
	}
	// A relative output path lands in the audio cache.
	out, res = mediatest.Call(t, context.Background(), tl, map[string]any{"text": "named", "output_path": "named/clip.wav"})
	if res.IsError || out["file_path"] != filepath.Join(f.Home, "cache", "audio", "named", "clip.wav") {
		t.Errorf("relative output: %v", out)
	}
	out, res = mediatest.Call(t, context.Background(), tl, map[string]any{"text": "x", "output_path": "clip.mp3"})
	if !res.IsError || !strings.Contains(out["error"].(string), ".wav") {
		t.Errorf("mp3 from espeak: %v", out)
	}
}

func TestTextToSpeechProviders(t *testing.T) {
	fake := fakeapis.Start(t)
	elEnv := map[string]string{"ELEVENLABS_API_KEY": fakeapis.ElevenLabsKey, "ELEVENLABS_BASE_URL": fake.Base(fakeapis.ElevenLabs)}
	tests := []struct {
		name, config, provider, fakeName string
		env                              map[string]string
		args                             map[string]any
		ext                              string
		check                            func(t *testing.T, r fakeapis.Request)
	}{
		{"openai", "tts:\n  provider: openai\n  openai:\n    voice: nova\n", "openai", fakeapis.OpenAI, mediatest.OpenAIEnv(fake), map[string]any{"text": "hello"}, ".mp3",
			func(t *testing.T, r fakeapis.Request) {
				var body map[string]any
				json.Unmarshal(r.Body, &body)
				if r.Path != "/v1/audio/speech" || r.Header.Get("Authorization") != "Bearer "+fakeapis.OpenAIKey ||
					body["voice"] != "nova" || body["model"] != string(defaultOpenAITTSModel) || body["response_format"] != "mp3" || body["input"] != "hello" {
					t.Errorf("request %s %s", r.Path, r.Body)
				}
			}},
		{"openai opus is voice-compatible", "tts:\n  provider: openai\n", "openai", fakeapis.OpenAI, mediatest.OpenAIEnv(fake), map[string]any{"text": "hi", "output_path": "note.opus"}, ".opus",
			func(t *testing.T, r fakeapis.Request) {
				if !strings.Contains(string(r.Body), `"response_format":"opus"`) {
					t.Errorf("body %s", r.Body)
				}
			}},
		{"elevenlabs", "tts:\n  provider: elevenlabs\n  elevenlabs:\n    voice_id: voice123\n", "elevenlabs", fakeapis.ElevenLabs, elEnv, map[string]any{"text": "hello"}, ".mp3",
			func(t *testing.T, r fakeapis.Request) {
				if r.Path != "/v1/text-to-speech/voice123" || r.Query.Get("output_format") != "mp3_44100_128" ||
					r.Header.Get("xi-api-key") != fakeapis.ElevenLabsKey || !strings.Contains(string(r.Body), `"model_id":"eleven_multilingual_v2"`) {
					t.Errorf("request %s?%v %s", r.Path, r.Query, r.Body)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, tt.env, tt.config)
			tl := mediatest.OnlyTool(t, Toolset(f.Opts))
			before := len(fake.Requests(tt.fakeName))
			out, res := mediatest.Call(t, context.Background(), tl, tt.args)
			if res.IsError {
				t.Fatalf("failed: %v", out)
			}
			path, _ := out["file_path"].(string)
			if out["provider"] != tt.provider || filepath.Ext(path) != tt.ext {
				t.Errorf("result = %v", out)
			}
			if tt.ext == ".opus" && (out["voice_compatible"] != true || !strings.HasPrefix(out["media_tag"].(string), "[[audio_as_voice]]\nMEDIA:")) {
				t.Errorf("opus result = %v", out)
			}
			if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, fakeapis.MP3()) {
				t.Errorf("saved audio: %v", err)
			}
			reqs := fake.Requests(tt.fakeName)[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			tt.check(t, reqs[0])
		})
	}
}

func TestTextToSpeechErrors(t *testing.T) {
	fake := fakeapis.Start(t)
	elEnv := map[string]string{"ELEVENLABS_API_KEY": fakeapis.ElevenLabsKey, "ELEVENLABS_BASE_URL": fake.Base(fakeapis.ElevenLabs)}
	tests := []struct {
		name, config, text string
		env                map[string]string
		want               string
	}{
		{"openai 401", "tts:\n  provider: openai\n", "x", map[string]string{"OPENAI_API_KEY": "sk-wrongwrongwrongwrongwrong", "OPENAI_BASE_URL": fake.Base(fakeapis.OpenAI)}, "check OPENAI_API_KEY"},
		{"openai 500", "tts:\n  provider: openai\n", "trigger-500", mediatest.OpenAIEnv(fake), "HTTP 500"},
		{"openai timeout", "tts:\n  provider: openai\n", "trigger-slow", mediatest.OpenAIEnv(fake), "did not answer in time"},
		{"elevenlabs 401", "tts:\n  provider: elevenlabs\n", "x", map[string]string{"ELEVENLABS_API_KEY": "wrong", "ELEVENLABS_BASE_URL": fake.Base(fakeapis.ElevenLabs)}, "check ELEVENLABS_API_KEY"},
		{"elevenlabs 429", "tts:\n  provider: elevenlabs\n", "trigger-429", elEnv, "HTTP 429"},
		{"elevenlabs timeout", "tts:\n  provider: elevenlabs\n", "trigger-slow", elEnv, "did not answer in time"},
		{"unsupported provider", "tts:\n  provider: neutts\n", "x", nil, "not supported"},
		{"empty text", "", " ", nil, "Text is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, tt.env, tt.config)
			if tt.text == "trigger-slow" {
				f.Opts.Timeout = 300 * time.Millisecond
			}
			f.Opts.LookPath = func(string) (string, error) { return "/bin/false", nil }
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"text": tt.text})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, tt.want) || strings.Contains(msg, "wrongwrong") {
				t.Errorf("got %v, want %q", out, tt.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(f.Home, "cache", "audio")); len(entries) != 0 {
				t.Errorf("a failed call left files: %v", entries)
			}
		})
	}
	t.Run("espeak-ng missing hides the tool", func(t *testing.T) {
		f := mediatest.NewFixture(t, fake, nil, "tts:\n  provider: espeak-ng\n")
		f.Opts.LookPath = func(string) (string, error) { return "", exec.ErrNotFound }
		err := mediatest.OnlyTool(t, Toolset(f.Opts)).Check()
		if err == nil || !strings.Contains(err.Error(), "apt-get install espeak-ng") {
			t.Errorf("Check = %v", err)
		}
	})
}

func TestCheckWAV(t *testing.T) {
	good := append([]byte("RIFF\x24\x00\x00\x00WAVE"), make([]byte, 32)...)
	streaming := append([]byte("RIFF\x24\xf0\xff\x7fWAVE"), make([]byte, 32)...)
	for _, c := range []struct {
		b  []byte
		ok bool
	}{{good, true}, {streaming, false}, {[]byte("RIFF"), false}, {append([]byte("RIFX\x24\x00\x00\x00WAVE"), make([]byte, 32)...), false}} {
		if err := checkWAV(c.b); (err == nil) != c.ok {
			t.Errorf("checkWAV(%q) = %v", c.b[:12], err)
		}
	}
}
