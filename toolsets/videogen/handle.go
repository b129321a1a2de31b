package videogen

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type generator struct{ e *mediaapi.Env }

var aspects = []string{"16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3"}

type genArgs struct {
	Prompt      string   `json:"prompt"`
	Duration    *int     `json:"duration"`
	AspectRatio string   `json:"aspect_ratio"`
	Resolution  string   `json:"resolution"`
	ImageURL    string   `json:"image_url"`
	References  []string `json:"reference_image_urls"`
	Operation   string   `json:"operation"`
	VideoURL    string   `json:"video_url"`
	Model       string   `json:"model"`
}

// failure is the original's error shape.
func failure(kind, msg string, extra map[string]any) tooldef.Result {
	v := map[string]any{"success": false, "video": nil, "error": msg, "error_type": kind}
	for k, x := range extra {
		v[k] = x
	}
	return tooldef.Failure(v)
}

// httpsURL accepts only a public https URL for images and videos the
// provider fetches itself.
func httpsURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil
}

func (g *generator) generate(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[genArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return failure("invalid_argument", "prompt is required for video generation", nil), nil
	}
	if a.Operation != "" || a.VideoURL != "" {
		return failure("invalid_argument", "video_generate makes new videos; to change or lengthen an existing xAI video use xai_video_edit or xai_video_extend with its video_url", nil), nil
	}
	b, err := resolve(g.e.Opts)
	if err != nil {
		return failure("no_provider_configured", err.Error(), map[string]any{"prompt": a.Prompt}), nil
	}
	aspect := cmp.Or(a.AspectRatio, "16:9")
	res := cmp.Or(a.Resolution, "720p")
	refs := slices.DeleteFunc(slices.Clone(a.References), func(s string) bool { return strings.TrimSpace(s) == "" })
	extra := map[string]any{"prompt": a.Prompt, "aspect_ratio": aspect, "provider": "xai"}
	switch {
	case !slices.Contains(aspects, aspect):
		return failure("invalid_argument", fmt.Sprintf("aspect_ratio %q is not one of %s", aspect, strings.Join(aspects, ", ")), extra), nil
	case res != "480p" && res != "720p":
		return failure("invalid_argument", fmt.Sprintf("resolution %q is not available from xAI (480p or 720p)", res), extra), nil
	case len(refs) > 7:
		return failure("invalid_argument", "at most 7 reference_image_urls are accepted", extra), nil
	}
	maxDur := 15
	if len(refs) > 0 {
		maxDur = 10
	}
	dur := 8
	if a.Duration != nil {
		dur = *a.Duration
	}
	if dur < 1 || dur > maxDur {
		return failure("invalid_argument", fmt.Sprintf("duration must be 1-%d seconds", maxDur), extra), nil
	}
	body := map[string]any{"model": cmp.Or(b.model, defaultModel), "prompt": a.Prompt, "duration": dur, "aspect_ratio": aspect, "resolution": res}
	modality := "text"
	if img := strings.TrimSpace(a.ImageURL); img != "" {
		if !httpsURL(img) {
			return failure("invalid_argument", "image_url must be a public https URL (xAI fetches it)", extra), nil
		}
		body["image"] = map[string]any{"url": img}
		body["model"] = cmp.Or(b.model, defaultImageModel)
		modality = "image"
	}
	if len(refs) > 0 {
		var rs []map[string]any
		for _, r := range refs {
			if !httpsURL(r) {
				return failure("invalid_argument", "reference_image_urls must be public https URLs (xAI fetches them)", extra), nil
			}
			rs = append(rs, map[string]any{"url": r})
		}
		body["reference_images"] = rs
		if modality == "text" {
			modality = "reference"
		}
	}
	extra["duration"], extra["modality"], extra["resolution"] = dur, modality, res
	return g.run(ctx, b, "videos/generations", body, "generate", extra)
}

type editArgs struct {
	Prompt   string `json:"prompt"`
	VideoURL string `json:"video_url"`
	Duration *int   `json:"duration"`
	Model    string `json:"model"`
}

func (g *generator) edit(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	return g.change(ctx, raw, "edit")
}

func (g *generator) extend(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	return g.change(ctx, raw, "extend")
}

