// Package videogen is the `video_gen` toolset: video_generate,
// xai_video_edit and xai_video_extend through xAI Imagine's video API
// (POST /videos/generations, /videos/edits, /videos/extensions, then
// GET /videos/<request_id> until done), as the original's xAI video
// plugin does. Off by default, as in Hermes (enabling the toolset is the
// opt-in a key alone never gives), and hidden until XAI_API_KEY is set.
package videogen

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the toolset; the media toolsets share one value.
type Options = mediaapi.Options

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.VideoGen

const (
	defaultModel      = "grok-imagine-video"
	defaultImageModel = "grok-imagine-video-1.5"
	defaultBase       = "https://api.x.ai/v1"
	pollEvery         = 5 * time.Second
	pollDeadline      = 240 * time.Second
)

// backend is the resolved xAI video endpoint.
type backend struct {
	baseURL, apiKey, model string
}

func resolve(opts Options) (backend, error) {
	c, err := mediaapi.LoadConfig(opts.Home)
	if err != nil {
		return backend{}, err
	}
	p := strings.ToLower(strings.TrimSpace(c.VideoGen.Provider))
	switch p {
	// Unset means xAI, the one backend served here: the toolset is off
	// by default, so enabling it is the user's opt-in to the paid API.
	case "xai", "":
	default:
		return backend{}, fmt.Errorf("video_gen.provider %q is not supported by hermes-tools (supported: xai)", c.VideoGen.Provider)
	}
	b := backend{
		apiKey:  opts.Var("XAI_API_KEY"),
		baseURL: cmp.Or(opts.Var("HERMES_XAI_BASE_URL"), opts.Var("XAI_BASE_URL"), defaultBase),
		model:   strings.TrimSpace(c.VideoGen.Model),
	}
	if b.apiKey == "" {
		return b, errors.New("video_gen.provider is xai but XAI_API_KEY is not set")
	}
	return b, nil
}

// Toolset returns the `video_gen` toolset.
func Toolset(opts Options) tooldef.Toolset {
	g := &generator{e: mediaapi.NewEnv(opts)}
	meta := catalog.Get(ToolsetName)
	check := func() error { _, err := resolve(opts); return err }
	// Each call starts a paid job on a remote service and makes a new
	// video; nothing local is changed.
	hints := tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true}
	tool := func(name, title, desc, schema string, h tooldef.Handler) tooldef.Tool {
		return tooldef.Tool{Name: name, Title: title, Description: desc, InputSchema: json.RawMessage(schema),
			OutputSchema: json.RawMessage(outputSchema), Hints: hints, Handler: h, Check: check}
	}
	return tooldef.Toolset{
		Name: ToolsetName, Description: meta.Description, Default: meta.Default, EnvVars: meta.EnvVars,
		Tools: []tooldef.Tool{
			tool(catalog.VideoGenerate, "Generate a video", generateDescription, generateSchema, g.generate),
			tool(catalog.XAIVideoEdit, "Edit an xAI video", editDescription, editSchema, g.edit),
			tool(catalog.XAIVideoExtend, "Extend an xAI video", extendDescription, extendSchema, g.extend),
		},
	}
}
