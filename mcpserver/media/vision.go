package media

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// maxImageBytes bounds an image sent to a vision model; providers refuse
// larger ones anyway (OpenAI: 20 MB).
const maxImageBytes = 20 << 20

// Vision answers questions about images through an OpenAI-compatible chat
// model, configured by auxiliary.vision in config.yaml. It is shared by
// vision_analyze and by any other tool that needs to look at a picture
// (browser_vision).
type Vision struct{ e *env }

// NewVision returns the vision client for opts.
func NewVision(opts Options) *Vision { return &Vision{e: newEnv(opts)} }

// VisionFunc returns Analyze as a plain function, for toolsets that take
// the vision client as a dependency without importing this package's
// types.
func VisionFunc(opts Options) func(ctx context.Context, image []byte, question string) (string, error) {
	return NewVision(opts).Analyze
}

// visionConf is a resolved vision endpoint with this process's bound on
// one call.
type visionConf struct {
	VisionBackend
	timeout time.Duration
}

// resolve resolves the endpoint the way the check does (ResolveVision)
// and applies the Timeout option.
func (v *Vision) resolve() (visionConf, error) {
	b, err := ResolveVision(v.e.opts)
	if err != nil {
		return visionConf{}, err
	}
	return visionConf{VisionBackend: b, timeout: v.e.callTimeout(b.Timeout)}, nil
}

// Analyze sends the image with the question, verbatim, and returns the
// model's answer. The image's type is sniffed (PNG, JPEG, GIF, WebP).
func (v *Vision) Analyze(ctx context.Context, image []byte, question string) (string, error) {
	conf, err := v.resolve()
	if err != nil {
		return "", err
	}
	mt, err := imageType(image)
	if err != nil {
		return "", err
	}
	return v.ask(ctx, conf, "data:"+mt+";base64,"+base64.StdEncoding.EncodeToString(image), question)
}

func (v *Vision) ask(ctx context.Context, conf visionConf, dataURL, prompt string) (string, error) {
	raw, err := v.e.postOpenAI(ctx, conf.BaseURL, conf.APIKey, "chat/completions", map[string]any{
		"model": conf.Model,
		"messages": []any{map[string]any{
			"role": "user",
			"content": []any{
				map[string]any{"type": "text", "text": prompt},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": dataURL}},
			},
		}},
	}, conf.timeout)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", apiError("the vision model "+conf.Model, conf.BaseURL, conf.KeyHint, err)
	}
	var resp struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
				Refusal string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return "", fmt.Errorf("the vision model %s answered with something other than a chat completion: %w", conf.Model, err)
	}
	if len(resp.Choices) == 0 || strings.TrimSpace(resp.Choices[0].Message.Content) == "" {
		if len(resp.Choices) > 0 && resp.Choices[0].Message.Refusal != "" {
			return "", fmt.Errorf("the vision model refused: %s", resp.Choices[0].Message.Refusal)
		}
		return "", fmt.Errorf("the vision model %s returned no answer; check that it accepts images", conf.Model)
	}
	return resp.Choices[0].Message.Content, nil
}

// imageType sniffs an image's MIME type and refuses what vision models do
// not take.
func imageType(b []byte) (string, error) {
	if len(b) == 0 {
		return "", errors.New("the image is empty")
	}
	mt := http.DetectContentType(b)
	switch mt {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return mt, nil
	}
	return "", fmt.Errorf("not a supported image (detected %s): vision models take PNG, JPEG, GIF and WebP", mt)
}

// VisionToolset returns the `vision` toolset.
func VisionToolset(opts Options) tooldef.Toolset {
	v := NewVision(opts)
	return visionToolset(v.e.opts, v.handle)
}

type visionArgs struct {
	ImageURL string `json:"image_url"`
	Question string `json:"question"`
}

// visionPrompt is the Python Hermes' wording, so answers read the same.
const visionPrompt = "Fully describe and explain everything about this image, then answer the following question: "

