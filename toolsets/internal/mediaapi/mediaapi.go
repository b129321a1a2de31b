// Package mediaapi is what the vision, image_gen and tts toolsets share:
// their options, the HTTP client and timeouts they call providers with,
// the part of config.yaml they read (auxiliary.vision, image_gen, tts),
// OpenAI-compatible JSON POSTs, provider errors turned into sentences, and
// new files written under the Hermes home without replacing any.
//
// Provider settings come from $HERMES_HOME/config.yaml and the
// environment, read on every call so edits apply without a restart.
// OpenAI-compatible calls are plain JSON POSTs (openaicompat.go says why
// not openai-go here); model names always come from configuration, with
// defaults that are current models, never retired ones.
package mediaapi

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/urlguard"
)

// Options configures the media toolsets (vision, image_gen, tts); one
// value serves all three, and browser_vision through vision.
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

// Env is Options resolved: the defaults applied.
type Env struct {
	// Opts reaches provider resolution, which applies the defaults for a
	// nil Getenv and LookPath.
	Opts     Options
	Client   *http.Client
	Resolver urlguard.Resolver
	// Timeout is the Timeout option; 0 leaves it to CallTimeout.
	Timeout time.Duration
	// Every is how often a long call reports progress.
	Every time.Duration
}

// NewEnv resolves opts.
func NewEnv(opts Options) *Env {
	e := &Env{
		Opts: opts, Client: opts.HTTPClient, Resolver: opts.Resolver,
		Timeout: opts.Timeout, Every: opts.ProgressInterval,
	}
	if e.Client == nil {
		e.Client = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 5 * time.Minute,
		}}
	}
	if e.Resolver == nil {
		e.Resolver = net.DefaultResolver
	}
	if e.Every <= 0 {
		e.Every = 2 * time.Second
	}
	return e
}

// CallTimeout is the bound for one provider call: the option, else the
// configured seconds, else 120 s.
func (e *Env) CallTimeout(configured float64) time.Duration {
	if e.Timeout > 0 {
		return e.Timeout
	}
	if configured > 0 {
		return time.Duration(configured * float64(time.Second))
	}
	return 120 * time.Second
}

// APIError turns a provider error into a sentence naming what to fix.
func APIError(what, baseURL, keyHint string, err error) error {
	var ae *statusError
	if errors.As(err, &ae) {
		msg := ae.Message
		out := fmt.Sprintf("%s at %s returned HTTP %d: %s", what, baseURL, ae.StatusCode, redact.String(msg))
		switch {
		case ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden:
			out += " (check " + keyHint + ")"
		case ae.StatusCode == http.StatusNotFound:
			out += " (check the model name and the base URL, which must end in /v1 for most servers)"
		case ae.StatusCode == http.StatusTooManyRequests && ae.RetryAfter != "":
			out += " (rate limited or out of quota; retry after " + ae.RetryAfter + "s)"
		case ae.StatusCode == http.StatusTooManyRequests:
			out += " (rate limited or out of quota; wait and retry)"
		case ae.StatusCode >= 500:
			out += " (the provider is failing; retry later)"
		}
		return errors.New(out)
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline exceeded") || strings.Contains(err.Error(), "Client.Timeout") {
		return fmt.Errorf("%s at %s did not answer in time; retry, or raise the timeout in config.yaml", what, baseURL)
	}
	return fmt.Errorf("%s at %s failed: %s", what, baseURL, redact.String(err.Error()))
}

