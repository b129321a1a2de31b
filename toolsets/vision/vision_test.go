package vision

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

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
			f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), tt.config)
			tl := mediatest.OnlyTool(t, Toolset(f.Opts))
			before := len(fake.Requests(fakeapis.OpenAI))
			out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": tt.image, "question": "What colour is the corner?"})
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
		{"rate limit", mediatest.OpenAIEnv(fake), "trigger-429", 0, "HTTP 429"},
		{"server error", mediatest.OpenAIEnv(fake), "trigger-500", 0, "HTTP 500"},
		{"timeout", mediatest.OpenAIEnv(fake), "trigger-slow", 300 * time.Millisecond, "did not answer in time"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, tt.env, visionConfig)
			if tt.timeout > 0 {
				f.Opts.Timeout = tt.timeout
			}
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"image_url": png, "question": tt.question})
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
	f := mediatest.NewFixture(t, nil, map[string]string{"OPENAI_API_KEY": "k"}, "auxiliary:\n  vision:\n    model: m\n    timeout: 9\n")
	f.Opts.Timeout = 0
	if conf, err := New(f.Opts).resolve(); err != nil || conf.timeout != 9*time.Second || conf.Model != "m" {
		t.Errorf("resolve = %+v, %v; want the configured 9 s", conf, err)
	}
	f.Opts.Timeout = time.Second
	if conf, _ := New(f.Opts).resolve(); conf.timeout != time.Second {
		t.Errorf("timeout %v, want the Timeout option", conf.timeout)
	}
}

// Func is what browser_vision uses: raw image bytes in, the model's
// answer to the question as asked out.
func TestVisionFunc(t *testing.T) {
	fake := fakeapis.Start(t)
	f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), visionConfig)
	analyze := Func(f.Opts)
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