func (v *Vision) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[visionArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	fail := func(err error) (tooldef.Result, error) {
		msg := err.Error()
		return tooldef.Failure(map[string]any{"success": false, "error": msg, "analysis": "Image analysis failed: " + msg}), nil
	}
	if strings.TrimSpace(args.ImageURL) == "" || strings.TrimSpace(args.Question) == "" {
		return fail(errors.New("image_url and question are both required"))
	}
	conf, err := v.resolve()
	if err != nil {
		return fail(err)
	}
	img, err := v.load(ctx, conf, strings.TrimSpace(args.ImageURL))
	if err != nil {
		return fail(err)
	}
	mt, err := imageType(img)
	if err != nil {
		return fail(err)
	}
	answer, err := v.ask(ctx, conf, "data:"+mt+";base64,"+base64.StdEncoding.EncodeToString(img), visionPrompt+args.Question)
	if err != nil {
		if ctx.Err() != nil {
			return fail(errors.New("Interrupted"))
		}
		return fail(err)
	}
	return tooldef.OK(map[string]any{"success": true, "analysis": answer}), nil
}

// load reads the image from a data URL, an http(s) URL (under the URL
// policy) or a local file.
func (v *Vision) load(ctx context.Context, conf visionConf, ref string) ([]byte, error) {
	switch {
	case strings.HasPrefix(ref, "data:"):
		meta, data, ok := strings.Cut(strings.TrimPrefix(ref, "data:"), ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return nil, errors.New("a data URL must look like data:image/png;base64,<data>")
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
		if err != nil {
			return nil, fmt.Errorf("the data URL is not valid base64: %w", err)
		}
		return b, nil
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		return v.download(ctx, conf, ref)
	}
	path := strings.TrimPrefix(ref, "file://")
	if strings.HasPrefix(path, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(h, path[2:])
		}
	}
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%q is not a URL, a data URL or an absolute file path", ref)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the image file: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxImageBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxImageBytes {
		return nil, fmt.Errorf("%s is larger than %d MB; resize it first", path, maxImageBytes>>20)
	}
	return b, nil
}

func (v *Vision) download(ctx context.Context, conf visionConf, raw string) ([]byte, error) {
	policy := urlguard.Policy{
		AllowPrivate: conf.AllowPrivateURLs,
		AllowHint:    urlguard.AllowPrivateHint(v.e.opts.Home, "web.allow_private_urls"),
	}
	if _, err := urlguard.CheckURL(ctx, raw, policy, v.e.resolver); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, conf.DownloadTimeout)
	defer cancel()
	client := guardedClient(policy, v.e.resolver)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; hermes-tools)")
	req.Header.Set("Accept", "image/*")
	resp, err := client.Do(req)
	if err != nil {
		var be *urlguard.BlockedError
		if errors.As(err, &be) {
			return nil, be
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("the image did not download within %v (auxiliary.vision.download_timeout)", conf.DownloadTimeout)
		}
		return nil, fmt.Errorf("download the image: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("download the image: HTTP %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxImageBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download the image: %w", err)
	}
	if len(b) > maxImageBytes {
		return nil, fmt.Errorf("the image is larger than %d MB", maxImageBytes>>20)
	}
	return b, nil
}

// guardedClient fetches model-supplied URLs: the dialer enforces the URL
// policy on every connection, redirects are re-checked, and there is no
// proxy (it would be what the dialer checks).
func guardedClient(p urlguard.Policy, r urlguard.Resolver) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         (&urlguard.Dialer{Policy: p, Resolver: r, Net: &net.Dialer{Timeout: 10 * time.Second}}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			DisableKeepAlives:   true,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			_, err := urlguard.CheckURL(req.Context(), req.URL.String(), p, nil)
			return err
		},
	}
}

// VisionAnalyzeTool is vision_analyze's wire name.
const VisionAnalyzeTool = "vision_analyze"

// VisionBackend is a resolved vision endpoint: an OpenAI-compatible chat
// model that accepts images.
type VisionBackend struct {
	BaseURL, APIKey, Model string
	// KeyHint names the setting the key came from (or should come from),
	// for error messages about a rejected key.
	KeyHint string
	// Timeout is auxiliary.vision.timeout in seconds, 0 when unset; the
	// implementation decides what unset means.
	Timeout float64
	// DownloadTimeout bounds fetching an image URL.
	DownloadTimeout time.Duration
	// AllowPrivateURLs is web.allow_private_urls: image URLs may then
	// point at private and loopback addresses.
	AllowPrivateURLs bool
}

