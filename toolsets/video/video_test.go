package video

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/internal/testkit/fakegemini"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

const question = "What happens?"

func TestVideoAnalyzeOpenAICompatible(t *testing.T) {
	fake := fakeapis.Start(t)
	clip := filepath.Join(t.TempDir(), "clip.webm")
	os.WriteFile(clip, []byte("fake webm bytes"), 0o600)
	f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), "auxiliary:\n  vision:\n    model: fake-video-1\nweb:\n  allow_private_urls: true\n")
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))
	if err := tl.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, ref, want string }{
		{"local file", clip, "I see a video/webm video of 15 bytes. You asked: " + prompt + question},
		{"URL downloads as mp4", fake.Page("image.png"), "I see a video/mp4 video of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"video_url": c.ref, "question": question})
			if res.IsError || out["success"] != true || !strings.HasPrefix(out["analysis"].(string), c.want) {
				t.Fatalf("result %v", out)
			}
		})
	}
	reqs := fake.Requests(fakeapis.OpenAI)
	if !strings.Contains(string(reqs[0].Body), `"type":"video_url"`) || !strings.Contains(string(reqs[0].Body), `"temperature":0.1`) {
		t.Errorf("request %s", reqs[0].Body)
	}

	fifo := filepath.Join(t.TempDir(), "pipe.mp4")
	syscall.Mkfifo(fifo, 0o600)
	big := filepath.Join(t.TempDir(), "big.mp4")
	bf, _ := os.Create(big)
	bf.Truncate(maxVideoBytes + 1)
	bf.Close()
	for _, c := range []struct{ name, ref, config, want string }{
		{"unsupported format", "/tmp/x.gif", "", "Unsupported video format: '.gif'"},
		{"relative path", "clip.mp4", "", "absolute file path"},
		{"FIFO", fifo, "", "not a regular file"},
		{"too large", big, "", "over the 50 MB limit"},
		{"private URL refused", fake.Page("image.png"), "auxiliary:\n  vision:\n    model: fake-video-1\n", "private or internal network"},
		{"401", clip, "auxiliary:\n  vision:\n    model: fake-video-1\n    api_key: sk-wrongwrongwrongwrongwrong\n    base_url: " + fake.Base(fakeapis.OpenAI) + "\n", "HTTP 401"},
		{"429", clip, "trigger-429", "HTTP 429: rate limit exceeded (rate limited or out of quota; retry after 7s)"},
		{"5xx", clip, "trigger-500", "HTTP 500"},
		{"malformed", clip, "trigger-malformed", "something other than a chat completion"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, q := c.config, question
			if strings.HasPrefix(cfg, "trigger-") {
				// The fake reads a trigger from the request: the question.
				cfg, q = "", cfg
			}
			if cfg == "" {
				cfg = "auxiliary:\n  vision:\n    model: fake-video-1\n"
			}
			f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), cfg)
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"video_url": c.ref, "question": q})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "Error analyzing video: ") ||
				!strings.HasPrefix(out["analysis"].(string), "There was a problem with the request and the video could not be analyzed.") {
				t.Errorf("got %v, want %q", out, c.want)
			}
		})
	}
}

func TestVideoAnalyzeGemini(t *testing.T) {
	fake := fakegemini.New(t)
	clip := filepath.Join(t.TempDir(), "clip.mov")
	os.WriteFile(clip, []byte("fake mov"), 0o600)
	f := mediatest.NewFixture(t, nil, map[string]string{"GEMINI_API_KEY": "g", "GEMINI_BASE_URL": fake.URL()}, "auxiliary:\n  vision:\n    provider: gemini\n")
	fake.Enqueue(fakegemini.Reply{Text: "A cat jumps."})
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"video_url": clip, "question": question})
	if res.IsError || out["analysis"] != "A cat jumps." {
		t.Fatalf("result %v (%v)", out, fake.Unexpected())
	}
	if raw := string(fake.Requests()[0].Raw); !strings.Contains(raw, `"mimeType":"video/mov"`) {
		t.Errorf("request %s", raw)
	}
}

func TestVideoAnalyzeAnthropicRefused(t *testing.T) {
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	os.WriteFile(clip, []byte("x"), 0o600)
	f := mediatest.NewFixture(t, nil, map[string]string{"ANTHROPIC_API_KEY": "a", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}, "auxiliary:\n  vision:\n    provider: anthropic\n")
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"video_url": clip, "question": question})
	if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, "takes images, not video") {
		t.Errorf("got %v", out)
	}
}

func TestVideoAnalyzeHiddenWithoutVisionModel(t *testing.T) {
	f := mediatest.NewFixture(t, nil, nil, "")
	if err := mediatest.OnlyTool(t, Toolset(f.Opts)).Check(); err == nil || !strings.Contains(err.Error(), "vision needs an API key") {
		t.Errorf("Check = %v", err)
	}
}
