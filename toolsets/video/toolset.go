// Package video is the `video` toolset: video_analyze sends a video from a
// URL or a local file to a video-capable model through the vision route
// (auxiliary.vision in config.yaml; Gemini natively, or an
// OpenAI-compatible endpoint that takes video_url parts), as the
// original's tools/vision_tools.py does. Off by default, as in Hermes.
package video

import (
	"encoding/json"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
	"github.com/hermes-go/hermes/toolsets/vision"
)

// Options configures the toolset; the media toolsets share one value.
type Options = mediaapi.Options

// ToolName is video_analyze's wire name.
const ToolName = catalog.VideoAnalyze

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.Video

// Toolset returns the `video` toolset.
func Toolset(opts Options) tooldef.Toolset {
	a := &analyzer{v: vision.New(opts)}
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: meta.Description,
		Default:     meta.Default,
		EnvVars:     meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:         ToolName,
			Title:        "Analyze a video",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// Reads a file or URL and asks a remote model; changes nothing.
			Hints:   tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true},
			Handler: a.handle,
			// The video goes through vision_analyze's model route.
			Check: func() error { return vision.Check(opts) },
		}},
	}
}
