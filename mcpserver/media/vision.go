package media

import (
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
	"github.com/hermes-go/hermes/mcpserver/tooldef"
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

// visionConf is a resolved vision endpoint.
type visionConf struct {
	baseURL, apiKey, model, keyHint string
	timeout, download               time.Duration
	allowPrivate                    bool
}

// resolve picks the endpoint, key and model. Provider "auto" follows the
// main model's endpoint when config.yaml gives one (as Hermes' auto does),
// else OpenAI; "openrouter" uses OpenRouter; anything else must be an
// OpenAI-compatible server named by auxiliary.vision.base_url.
func (v *Vision) resolve() (visionConf, error) {
	c, err := loadConfig(v.e.home)
	if err != nil {
		return visionConf{}, err
	}
	aux := c.Auxiliary.Vision
	getenv := v.e.getenv
	provider := strings.ToLower(strings.TrimSpace(aux.Provider))
	if provider == "" || provider == "main" {
		provider = "auto"
	}
	conf := visionConf{
		baseURL: aux.BaseURL, apiKey: aux.APIKey, keyHint: "auxiliary.vision.api_key in config.yaml",
		timeout: v.e.callTimeout(aux.Timeout), allowPrivate: c.Web.AllowPrivateURLs,
	}
	conf.download = 30 * time.Second
	if aux.DownloadTimeout > 0 {
		conf.download = time.Duration(aux.DownloadTimeout * float64(time.Second))
	}
	mainCompatible := map[string]bool{"": true, "auto": true, "openai": true, "custom": true}[strings.ToLower(c.Model.Provider)]
	switch {
	case conf.baseURL != "":
	case provider == "openrouter":
		conf.baseURL = "https://openrouter.ai/api/v1"
		if conf.apiKey == "" {
			conf.apiKey, conf.keyHint = getenv("OPENROUTER_API_KEY"), "OPENROUTER_API_KEY"
		}
	case provider == "auto" && mainCompatible && c.Model.BaseURL != "":
		conf.baseURL = c.Model.BaseURL
		if conf.apiKey == "" {
			conf.apiKey, conf.keyHint = c.Model.APIKey, "model.api_key in config.yaml"
		}
	case provider == "auto" || provider == "openai" || provider == "custom":
		conf.baseURL = getenv("OPENAI_BASE_URL")
	default:
		return conf, fmt.Errorf("auxiliary.vision.provider %q is not supported by hermes-tools: use openai, openrouter, or set auxiliary.vision.base_url to an OpenAI-compatible endpoint", aux.Provider)
	}
	if conf.baseURL == "" {
		conf.baseURL = defaultOpenAIBase
	}
	if conf.apiKey == "" && provider != "openrouter" {
		conf.apiKey, conf.keyHint = getenv("OPENAI_API_KEY"), "OPENAI_API_KEY"
	}
	// A local OpenAI-compatible server may need no key; the hosted APIs do.
	hosted := strings.Contains(conf.baseURL, "api.openai.com") || strings.Contains(conf.baseURL, "openrouter.ai")
	if conf.apiKey == "" && hosted {
		return conf, fmt.Errorf("vision needs an API key: set %s (or auxiliary.vision.base_url and api_key in config.yaml for another OpenAI-compatible server)", conf.keyHint)
	}
	conf.model = getenv("AUXILIARY_VISION_MODEL")
	if conf.model == "" {
		conf.model = aux.Model
	}
	if conf.model == "" && provider == "auto" && mainCompatible && aux.BaseURL == "" {
		conf.model = c.Model.Name
	}
	if conf.model == "" {
		return conf, errors.New("no vision model configured: set auxiliary.vision.model in config.yaml (or AUXILIARY_VISION_MODEL) to a vision-capable model your provider serves")
	}
	return conf, nil
}

// Check reports whether a vision model is configured; its error says what
// to set.
func (v *Vision) Check() error {
	_, err := v.resolve()
	return err
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
	raw, err := v.e.postOpenAI(ctx, conf.baseURL, conf.apiKey, "chat/completions", map[string]any{
		"model": conf.model,
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
		return "", apiError("the vision model "+conf.model, conf.baseURL, conf.keyHint, err)
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
		return "", fmt.Errorf("the vision model %s answered with something other than a chat completion: %w", conf.model, err)
	}
	if len(resp.Choices) == 0 || strings.TrimSpace(resp.Choices[0].Message.Content) == "" {
		if len(resp.Choices) > 0 && resp.Choices[0].Message.Refusal != "" {
			return "", fmt.Errorf("the vision model refused: %s", resp.Choices[0].Message.Refusal)
		}
		return "", fmt.Errorf("the vision model %s returned no answer; check that it accepts images", conf.model)
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
	return tooldef.Toolset{
		Name:        "vision",
		Description: "Look at images from URLs, files or data URLs with a vision model.",
		Default:     true,
		EnvVars:     []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "AUXILIARY_VISION_MODEL"},
		Tools: []tooldef.Tool{{
			Name:         "vision_analyze",
			Title:        "Analyze an image",
			Description:  visionDescription,
			InputSchema:  json.RawMessage(visionInputSchema),
			OutputSchema: json.RawMessage(visionOutputSchema),
			// Reads a file or URL and asks a remote model; changes nothing.
			Hints:   tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true},
			Handler: v.handle,
			Check:   v.Check,
		}},
	}
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
	policy := urlguard.Policy{AllowPrivate: conf.allowPrivate}
	if _, err := urlguard.CheckURL(ctx, raw, policy, v.e.resolver); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, conf.download)
	defer cancel()
	client := guardedClient(policy)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; hermes-tools)")
	req.Header.Set("Accept", "image/*")
	resp, err := client.Do(req)
	if err != nil {
		for _, s := range []error{urlguard.ErrSecret, urlguard.ErrMetadata, urlguard.ErrPrivate, urlguard.ErrScheme} {
			if errors.Is(err, s) {
				return nil, s
			}
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("the image did not download within %v (auxiliary.vision.download_timeout)", conf.download)
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
func guardedClient(p urlguard.Policy) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         urlguard.DialContext(p, &net.Dialer{Timeout: 10 * time.Second}),
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
