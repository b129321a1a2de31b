package imagegen

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"cmp"

	"github.com/hermes-go/hermes/internal/contain"
	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// maxInlineImage bounds the image sent back as MCP image content; larger
// files are still saved and their path returned.
const maxInlineImage = 8 << 20

type generator struct{ e *mediaapi.Env }

type callArgs struct {
	Prompt             string   `json:"prompt"`
	AspectRatio        string   `json:"aspect_ratio"`
	ImageURL           string   `json:"image_url"`
	ReferenceImageURLs []string `json:"reference_image_urls"`
	Upscale            bool     `json:"upscale"`
}

func (g *generator) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[callArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	if strings.TrimSpace(args.Prompt) == "" {
		return tooldef.Failure(map[string]any{"success": false, "error": "prompt is required for image generation"}), nil
	}
	aspect := args.AspectRatio
	if aspect == "" {
		aspect = "landscape"
	}
	fail := func(kind string, err error) (tooldef.Result, error) {
		return tooldef.Failure(map[string]any{"success": false, "image": nil, "error": err.Error(), "error_type": kind}), nil
	}
	refs, err := sourceRefs(args.ImageURL, args.ReferenceImageURLs)
	if err != nil {
		return fail("invalid_argument", err)
	}
	conf, err := Resolve(g.e.Opts)
	if err != nil {
		return fail("provider_not_configured", err)
	}
	if conf.Provider == ProviderXAI && len(refs) > xaiMaxSources {
		return fail("too_many_references", fmt.Errorf("xAI edits take at most %d source images; %d given", xaiMaxSources, len(refs)))
	}
	if m, ok := falModels[conf.Model]; len(refs) > 0 && conf.Provider == ProviderFAL && (!ok || m.editEndpoint == "") {
		return fail("ValueError", fmt.Errorf("Model '%s' is not capable of image-to-image / editing. Provide a text-only prompt (omit image_url), or switch to an edit-capable model (image_gen.model in config.yaml, e.g. %s).", conf.Model, DefaultFALModel))
	}
	var sources []source
	for _, r := range refs {
		src, err := g.loadSource(ctx, r, conf.AllowPrivateURLs)
		if err != nil {
			return fail("io_error", fmt.Errorf("Could not load source image for editing: %w", err))
		}
		sources = append(sources, src)
	}
	modality := "text"
	if len(sources) > 0 {
		modality = "image"
	}

	stop := g.reportProgress(ctx, conf)
	img, err := g.generate(ctx, conf, args.Prompt, aspect, sources)
	upscaled, upscaleNote := false, ""
	if err == nil && conf.Provider == ProviderFAL && args.Upscale {
		img, upscaled, upscaleNote = g.upscale(ctx, conf, args.Prompt, img)
	}
	stop()
	if err != nil {
		if ctx.Err() != nil {
			return fail("interrupted", errors.New("Interrupted"))
		}
		return fail("provider_exception", err)
	}
	mt := http.DetectContentType(img)
	ext := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/gif": ".gif"}[mt]
	if ext == "" {
		return fail("provider_contract", fmt.Errorf("the %s provider returned something that is not an image (%s)", conf.Provider, mt))
	}
	dir, err := g.e.CacheDir("images")
	if err != nil {
		return tooldef.Result{}, err
	}
	path := filepath.Join(dir, mediaapi.Stamp("image", ext))
	if err := mediaapi.WriteNew(path, img); err != nil {
		return tooldef.Result{}, fmt.Errorf("save the generated image: %w", err)
	}
	res := tooldef.OK(map[string]any{
		"success": true, "image": path, "model": conf.Model, "prompt": args.Prompt,
		"aspect_ratio": aspect, "provider": conf.Provider, "modality": modality,
	})
	if conf.Provider == ProviderFAL {
		// The original's FAL result says whether the pass ran.
		res.Value.(map[string]any)["upscaled"] = upscaled
		if upscaleNote != "" {
			res.Value.(map[string]any)["note"] = upscaleNote
		}
	}
	if len(img) <= maxInlineImage {
		res.Images = []tooldef.Image{{MIMEType: mt, Data: img}}
	}
	return res, nil
}

// reportProgress tells the client the call is alive while the provider
// works: elapsed seconds, no total (it is unknown). The returned stop
// waits for the reporter to finish, so no update follows the result.
func (g *generator) reportProgress(ctx context.Context, conf Backend) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	start := time.Now()
	tooldef.ReportProgress(ctx, 0, 0, "Generating image with "+conf.Provider+" ("+conf.Model+")")
	wg.Go(func() {
		_ = contain.Call(nil, "image_generate progress", func() error { g.tick(ctx, done, start); return nil })
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// tick reports progress every interval until done or ctx ends.
func (g *generator) tick(ctx context.Context, done <-chan struct{}, start time.Time) {
	t := time.NewTicker(g.e.Every)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case now := <-t.C:
			s := now.Sub(start).Seconds()
			tooldef.ReportProgress(ctx, s, 0, fmt.Sprintf("Still generating (%.0fs)", s))
		}
	}
}

