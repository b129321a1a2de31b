package vision

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi/mediatest"
)

// sentImage decodes the image a chat request carried.
func sentImage(t *testing.T, body []byte) image.Image {
	t.Helper()
	var req struct {
		Messages []struct {
			Content []struct {
				Type     string `json:"type"`
				ImageURL struct {
					URL string `json:"url"`
				} `json:"image_url"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, c := range req.Messages[0].Content {
		if c.Type == "image_url" {
			b64, ok := strings.CutPrefix(c.ImageURL.URL, "data:image/png;base64,")
			if !ok {
				t.Fatalf("image sent as %.40s, want a PNG data URL", c.ImageURL.URL)
			}
			raw, _ := base64.StdEncoding.DecodeString(b64)
			img, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatal("no image in the request")
	return nil
}

// TestVisionRegion: the original's region crops the image in its own
// pixel coordinates at full resolution before the model sees it, and the
// result carries the note; a region that is not a box inside the image is
// refused before any request.
func TestVisionRegion(t *testing.T) {
	fake := fakeapis.Start(t)
	src := image.NewRGBA(image.Rect(0, 0, 8, 6))
	for y := range 6 {
		for x := range 8 {
			src.Set(x, y, color.RGBA{G: 255, A: 255})
		}
	}
	src.Set(5, 4, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	_ = png.Encode(&buf, src)
	dataURL := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	f := mediatest.NewFixture(t, fake, mediatest.OpenAIEnv(fake), visionConfig)
	tl := mediatest.OnlyTool(t, Toolset(f.Opts))

	before := len(fake.Requests(fakeapis.OpenAI))
	out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": dataURL, "question": "What is red?", "region": []int{4, 3, 20, 6}})
	if res.IsError {
		t.Fatalf("failed: %v", out)
	}
	note, _ := out["scale_note"].(string)
	analysis, _ := out["analysis"].(string)
	if !strings.Contains(note, "[4, 3, 8, 6]") || !strings.Contains(note, "8x6") || !strings.HasPrefix(analysis, "["+note+"] ") {
		t.Errorf("result %v: want the crop note before the analysis and on its own", out)
	}
	reqs := fake.Requests(fakeapis.OpenAI)[before:]
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	got := sentImage(t, reqs[0].Body)
	if b := got.Bounds(); b.Dx() != 4 || b.Dy() != 3 {
		t.Fatalf("sent a %dx%d image, want the 4x3 region cut at the image's edge", b.Dx(), b.Dy())
	}
	if r, g, _, _ := got.At(1, 1).RGBA(); r>>8 != 255 || g != 0 {
		t.Errorf("pixel (1,1) of the crop is not the original's red (5,4)")
	}

	webp := "data:image/webp;base64," + base64.StdEncoding.EncodeToString([]byte("RIFF\x1a\x00\x00\x00WEBPVP8 "+strings.Repeat("\x00", 14)))
	for _, c := range []struct {
		image  string
		region any
		want   string
	}{
		{dataURL, []int{4, 3, 4, 6}, "is not a box"},
		{dataURL, []int{-1, 0, 2, 2}, "is not a box"},
		{dataURL, []int{8, 0, 9, 2}, "outside the 8x6 image"},
		{webp, []int{0, 0, 2, 2}, "cannot crop WebP"},
	} {
		before := len(fake.Requests(fakeapis.OpenAI))
		out, res := mediatest.Call(t, context.Background(), tl, map[string]any{"image_url": c.image, "question": "q", "region": c.region})
		if msg, _ := out["error"].(string); !res.IsError || !strings.Contains(msg, c.want) {
			t.Errorf("region %v: %v, want an error containing %q", c.region, out, c.want)
		}
		if n := len(fake.Requests(fakeapis.OpenAI)) - before; n != 0 {
			t.Errorf("region %v: a refused crop still reached the model", c.region)
		}
	}
}
