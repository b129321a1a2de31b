// Package media holds the toolsets that call model providers for
// non-text media, each enabled on its own as in the Python Hermes:
// `vision` (vision_analyze: an image from a URL, a file or a data URL
// described by an OpenAI-compatible chat model), `image_gen`
// (image_generate: OpenAI-compatible images API or FAL) and `tts`
// (text_to_speech: espeak-ng with no key at all, or OpenAI or ElevenLabs).
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

	"os/exec"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/tooldef"
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
	// opts reaches provider resolution, which applies the defaults for a
	// nil Getenv and LookPath.
	opts     Options
	client   *http.Client
	resolver urlguard.Resolver
	timeout  time.Duration
	every    time.Duration
}

func newEnv(opts Options) *env {
	e := &env{
		opts: opts, client: opts.HTTPClient, resolver: opts.Resolver,
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
	if e.opts.Home == "" {
		return "", errors.New("HERMES_HOME is not set; hermes-tools cannot save files")
	}
	dir := filepath.Join(e.opts.Home, "cache", name)
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

// Toolsets returns the vision, image_gen and tts toolsets, in that order.
func Toolsets(opts Options) []tooldef.Toolset {
	return []tooldef.Toolset{VisionToolset(opts), ImageToolset(opts), TTSToolset(opts)}
}

func (o Options) getenv(key string) string {
	if o.Getenv == nil {
		return os.Getenv(key)
	}
	return o.Getenv(key)
}

func (o Options) lookPath(file string) (string, error) {
	if o.LookPath == nil {
		return exec.LookPath(file)
	}
	return o.LookPath(file)
}

// defaultOpenAIBase is where OpenAI-compatible calls go when nothing
// names another endpoint.
const defaultOpenAIBase = "https://api.openai.com/v1"

// config is the part of config.yaml these toolsets read.
type config struct {
	Model     mainModel `yaml:"model"`
	Auxiliary struct {
		Vision struct {
			Provider        string  `yaml:"provider"`
			Model           string  `yaml:"model"`
			BaseURL         string  `yaml:"base_url"`
			APIKey          string  `yaml:"api_key"`
			Timeout         float64 `yaml:"timeout"`
			DownloadTimeout float64 `yaml:"download_timeout"`
		} `yaml:"vision"`
	} `yaml:"auxiliary"`
	ImageGen struct {
		Provider string `yaml:"provider"`
		Model    string `yaml:"model"`
		BaseURL  string `yaml:"base_url"`
	} `yaml:"image_gen"`
	TTS TTSSettings `yaml:"tts"`
	Web struct {
		AllowPrivateURLs bool `yaml:"allow_private_urls"`
	} `yaml:"web"`
}

// TTSSettings is config.yaml's tts section: the provider, and the voice
// settings the implementation applies when it speaks.
type TTSSettings struct {
	Provider string `yaml:"provider"`
	OpenAI   struct {
		Model   string  `yaml:"model"`
		Voice   string  `yaml:"voice"`
		BaseURL string  `yaml:"base_url"`
		Speed   float64 `yaml:"speed"`
	} `yaml:"openai"`
	ElevenLabs struct {
		VoiceID string `yaml:"voice_id"`
		ModelID string `yaml:"model_id"`
		BaseURL string `yaml:"base_url"`
	} `yaml:"elevenlabs"`
	Espeak struct {
		Voice string `yaml:"voice"`
		Speed int    `yaml:"speed"`
	} `yaml:"espeak"`
}

// mainModel is `model:`, which Hermes allows as a bare name or a mapping.
type mainModel struct {
	Name     string
	Provider string
	BaseURL  string
	APIKey   string
}

func (m *mainModel) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		m.Name = n.Value
		return nil
	}
	var v struct {
		Default  string `yaml:"default"`
		Model    string `yaml:"model"`
		Provider string `yaml:"provider"`
		BaseURL  string `yaml:"base_url"`
		APIKey   string `yaml:"api_key"`
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	m.Name = v.Default
	if m.Name == "" {
		m.Name = v.Model
	}
	m.Provider, m.BaseURL, m.APIKey = v.Provider, v.BaseURL, v.APIKey
	return nil
}

// loadConfig reads config.yaml afresh: checks and calls see edits without
// a restart.
func loadConfig(home string) (config, error) {
	var c config
	err := hermeshome.Decode(home, &c)
	return c, err
}
