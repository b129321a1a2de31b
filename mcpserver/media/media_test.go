package media

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/fakeapis"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

type fixture struct {
	fake *fakeapis.Server
	home string
	opts Options
}

func newFixture(t *testing.T, fake *fakeapis.Server, env map[string]string, configYAML string) *fixture {
	t.Helper()
	home := t.TempDir()
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return &fixture{fake: fake, home: home, opts: Options{
		Home: home, Getenv: func(k string) string { return env[k] }, Resolver: publicResolver{},
		Timeout: 3 * time.Second, ProgressInterval: 100 * time.Millisecond,
	}}
}

func openaiEnv(fake *fakeapis.Server) map[string]string {
	return map[string]string{"OPENAI_API_KEY": fakeapis.OpenAIKey, "OPENAI_BASE_URL": fake.Base(fakeapis.OpenAI)}
}

func tool(t *testing.T, ts tooldef.Toolset) tooldef.Tool {
	t.Helper()
	if len(ts.Tools) != 1 {
		t.Fatalf("toolset %s has %d tools", ts.Name, len(ts.Tools))
	}
	return ts.Tools[0]
}

func call(t *testing.T, ctx context.Context, tl tooldef.Tool, args any) (map[string]any, tooldef.Result) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tl.Handler(ctx, raw)
	if err != nil {
		t.Fatalf("%s: Go error %v", tl.Name, err)
	}
	b, err := tooldef.EncodeJSON(res.Value)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("result is not an object: %s", b)
	}
	return out, res
}

const visionConfig = "auxiliary:\n  vision:\n    model: fake-vision-1\nweb:\n  allow_private_urls: true\n"

func TestVisionAnalyze(t *testing.T) {
	fake := fakeapis.Start(t)
	png := fakeapis.PNG()
	file := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(file, png, 0o600); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte("not an image at all"), 0o600)
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	strictConfig := "auxiliary:\n  vision:\n    model: fake-vision-1\n"

	tests := []struct {
		name, config, image, want string
		wantErr                   bool
	}{
		{"data URL", visionConfig, dataURL, "image/png image of", false},
		{"local file", visionConfig, file, "image/png image of", false},
		{"file URL", visionConfig, "file://" + file, "image/png image of", false},
		{"http URL", visionConfig, fake.Page("image.png"), "image/png image of", false},
		{"loopback refused by default", strictConfig, fake.Page("image.png"), "Blocked: URL targets a private or internal network address (host 127.0.0.1); to allow it, set web.allow_private_urls: true in /", true},
		{"decimal loopback refused by default", strictConfig, strings.Replace(fake.Page("image.png"), "127.0.0.1", "2130706433", 1), "(host 2130706433, address 127.0.0.1); to allow it, set web.allow_private_urls: true", true},
		{"octal metadata refused", visionConfig, "http://0251.0376.0251.0376/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint", true},
		{"password refused", visionConfig, "https://bob:hunter2@example.com/i.png", "Blocked: URL contains a user name or password", true},
		{"metadata refused", visionConfig, "http://169.254.169.254/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint", true},
		{"secret refused", visionConfig, "https://example.com/i.png?key=sk-abcdefghijklmnopqrstuvwxyz", "Blocked: URL contains what appears to be an API key", true},
		{"not an image", visionConfig, text, "not a supported image", true},
		{"missing file", visionConfig, "/nonexistent/x.png", "cannot read the image file", true},
		{"relative path", visionConfig, "x.png", "absolute file path", true},
		{"bad data URL", visionConfig, "data:image/png,xyz", "data:image/png;base64", true},
		{"HTTP error", visionConfig, fake.Page("nope.png"), "HTTP 404", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fake, openaiEnv(fake), tt.config)
			tl := tool(t, VisionToolset(f.opts))
			before := len(fake.Requests(fakeapis.OpenAI))
			out, res := call(t, context.Background(), tl, map[string]any{"image_url": tt.image, "question": "What colour is the corner?"})
			if res.IsError != tt.wantErr {
				t.Fatalf("IsError = %v: %v", res.IsError, out)
			}
			if tt.wantErr {
				if msg, _ := out["error"].(string); !strings.Contains(msg, tt.want) || out["success"] != false {
					t.Errorf("error = %v, want %q", out, tt.want)
				}
				if n := len(fake.Requests(fakeapis.OpenAI)) - before; n != 0 {
					t.Errorf("a refused image still reached the model (%d requests)", n)
				}
				return
			}
			analysis, _ := out["analysis"].(string)
			if out["success"] != true || !strings.Contains(analysis, tt.want) ||
				!strings.Contains(analysis, visionPrompt+"What colour is the corner?") {
				t.Errorf("result = %v", out)
			}
			reqs := fake.Requests(fakeapis.OpenAI)[before:]
			if len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" || reqs[0].Header.Get("Authorization") != "Bearer "+fakeapis.OpenAIKey {
				t.Fatalf("requests = %+v", reqs)
			}
			if !strings.Contains(string(reqs[0].Body), `"model":"fake-vision-1"`) {
				t.Errorf("model not sent: %s", reqs[0].Body)
			}
		})
	}
}

