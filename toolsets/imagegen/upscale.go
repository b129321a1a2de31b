package imagegen

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// The original's post-generation pass for FAL (upscale=true): its clarity
// upscaler at 2x, with these settings.
const (
	falUpscaler       = "fal-ai/clarity-upscaler"
	upscalePrefix     = "masterpiece, best quality, highres, "
	upscaleNegative   = "(worst quality, low quality, normal quality:2)"
	upscaleFactor     = 2
	upscaleCreativity = 0.35
	upscaleResemble   = 0.6
	upscaleGuidance   = 4
	upscaleSteps      = 18
)

// upscale runs FAL's upscaler on the generated image and returns the
// larger one. Any failure keeps the image that was generated, as the
// original does (the caller paid for it, and upscaling is an extra), with
// a note saying why it is not larger.
func (g *generator) upscale(ctx context.Context, conf Backend, prompt string, img []byte) ([]byte, bool, string) {
	out, err := g.falUpscale(ctx, conf, prompt, img)
	if err != nil {
		return img, false, fmt.Sprintf("upscaling failed, so this is the image as generated: %v", err)
	}
	return out, true, ""
}

func (g *generator) falUpscale(ctx context.Context, conf Backend, prompt string, img []byte) ([]byte, error) {
	timeout := g.e.CallTimeout(0)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The image goes back as a data: URL: FAL takes one wherever a file URL
	// is expected, and nothing is fetched on our behalf.
	src := "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
	body := payload{}.
		set("image_url", src).
		set("prompt", upscalePrefix+prompt).
		set("upscale_factor", upscaleFactor).
		set("negative_prompt", upscaleNegative).
		set("creativity", upscaleCreativity).
		set("resemblance", upscaleResemble).
		set("guidance_scale", upscaleGuidance).
		set("num_inference_steps", upscaleSteps).
		set("enable_safety_checker", false)
	q := &falQueue{g: g, conf: conf}
	out, err := q.run(ctx, falUpscaler, body)
	if err != nil {
		return nil, err
	}
	var res struct {
		Image struct {
			URL string `json:"url"`
		} `json:"image"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Image.URL == "" {
		return nil, fmt.Errorf("the upscaler returned no image (%s)", clip(out))
	}
	b, err := g.fetchResult(ctx, res.Image.URL, timeout)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(http.DetectContentType(b), "image/") {
		return nil, errors.New("the upscaler returned something that is not an image")
	}
	return b, nil
}
