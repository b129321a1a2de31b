package imagegen

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/safefile"
	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
)

// Bounds on source images for edits, checked before any upload.
const (
	maxSourceBytes  = 25 << 20
	maxSources      = 16
	downloadTimeout = 60 * time.Second
)

// source is one image to edit or to take as a reference.
type source struct {
	name, mediaType string
	data            []byte
	// origin is the http(s) URL the image came from, for providers that
	// take references by URL.
	origin string
}

// sourceRefs collects image_url and reference_image_urls, blanks and
// duplicates dropped, in order.
func sourceRefs(imageURL string, refs []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, r := range append([]string{imageURL}, refs...) {
		r = strings.TrimSpace(r)
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	if len(out) > maxSources {
		return nil, fmt.Errorf("%d source images given; at most %d (image_url plus reference_image_urls) are accepted", len(out), maxSources)
	}
	return out, nil
}

// loadSource reads one source image: an http(s) URL under the URL policy
// (web.allow_private_urls), a data: URL, or a file under the Hermes home's
// cache, where these tools write images and screenshots. Other local files
// are refused: a prompt must not be able to upload arbitrary files.
func (g *generator) loadSource(ctx context.Context, ref string, allowPrivate bool) (source, error) {
	var (
		data []byte
		name string
		err  error
	)
	switch {
	case strings.HasPrefix(ref, "data:"):
		meta, payload, ok := strings.Cut(strings.TrimPrefix(ref, "data:"), ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return source{}, errors.New("a data URL must look like data:image/png;base64,<data>")
		}
		if base64.StdEncoding.DecodedLen(len(payload)) > maxSourceBytes {
			return source{}, fmt.Errorf("the data URL holds more than %d MB", maxSourceBytes>>20)
		}
		if data, err = base64.StdEncoding.DecodeString(strings.TrimSpace(payload)); err != nil {
			return source{}, fmt.Errorf("the data URL is not valid base64: %w", err)
		}
		name = "image"
	case strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://"):
		if data, err = g.download(ctx, ref, allowPrivate); err != nil {
			return source{}, err
		}
		u := strings.SplitN(strings.SplitN(ref, "?", 2)[0], "#", 2)[0]
		name = path.Base(u)
	default:
		if data, err = g.readCached(strings.TrimPrefix(ref, "file://")); err != nil {
			return source{}, err
		}
		name = filepath.Base(ref)
	}
	mt := http.DetectContentType(data)
	ext := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/webp": ".webp", "image/gif": ".gif"}[mt]
	if ext == "" {
		return source{}, fmt.Errorf("%s is not a PNG, JPEG, WebP or GIF image (detected %s)", shorten(ref), mt)
	}
	if name == "" || name == "." || name == "/" || strings.ContainsAny(name, "\"\r\n") {
		name = "image"
	}
	if filepath.Ext(name) == "" || name == "image" {
		name = strings.TrimSuffix(name, filepath.Ext(name)) + ext
	}
	src := source{name: name, mediaType: mt, data: data}
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		src.origin = ref
	}
	return src, nil
}

// readCached reads a file under <home>/cache, judged after following
// links, refusing anything but a regular file of bounded size.
func (g *generator) readCached(p string) ([]byte, error) {
	if !filepath.IsAbs(p) {
		return nil, fmt.Errorf("%q is not a URL, a data URL or an absolute file path", p)
	}
	root, err := filepath.EvalSymlinks(filepath.Join(g.e.Opts.Home, "cache"))
	if err != nil {
		return nil, fmt.Errorf("local source images must be under %s: %w", filepath.Join(g.e.Opts.Home, "cache"), err)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, fmt.Errorf("cannot read the source image: %w", err)
	}
	if rel, err := filepath.Rel(root, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, fmt.Errorf("%s is outside %s: local source images must be files these tools wrote there (or pass an http(s) or data: URL)", p, root)
	}
	f, err := os.OpenFile(real, os.O_RDONLY|safefile.OpenFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("cannot read the source image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if st.Size() > maxSourceBytes {
		return nil, fmt.Errorf("%s is larger than %d MB", p, maxSourceBytes>>20)
	}
	return io.ReadAll(io.LimitReader(f, maxSourceBytes+1))
}

func (g *generator) download(ctx context.Context, raw string, allowPrivate bool) ([]byte, error) {
	policy := urlguard.Policy{AllowPrivate: allowPrivate, AllowHint: urlguard.AllowPrivateHint(g.e.Opts.Home, "web.allow_private_urls")}
	if _, err := urlguard.CheckURL(ctx, raw, policy, g.e.Resolver); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("not a valid URL: %w", err)
	}
	req.Header.Set("Accept", "image/*,*/*;q=0.8")
	resp, err := mediaapi.GuardedClient(policy, g.e.Resolver).Do(req)
	if err != nil {
		var be *urlguard.BlockedError
		if errors.As(err, &be) {
			return nil, be
		}
		return nil, fmt.Errorf("download the source image: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("download the source image: HTTP %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxSourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("download the source image: %w", err)
	}
	if len(b) > maxSourceBytes {
		return nil, fmt.Errorf("the source image is larger than %d MB", maxSourceBytes>>20)
	}
	return b, nil
}

func shorten(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
