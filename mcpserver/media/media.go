// Package media holds the toolsets that call model providers for
// non-text media, each enabled on its own as in the Python Hermes:
// `vision` (vision_analyze: an image from a URL, a file or a data URL
// described by an OpenAI-compatible chat model), `image_gen`
// (image_generate: OpenAI-compatible images API or FAL) and `tts`
// (text_to_speech: espeak-ng with no key at all, or OpenAI or ElevenLabs).
//
// The declarations (names, descriptions, schemas, hints, availability
// checks) and the provider resolution live in the light package
// media/spec, which the MCP front process serves without linking this
// one; this package binds the handlers to them.
//
// Provider settings come from $HERMES_HOME/config.yaml (auxiliary.vision,
// image_gen, tts) and the environment, read on every call so edits apply
// without a restart. OpenAI-compatible calls are plain JSON POSTs (openaicompat.go says
// why not openai-go here); model
// names always come from configuration, with defaults that are current
// models, never retired ones.
package media

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/mcpserver/media/spec"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Options configures the media toolsets.
type Options struct {
	// Home is HERMES_HOME, absolute. config.yaml is read from it, and
	// generated images and audio are written below it.
	Home string
	// Getenv reads provider keys, base URLs and model overrides; nil means
	// os.Getenv.
	Getenv func(string) string
	// HTTPClient sends requests to the providers and downloads the images
	// they return; nil means a client with sane timeouts. Image URLs a
	// model supplies are never fetched through it: they go through a
	// client whose dialer enforces the URL policy.
	HTTPClient *http.Client
	// Resolver resolves host names for the URL policy; nil means
	// net.DefaultResolver.
	Resolver urlguard.Resolver
	// Timeout bounds one provider call; 0 means the configured timeout,
	// else 120 s.
	Timeout time.Duration
	// LookPath finds espeak-ng; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// ProgressInterval is how often a long call reports that it is still
	// working; 0 means 2 s.
	ProgressInterval time.Duration
}

// env holds resolved options.
type env struct {
	// specOpts is what provider resolution in spec needs (Home too);
	// spec applies the defaults for a nil Getenv and LookPath.
	specOpts spec.Options
	client   *http.Client
	resolver urlguard.Resolver
	timeout  time.Duration
	every    time.Duration
}

func newEnv(opts Options) *env {
	e := &env{
		specOpts: specOptions(opts), client: opts.HTTPClient, resolver: opts.Resolver,
		timeout: opts.Timeout, every: opts.ProgressInterval,
	}
	if e.client == nil {
		e.client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 5 * time.Minute,
		}}
	}
	if e.resolver == nil {
		e.resolver = net.DefaultResolver
	}
	if e.every <= 0 {
		e.every = 2 * time.Second
	}
	return e
}

// callTimeout is the bound for one provider call: the option, else the
// configured seconds, else 120 s.
func (e *env) callTimeout(configured float64) time.Duration {
	if e.timeout > 0 {
		return e.timeout
	}
	if configured > 0 {
		return time.Duration(configured * float64(time.Second))
	}
	return 120 * time.Second
}

// apiError turns a provider error into a sentence naming what to fix.
func apiError(what, baseURL, keyHint string, err error) error {
	var ae *statusError
	if errors.As(err, &ae) {
		msg := ae.Message
		out := fmt.Sprintf("%s at %s returned HTTP %d: %s", what, baseURL, ae.StatusCode, redact.String(msg))
		switch {
		case ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden:
			out += " (check " + keyHint + ")"
		case ae.StatusCode == http.StatusNotFound:
			out += " (check the model name and the base URL, which must end in /v1 for most servers)"
		case ae.StatusCode == http.StatusTooManyRequests:
			out += " (rate limited or out of quota; wait and retry)"
		}
		return errors.New(out)
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline exceeded") || strings.Contains(err.Error(), "Client.Timeout") {
		return fmt.Errorf("%s at %s did not answer in time; retry, or raise the timeout in config.yaml", what, baseURL)
	}
	return fmt.Errorf("%s at %s failed: %s", what, baseURL, redact.String(err.Error()))
}

// cacheDir returns <home>/cache/<name>, created private to the user.
func (e *env) cacheDir(name string) (string, error) {
	if e.specOpts.Home == "" {
		return "", errors.New("HERMES_HOME is not set; hermes-tools cannot save files")
	}
	dir := filepath.Join(e.specOpts.Home, "cache", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	return dir, nil
}

// writeNew writes data to path, refusing to replace an existing file:
// these tools create files and never overwrite one.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// stamp names a generated file: sortable time plus a few random-ish
// digits so two calls in one second do not collide.
func stamp(prefix, ext string) string {
	now := time.Now()
	return fmt.Sprintf("%s_%s_%06d%s", prefix, now.Format("20060102_150405"), now.Nanosecond()/1000, ext)
}

// specOptions is the part of opts the declarations and checks use.
func specOptions(opts Options) spec.Options {
	return spec.Options{Home: opts.Home, Getenv: opts.Getenv, LookPath: opts.LookPath}
}

// bindOne returns a bind for a spec toolset of one tool, name, served by
// h. Any other name is a declaration this package has no handler for, a
// programming error caught by every test that builds the toolset.
func bindOne(name string, h tooldef.Handler) func(string) tooldef.Handler {
	return func(tool string) tooldef.Handler {
		if tool != name {
			panic("media: no handler for tool " + tool)
		}
		return h
	}
}

// Toolsets returns the vision, image_gen and tts toolsets, in that order.
func Toolsets(opts Options) []tooldef.Toolset {
	return []tooldef.Toolset{VisionToolset(opts), ImageToolset(opts), TTSToolset(opts)}
}
