// Package tts is the `tts` toolset: text_to_speech speaks text into an
// audio file under the Hermes home: through Edge TTS without a key (the
// original's default), espeak-ng offline, OpenAI, ElevenLabs, or the
// user's own program (tts in config.yaml).
package tts

import (
	"encoding/json"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the toolset; one value serves vision, image_gen and
// tts alike.
type Options = mediaapi.Options

// Settings is config.yaml's tts section: the provider, and the voice
// settings the implementation applies when it speaks.
type Settings = mediaapi.TTSSettings

// Toolset returns the `tts` toolset.
func Toolset(opts Options) tooldef.Toolset {
	s := &speaker{e: mediaapi.NewEnv(opts)}
	return declare(s.e.Opts, s.handle)
}

// ToolName is text_to_speech's wire name.
const ToolName = catalog.TextToSpeech

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.TTS

// EnvVars returns the environment variables the `tts` toolset reads.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// declare declares the `tts` toolset with handle as
// text_to_speech's handler.
func declare(opts Options, handle tooldef.Handler) tooldef.Toolset {
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: meta.Description,
		Default:     meta.Default,
		EnvVars:     meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:         ToolName,
			Title:        "Text to speech",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// Creates a new audio file and never replaces one; the
			// configured provider may be a remote API.
			Hints:   tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true},
			Handler: handle,
			Check: func() error {
				_, err := Resolve(opts)
				return err
			},
		}},
	}
}