func TestVisionErrors(t *testing.T) {
	fake := fakeapis.Start(t)
	png := "data:image/png;base64," + base64.StdEncoding.EncodeToString(fakeapis.PNG())
	tests := []struct {
		name     string
		env      map[string]string
		question string
		timeout  time.Duration
		want     string
	}{
		{"wrong key", map[string]string{"OPENAI_API_KEY": "sk-wrongwrongwrongwrongwrong", "OPENAI_BASE_URL": fake.Base(fakeapis.OpenAI)}, "q", 0, "HTTP 401"},
		{"rate limit", openaiEnv(fake), "trigger-429", 0, "HTTP 429"},
		{"server error", openaiEnv(fake), "trigger-500", 0, "HTTP 500"},
		{"timeout", openaiEnv(fake), "trigger-slow", 300 * time.Millisecond, "did not answer in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fake, tt.env, visionConfig)
			if tt.timeout > 0 {
				f.opts.Timeout = tt.timeout
			}
			out, res := call(t, context.Background(), tool(t, VisionToolset(f.opts)), map[string]any{"image_url": png, "question": tt.question})
			msg, _ := out["error"].(string)
			if !res.IsError || !strings.Contains(msg, tt.want) {
				t.Errorf("got %v, want error containing %q", out, tt.want)
			}
			if strings.Contains(msg, "wrongwrongwrong") {
				t.Errorf("error leaks the key: %s", msg)
			}
		})
	}
}

// The Timeout option bounds a vision call; without it the configured
// seconds do.
func TestVisionTimeout(t *testing.T) {
	f := newFixture(t, nil, map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    model: m\n    timeout: 9\n")
	f.opts.Timeout = 0
	if conf, err := NewVision(f.opts).resolve(); err != nil || conf.timeout != 9*time.Second || conf.Model != "m" {
		t.Errorf("resolve = %+v, %v; want the configured 9 s", conf, err)
	}
	f.opts.Timeout = time.Second
	if conf, _ := NewVision(f.opts).resolve(); conf.timeout != time.Second {
		t.Errorf("timeout %v, want the Timeout option", conf.timeout)
	}
}

// VisionFunc is what browser_vision uses: raw image bytes in, the model's
// answer to the question as asked out.
func TestVisionFunc(t *testing.T) {
	fake := fakeapis.Start(t)
	f := newFixture(t, fake, openaiEnv(fake), visionConfig)
	analyze := VisionFunc(f.opts)
	got, err := analyze(context.Background(), fakeapis.PNG(), "Is there a button?")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "image/png image of") || !strings.HasSuffix(got, "You asked: Is there a button?") {
		t.Errorf("answer = %q", got)
	}
	if _, err := analyze(context.Background(), []byte("plain text"), "q"); err == nil {
		t.Error("non-image accepted")
	}
}