func (g *generator) generate(ctx context.Context, conf Backend, prompt, aspect string, sources []source) ([]byte, error) {
	timeout := g.e.CallTimeout(0)
	switch conf.Provider {
	case ProviderOpenAI:
		size, sized := map[string]string{"landscape": "1536x1024", "square": "1024x1024", "portrait": "1024x1536"}[aspect]
		var (
			raw []byte
			err error
		)
		if len(sources) > 0 {
			raw, err = g.openaiEdit(ctx, conf, prompt, size, sources, timeout)
		} else {
			req := map[string]any{"prompt": prompt, "model": conf.Model, "n": 1}
			if sized {
				req["size"] = size
			}
			raw, err = g.e.PostOpenAI(ctx, conf.BaseURL, conf.APIKey, "images/generations", req, timeout)
		}
		if err != nil {
			return nil, mediaapi.APIError("the image model "+conf.Model, conf.BaseURL, "OPENAI_API_KEY", err)
		}
		var resp struct {
			Data []struct {
				B64JSON string `json:"b64_json"`
				URL     string `json:"url"`
			} `json:"data"`
		}
		if err := json.Unmarshal(raw, &resp); err != nil {
			return nil, fmt.Errorf("the image model %s answered with something other than an images response: %w", conf.Model, err)
		}
		if len(resp.Data) == 0 {
			return nil, fmt.Errorf("the image model %s returned no image", conf.Model)
		}
		if b64 := resp.Data[0].B64JSON; b64 != "" {
			b, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				return nil, fmt.Errorf("the image model returned invalid base64: %w", err)
			}
			return b, nil
		}
		if resp.Data[0].URL != "" {
			return g.fetchResult(ctx, resp.Data[0].URL, timeout)
		}
		return nil, fmt.Errorf("the image model %s returned neither image data nor a URL", conf.Model)
	case ProviderFAL:
		return g.fal(ctx, conf, prompt, aspect, sources, timeout)
	case ProviderXAI:
		return g.xai(ctx, conf, prompt, aspect, sources, timeout)
	case ProviderKrea:
		return g.krea(ctx, conf, prompt, aspect, sources, timeout)
	}
	return nil, fmt.Errorf("image provider %q is not supported", conf.Provider)
}

// openaiEdit calls POST /images/edits with a multipart form: the text
// fields, then one `image` part, or one `image[]` part per image when
// there are several, as openai-python sends them.
func (g *generator) openaiEdit(ctx context.Context, conf Backend, prompt, size string, sources []source, timeout time.Duration) ([]byte, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fields := [][2]string{{"model", conf.Model}, {"prompt", prompt}, {"n", "1"}}
	if size != "" {
		fields = append(fields, [2]string{"size", size})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, fmt.Errorf("encode the edit request: %w", err)
		}
	}
	part := "image"
	if len(sources) > 1 {
		part = "image[]"
	}
	for _, src := range sources {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="%s"; filename="%s"`, part, src.name))
		h.Set("Content-Type", src.mediaType)
		w, err := mw.CreatePart(h)
		if err != nil {
			return nil, fmt.Errorf("encode the edit request: %w", err)
		}
		if _, err := w.Write(src.data); err != nil {
			return nil, fmt.Errorf("encode the edit request: %w", err)
		}
	}
	if err := mw.Close(); err != nil {
		return nil, fmt.Errorf("encode the edit request: %w", err)
	}
	hdr := http.Header{}
	hdr.Set("Content-Type", mw.FormDataContentType())
	if conf.APIKey != "" {
		hdr.Set("Authorization", "Bearer "+conf.APIKey)
	}
	return g.e.PostBody(ctx, strings.TrimRight(conf.BaseURL, "/")+"/images/edits", hdr, buf.Bytes(), timeout)
}

// fal runs the model through FAL's queue, as fal-client does: submit,
// poll the status URL until COMPLETED, fetch the response, then download
// the image it links to. Source images go as data: URLs (FAL takes them
// wherever a file URL is expected), so FAL fetches nothing on our behalf.
func (g *generator) fal(ctx context.Context, conf Backend, prompt, aspect string, sources []source, timeout time.Duration) ([]byte, error) {
	m := falModels[conf.Model]
	var images []string
	for _, src := range sources {
		images = append(images, "data:"+src.mediaType+";base64,"+base64.StdEncoding.EncodeToString(src.data))
	}
	endpoint, body := falRequest(m, conf.Model, prompt, aspect, images)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	q := &falQueue{g: g, conf: conf}
	out, err := q.run(ctx, endpoint, body)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("FAL did not answer within %v; retry", timeout)
		}
		return nil, err
	}
	var res struct {
		Images []struct {
			URL string `json:"url"`
		} `json:"images"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("Invalid response from FAL.ai API — no images returned (%s)", clip(out))
	}
	if len(res.Images) == 0 {
		return nil, errors.New("No images were generated")
	}
	if res.Images[0].URL == "" {
		return nil, errors.New("No valid image URLs returned from API")
	}
	return g.fetchResult(ctx, res.Images[0].URL, timeout)
}

