package video

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/vision"
)

// maxVideoBytes is the original's cap on a video sent to the model.
const maxVideoBytes = 50 << 20

// prompt is the original's wording, so answers read the same.
const prompt = "Fully describe and explain everything happening in this video, including visual content, " +
	"motion, audio cues, text overlays, and scene transitions. Then answer the following question:\n\n"

// videoTypes maps extensions to the MIME types the original sends.
var videoTypes = map[string]string{
	".mp4": "video/mp4", ".webm": "video/webm", ".mov": "video/mov", ".avi": "video/mp4", ".mkv": "video/mp4",
	".mpeg": "video/mpeg", ".mpg": "video/mpeg",
}

type analyzer struct{ v *vision.Client }

type callArgs struct {
	VideoURL string `json:"video_url"`
	Question string `json:"question"`
}

func (a *analyzer) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[callArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	fail := func(err error) (tooldef.Result, error) {
		return tooldef.Failure(map[string]any{
			"success": false, "error": "Error analyzing video: " + err.Error(),
			"analysis": "There was a problem with the request and the video could not be analyzed. Error: " + err.Error(),
		}), nil
	}
	ref, question := strings.TrimSpace(args.VideoURL), strings.TrimSpace(args.Question)
	if ref == "" || question == "" {
		return fail(errors.New("video_url and question are both required"))
	}
	var (
		data []byte
		mime string
	)
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		// The original saves a download as .mp4 and sends it as such.
		mime = "video/mp4"
		if u, err := url.Parse(ref); err == nil {
			if t, ok := videoTypes[strings.ToLower(path.Ext(u.Path))]; ok {
				mime = t
			}
		}
		data, err = a.v.Download(ctx, ref, "video/*,*/*;q=0.8", maxVideoBytes)
	} else {
		mime, err = typeOf(ref)
		if err == nil {
			data, err = readVideo(ref)
		}
	}
	if err != nil {
		return fail(err)
	}
	answer, err := a.v.AnalyzeVideo(ctx, "data:"+mime+";base64,"+base64.StdEncoding.EncodeToString(data), prompt+question)
	if err != nil {
		if ctx.Err() != nil {
			return tooldef.Failure(map[string]any{"error": "Interrupted", "success": false}), nil
		}
		return fail(err)
	}
	return tooldef.OK(map[string]any{"success": true, "analysis": answer}), nil
}

func typeOf(p string) (string, error) {
	ext := strings.ToLower(filepath.Ext(p))
	if t, ok := videoTypes[ext]; ok {
		return t, nil
	}
	return "", fmt.Errorf("Unsupported video format: '%s'. Supported: .avi, .mkv, .mov, .mp4, .mpeg, .mpg, .webm", ext)
}

// readVideo reads a local video: an absolute path to a regular file (a
// FIFO is refused without blocking) of at most maxVideoBytes.
func readVideo(p string) ([]byte, error) {
	p = strings.TrimPrefix(p, "file://")
	if strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(h, p[2:])
		}
	}
	if !filepath.IsAbs(p) {
		return nil, fmt.Errorf("%q is not an http(s) URL or an absolute file path", p)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot read the video file: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if st.Size() > maxVideoBytes {
		return nil, fmt.Errorf("%s is %d MB, over the %d MB limit", p, st.Size()>>20, maxVideoBytes>>20)
	}
	return io.ReadAll(io.LimitReader(f, maxVideoBytes+1))
}
