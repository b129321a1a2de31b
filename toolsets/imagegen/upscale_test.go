package imagegen

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

// TestFALUpscale: upscale=true runs the original's clarity-upscaler pass
// on the generated image (its payload, in its key order) and saves the
// larger image; a failed pass keeps the generated one, says why, and
// reports upscaled false; without the argument no pass runs. Other
// providers ignore it.
func TestFALUpscale(t *testing.T) {
	fake := fakeapis.Start(t)
	env := map[string]string{"FAL_KEY": fakeapis.FalKey, "FAL_BASE_URL": fake.Base(fakeapis.FAL)}
	submits := func(from int) []fakeapis.Request {
		var out []fakeapis.Request
		for _, r := range fake.Requests(fakeapis.FAL)[from:] {
			if r.Method == "POST" {
				out = append(out, r)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		args     map[string]any
		upscaled bool
		want     []byte
		posts    int
		note     string
	}{
		{"upscaled", map[string]any{"prompt": "a lighthouse", "upscale": true}, true, fakeapis.UpscaledPNG(), 2, ""},
		{"not asked", map[string]any{"prompt": "a lighthouse"}, false, fakeapis.PNG(), 1, ""},
		{"asked off", map[string]any{"prompt": "a lighthouse", "upscale": false}, false, fakeapis.PNG(), 1, ""},
		{"upscaler fails", map[string]any{"prompt": "a lighthouse trigger-upscalefail", "upscale": true}, false, fakeapis.PNG(), 2, "upscaler ran out of memory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := mediatest.NewFixture(t, fake, env, "")
			before := len(fake.Requests(fakeapis.FAL))
			out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), tc.args)
			if res.IsError {
				t.Fatalf("failed: %v", out)
			}
			if out["upscaled"] != tc.upscaled {
				t.Errorf("upscaled = %v, want %v (%v)", out["upscaled"], tc.upscaled, out)
			}
			note, _ := out["note"].(string)
			if (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Errorf("note %q, want one containing %q", note, tc.note)
			}
			path, _ := out["image"].(string)
			if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, tc.want) {
				t.Errorf("saved image is not the expected one (%v)", err)
			}
			posts := submits(before)
			if len(posts) != tc.posts {
				t.Fatalf("%d submissions, want %d", len(posts), tc.posts)
			}
			if tc.posts < 2 {
				return
			}
			up := posts[1]
			if up.Path != "/"+fakeapis.FALUpscaler || up.Header.Get("x-idempotency-key") == "" {
				t.Errorf("upscale request %s %v", up.Path, up.Header)
			}
			src := "data:image/png;base64," + base64.StdEncoding.EncodeToString(fakeapis.PNG())
			want := `{"image_url":"` + src + `","prompt":"masterpiece, best quality, highres, ` + tc.args["prompt"].(string) +
				`","upscale_factor":2,"negative_prompt":"(worst quality, low quality, normal quality:2)","creativity":0.35,` +
				`"resemblance":0.6,"guidance_scale":4,"num_inference_steps":18,"enable_safety_checker":false}`
			if string(up.Body) != want {
				t.Errorf("upscale body\n%s\nwant\n%s", up.Body, want)
			}
		})
	}

	// OpenAI has no such pass: the argument is ignored, and its result has
	// no upscaled key.
	f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), "image_gen:\n  provider: openai\n")
	falBefore := len(fake.Requests(fakeapis.FAL))
	out, res := mediatest.Call(t, context.Background(), mediatest.OnlyTool(t, Toolset(f.Opts)), map[string]any{"prompt": "a lighthouse", "upscale": true})
	if res.IsError {
		t.Fatalf("openai failed: %v", out)
	}
	if _, ok := out["upscaled"]; ok || len(fake.Requests(fakeapis.FAL)) != falBefore {
		t.Errorf("openai result %v; FAL requests %d, before %d", out, len(fake.Requests(fakeapis.FAL)), falBefore)
	}
}