func TestImageGenerate(t *testing.T) {
	fake := fakeapis.Start(t)
	tests := []struct {
		name     string
		env      map[string]string
		config   string
		aspect   string
		provider string
		model    string
		check    func(t *testing.T, r fakeapis.Request)
	}{
		{"openai b64", openaiEnv(fake), "", "portrait", "openai", DefaultOpenAIImageModel, func(t *testing.T, r fakeapis.Request) {
			if r.Path != "/v1/images/generations" || r.Header.Get("Authorization") != "Bearer "+fakeapis.OpenAIKey ||
				!strings.Contains(string(r.Body), `"size":"1024x1536"`) || !strings.Contains(string(r.Body), `"n":1`) {
				t.Errorf("request %s %v %s", r.Path, r.Header.Get("Authorization"), r.Body)
			}
		}},
		{"openai url-mode model", openaiEnv(fake), "image_gen:\n  model: fake-url-model\n", "square", "openai", "fake-url-model", nil},
		{"OPENAI_IMAGE_MODEL", map[string]string{"OPENAI_API_KEY": fakeapis.OpenAIKey, "OPENAI_BASE_URL": fake.Base(fakeapis.OpenAI), "OPENAI_IMAGE_MODEL": "env-model"}, "", "", "openai", "env-model", nil},
		{"fal", map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL), "OPENAI_API_KEY": "k"}, "", "", "fal", DefaultFALModel, func(t *testing.T, r fakeapis.Request) {
			if r.Path != "/"+DefaultFALModel || r.Header.Get("Authorization") != "Key "+fakeapis.FalKey ||
				!strings.Contains(string(r.Body), `"image_size":"landscape_16_9"`) {
				t.Errorf("request %s %v %s", r.Path, r.Header.Get("Authorization"), r.Body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fake, tt.env, tt.config)
			tl := tool(t, ImageToolset(f.opts))
			if err := tl.Check(); err != nil {
				t.Fatalf("Check: %v", err)
			}
			prov := fakeapis.OpenAI
			if tt.provider == "fal" {
				prov = fakeapis.FAL
			}
			before := len(fake.Requests(prov))
			args := map[string]any{"prompt": "a brass telescope at dusk"}
			if tt.aspect != "" {
				args["aspect_ratio"] = tt.aspect
			}
			out, res := call(t, context.Background(), tl, args)
			if res.IsError {
				t.Fatalf("failed: %v", out)
			}
			path, _ := out["image"].(string)
			if out["success"] != true || out["provider"] != tt.provider || out["model"] != tt.model ||
				!strings.HasPrefix(path, filepath.Join(f.home, "cache", "images")+string(filepath.Separator)) || !strings.HasSuffix(path, ".png") {
				t.Errorf("result = %v", out)
			}
			saved, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(saved, fakeapis.PNG()) {
				t.Errorf("saved image: %v", err)
			}
			if len(res.Images) != 1 || res.Images[0].MIMEType != "image/png" || !bytes.Equal(res.Images[0].Data, fakeapis.PNG()) {
				t.Errorf("image content = %+v", res.Images)
			}
			reqs := fake.Requests(prov)[before:]
			if len(reqs) != 1 {
				t.Fatalf("%d provider requests", len(reqs))
			}
			if tt.check != nil {
				tt.check(t, reqs[0])
			}
		})
	}
}

func TestImageGenerateErrors(t *testing.T) {
	fake := fakeapis.Start(t)
	falEnv := map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL)}
	wrongFal := map[string]string{"FAL_KEY": "wrong", "FAL_BASE_URL": fake.Base(fakeapis.FAL)}
	wrongOpenAI := map[string]string{"OPENAI_API_KEY": "sk-wrongwrongwrongwrongwrong", "OPENAI_BASE_URL": fake.Base(fakeapis.OpenAI)}
	tests := []struct {
		name, prompt string
		env          map[string]string
		want         string
	}{
		{"openai 401", "p", wrongOpenAI, "HTTP 401"},
		{"openai 429", "trigger-429", openaiEnv(fake), "HTTP 429"},
		{"openai timeout", "trigger-slow", openaiEnv(fake), "did not answer in time"},
		{"fal 401", "p", wrongFal, "check FAL_KEY"},
		{"fal 500", "trigger-500", falEnv, "HTTP 500"},
		{"fal timeout", "trigger-slow", falEnv, "did not answer within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fake, tt.env, "")
			if tt.prompt == "trigger-slow" {
				f.opts.Timeout = 300 * time.Millisecond
			}
			out, res := call(t, context.Background(), tool(t, ImageToolset(f.opts)), map[string]any{"prompt": tt.prompt})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, tt.want) || out["error_type"] != "provider_exception" {
				t.Errorf("got %v, want %q", out, tt.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(f.home, "cache", "images")); len(entries) != 0 {
				t.Errorf("a failed call left files: %v", entries)
			}
		})
	}
	t.Run("no provider", func(t *testing.T) {
		f := newFixture(t, fake, nil, "")
		err := tool(t, ImageToolset(f.opts)).Check()
		if err == nil || !strings.Contains(err.Error(), "FAL_KEY or OPENAI_API_KEY") {
			t.Errorf("Check = %v", err)
		}
		f2 := newFixture(t, fake, openaiEnv(fake), "image_gen:\n  provider: krea\n")
		if err := tool(t, ImageToolset(f2.opts)).Check(); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("Check = %v", err)
		}
	})
}

