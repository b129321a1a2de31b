package imagegen

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
)

// The original's xAI and Krea image plugins: models, defaults, endpoints.
const (
	DefaultXAIModel  = "grok-imagine-image"
	DefaultKreaModel = "krea-2-medium"
	defaultXAIBase   = "https://api.x.ai/v1"
	defaultKreaBase  = "https://api.krea.ai"
	xaiMaxSources    = 3
	kreaMaxRefs      = 10
	// KreaBaseEnv overrides Krea's API (ours; the original has none).
	KreaBaseEnv = "HERMES_KREA_BASE_URL"
)

var (
	xaiModels  = []string{"grok-imagine-image", "grok-imagine-image-2.0", "grok-imagine-image-quality"}
	kreaModels = map[string]string{"krea-2-medium": "medium", "krea-2-large": "large", "krea-2-medium-turbo": "medium-turbo"}
	aspectName = map[string]string{"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
)

func resolveXAIKrea(conf Backend, c mediaapi.Config, getenv func(string) string) (Backend, error) {
	// image_gen.model applies only when it is one of the provider's ids.
	pick := func(ok func(string) bool, cands ...string) string {
		for _, m := range cands {
			if m = strings.TrimSpace(m); m != "" && ok(m) {
				return m
			}
		}
		return ""
	}
	if conf.Provider == ProviderXAI {
		conf.APIKey = getenv("XAI_API_KEY")
		conf.BaseURL = cmp.Or(conf.BaseURL, getenv("HERMES_XAI_BASE_URL"), getenv("XAI_BASE_URL"), defaultXAIBase)
		conf.Model = cmp.Or(pick(func(m string) bool { return slices.Contains(xaiModels, m) },
			c.ImageGen.Model, getenv("XAI_IMAGE_MODEL"), c.ImageGen.XAI.Model), DefaultXAIModel)
		conf.Resolution = strings.ToLower(cmp.Or(strings.TrimSpace(c.ImageGen.XAI.Resolution), "1k"))
		if conf.Resolution != "1k" && conf.Resolution != "2k" {
			return conf, fmt.Errorf("image_gen.xai.resolution %q must be 1k or 2k", c.ImageGen.XAI.Resolution)
		}
		if conf.APIKey == "" {
			return conf, errors.New("image_gen.provider is xai but XAI_API_KEY is not set")
		}
		return conf, nil
	}
	conf.APIKey = getenv("KREA_API_KEY")
	conf.BaseURL = cmp.Or(conf.BaseURL, getenv(KreaBaseEnv), defaultKreaBase)
	conf.Model = cmp.Or(pick(func(m string) bool { _, ok := kreaModels[m]; return ok },
		getenv("KREA_IMAGE_MODEL"), c.ImageGen.Krea.Model, c.ImageGen.Model), DefaultKreaModel)
	conf.Creativity = cmp.Or(strings.TrimSpace(c.ImageGen.Krea.Creativity), "medium")
	if conf.APIKey == "" {
		return conf, errors.New("image_gen.provider is krea but KREA_API_KEY is not set")
	}
	return conf, nil
}

func dataURL(src source) string {
	return "data:" + src.mediaType + ";base64," + base64.StdEncoding.EncodeToString(src.data)
}

// decodeImages takes the first image of an OpenAI-style images answer.
func (g *generator) decodeImages(ctx context.Context, who string, raw []byte, timeout time.Duration) ([]byte, error) {
	var resp struct {
		Data []struct {
			B64JSON    string `json:"b64_json"`
			URL        string `json:"url"`
			FileOutput struct {
				PublicURL string `json:"public_url"`
			} `json:"file_output"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("%s answered with something other than an images response: %s", who, clip(raw))
	}
	if len(resp.Data) == 0 {
		return nil, fmt.Errorf("%s returned no image", who)
	}
	d := resp.Data[0]
	switch {
	case d.B64JSON != "":
		return base64.StdEncoding.DecodeString(d.B64JSON)
	case d.URL != "":
		return g.fetchResult(ctx, d.URL, timeout)
	case d.FileOutput.PublicURL != "":
		return g.fetchResult(ctx, d.FileOutput.PublicURL, timeout)
	}
	return nil, fmt.Errorf("%s returned neither image data nor a URL", who)
}

// xai calls xAI's images API: generations, or edits with one `image` or
// several `images` given as data: URLs. No storage_options: the image is
// kept here, not published at xAI.
func (g *generator) xai(ctx context.Context, conf Backend, prompt, aspect string, sources []source, timeout time.Duration) ([]byte, error) {
	body := map[string]any{"model": conf.Model, "prompt": prompt}
	path := "images/generations"
	if len(sources) == 0 {
		body["aspect_ratio"] = cmp.Or(aspectName[aspect], "16:9")
		body["resolution"] = conf.Resolution
	} else {
		path = "images/edits"
		var imgs []map[string]any
		for _, s := range sources {
			imgs = append(imgs, map[string]any{"url": dataURL(s), "type": "image_url"})
		}
		if len(imgs) == 1 {
			body["image"] = imgs[0]
		} else {
			body["images"] = imgs
		}
	}
	raw, err := g.e.PostOpenAI(ctx, conf.BaseURL, conf.APIKey, path, body, timeout)
	if err != nil {
		return nil, mediaapi.APIError("xAI image model "+conf.Model, conf.BaseURL, "XAI_API_KEY", err)
	}
	return g.decodeImages(ctx, "xAI image model "+conf.Model, raw, timeout)
}

// krea submits a Krea 2 job and polls it: source images become style
// references (http(s) ones by URL, which the URL policy already allowed;
// others as data: URLs).
func (g *generator) krea(ctx context.Context, conf Backend, prompt, aspect string, sources []source, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body := map[string]any{"prompt": prompt, "aspect_ratio": cmp.Or(aspectName[aspect], "16:9"), "resolution": "1K", "creativity": conf.Creativity}
	var refs []map[string]any
	for i, s := range sources {
		if i == kreaMaxRefs {
			break
		}
		refs = append(refs, map[string]any{"url": cmp.Or(s.origin, dataURL(s)), "strength": 0.6})
	}
	if len(refs) > 0 {
		body["image_style_references"] = refs
	}
	base := strings.TrimRight(conf.BaseURL, "/")
	h := http.Header{}
	h.Set("Authorization", "Bearer "+conf.APIKey)
	h.Set("User-Agent", "Hermes-Agent/1.0 (krea-image-gen)")
	raw, err := g.e.PostJSON(ctx, base+"/generate/image/krea/krea-2/"+kreaModels[conf.Model], h, body, timeout)
	if err != nil {
		return nil, kreaErr(ctx, conf, err, timeout)
	}
	var job struct {
		JobID string `json:"job_id"`
	}
	if err := json.Unmarshal(raw, &job); err != nil || job.JobID == "" {
		return nil, fmt.Errorf("Krea answered the submission with something that is not a job: %s", clip(raw))
	}
	wait := kreaPollFirst
	for {
		select {
		case <-ctx.Done():
			return nil, kreaErr(ctx, conf, ctx.Err(), timeout)
		case <-time.After(wait):
		}
		wait = min(time.Duration(float64(wait)*1.3), 5*time.Second)
		st, retry, err := g.kreaPoll(ctx, base+"/jobs/"+job.JobID, h)
		if err != nil {
			if retry {
				continue
			}
			return nil, kreaErr(ctx, conf, err, timeout)
		}
		var s struct {
			Status      string `json:"status"`
			CompletedAt string `json:"completed_at"`
			Result      struct {
				URLs  []string `json:"urls"`
				URL   string   `json:"url"`
				Error string   `json:"error"`
			} `json:"result"`
		}
		if err := json.Unmarshal(st, &s); err != nil {
			return nil, fmt.Errorf("Krea answered a job poll with something that is not a job: %s", clip(st))
		}
		switch {
		case s.Status == "failed" || s.Status == "cancelled":
			return nil, fmt.Errorf("Krea job %s %s: %s", job.JobID, s.Status, cmp.Or(s.Result.Error, "no reason given"))
		case s.Status == "completed" || s.CompletedAt != "":
			u := s.Result.URL
			if len(s.Result.URLs) > 0 {
				u = s.Result.URLs[0]
			}
			if u == "" {
				return nil, fmt.Errorf("Krea job %s completed without an image URL", job.JobID)
			}
			return g.fetchResult(ctx, u, timeout)
		}
	}
}

// kreaPollFirst is the first wait, as in the original.
const kreaPollFirst = 2 * time.Second

func kreaErr(ctx context.Context, conf Backend, err error, timeout time.Duration) error {
	if ctx.Err() != nil {
		return fmt.Errorf("Krea did not finish within %v; retry", timeout)
	}
	return mediaapi.APIError("Krea model "+conf.Model, conf.BaseURL, "KREA_API_KEY", err)
}

// kreaPoll GETs a job; retry reports a status worth asking again
// (408, 409, 425, 429, 5xx), as the original does.
func (g *generator) kreaPoll(ctx context.Context, u string, h http.Header) ([]byte, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, false, err
	}
	req.Header = h.Clone()
	resp, err := g.e.Client.Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, fmt.Errorf("poll Krea: %s", redact.String(err.Error()))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, true, err
	}
	switch c := resp.StatusCode; {
	case c < 300:
		return b, false, nil
	case c == 408 || c == 409 || c == 425 || c == 429 || c >= 500:
		return nil, true, fmt.Errorf("HTTP %d", c)
	default:
		return nil, false, fmt.Errorf("Krea job poll returned HTTP %d: %s", c, clip(b))
	}
}
