package vision

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"

	"github.com/hermes-go/hermes/internal/safefile"
)

// maxImageBytes bounds an image sent to a vision model; providers refuse
// larger ones anyway (OpenAI: 20 MB).
const maxImageBytes = 20 << 20

// Client answers questions about images through an OpenAI-compatible chat
// model, configured by auxiliary.vision in config.yaml. It is shared by
// vision_analyze and by any other tool that needs to look at a picture
// (browser_vision).
type Client struct{ e *mediaapi.Env }

// New returns the vision client for opts.
func New(opts Options) *Client { return &Client{e: mediaapi.NewEnv(opts)} }

// Func returns Analyze as a plain function, for toolsets that take
// the vision client as a dependency without importing this package's
// types.
func Func(opts Options) func(ctx context.Context, image []byte, question string) (string, error) {
	return New(opts).Analyze
}

// resolved is a resolved vision endpoint with this process's bound on
// one call.
type resolved struct {
	Backend
	timeout time.Duration
}

// resolve resolves the endpoint the way the check does (Resolve)
// and applies the Timeout option.
func (v *Client) resolve() (resolved, error) {
	b, err := Resolve(v.e.Opts)
	if err != nil {
		return resolved{}, err
	}
	return resolved{Backend: b, timeout: v.e.CallTimeout(b.Timeout)}, nil
}

// Analyze sends the image with the question, verbatim, and returns the
// model's answer. The image's type is sniffed (PNG, JPEG, GIF, WebP).
func (v *Client) Analyze(ctx context.Context, image []byte, question string) (string, error) {
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

func (v *Client) ask(ctx context.Context, conf resolved, dataURL, prompt string) (string, error) {
	return v.askPart(ctx, conf, dataURL, prompt, "image_url")
}

// askPart sends the media as a content part of the given type (image_url,
// or video_url for video_analyze).
func (v *Client) askPart(ctx context.Context, conf resolved, dataURL, prompt, part string) (string, error) {
	switch conf.API {
	case APIAnthropic:
		if part != "image_url" {
			return "", fmt.Errorf("the Anthropic model %s takes images, not video: set auxiliary.vision (provider gemini, or an OpenAI-compatible endpoint with a video-capable model) for video_analyze", conf.Model)
		}
		return v.askAnthropic(ctx, conf, dataURL, prompt)
	case APIGemini:
		return v.askGemini(ctx, conf, dataURL, prompt)
	}
	body := map[string]any{
		"model": conf.Model,
		"messages": []any{map[string]any{
			"role": "user",
			"content": []any{
				map[string]any{"type": "text", "text": prompt},
				map[string]any{"type": part, part: map[string]any{"url": dataURL}},
			},
		}},
	}
	if part != "image_url" {
		body["temperature"] = conf.Temperature
	}
	raw, err := v.e.PostOpenAI(ctx, conf.BaseURL, conf.APIKey, "chat/completions", body, conf.timeout)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", mediaapi.APIError("the vision model "+conf.Model, conf.BaseURL, conf.KeyHint, err)
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

// AnalyzeVideo sends a video (a data: URL) with the prompt, verbatim,
// through the vision route, allowing at least 180 s as the original does.
func (v *Client) AnalyzeVideo(ctx context.Context, dataURL, prompt string) (string, error) {
	conf, err := v.resolve()
	if err != nil {
		return "", err
	}
	conf.timeout = max(conf.timeout, 180*time.Second)
	if v.e.Timeout > 0 {
		conf.timeout = v.e.Timeout
	}
	return v.askPart(ctx, conf, dataURL, prompt, "video_url")
}

// Download fetches a URL under the URL policy (web.allow_private_urls)
// with the vision download timeout, at most limit bytes.
func (v *Client) Download(ctx context.Context, raw, accept string, limit int64) ([]byte, error) {
	conf, err := v.resolve()
	if err != nil {
		return nil, err
	}
	return v.fetch(ctx, conf, raw, accept, limit)
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

type callArgs struct {
	ImageURL string `json:"image_url"`
	Question string `json:"question"`
	Region   []int  `json:"region"`
}

// visionPrompt is the Python Hermes' wording, so answers read the same.
const visionPrompt = "Fully describe and explain everything about this image, then answer the following question: "

func (v *Client) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[callArgs](raw)
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
	note := ""
	if args.Region != nil {
		if img, note, err = cropRegion(img, mt, args.Region); err != nil {
			return fail(err)
		}
		mt = "image/png"
	}
	answer, err := v.ask(ctx, conf, "data:"+mt+";base64,"+base64.StdEncoding.EncodeToString(img), visionPrompt+args.Question)
	if err != nil {
		if ctx.Err() != nil {
			return fail(errors.New("Interrupted"))
		}
		return fail(err)
	}
	if note != "" {
		// The original's shape for a scaled or cropped image: the note
		// before the analysis, and on its own.
		return tooldef.OK(map[string]any{"success": true, "analysis": "[" + note + "] " + answer, "scale_note": note}), nil
	}
	return tooldef.OK(map[string]any{"success": true, "analysis": answer}), nil
}

// load reads the image from a data URL, an http(s) URL (under the URL
// policy) or a local file.
func (v *Client) load(ctx context.Context, conf resolved, ref string) ([]byte, error) {
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
	// The type is checked before the open can wait: os.Open of a FIFO
	// blocks until a writer comes, and the call would never answer.
	b, err := safefile.ReadUserFile(path, maxImageBytes)
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		return nil, fmt.Errorf("%s is larger than %d MB; resize it first", path, maxImageBytes>>20)
	case err != nil:
		return nil, fmt.Errorf("cannot read the image file: %w", err)
	}
	return b, nil
}

func (v *Client) download(ctx context.Context, conf resolved, raw string) ([]byte, error) {
	return v.fetch(ctx, conf, raw, "image/*", maxImageBytes)
}

func (v *Client) fetch(ctx context.Context, conf resolved, raw, accept string, limit int64) ([]byte, error) {
	policy := urlguard.Policy{
		AllowPrivate: conf.AllowPrivateURLs,
		AllowHint:    urlguard.AllowPrivateHint(v.e.Opts.Home, "web.allow_private_urls"),
	}
	if _, err := urlguard.CheckURL(ctx, raw, policy, v.e.Resolver); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, conf.DownloadTimeout)
	defer cancel()
	client := mediaapi.GuardedClient(policy, v.e.Resolver)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	req.Header.Set("User-Agent", "Mozilla/5.0 (compatible; hermes-tools)")
	req.Header.Set("Accept", accept)
	resp, err := client.Do(req)
	if err != nil {
		var be *urlguard.BlockedError
		if errors.As(err, &be) {
			return nil, be
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Errorf("the file did not download within %v (auxiliary.vision.download_timeout)", conf.DownloadTimeout)
		}
		return nil, fmt.Errorf("download %s: %v", raw, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("download %s: HTTP %s", raw, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", raw, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("the file at %s is larger than %d MB", raw, limit>>20)
	}
	return b, nil
}