// Image generation reports that it is alive while the provider works, in
// increasing order, and nothing after the call returns.
func TestImageGenerateProgress(t *testing.T) {
	fake := fakeapis.Start(t)
	f := newFixture(t, fake, map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL)}, "")
	var mu sync.Mutex
	var got []float64
	returned := false
	ctx := tooldef.WithProgress(context.Background(), func(p, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		if returned {
			t.Errorf("progress %v after the result", p)
		}
		if total != 0 || msg == "" {
			t.Errorf("progress total %v msg %q", total, msg)
		}
		got = append(got, p)
	})
	_, res := call(t, ctx, tool(t, ImageToolset(f.opts)), map[string]any{"prompt": "trigger-delay"})
	mu.Lock()
	returned = true
	defer mu.Unlock()
	if res.IsError {
		t.Fatalf("failed: %v", res.Value)
	}
	if len(got) < 2 {
		t.Fatalf("got %d progress updates over a 400 ms call, want the start and at least one tick", len(got))
	}
	for i := 1; i < len(got); i++ {
		if got[i] <= got[i-1] {
			t.Errorf("progress not increasing: %v", got)
		}
	}
}

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
	f := newFixture(t, nil, nil, "tts:\n  provider: edge\n")
	tl := tool(t, TTSToolset(f.opts))
	if err := tl.Check(); err != nil {
		t.Fatal(err)
	}
	out, res := call(t, context.Background(), tl, map[string]any{"text": "-v Hello from the Hermes tools; this line starts with a dash."})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
	path, _ := out["file_path"].(string)
	if out["provider"] != "espeak-ng" || out["media_tag"] != "MEDIA:"+path || out["voice_compatible"] != false ||
		filepath.Dir(path) != filepath.Join(f.home, "cache", "audio") || filepath.Ext(path) != ".wav" {
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
	out, res = call(t, context.Background(), tl, map[string]any{"text": "again", "output_path": path})
	if !res.IsError || !strings.Contains(out["error"].(string), "already exists") {
		t.Errorf("overwrite: %v", out)
	}
	// A relative output path lands in the audio cache.
	out, res = call(t, context.Background(), tl, map[string]any{"text": "named", "output_path": "named/clip.wav"})
	if res.IsError || out["file_path"] != filepath.Join(f.home, "cache", "audio", "named", "clip.wav") {
		t.Errorf("relative output: %v", out)
	}
	out, res = call(t, context.Background(), tl, map[string]any{"text": "x", "output_path": "clip.mp3"})
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
		{"openai", "tts:\n  provider: openai\n  openai:\n    voice: nova\n", "openai", fakeapis.OpenAI, openaiEnv(fake), map[string]any{"text": "hello"}, ".mp3",
			func(t *testing.T, r fakeapis.Request) {
				var body map[string]any
				json.Unmarshal(r.Body, &body)
				if r.Path != "/v1/audio/speech" || r.Header.Get("Authorization") != "Bearer "+fakeapis.OpenAIKey ||
					body["voice"] != "nova" || body["model"] != string(defaultOpenAITTSModel) || body["response_format"] != "mp3" || body["input"] != "hello" {
					t.Errorf("request %s %s", r.Path, r.Body)
				}
			}},
		{"openai opus is voice-compatible", "tts:\n  provider: openai\n", "openai", fakeapis.OpenAI, openaiEnv(fake), map[string]any{"text": "hi", "output_path": "note.opus"}, ".opus",
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
			f := newFixture(t, fake, tt.env, tt.config)
			tl := tool(t, TTSToolset(f.opts))
			before := len(fake.Requests(tt.fakeName))
			out, res := call(t, context.Background(), tl, tt.args)
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
		{"openai 500", "tts:\n  provider: openai\n", "trigger-500", openaiEnv(fake), "HTTP 500"},
		{"openai timeout", "tts:\n  provider: openai\n", "trigger-slow", openaiEnv(fake), "did not answer in time"},
		{"elevenlabs 401", "tts:\n  provider: elevenlabs\n", "x", map[string]string{"ELEVENLABS_API_KEY": "wrong", "ELEVENLABS_BASE_URL": fake.Base(fakeapis.ElevenLabs)}, "check ELEVENLABS_API_KEY"},
		{"elevenlabs 429", "tts:\n  provider: elevenlabs\n", "trigger-429", elEnv, "HTTP 429"},
		{"elevenlabs timeout", "tts:\n  provider: elevenlabs\n", "trigger-slow", elEnv, "did not answer in time"},
		{"unsupported provider", "tts:\n  provider: minimax\n", "x", nil, "not supported"},
		{"empty text", "", " ", nil, "Text is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, fake, tt.env, tt.config)
			if tt.text == "trigger-slow" {
				f.opts.Timeout = 300 * time.Millisecond
			}
			f.opts.LookPath = func(string) (string, error) { return "/bin/false", nil }
			out, res := call(t, context.Background(), tool(t, TTSToolset(f.opts)), map[string]any{"text": tt.text})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, tt.want) || strings.Contains(msg, "wrongwrong") {
				t.Errorf("got %v, want %q", out, tt.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(f.home, "cache", "audio")); len(entries) != 0 {
				t.Errorf("a failed call left files: %v", entries)
			}
		})
	}
	t.Run("espeak-ng missing hides the tool", func(t *testing.T) {
		f := newFixture(t, fake, nil, "")
		f.opts.LookPath = func(string) (string, error) { return "", exec.ErrNotFound }
		err := tool(t, TTSToolset(f.opts)).Check()
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