// Default vision models, used when a provider key is there and neither
// config.yaml nor AUXILIARY_VISION_MODEL names a model: the Python
// Hermes' auxiliary defaults for OpenRouter and Nous (agent/
// auxiliary_client.py), and for OpenAI's own API the SDK's current small
// model that takes images (not one with an announced shutdown).
const (
	DefaultOpenRouterVisionModel = "google/gemini-3-flash-preview"
	DefaultNousVisionModel       = "google/gemini-3-flash-preview"
	DefaultOpenAIVisionModel     = "gpt-5.4-mini"
)

const (
	openRouterBase = "https://openrouter.ai/api/v1"
	nousBase       = "https://inference-api.nousresearch.com/v1"
)

// ResolveVision picks the endpoint, key and model. Provider "auto" follows
// Hermes' order: the main provider (its endpoint when config.yaml gives
// one), then whichever of OpenAI, OpenRouter and Nous has a key set;
// "openai", "openrouter" and "nous" pick that service; anything else must
// be an OpenAI-compatible server named by auxiliary.vision.base_url. With
// a key and no model configured, the service's default vision model is
// used. The error says what to set.
func ResolveVision(opts Options) (VisionBackend, error) {
	c, err := loadConfig(opts.Home)
	if err != nil {
		return VisionBackend{}, err
	}
	aux := c.Auxiliary.Vision
	provider := strings.ToLower(strings.TrimSpace(aux.Provider))
	if provider == "" || provider == "main" {
		provider = "auto"
	}
	conf := VisionBackend{
		BaseURL: aux.BaseURL, APIKey: aux.APIKey, KeyHint: "auxiliary.vision.api_key in config.yaml",
		Timeout: aux.Timeout, AllowPrivateURLs: c.Web.AllowPrivateURLs,
	}
	conf.DownloadTimeout = 30 * time.Second
	if aux.DownloadTimeout > 0 {
		conf.DownloadTimeout = time.Duration(aux.DownloadTimeout * float64(time.Second))
	}
	mainProvider := strings.ToLower(strings.TrimSpace(c.Model.Provider))
	mainCompatible := map[string]bool{"": true, "auto": true, "openai": true, "custom": true}[mainProvider]
	getenv := opts.getenv
	if provider == "auto" && conf.BaseURL == "" {
		// auto resolves to a service the way the original's does.
		switch {
		case mainProvider == "openrouter" || mainProvider == "nous":
			provider = mainProvider
		case mainCompatible && c.Model.BaseURL != "":
		case conf.APIKey == "" && getenv("OPENAI_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" && getenv("OPENROUTER_API_KEY") != "":
			provider = "openrouter"
		case conf.APIKey == "" && getenv("OPENAI_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" && getenv("NOUS_API_KEY") != "":
			provider = "nous"
		}
	}
	// defaultModel is the service's default vision model, "" for a server
	// whose models nobody can guess.
	defaultModel := ""
	switch {
	case conf.BaseURL != "":
	case provider == "openrouter":
		conf.BaseURL, defaultModel = openRouterBase, DefaultOpenRouterVisionModel
		if conf.APIKey == "" {
			conf.APIKey, conf.KeyHint = getenv("OPENROUTER_API_KEY"), "OPENROUTER_API_KEY"
		}
	case provider == "nous":
		conf.BaseURL, defaultModel = nousBase, DefaultNousVisionModel
		if conf.APIKey == "" {
			conf.APIKey, conf.KeyHint = getenv("NOUS_API_KEY"), "NOUS_API_KEY"
		}
	case provider == "auto" && mainCompatible && c.Model.BaseURL != "":
		conf.BaseURL = c.Model.BaseURL
		if conf.APIKey == "" {
			conf.APIKey, conf.KeyHint = c.Model.APIKey, "model.api_key in config.yaml"
		}
	case provider == "auto" || provider == "openai" || provider == "custom":
		conf.BaseURL = getenv("OPENAI_BASE_URL")
	default:
		return conf, fmt.Errorf("auxiliary.vision.provider %q is not supported by hermes-tools: use openai, openrouter, nous, or set auxiliary.vision.base_url to an OpenAI-compatible endpoint", aux.Provider)
	}
	if conf.BaseURL == "" {
		conf.BaseURL, defaultModel = defaultOpenAIBase, DefaultOpenAIVisionModel
	}
	if conf.APIKey == "" && conf.KeyHint == "auxiliary.vision.api_key in config.yaml" {
		conf.APIKey, conf.KeyHint = getenv("OPENAI_API_KEY"), "OPENAI_API_KEY"
	}
	// A local OpenAI-compatible server may need no key; the hosted APIs do.
	hosted := strings.Contains(conf.BaseURL, "api.openai.com") || strings.Contains(conf.BaseURL, "openrouter.ai") || strings.Contains(conf.BaseURL, "nousresearch.com")
	if conf.APIKey == "" && hosted {
		keys := conf.KeyHint
		if keys == "OPENAI_API_KEY" {
			// auto: any of the three services would do.
			keys = "OPENAI_API_KEY, OPENROUTER_API_KEY or NOUS_API_KEY"
		}
		return conf, fmt.Errorf("vision needs an API key: set %s (or auxiliary.vision.base_url and api_key in config.yaml for another OpenAI-compatible server)", keys)
	}
	conf.Model = cmp.Or(getenv("AUXILIARY_VISION_MODEL"), aux.Model)
	if conf.Model == "" && provider == "auto" && mainCompatible && aux.BaseURL == "" {
		conf.Model = c.Model.Name
	}
	if conf.Model == "" {
		conf.Model = defaultModel
	}
	if conf.Model == "" {
		return conf, errors.New("no vision model configured: set auxiliary.vision.model in config.yaml (or AUXILIARY_VISION_MODEL) to a vision-capable model your provider serves")
	}
	return conf, nil
}

// VisionCheck is vision_analyze's availability check, reused by the
// browser toolset's browser_vision: both look through the same model, so
// both hide with the same reason.
func VisionCheck(opts Options) error {
	_, err := ResolveVision(opts)
	return err
}

// VisionToolsetName is what users type in --toolsets.
const VisionToolsetName = "vision"

// VisionEnvVars returns the environment variables the `vision` toolset reads.
func VisionEnvVars() []string {
	return []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "NOUS_API_KEY", "AUXILIARY_VISION_MODEL"}
}

// visionToolset declares the `vision` toolset with handle as
// vision_analyze's handler.
func visionToolset(opts Options, handle tooldef.Handler) tooldef.Toolset {
	return tooldef.Toolset{
		Name:         VisionToolsetName,
		Description:  "Look at images from URLs, files or data URLs with a vision model.",
		Default:      true,
		Instructions: "vision_analyze takes an image URL, a local path or a data URL.",
		EnvVars:      VisionEnvVars(),
		Tools: []tooldef.Tool{{
			Name:         VisionAnalyzeTool,
			Title:        "Analyze an image",
			Description:  visionDescription,
			InputSchema:  json.RawMessage(visionInputSchema),
			OutputSchema: json.RawMessage(visionOutputSchema),
			// Reads a file or URL and asks a remote model; changes nothing.
			Hints:   tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true},
			Handler: handle,
			Check:   func() error { return VisionCheck(opts) },
		}},
	}
}

const visionDescription = "Analyze an image with a vision model and answer a question about it. The image can " +
	"be an http(s) URL, an absolute local file path, or a data URL (data:image/png;base64,...). PNG, JPEG, GIF " +
	"and WebP are supported. Returns a full description of the image followed by the answer to your question."

const visionInputSchema = `{
  "type": "object",
  "properties": {
    "image_url": {
      "type": "string",
      "description": "Image URL (http/https), absolute local file path, or data URL to analyze."
    },
    "question": {
      "type": "string",
      "description": "Your specific question or request about the image. The image is always fully described first."
    }
  },
  "required": ["image_url", "question"]
}`

const visionOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "analysis": {"type": "string"}
  },
  "required": ["success", "analysis"]
}`
