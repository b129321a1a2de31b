// Package vision is the `vision` toolset: vision_analyze looks at an image
// from a URL, a file or a data URL through an OpenAI-compatible chat model
// (auxiliary.vision in config.yaml, or the main model's endpoint, or
// OpenAI, OpenRouter or Nous by their keys). The same client serves the
// browser toolset's browser_vision (Func, Check).
package vision

import (
	"encoding/json"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the toolset; one value serves vision, image_gen and
// tts alike.
type Options = mediaapi.Options

// Toolset returns the `vision` toolset.
func Toolset(opts Options) tooldef.Toolset {
	v := New(opts)
	return declare(v.e.Opts, v.handle)
}

// ToolName is vision_analyze's wire name.
const ToolName = catalog.VisionAnalyze

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.Vision

// EnvVars returns the environment variables the `vision` toolset reads.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// declare declares the `vision` toolset with handle as
// vision_analyze's handler.
func declare(opts Options, handle tooldef.Handler) tooldef.Toolset {
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "vision_analyze takes an image URL, a local path or a data URL.",
		EnvVars:      meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:         ToolName,
			Title:        "Analyze an image",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// Reads a file or URL and asks a remote model; changes nothing.
			Hints:   tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true},
			Handler: handle,
			Check:   func() error { return Check(opts) },
		}},
	}
}
