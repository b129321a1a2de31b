package vision

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
)

// Backend is a resolved vision endpoint: an OpenAI-compatible chat
// model that accepts images.
type Backend struct {
	// API is how the endpoint is spoken to: APIOpenAI (chat
	// completions), APIAnthropic (Messages) or APIGemini
	// (generateContent).
	API                    string
	BaseURL, APIKey, Model string
	// Temperature is auxiliary.vision.temperature, else 0.1 as in the
	// original; the native APIs send it.
	Temperature float64
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
	DefaultOpenRouterModel = "google/gemini-3-flash-preview"
	DefaultNousModel       = "google/gemini-3-flash-preview"
	DefaultOpenAIModel     = "gpt-5.4-mini"
)

// The APIs a vision backend speaks.
const (
	APIOpenAI    = "openai"
	APIAnthropic = "anthropic"
	APIGemini    = "gemini"
)

// The original's default vision models of the native providers.
const (
	DefaultAnthropicModel = "claude-haiku-4-5-20251001"
	DefaultGeminiModel    = "gemini-3.6-flash"
	defaultAnthropicBase  = "https://api.anthropic.com"
	defaultGeminiBase     = "https://generativelanguage.googleapis.com/v1beta"
)

const (
	openRouterBase = "https://openrouter.ai/api/v1"
	nousBase       = "https://inference-api.nousresearch.com/v1"
)

