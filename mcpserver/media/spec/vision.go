package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

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

// ResolveVision picks the endpoint, key and model. Provider "auto" follows
// the main model's endpoint when config.yaml gives one (as Hermes' auto
// does), else OpenAI; "openrouter" uses OpenRouter; anything else must be an
// OpenAI-compatible server named by auxiliary.vision.base_url. The error
// says what to set.
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
	mainCompatible := map[string]bool{"": true, "auto": true, "openai": true, "custom": true}[strings.ToLower(c.Model.Provider)]
	switch {
	case conf.BaseURL != "":
	case provider == "openrouter":
		conf.BaseURL = "https://openrouter.ai/api/v1"
		if conf.APIKey == "" {
			conf.APIKey, conf.KeyHint = opts.getenv("OPENROUTER_API_KEY"), "OPENROUTER_API_KEY"
		}
	case provider == "auto" && mainCompatible && c.Model.BaseURL != "":
		conf.BaseURL = c.Model.BaseURL
		if conf.APIKey == "" {
			conf.APIKey, conf.KeyHint = c.Model.APIKey, "model.api_key in config.yaml"
		}
	case provider == "auto" || provider == "openai" || provider == "custom":
		conf.BaseURL = opts.getenv("OPENAI_BASE_URL")
	default:
		return conf, fmt.Errorf("auxiliary.vision.provider %q is not supported by hermes-tools: use openai, openrouter, or set auxiliary.vision.base_url to an OpenAI-compatible endpoint", aux.Provider)
	}
	if conf.BaseURL == "" {
		conf.BaseURL = defaultOpenAIBase
	}
	if conf.APIKey == "" && provider != "openrouter" {
		conf.APIKey, conf.KeyHint = opts.getenv("OPENAI_API_KEY"), "OPENAI_API_KEY"
	}
	// A local OpenAI-compatible server may need no key; the hosted APIs do.
	hosted := strings.Contains(conf.BaseURL, "api.openai.com") || strings.Contains(conf.BaseURL, "openrouter.ai")
	if conf.APIKey == "" && hosted {
		return conf, fmt.Errorf("vision needs an API key: set %s (or auxiliary.vision.base_url and api_key in config.yaml for another OpenAI-compatible server)", conf.KeyHint)
	}
	conf.Model = opts.getenv("AUXILIARY_VISION_MODEL")
	if conf.Model == "" {
		conf.Model = aux.Model
	}
	if conf.Model == "" && provider == "auto" && mainCompatible && aux.BaseURL == "" {
		conf.Model = c.Model.Name
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

// VisionToolset returns the `vision` toolset; vision_analyze's handler is
// bind(VisionAnalyzeTool).
func VisionToolset(opts Options, bind func(toolName string) tooldef.Handler) tooldef.Toolset {
	return tooldef.Toolset{
		Name:        "vision",
		Description: "Look at images from URLs, files or data URLs with a vision model.",
		Default:     true,
		EnvVars:     []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENROUTER_API_KEY", "AUXILIARY_VISION_MODEL"},
		Tools: []tooldef.Tool{{
			Name:         VisionAnalyzeTool,
			Title:        "Analyze an image",
			Description:  visionDescription,
			InputSchema:  json.RawMessage(visionInputSchema),
			OutputSchema: json.RawMessage(visionOutputSchema),
			// Reads a file or URL and asks a remote model; changes nothing.
			Hints:   tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true},
			Handler: bind(VisionAnalyzeTool),
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
