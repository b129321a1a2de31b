package imagegen

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

func TestImageGenerateXAI(t *testing.T) {
	fake := fakeapis.Start(t)
	env := map[string]string{"XAI_API_KEY": fakeapis.XAIKey, "XAI_BASE_URL": fake.Base(fakeapis.XAI)}
	cfg := "image_gen:\n  provider: xai\n  xai:\n    model: grok-imagine-image-quality\n    resolution: 2k\n"
	png := fakeapis.PNG()
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	f := mediatest.NewFixture(t, fake, env, cfg)
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))

	last := func() map[string]any {
		reqs := fake.Requests(fakeapis.XAI)
		var body map[string]any
		json.Unmarshal(reqs[len(reqs)-1].Body, &body)
		body["_path"] = reqs[len(reqs)-1].Path
		return body
	}
	out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"prompt": "a fox", "aspect_ratio": "portrait"})
	if res.IsError || out["provider"] != "xai" || out["model"] != "grok-imagine-image-quality" || out["modality"] != "text" {
		t.Fatalf("result %v", out)
	}
	if b := last(); b["_path"] != "/v1/images/generations" || b["aspect_ratio"] != "9:16" || b["resolution"] != "2k" || b["storage_options"] != nil {
		t.Errorf("generation %v", b)
	}
	out, res = mediatest.Call(t, context.Background(), tl, map[string]any{"prompt": "a fox", "image_url": dataURL})
	if b := last(); res.IsError || b["_path"] != "/v1/images/edits" || b["image"].(map[string]any)["url"] != dataURL || b["image"].(map[string]any)["type"] != "image_url" {
		t.Errorf("one-image edit %v %v", out, b)
	}
	cached := f.Home + "/cache/images/x.png"
	writeFile(t, cached, png)
	out, res = mediatest.Call(t, context.Background(), tl, map[string]any{"prompt": "a fox", "image_url": dataURL, "reference_image_urls": []string{cached}})
	if b := last(); res.IsError || len(b["images"].([]any)) != 2 || b["image"] != nil {
		t.Errorf("two-image edit %v %v", out, b)
	}
	out, res = mediatest.Call(t, context.Background(), tl, map[string]any{"prompt": "a fox", "image_url": "a", "reference_image_urls": []string{"b", "c", "d"}})
	if !res.IsError || out["error_type"] != "too_many_references" {
		t.Errorf("four sources: %v", out)
	}

	for _, c := range []struct{ name, prompt, key, want string }{
		{"401", "x", "wrong", "check XAI_API_KEY"},
		{"429", "trigger-429", fakeapis.XAIKey, "retry after 7s"},
		{"5xx", "trigger-500", fakeapis.XAIKey, "HTTP 500"},
		{"malformed", "trigger-malformed", fakeapis.XAIKey, "something other than an images response"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, map[string]string{"XAI_API_KEY": c.key, "XAI_BASE_URL": fake.Base(fakeapis.XAI)}, cfg)
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"prompt": c.prompt})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, c.want) {
				t.Errorf("got %v, want %q", out, c.want)
			}
		})
	}
}

func TestImageGenerateKrea(t *testing.T) {
	fake := fakeapis.Start(t)
	env := map[string]string{"KREA_API_KEY": fakeapis.KreaKey, KreaBaseEnv: fake.Base(fakeapis.Krea)}
	cfg := "image_gen:\n  provider: krea\n  model: krea-2-large\nweb:\n  allow_private_urls: true\n"
	f := mediatest.NewFixture(t, fake, env, cfg)
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)),
		map[string]any{"prompt": "a fox", "aspect_ratio": "square", "image_url": fake.Page("image.png")})
	if res.IsError || out["provider"] != "krea" || out["model"] != "krea-2-large" {
		t.Fatalf("result %v", out)
	}
	reqs := fake.Requests(fakeapis.Krea)
	var body map[string]any
	json.Unmarshal(reqs[0].Body, &body)
	refs, _ := body["image_style_references"].([]any)
	if reqs[0].Path != "/generate/image/krea/krea-2/large" || reqs[0].Header.Get("Authorization") != "Bearer "+fakeapis.KreaKey ||
		body["aspect_ratio"] != "1:1" || body["resolution"] != "1K" || body["creativity"] != "medium" || len(refs) != 1 ||
		refs[0].(map[string]any)["url"] != fake.Page("image.png") || refs[0].(map[string]any)["strength"] != 0.6 {
		t.Errorf("submit %s %v", reqs[0].Path, body)
	}
	if len(reqs) != 2 || !strings.HasPrefix(reqs[1].Path, "/jobs/") {
		t.Errorf("want one poll: %v", reqs)
	}
	for _, c := range []struct{ name, prompt, key, want string }{
		{"401", "x", "wrong", "check KREA_API_KEY"},
		{"429", "trigger-429", fakeapis.KreaKey, "retry after 7s"},
		{"5xx", "trigger-500", fakeapis.KreaKey, "HTTP 500"},
		{"malformed", "trigger-malformed", fakeapis.KreaKey, "not a job"},
		{"job failed", "trigger-jobfail", fakeapis.KreaKey, "failed: content policy"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, map[string]string{"KREA_API_KEY": c.key, KreaBaseEnv: fake.Base(fakeapis.Krea)}, cfg)
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"prompt": c.prompt})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, c.want) {
				t.Errorf("got %v, want %q", out, c.want)
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
