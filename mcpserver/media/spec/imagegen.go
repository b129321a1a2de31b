package spec

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// ImageGenerateTool is image_generate's wire name.
const ImageGenerateTool = "image_generate"

// Defaults when neither config.yaml nor the environment names a model:
// current models at the time of writing (dall-e-* and gpt-image-1 are
// retired). image_gen.model, OPENAI_IMAGE_MODEL and FAL_IMAGE_MODEL
// override them.
const (
	DefaultOpenAIImageModel = "gpt-image-2"
	DefaultFALModel         = "fal-ai/flux/schnell"
	defaultFALBase          = "https://fal.run"
)

// Image providers, as image_gen.provider names them and results report
// them.
const (
	ImageFAL    = "fal"
	ImageOpenAI = "openai"
)

// ImageBackend is a resolved image generation backend.
type ImageBackend struct {
	// Provider is ImageFAL or ImageOpenAI.
	Provider, Model, BaseURL, APIKey string
}

// ResolveImage picks the image provider, model, endpoint and key from
// image_gen in config.yaml and the environment. The error says what to
// set.
func ResolveImage(opts Options) (ImageBackend, error) {
	c, err := loadConfig(opts.Home)
	if err != nil {
		return ImageBackend{}, err
	}
	getenv := opts.getenv
	provider := strings.ToLower(strings.TrimSpace(c.ImageGen.Provider))
	if provider == "" {
		// Unset: the in-tree FAL path when FAL_KEY is there, as in the
		// Python Hermes, else OpenAI when its key is.
		switch {
		case getenv("FAL_KEY") != "":
			provider = ImageFAL
		case getenv("OPENAI_API_KEY") != "":
			provider = ImageOpenAI
		default:
			return ImageBackend{}, errors.New("image generation needs FAL_KEY or OPENAI_API_KEY in the environment hermes-tools runs in (image_gen.provider in config.yaml picks one)")
		}
	}
	conf := ImageBackend{Provider: provider, Model: c.ImageGen.Model, BaseURL: c.ImageGen.BaseURL}
	switch provider {
	case ImageFAL:
		conf.APIKey = getenv("FAL_KEY")
		if conf.APIKey == "" {
			return conf, errors.New("image_gen.provider is fal but FAL_KEY is not set")
		}
		conf.Model = cmp.Or(conf.Model, getenv("FAL_IMAGE_MODEL"), DefaultFALModel)
		conf.BaseURL = cmp.Or(conf.BaseURL, getenv("FAL_BASE_URL"), defaultFALBase)
	case ImageOpenAI:
		conf.APIKey = getenv("OPENAI_API_KEY")
		conf.BaseURL = cmp.Or(conf.BaseURL, getenv("OPENAI_BASE_URL"), defaultOpenAIBase)
		if conf.APIKey == "" && strings.Contains(conf.BaseURL, "api.openai.com") {
			return conf, errors.New("image_gen.provider is openai but OPENAI_API_KEY is not set")
		}
		conf.Model = cmp.Or(conf.Model, getenv("OPENAI_IMAGE_MODEL"), DefaultOpenAIImageModel)
	default:
		return conf, fmt.Errorf("image_gen.provider %q is not supported by hermes-tools (supported: openai, fal)", c.ImageGen.Provider)
	}
	return conf, nil
}

// ImageToolset returns the `image_gen` toolset; image_generate's handler is
// bind(ImageGenerateTool).
func ImageToolset(opts Options, bind func(toolName string) tooldef.Handler) tooldef.Toolset {
	return tooldef.Toolset{
		Name:        "image_gen",
		Description: "Generate images from text prompts (OpenAI-compatible images API or FAL).",
		Default:     true,
		EnvVars:     []string{"FAL_KEY", "FAL_IMAGE_MODEL", "FAL_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_IMAGE_MODEL"},
		Tools: []tooldef.Tool{{
			Name:         ImageGenerateTool,
			Title:        "Generate an image",
			Description:  imageDescription,
			InputSchema:  json.RawMessage(imageInputSchema),
			OutputSchema: json.RawMessage(imageOutputSchema),
			// Writes a new file under HERMES_HOME (never replacing one)
			// and calls a remote API; each call makes a new image.
			Hints:   tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true},
			Handler: bind(ImageGenerateTool),
			Check: func() error {
				_, err := ResolveImage(opts)
				return err
			},
		}},
	}
}

const imageDescription = "Generate an image from a text prompt with the image model the user configured " +
	"(OpenAI-compatible images API or FAL). The image is saved under the Hermes home; the result gives its " +
	"absolute path in `image` and shows the image itself. Describe subject, style, composition and lighting " +
	"in the prompt."

const imageInputSchema = `{
  "type": "object",
  "properties": {
    "prompt": {
      "type": "string",
      "description": "The text prompt describing the desired image. Be detailed and descriptive."
    },
    "aspect_ratio": {
      "type": "string",
      "enum": ["landscape", "square", "portrait"],
      "description": "The aspect ratio of the generated image. 'landscape' is 16:9 wide, 'portrait' is 16:9 tall, 'square' is 1:1.",
      "default": "landscape"
    }
  },
  "required": ["prompt"]
}`

const imageOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "image": {"type": "string"},
    "model": {"type": "string"},
    "prompt": {"type": "string"},
    "aspect_ratio": {"type": "string"},
    "provider": {"type": "string"}
  },
  "required": ["success", "image", "model", "prompt", "aspect_ratio", "provider"]
}`
