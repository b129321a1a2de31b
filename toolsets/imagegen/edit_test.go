package imagegen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

// editParts parses an /images/edits request: its text fields and, per
// file part name, the file names.
func editParts(t *testing.T, r fakeapis.Request) (map[string]string, map[string][]string) {
	t.Helper()
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	fields, files := map[string]string{}, map[string][]string{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p)
		if p.FileName() == "" {
			fields[p.FormName()] = string(b)
		} else {
			files[p.FormName()] = append(files[p.FormName()], p.FileName())
		}
	}
	return fields, files
}

func TestImageGenerateOpenAIEdit(t *testing.T) {
	fake := fakeapis.Start(t)
	png := fakeapis.PNG()
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	cfg := "image_gen:\n  provider: openai\nweb:\n  allow_private_urls: true\n"

	t.Run("one source is an `image` part", func(t *testing.T) {
		f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), cfg)
		out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)),
			map[string]any{"prompt": "make it blue", "image_url": fake.Page("image.png"), "aspect_ratio": "square"})
		if res.IsError || out["modality"] != "image" {
			t.Fatalf("result %v", out)
		}
		reqs := fake.Requests(fakeapis.OpenAI)
		r := reqs[len(reqs)-1]
		fields, files := editParts(t, r)
		if r.Path != "/v1/images/edits" || r.Header.Get("Authorization") != "Bearer "+fakeapis.OpenAIKey ||
			fields["model"] != DefaultOpenAIModel || fields["prompt"] != "make it blue" || fields["n"] != "1" || fields["size"] != "1024x1024" ||
			len(files["image"]) != 1 || files["image"][0] != "image.png" || len(files["image[]"]) != 0 {
			t.Errorf("request %s fields %v files %v", r.Path, fields, files)
		}
	})
	t.Run("several sources are `image[]` parts; a cached file is accepted", func(t *testing.T) {
		f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), cfg)
		cached := filepath.Join(f.Home, "cache", "images", "earlier.png")
		os.MkdirAll(filepath.Dir(cached), 0o700)
		os.WriteFile(cached, png, 0o600)
		out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)),
			map[string]any{"prompt": "combine", "image_url": cached, "reference_image_urls": []string{dataURL, cached, " "}})
		if res.IsError {
			t.Fatalf("result %v", out)
		}
		reqs := fake.Requests(fakeapis.OpenAI)
		_, files := editParts(t, reqs[len(reqs)-1])
		if len(files["image[]"]) != 2 || files["image[]"][0] != "earlier.png" || files["image[]"][1] != "image.png" || len(files["image"]) != 0 {
			t.Errorf("files %v (duplicates and blanks must be dropped)", files)
		}
	})

	outside := filepath.Join(t.TempDir(), "secret.png")
	os.WriteFile(outside, png, 0o600)
	tests := []struct {
		name, config string
		args         map[string]any
		want, kind   string
	}{
		{"file outside the cache", cfg, map[string]any{"image_url": outside}, "outside", "io_error"},
		{"relative path", cfg, map[string]any{"image_url": "x.png"}, "not a URL", "io_error"},
		{"private URL without permission", "image_gen:\n  provider: openai\n", map[string]any{"image_url": fake.Page("image.png")}, "private or internal network", "io_error"},
		{"metadata URL", cfg, map[string]any{"image_url": "http://169.254.169.254/latest/meta-data/"}, "cloud metadata", "io_error"},
		{"not an image", cfg, map[string]any{"image_url": "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello"))}, "not a PNG", "io_error"},
		{"too many", cfg, map[string]any{"image_url": dataURL, "reference_image_urls": strings.Split("a b c d e f g h i j k l m n o p", " ")}, "at most 16", "invalid_argument"},
		{"FAL model without an edit endpoint", "image_gen:\n  provider: fal\n  model: fal-ai/z-image/turbo\n", map[string]any{"image_url": dataURL}, "is not capable of image-to-image", "ValueError"},
		{"401", cfg, map[string]any{"image_url": dataURL, "prompt": "x"}, "check OPENAI_API_KEY", "provider_exception"},
		{"429", cfg, map[string]any{"image_url": dataURL, "prompt": "trigger-429"}, "HTTP 429", "provider_exception"},
		{"5xx", cfg, map[string]any{"image_url": dataURL, "prompt": "trigger-500"}, "HTTP 500", "provider_exception"},
		{"malformed", cfg, map[string]any{"image_url": dataURL, "prompt": "trigger-malformed"}, "something other than an images response", "provider_exception"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := mediatest.OpenAIEnv(fake)
			env["FAL_KEY"], env["FAL_BASE_URL"] = fakeapis.FalKey, fake.Base(fakeapis.FAL)
			if tt.name == "401" {
				env["OPENAI_API_KEY"] = "sk-wrongwrongwrongwrong"
			}
			f := mediatest.NewFixture(t, fake, env, tt.config)
			args := map[string]any{"prompt": "edit it"}
			for k, v := range tt.args {
				args[k] = v
			}
			before := len(fake.Requests(fakeapis.OpenAI))
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), args)
			if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, tt.want) || out["error_type"] != tt.kind {
				t.Errorf("got %v, want %q (%s)", out, tt.want, tt.kind)
			}
			if tt.kind != "provider_exception" && len(fake.Requests(fakeapis.OpenAI)) != before {
				t.Error("a refused source still reached the provider")
			}
		})
	}
}

// FAL edits go to the model's edit endpoint with the sources as data:
// URLs, clamped to the model's reference limit, through the queue.
func TestImageGenerateFALEdit(t *testing.T) {
	fake := fakeapis.Start(t)
	png := fakeapis.PNG()
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
	env := map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL)}
	f := mediatest.NewFixture(t, fake, env, "image_gen:\n  model: fal-ai/nano-banana-pro\nweb:\n  allow_private_urls: true\n")
	cached := filepath.Join(f.Home, "cache", "images", "earlier.png")
	os.MkdirAll(filepath.Dir(cached), 0o700)
	os.WriteFile(cached, png, 0o600)
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)),
		map[string]any{"prompt": "add a hat", "image_url": fake.Page("image.png"), "reference_image_urls": []string{dataURL, cached}, "aspect_ratio": "portrait"})
	if res.IsError || out["modality"] != "image" || out["model"] != "fal-ai/nano-banana-pro" {
		t.Fatalf("result %v", out)
	}
	sub := fake.Requests(fakeapis.FAL)[0]
	var body map[string]any
	if err := json.Unmarshal(sub.Body, &body); err != nil {
		t.Fatal(err)
	}
	imgs, _ := body["image_urls"].([]any)
	if sub.Path != "/fal-ai/nano-banana-pro/edit" || len(imgs) != 2 || imgs[0] != dataURL || body["aspect_ratio"] != "9:16" ||
		body["resolution"] != "1K" || body["prompt"] != "add a hat" {
		t.Errorf("submit %s %v", sub.Path, body)
	}
}

// A call that gives up cancels the queued job.
func TestImageGenerateFALCancelsOnTimeout(t *testing.T) {
	fake := fakeapis.Start(t)
	f := mediatest.NewFixture(t, fake, map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL)}, "")
	f.Opts.Timeout = 700 * time.Millisecond
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"prompt": "trigger-stuck"})
	if !res.IsError || !strings.Contains(out["error"].(string), "did not answer within") {
		t.Fatalf("result %v", out)
	}
	if !fake.FALCancelled("req-0001") {
		t.Error("the stuck job was not cancelled")
	}
}