// CacheDir returns <home>/cache/<name>, created private to the user.
func (e *Env) CacheDir(name string) (string, error) {
	if e.Opts.Home == "" {
		return "", errors.New("HERMES_HOME is not set; hermes-tools cannot save files")
	}
	dir := filepath.Join(e.Opts.Home, "cache", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	return dir, nil
}

// WriteNew writes data to path, refusing to replace an existing file:
// these tools create files and never overwrite one.
func WriteNew(path string, data []byte) error {
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

// Stamp names a generated file: sortable time plus a few random-ish
// digits so two calls in one second do not collide.
func Stamp(prefix, ext string) string {
	now := time.Now()
	return fmt.Sprintf("%s_%s_%06d%s", prefix, now.Format("20060102_150405"), now.Nanosecond()/1000, ext)
}

// Var reads the environment through Getenv, or os.Getenv when it is nil.
func (o Options) Var(key string) string {
	if o.Getenv == nil {
		return os.Getenv(key)
	}
	return o.Getenv(key)
}

// FindProgram finds a program through LookPath, or exec.LookPath when it
// is nil.
func (o Options) FindProgram(file string) (string, error) {
	if o.LookPath == nil {
		return exec.LookPath(file)
	}
	return o.LookPath(file)
}

// DefaultOpenAIBase is where OpenAI-compatible calls go when nothing
// names another endpoint.
const DefaultOpenAIBase = "https://api.openai.com/v1"

// Config is the part of config.yaml these toolsets read. It is one
// struct for the three so that a section none of them can decode hides
// all three alike, with the decode error.
type Config struct {
	Model     MainModel `yaml:"model"`
	Auxiliary struct {
		Vision struct {
			Provider        string  `yaml:"provider"`
			Model           string  `yaml:"model"`
			BaseURL         string  `yaml:"base_url"`
			APIKey          string  `yaml:"api_key"`
			Timeout         float64 `yaml:"timeout"`
			DownloadTimeout float64 `yaml:"download_timeout"`
			// KeyEnv (or APIKeyEnv) names the variable holding the key
			// when APIKey is empty.
			KeyEnv      string   `yaml:"key_env"`
			APIKeyEnv   string   `yaml:"api_key_env"`
			APIMode     string   `yaml:"api_mode"`
			Temperature *float64 `yaml:"temperature"`
		} `yaml:"vision"`
	} `yaml:"auxiliary"`
	ImageGen struct {
		Provider string `yaml:"provider"`
		Model    string `yaml:"model"`
		BaseURL  string `yaml:"base_url"`
		XAI      struct {
			Model      string `yaml:"model"`
			Resolution string `yaml:"resolution"`
		} `yaml:"xai"`
		Krea struct {
			Model      string `yaml:"model"`
			Creativity string `yaml:"creativity"`
		} `yaml:"krea"`
	} `yaml:"image_gen"`
	VideoGen struct {
		Provider string `yaml:"provider"`
		Model    string `yaml:"model"`
	} `yaml:"video_gen"`
	TTS TTSSettings `yaml:"tts"`
	Web struct {
		AllowPrivateURLs bool `yaml:"allow_private_urls"`
	} `yaml:"web"`
}

// TTSSettings is config.yaml's tts section: the provider, and the voice
// settings the implementation applies when it speaks.
type TTSSettings struct {
	Provider string `yaml:"provider"`
	// Speed is tts.speed, the multiplier providers without their own
	// speed setting use.
	Speed float64 `yaml:"speed"`
	Edge  struct {
		Voice string  `yaml:"voice"`
		Speed float64 `yaml:"speed"`
	} `yaml:"edge"`
	MiniMax struct {
		Model      string   `yaml:"model"`
		VoiceID    string   `yaml:"voice_id"`
		Region     string   `yaml:"region"`
		BaseURL    string   `yaml:"base_url"`
		GroupID    string   `yaml:"group_id"`
		Speed      *float64 `yaml:"speed"`
		Vol        *float64 `yaml:"vol"`
		Pitch      *float64 `yaml:"pitch"`
		Emotion    string   `yaml:"emotion"`
		SampleRate int      `yaml:"sample_rate"`
		Bitrate    int      `yaml:"bitrate"`
	} `yaml:"minimax"`
	Mistral struct {
		Model   string `yaml:"model"`
		VoiceID string `yaml:"voice_id"`
		BaseURL string `yaml:"base_url"`
	} `yaml:"mistral"`
	Gemini struct {
		Model   string `yaml:"model"`
		Voice   string `yaml:"voice"`
		BaseURL string `yaml:"base_url"`
	} `yaml:"gemini"`
	XAI struct {
		VoiceID  string  `yaml:"voice_id"`
		Language string  `yaml:"language"`
		BaseURL  string  `yaml:"base_url"`
		Speed    float64 `yaml:"speed"`
	} `yaml:"xai"`
	// Providers are tts.providers.<name>: the user's own programs.
	Providers map[string]CommandTTS `yaml:"providers"`
	OpenAI    struct {
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

// CommandTTS is one tts.providers.<name> entry: a program the user names,
// run without a shell, that writes audio to {output_path}.
type CommandTTS struct {
	Type           string   `yaml:"type"`
	Command        string   `yaml:"command"`
	Format         string   `yaml:"format"`
	OutputFormat   string   `yaml:"output_format"`
	Timeout        float64  `yaml:"timeout"`
	TimeoutSeconds float64  `yaml:"timeout_seconds"`
	Voice          string   `yaml:"voice"`
	Model          string   `yaml:"model"`
	Speed          *float64 `yaml:"speed"`
	VoiceCompat    bool     `yaml:"voice_compatible"`
	EnvPassthrough []string `yaml:"env_passthrough"`
	MaxTextLength  int      `yaml:"max_text_length"`
}

// MainModel is `model:`, which Hermes allows as a bare name or a mapping.
type MainModel struct {
	Name     string
	Provider string
	BaseURL  string
	APIKey   string
}

func (m *MainModel) UnmarshalYAML(n *yaml.Node) error {
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

// LoadConfig reads config.yaml afresh: checks and calls see edits without
// a restart.
func LoadConfig(home string) (Config, error) {
	var c Config
	err := hermeshome.Decode(home, &c)
	return c, err
}
