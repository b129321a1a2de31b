// Package imagegen is the `image_gen` toolset: image_generate makes an
// image from a prompt through an OpenAI-compatible images API or FAL
// (image_gen in config.yaml, else whichever key is set) and saves it under
// the Hermes home.
package imagegen

import (
	"encoding/json"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the toolset; one value serves vision, image_gen and
// tts alike.
type Options = mediaapi.Options

// Toolset returns the `image_gen` toolset.
func Toolset(opts Options) tooldef.Toolset {
	g := &generator{e: mediaapi.NewEnv(opts)}
	return declare(g.e.Opts, g.handle)
}

// ToolName is image_generate's wire name.
const ToolName = catalog.ImageGenerate

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.ImageGen

// EnvVars returns the environment variables the `image_gen` toolset reads.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// declare declares the `image_gen` toolset with handle as
// image_generate's handler.
func declare(opts Options, handle tooldef.Handler) tooldef.Toolset {
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: meta.Description,
		Default:     meta.Default,
		EnvVars:     meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:         ToolName,
			Title:        "Generate an image",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// Writes a new file under HERMES_HOME (never replacing one)
			// and calls a remote API; each call makes a new image.
			Hints:   tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true},
			Handler: handle,
			Check: func() error {
				_, err := Resolve(opts)
				return err
			},
		}},
	}
}