// Resolve picks the endpoint, key and model. Provider "auto" follows
// Hermes' order: the main provider (its endpoint when config.yaml gives
// one), then whichever of OpenAI, OpenRouter and Nous has a key set;
// "openai", "openrouter" and "nous" pick that service; anything else must
// be an OpenAI-compatible server named by auxiliary.vision.base_url. With
// a key and no model configured, the service's default vision model is
// used. The error says what to set.
func Resolve(opts Options) (Backend, error) {
	c, err := mediaapi.LoadConfig(opts.Home)
	if err != nil {
		return Backend{}, err
	}
	aux := c.Auxiliary.Vision
	provider := strings.ToLower(strings.TrimSpace(aux.Provider))
	if provider == "" || provider == "main" {
		provider = "auto"
	}
	conf := Backend{
		API: APIOpenAI, BaseURL: aux.BaseURL, APIKey: aux.APIKey, KeyHint: "auxiliary.vision.api_key in config.yaml",
		Timeout: aux.Timeout, AllowPrivateURLs: c.Web.AllowPrivateURLs, Temperature: 0.1,
	}
	if aux.Temperature != nil {
		conf.Temperature = *aux.Temperature
	}
	if ke := cmp.Or(strings.TrimSpace(aux.KeyEnv), strings.TrimSpace(aux.APIKeyEnv)); conf.APIKey == "" && ke != "" {
		conf.APIKey, conf.KeyHint = opts.Var(ke), ke+" (auxiliary.vision.key_env)"
	}
	if provider == "google" {
		provider = "gemini"
	}
	conf.DownloadTimeout = 30 * time.Second
	if aux.DownloadTimeout > 0 {
		conf.DownloadTimeout = time.Duration(aux.DownloadTimeout * float64(time.Second))
	}
	mainProvider := strings.ToLower(strings.TrimSpace(c.Model.Provider))
	mainCompatible := map[string]bool{"": true, "auto": true, "openai": true, "custom": true}[mainProvider]
	getenv := opts.Var
	if provider == "auto" && conf.BaseURL == "" {
		// auto resolves to a service the way the original's does.
		switch {
		case mainProvider == "openrouter" || mainProvider == "nous":
			provider = mainProvider
		// A native main provider serves vision when its key is there;
		// otherwise the chain goes on, as the original skips a provider
		// without credentials.
		case mainProvider == "anthropic" && (conf.APIKey != "" || getenv("ANTHROPIC_API_KEY") != ""):
			provider = "anthropic"
		case (mainProvider == "gemini" || mainProvider == "google") && (conf.APIKey != "" || getenv("GEMINI_API_KEY") != "" || getenv("GOOGLE_API_KEY") != ""):
			provider = "gemini"
		case mainCompatible && c.Model.BaseURL != "":
		case conf.APIKey == "" && getenv("OPENAI_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" && getenv("OPENROUTER_API_KEY") != "":
			provider = "openrouter"
		case conf.APIKey == "" && getenv("OPENAI_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" && getenv("NOUS_API_KEY") != "":
			provider = "nous"
		case conf.APIKey == "" && getenv("OPENAI_API_KEY") == "" && getenv("OPENAI_BASE_URL") == "" && getenv("ANTHROPIC_API_KEY") != "":
			provider = "anthropic"
		}
	}
	if provider == "anthropic" || provider == "gemini" || strings.EqualFold(strings.TrimSpace(aux.APIMode), "anthropic_messages") {
		return resolveNative(conf, provider, aux.Model, getenv)
	}
	// defaultModel is the service's default vision model, "" for a server
	// whose models nobody can guess.
	defaultModel := ""
	switch {
	case conf.BaseURL != "":
	case provider == "openrouter":
		conf.BaseURL, defaultModel = openRouterBase, DefaultOpenRouterModel
		if conf.APIKey == "" {
			conf.APIKey, conf.KeyHint = getenv("OPENROUTER_API_KEY"), "OPENROUTER_API_KEY"
		}
	case provider == "nous":
		conf.BaseURL, defaultModel = nousBase, DefaultNousModel
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
		return conf, fmt.Errorf("auxiliary.vision.provider %q is not supported by hermes-tools: use openai, openrouter, nous, anthropic, gemini, or set auxiliary.vision.base_url to an OpenAI-compatible endpoint", aux.Provider)
	}
	if conf.BaseURL == "" {
		conf.BaseURL, defaultModel = mediaapi.DefaultOpenAIBase, DefaultOpenAIModel
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
			keys = "OPENAI_API_KEY, OPENROUTER_API_KEY, NOUS_API_KEY or ANTHROPIC_API_KEY"
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

// resolveNative resolves Anthropic's Messages API or Gemini's
// generateContent: base URL, key and model, config.yaml first, then the
// environment, then the original's defaults.
func resolveNative(conf Backend, provider, model string, getenv func(string) string) (Backend, error) {
	model = strings.TrimSpace(model)
	if strings.EqualFold(model, "auto") {
		model = ""
	}
	model = cmp.Or(model, getenv("AUXILIARY_VISION_MODEL"))
	if provider == "gemini" {
		conf.API = APIGemini
		conf.BaseURL = geminiBase(cmp.Or(conf.BaseURL, getenv("GEMINI_BASE_URL")))
		if conf.APIKey == "" {
			conf.APIKey, conf.KeyHint = cmp.Or(getenv("GEMINI_API_KEY"), getenv("GOOGLE_API_KEY")), "GEMINI_API_KEY"
		}
		for _, p := range []string{"google/", "gemini/"} {
			model = strings.TrimPrefix(model, p)
		}
		conf.Model = cmp.Or(model, DefaultGeminiModel)
		if conf.APIKey == "" {
			return conf, errors.New("vision through Gemini needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY, or auxiliary.vision.api_key in config.yaml)")
		}
		return conf, nil
	}
	conf.API = APIAnthropic
	conf.BaseURL = strings.TrimRight(cmp.Or(conf.BaseURL, getenv("ANTHROPIC_BASE_URL"), defaultAnthropicBase), "/")
	if conf.APIKey == "" {
		conf.APIKey, conf.KeyHint = getenv("ANTHROPIC_API_KEY"), "ANTHROPIC_API_KEY"
	}
	// Anthropic ids use hyphens where OpenRouter-style names use dots.
	conf.Model = strings.ReplaceAll(strings.TrimPrefix(cmp.Or(model, DefaultAnthropicModel), "anthropic/"), ".", "-")
	if conf.APIKey == "" {
		return conf, errors.New("vision through Anthropic needs an API key: set ANTHROPIC_API_KEY (or auxiliary.vision.api_key in config.yaml)")
	}
	return conf, nil
}

// geminiBase normalises a Gemini base URL as the original does: the
// default when empty, a trailing /openai dropped, /v1beta added when no
// version is named.
func geminiBase(u string) string {
	u = strings.TrimRight(strings.TrimSpace(u), "/")
	if u == "" {
		return defaultGeminiBase
	}
	u = strings.TrimRight(strings.TrimSuffix(u, "/openai"), "/")
	last := u[strings.LastIndexByte(u, '/')+1:]
	if !strings.HasPrefix(last, "v1") {
		u += "/v1beta"
	}
	return u
}

// Check is vision_analyze's availability check, reused by the
// browser toolset's browser_vision: both look through the same model, so
// both hide with the same reason.
func Check(opts Options) error {
	_, err := Resolve(opts)
	return err
}
