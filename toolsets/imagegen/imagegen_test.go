package imagegen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

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
		{"openai b64", mediatest.OpenAIEnv(fake), "", "portrait", "openai", DefaultOpenAIModel, func(t *testing.T, r fakeapis.Request) {
			if r.Path != "/v1/images/generations" || r.Header.Get("Authorization") != "Bearer "+fakeapis.OpenAIKey ||
				!strings.Contains(string(r.Body), `"size":"1024x1536"`) || !strings.Contains(string(r.Body), `"n":1`) {
				t.Errorf("request %s %v %s", r.Path, r.Header.Get("Authorization"), r.Body)
			}
		}},
		{"openai url-mode model", mediatest.OpenAIEnv(fake), "image_gen:\n  model: fake-url-model\n", "square", "openai", "fake-url-model", nil},
		{"OPENAI_IMAGE_MODEL", map[string]string{"OPENAI_API_KEY": fakeapis.OpenAIKey, "OPENAI_BASE_URL": fake.Base(fakeapis.OpenAI), "OPENAI_IMAGE_MODEL": "env-model"}, "", "", "openai", "env-model", nil},
		{"fal", map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL), "OPENAI_API_KEY": "k"}, "", "", "fal", DefaultFALModel, func(t *testing.T, r fakeapis.Request) {
			// The original's payload for its default model, in its key order.
			if r.Path != "/"+DefaultFALModel || r.Header.Get("Authorization") != "Key "+fakeapis.FalKey || r.Header.Get("x-idempotency-key") == "" ||
				string(r.Body) != `{"num_inference_steps":4,"output_format":"png","enable_safety_checker":false,"prompt":"a brass telescope at dusk","image_size":"landscape_16_9"}` {
				t.Errorf("request %s %v %s", r.Path, r.Header.Get("Authorization"), r.Body)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, tt.env, tt.config)
			tl := mediatest.OnlyTool(t, Toolset(f.Opts))
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
			out, res := mediatest.Call(t, context.Background(), tl, args)
			if res.IsError {
				t.Fatalf("failed: %v", out)
			}
			path, _ := out["image"].(string)
			if out["success"] != true || out["provider"] != tt.provider || out["model"] != tt.model ||
				!strings.HasPrefix(path, filepath.Join(f.Home, "cache", "images")+string(filepath.Separator)) || !strings.HasSuffix(path, ".png") {
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
			want := 1
			if tt.provider == "fal" {
				// Submit, three status polls, the response.
				want = 5
			}
			if len(reqs) != want {
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
		{"openai 429", "trigger-429", mediatest.OpenAIEnv(fake), "HTTP 429"},
		{"openai timeout", "trigger-slow", mediatest.OpenAIEnv(fake), "did not answer in time"},
		{"fal 401", "p", wrongFal, "check FAL_KEY"},
		{"fal 500", "trigger-500", falEnv, "HTTP 500"},
		{"fal timeout", "trigger-slow", falEnv, "did not answer within"},
		{"fal 429 with Retry-After", "trigger-429", falEnv, "HTTP 429: rate limit exceeded (rate limited or out of quota; retry after 7s)"},
		{"fal malformed receipt", "trigger-malformed", falEnv, "not a queue receipt"},
		{"fal job fails", "trigger-joberror", falEnv, "HTTP 500: model crashed while generating (FAL is failing"},
		{"fal no images", "trigger-noimages", falEnv, "No images were generated"},
		{"fal unknown status", "trigger-weird", falEnv, `unknown status "EXPLODED"`},
		{"fal receipt pointing elsewhere", "trigger-offsite", falEnv, "points at another host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, tt.env, "")
			if tt.prompt == "trigger-slow" {
				f.Opts.Timeout = 300 * time.Millisecond
			}
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"prompt": tt.prompt})
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, tt.want) || out["error_type"] != "provider_exception" {
				t.Errorf("got %v, want %q", out, tt.want)
			}
			if entries, _ := os.ReadDir(filepath.Join(f.Home, "cache", "images")); len(entries) != 0 {
				t.Errorf("a failed call left files: %v", entries)
			}
		})
	}
	t.Run("no provider", func(t *testing.T) {
		f := mediatest.NewFixture(t, fake, nil, "")
		err := mediatest.OnlyTool(t, Toolset(f.Opts)).Check()
		if err == nil || !strings.Contains(err.Error(), "FAL_KEY or OPENAI_API_KEY") {
			t.Errorf("Check = %v", err)
		}
		f2 := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), "image_gen:\n  provider: midjourney\n")
		if err := mediatest.OnlyTool(t, Toolset(f2.Opts)).Check(); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("Check = %v", err)
		}
	})
}

// Image generation reports that it is alive while the provider works, in
// increasing order, and nothing after the call returns.
func TestImageGenerateProgress(t *testing.T) {
	fake := fakeapis.Start(t)
	f := mediatest.NewFixture(t, fake, map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL)}, "")
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
	_, res := mediatest.Call(t, ctx, mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"prompt": "trigger-delay"})
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