// fetchResult downloads an image the provider generated. The URL comes
// from the provider, not the model, so the provider client is used; data
// URLs are decoded in place.
func (g *generator) fetchResult(ctx context.Context, u string, timeout time.Duration) ([]byte, error) {
	if strings.HasPrefix(u, "data:") {
		_, data, ok := strings.Cut(u, ",")
		if !ok {
			return nil, errors.New("the provider returned a malformed data URL")
		}
		return base64.StdEncoding.DecodeString(data)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("the provider returned an invalid image URL: %w", err)
	}
	resp, err := g.e.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("download the generated image: %s", redact.String(err.Error()))
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("download the generated image: HTTP %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("download the generated image: %w", err)
	}
	return b, nil
}

// Defaults when neither config.yaml nor the environment names a model:
// current models at the time of writing (dall-e-* and gpt-image-1 are
// retired). image_gen.model, OPENAI_IMAGE_MODEL and FAL_IMAGE_MODEL
// override them.
const (
	DefaultOpenAIModel = "gpt-image-2"
	DefaultFALModel    = "fal-ai/flux-2/klein/9b"
	defaultFALBase     = "https://queue.fal.run"
)

// Image providers, as image_gen.provider names them and results report
// them.
const (
	ProviderFAL    = "fal"
	ProviderOpenAI = "openai"
	ProviderXAI    = "xai"
	ProviderKrea   = "krea"
)

// Backend is a resolved image generation backend.
type Backend struct {
	// Provider is ProviderFAL, ProviderOpenAI, ProviderXAI or
	// ProviderKrea.
	Provider, Model, BaseURL, APIKey string
	// Resolution and Creativity are image_gen.xai.resolution and
	// image_gen.krea.creativity.
	Resolution, Creativity string
	// AllowPrivateURLs is web.allow_private_urls: source image URLs may
	// then point at private and loopback addresses.
	AllowPrivateURLs bool
}

// Resolve picks the image provider, model, endpoint and key from
// image_gen in config.yaml and the environment. The error says what to
// set.
func Resolve(opts Options) (Backend, error) {
	c, err := mediaapi.LoadConfig(opts.Home)
	if err != nil {
		return Backend{}, err
	}
	getenv := opts.Var
	provider := strings.ToLower(strings.TrimSpace(c.ImageGen.Provider))
	if provider == "" {
		// Unset: the in-tree FAL path when FAL_KEY is there, as in the
		// Python Hermes, else OpenAI when its key is.
		switch {
		case getenv("FAL_KEY") != "":
			provider = ProviderFAL
		case getenv("OPENAI_API_KEY") != "":
			provider = ProviderOpenAI
		default:
			return Backend{}, errors.New("image generation needs FAL_KEY or OPENAI_API_KEY in the environment hermes-tools runs in, or image_gen.provider: xai (XAI_API_KEY) or krea (KREA_API_KEY) in config.yaml")
		}
	}
	conf := Backend{Provider: provider, Model: c.ImageGen.Model, BaseURL: c.ImageGen.BaseURL, AllowPrivateURLs: c.Web.AllowPrivateURLs}
	switch provider {
	case ProviderFAL:
		conf.APIKey = getenv("FAL_KEY")
		if conf.APIKey == "" {
			return conf, errors.New("image_gen.provider is fal but FAL_KEY is not set")
		}
		conf.Model = cmp.Or(conf.Model, getenv("FAL_IMAGE_MODEL"), DefaultFALModel)
		if _, ok := falModels[conf.Model]; !ok {
			// The original falls back to its default for an id its
			// catalog lacks; the result's model says which ran.
			conf.Model = DefaultFALModel
		}
		conf.BaseURL = cmp.Or(conf.BaseURL, getenv("FAL_BASE_URL"), defaultFALBase)
	case ProviderOpenAI:
		conf.APIKey = getenv("OPENAI_API_KEY")
		conf.BaseURL = cmp.Or(conf.BaseURL, getenv("OPENAI_BASE_URL"), mediaapi.DefaultOpenAIBase)
		if conf.APIKey == "" && strings.Contains(conf.BaseURL, "api.openai.com") {
			return conf, errors.New("image_gen.provider is openai but OPENAI_API_KEY is not set")
		}
		conf.Model = cmp.Or(conf.Model, getenv("OPENAI_IMAGE_MODEL"), DefaultOpenAIModel)
	case ProviderXAI, ProviderKrea:
		return resolveXAIKrea(conf, c, getenv)
	default:
		return conf, fmt.Errorf("image_gen.provider %q is not supported by hermes-tools (supported: openai, fal, xai, krea)", c.ImageGen.Provider)
	}
	return conf, nil
}
