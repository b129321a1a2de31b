package videogen

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

func tools(t *testing.T, ts tooldef.Toolset) map[string]tooldef.Tool {
	m := map[string]tooldef.Tool{}
	for _, tl := range ts.Tools {
		m[tl.Name] = tl
	}
	return m
}

func TestVideoGenerateXAI(t *testing.T) {
	fake := fakeapis.Start(t)
	env := map[string]string{"XAI_API_KEY": fakeapis.XAIKey, "XAI_BASE_URL": fake.Base(fakeapis.XAI)}
	f := mediatest.NewFixture(t, fake, env, "")
	tl := tools(t, Toolset(f.Opts))
	for _, tool := range tl {
		if err := tool.Check(); err != nil {
			t.Fatalf("%s: %v", tool.Name, err)
		}
	}
	last := func() (string, map[string]any) {
		reqs := fake.Requests(fakeapis.XAI)
		for i := len(reqs) - 1; i >= 0; i-- {
			if reqs[i].Method == "POST" {
				var b map[string]any
				json.Unmarshal(reqs[i].Body, &b)
				if reqs[i].Header.Get("x-idempotency-key") == "" {
					t.Error("no idempotency key")
				}
				return reqs[i].Path, b
			}
		}
		return "", nil
	}
	out, res := mediatest.Call(t, context.Background(), tl["video_generate"], map[string]any{"prompt": "a cat surfing", "aspect_ratio": "9:16", "duration": 5})
	if res.IsError || out["success"] != true || !strings.HasSuffix(out["video"].(string), ".mp4") || out["modality"] != "text" || out["duration"] != float64(5) ||
		out["provider"] != "xai" || out["model"] != "grok-imagine-video" || out["request_id"] == nil {
		t.Fatalf("result %v", out)
	}
	if p, b := last(); p != "/v1/videos/generations" || b["aspect_ratio"] != "9:16" || b["resolution"] != "720p" || b["duration"] != float64(5) {
		t.Errorf("request %s %v", p, b)
	}
	out, res = mediatest.Call(t, context.Background(), tl["video_generate"], map[string]any{"prompt": "animate", "image_url": "https://example.com/a.png"})
	if p, b := last(); res.IsError || out["modality"] != "image" || p != "/v1/videos/generations" || b["model"] != "grok-imagine-video-1.5" ||
		b["image"].(map[string]any)["url"] != "https://example.com/a.png" {
		t.Errorf("image-to-video %v %v", out, b)
	}
	out, res = mediatest.Call(t, context.Background(), tl["xai_video_edit"], map[string]any{"prompt": "make it night", "video_url": "https://vidgen.x.ai/a.mp4"})
	if p, b := last(); res.IsError || p != "/v1/videos/edits" || b["video"].(map[string]any)["url"] != "https://vidgen.x.ai/a.mp4" {
		t.Errorf("edit %v %v", out, b)
	}
	out, res = mediatest.Call(t, context.Background(), tl["xai_video_extend"], map[string]any{"prompt": "then it rains", "video_url": "https://vidgen.x.ai/a.mp4"})
	if p, b := last(); res.IsError || p != "/v1/videos/extensions" || b["duration"] != float64(6) {
		t.Errorf("extend %v %v", out, b)
	}

	for _, c := range []struct {
		name, tool string
		args       map[string]any
		key, want  string
		kind       string
	}{
		{"no prompt", "video_generate", map[string]any{"prompt": " "}, fakeapis.XAIKey, "prompt is required for video generation", "invalid_argument"},
		{"edit through generate", "video_generate", map[string]any{"prompt": "x", "video_url": "https://a/b.mp4"}, fakeapis.XAIKey, "xai_video_edit", "invalid_argument"},
		{"bad aspect", "video_generate", map[string]any{"prompt": "x", "aspect_ratio": "21:9"}, fakeapis.XAIKey, "aspect_ratio", "invalid_argument"},
		{"too long with refs", "video_generate", map[string]any{"prompt": "x", "duration": 12, "reference_image_urls": []string{"https://a/b.png"}}, fakeapis.XAIKey, "1-10 seconds", "invalid_argument"},
		{"local image refused", "video_generate", map[string]any{"prompt": "x", "image_url": "/etc/passwd"}, fakeapis.XAIKey, "public https URL", "invalid_argument"},
		{"http video refused", "xai_video_edit", map[string]any{"prompt": "x", "video_url": "http://127.0.0.1/a.mp4"}, fakeapis.XAIKey, "public https MP4", "invalid_argument"},
		{"401", "video_generate", map[string]any{"prompt": "x"}, "wrong", "check XAI_API_KEY", "api_error"},
		{"429", "video_generate", map[string]any{"prompt": "trigger-429"}, fakeapis.XAIKey, "retry after 7s", "api_error"},
		{"5xx", "video_generate", map[string]any{"prompt": "trigger-500"}, fakeapis.XAIKey, "HTTP 500", "api_error"},
		{"malformed", "video_generate", map[string]any{"prompt": "trigger-malformed"}, fakeapis.XAIKey, "not a job", "invalid_response"},
		{"job failed", "video_generate", map[string]any{"prompt": "trigger-videofail"}, fakeapis.XAIKey, "failed: moderation", "generation_failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, map[string]string{"XAI_API_KEY": c.key, "XAI_BASE_URL": fake.Base(fakeapis.XAI)}, "")
			out, res := mediatest.Call(t, context.Background(), tools(t, Toolset(f.Opts))[c.tool], c.args)
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, c.want) || out["error_type"] != c.kind || out["success"] != false {
				t.Errorf("got %v, want %q (%s)", out, c.want, c.kind)
			}
		})
	}
	t.Run("a pending job is polled again", func(t *testing.T) {
		if testing.Short() {
			t.Skip("waits one 5 s poll interval")
		}
		f := mediatest.NewFixture(t, fake, env, "")
		f.Opts.Timeout = 20 * time.Second
		out, res := mediatest.Call(t, context.Background(), tools(t, Toolset(f.Opts))["video_generate"], map[string]any{"prompt": "trigger-pending"})
		if res.IsError {
			t.Errorf("result %v", out)
		}
	})
}

func TestVideoGenChecks(t *testing.T) {
	for _, c := range []struct{ name, config, want string }{
		{"no key", "", "XAI_API_KEY is not set"},
		{"other provider", "video_gen:\n  provider: fal\n", `video_gen.provider "fal" is not supported`},
	} {
		f := mediatest.NewFixture(t, nil, nil, c.config)
		for _, tl := range Toolset(f.Opts).Tools {
			if err := tl.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %s: Check = %v", c.name, tl.Name, err)
			}
		}
	}
}