func (g *generator) change(ctx context.Context, raw json.RawMessage, op string) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[editArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	if strings.TrimSpace(a.Prompt) == "" || strings.TrimSpace(a.VideoURL) == "" {
		return failure("invalid_argument", "prompt and video_url are required", nil), nil
	}
	if !httpsURL(a.VideoURL) {
		return failure("invalid_argument", "video_url must be the public https MP4 URL of a prior xAI Imagine result", nil), nil
	}
	b, err := resolve(g.e.Opts)
	if err != nil {
		return failure("no_provider_configured", err.Error(), map[string]any{"prompt": a.Prompt}), nil
	}
	body := map[string]any{"model": cmp.Or(strings.TrimSpace(a.Model), b.model, defaultModel), "prompt": a.Prompt, "video": map[string]any{"url": a.VideoURL}}
	path := "videos/edits"
	extra := map[string]any{"prompt": a.Prompt, "provider": "xai"}
	if op == "extend" {
		path = "videos/extensions"
		dur := 6
		if a.Duration != nil {
			dur = *a.Duration
		}
		if dur < 1 || dur > 10 {
			return failure("invalid_argument", "duration must be 1-10 seconds", extra), nil
		}
		body["duration"] = dur
		extra["duration"] = dur
	}
	return g.run(ctx, b, path, body, op, extra)
}

// run starts the job and polls it until it is done, as the plugin does:
// every 5 s, for at most 240 s (or the configured call timeout, when
// shorter).
func (g *generator) run(ctx context.Context, b backend, path string, body map[string]any, op string, extra map[string]any) (tooldef.Result, error) {
	model, _ := body["model"].(string)
	extra["model"], extra["operation"] = model, op
	deadline := pollDeadline
	if g.e.Timeout > 0 {
		deadline = g.e.Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	h := http.Header{}
	h.Set("Authorization", "Bearer "+b.apiKey)
	h.Set("User-Agent", "Hermes-Agent/hermes-tools")
	idem := make([]byte, 16)
	_, _ = rand.Read(idem)
	h.Set("x-idempotency-key", hex.EncodeToString(idem))
	base := strings.TrimRight(b.baseURL, "/")
	raw, err := g.e.PostJSON(ctx, base+"/"+path, h, body, deadline)
	if err != nil {
		return g.fail(ctx, b, model, err, extra), nil
	}
	var job struct {
		RequestID string `json:"request_id"`
	}
	if err := json.Unmarshal(raw, &job); err != nil || job.RequestID == "" {
		return failure("invalid_response", "xAI answered the video request with something that is not a job: "+clip(raw), extra), nil
	}
	extra["request_id"] = job.RequestID
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return g.fail(ctx, b, model, ctx.Err(), extra), nil
			case <-time.After(pollEvery):
			}
		}
		st, err := g.poll(ctx, base+"/videos/"+url.PathEscape(job.RequestID), b.apiKey)
		if err != nil {
			return g.fail(ctx, b, model, err, extra), nil
		}
		var s struct {
			Status string `json:"status"`
			Video  struct {
				URL        string `json:"url"`
				Duration   any    `json:"duration"`
				FileOutput struct {
					PublicURL string `json:"public_url"`
				} `json:"file_output"`
			} `json:"video"`
			Error any `json:"error"`
		}
		if err := json.Unmarshal(st, &s); err != nil {
			return failure("invalid_response", "xAI answered a video poll with something that is not a job: "+clip(st), extra), nil
		}
		switch s.Status {
		case "done":
			u := cmp.Or(s.Video.FileOutput.PublicURL, s.Video.URL)
			if u == "" {
				return failure("empty_response", "xAI finished the video job without a video URL", extra), nil
			}
			out := map[string]any{"success": true, "video": u, "temporary_url": s.Video.URL}
			for k, v := range extra {
				out[k] = v
			}
			if s.Video.FileOutput.PublicURL != "" {
				out["public_url"] = s.Video.FileOutput.PublicURL
			}
			return tooldef.OK(out), nil
		case "failed", "error", "expired", "cancelled":
			return failure("generation_failed", fmt.Sprintf("xAI video job %s %s: %v", job.RequestID, s.Status, cmp.Or(fmt.Sprint(s.Error), "no reason given")), extra), nil
		}
	}
}

func (g *generator) poll(ctx context.Context, u, key string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := g.e.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("poll xAI: %s", redact.String(err.Error()))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("xAI video poll returned HTTP %d: %s", resp.StatusCode, clip(b))
	}
	return b, nil
}

func (g *generator) fail(ctx context.Context, b backend, model string, err error, extra map[string]any) tooldef.Result {
	if ctx.Err() != nil {
		return failure("timeout", "xAI did not finish the video in time; retry later", extra)
	}
	return failure("api_error", mediaapi.APIError("xAI video model "+model, b.baseURL, "XAI_API_KEY", err).Error(), extra)
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
