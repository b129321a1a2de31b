package spec

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// TextToSpeechTool is text_to_speech's wire name.
const TextToSpeechTool = "text_to_speech"

// Speech providers, as results report them.
const (
	TTSEspeak     = "espeak-ng"
	TTSOpenAI     = "openai"
	TTSElevenLabs = "elevenlabs"
)

const defaultElevenBase = "https://api.elevenlabs.io"

// TTSBackend is a resolved speech backend.
type TTSBackend struct {
	// Provider is TTSEspeak, TTSOpenAI or TTSElevenLabs.
	Provider string
	// APIKey and BaseURL are the remote provider's; empty for espeak-ng.
	APIKey, BaseURL string
	// Espeak is the path to espeak-ng when Provider is TTSEspeak.
	Espeak string
	// Settings is the tts section of config.yaml, for voices and speeds.
	Settings TTSSettings
}

// ResolveTTS maps tts.provider to a backend. Unset and "edge" (Hermes'
// default, a Microsoft service this build does not speak) use espeak-ng.
// On error the returned backend still names the provider when one was
// recognised, so the caller's message can say which.
func ResolveTTS(opts Options) (TTSBackend, error) {
	c, err := loadConfig(opts.Home)
	if err != nil {
		return TTSBackend{}, err
	}
	conf := TTSBackend{Settings: c.TTS}
	switch p := strings.ToLower(strings.TrimSpace(c.TTS.Provider)); p {
	case "", "edge", "espeak", "espeak-ng", "local":
		conf.Provider = TTSEspeak
		path, err := opts.lookPath("espeak-ng")
		if err != nil {
			return conf, errors.New("text_to_speech needs espeak-ng: install it (Debian/Ubuntu: apt-get install espeak-ng), or set tts.provider in config.yaml to openai (OPENAI_API_KEY) or elevenlabs (ELEVENLABS_API_KEY)")
		}
		conf.Espeak = path
	case TTSOpenAI:
		conf.Provider = p
		conf.APIKey = opts.getenv("OPENAI_API_KEY")
		conf.BaseURL = cmp.Or(c.TTS.OpenAI.BaseURL, opts.getenv("OPENAI_BASE_URL"), defaultOpenAIBase)
		if conf.APIKey == "" && strings.Contains(conf.BaseURL, "api.openai.com") {
			return conf, errors.New("tts.provider is openai but OPENAI_API_KEY is not set")
		}
	case TTSElevenLabs:
		conf.Provider = p
		conf.APIKey = opts.getenv("ELEVENLABS_API_KEY")
		conf.BaseURL = cmp.Or(c.TTS.ElevenLabs.BaseURL, opts.getenv("ELEVENLABS_BASE_URL"), defaultElevenBase)
		if conf.APIKey == "" {
			return conf, errors.New("tts.provider is elevenlabs but ELEVENLABS_API_KEY is not set")
		}
	default:
		return conf, fmt.Errorf("tts.provider %q is not supported by hermes-tools (supported: espeak-ng, openai, elevenlabs)", c.TTS.Provider)
	}
	return conf, nil
}

// TTSToolset returns the `tts` toolset; text_to_speech's handler is
// bind(TextToSpeechTool).
func TTSToolset(opts Options, bind func(toolName string) tooldef.Handler) tooldef.Toolset {
	return tooldef.Toolset{
		Name:        "tts",
		Description: "Turn text into speech audio files (espeak-ng locally, or OpenAI or ElevenLabs).",
		Default:     true,
		EnvVars:     []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ELEVENLABS_API_KEY", "ELEVENLABS_BASE_URL"},
		Tools: []tooldef.Tool{{
			Name:         TextToSpeechTool,
			Title:        "Text to speech",
			Description:  ttsDescription,
			InputSchema:  json.RawMessage(ttsInputSchema),
			OutputSchema: json.RawMessage(ttsOutputSchema),
			// Creates a new audio file and never replaces one; the
			// configured provider may be a remote API.
			Hints:   tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true},
			Handler: bind(TextToSpeechTool),
			Check: func() error {
				_, err := ResolveTTS(opts)
				return err
			},
		}},
	}
}

const ttsDescription = "Convert text to speech audio. Saves an audio file (under the Hermes home's " +
	"cache/audio unless output_path is given; existing files are never overwritten) and returns its path " +
	"in file_path and a media_tag (MEDIA:<path>) that chat front-ends turn into an audio attachment. The " +
	"voice and provider are configured by the user; very long text is truncated to the provider's limit."

const ttsInputSchema = `{
  "type": "object",
  "properties": {
    "text": {
      "type": "string",
      "description": "The text to convert to speech. Keep under 4000 characters."
    },
    "output_path": {
      "type": "string",
      "description": "Optional file path for the audio (absolute, ~/..., or relative to the Hermes audio cache). Must not exist yet. Defaults to a new file in <HERMES_HOME>/cache/audio/."
    }
  },
  "required": ["text"]
}`

const ttsOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "file_path": {"type": "string"},
    "media_tag": {"type": "string"},
    "provider": {"type": "string"},
    "voice_compatible": {"type": "boolean"}
  },
  "required": ["success", "file_path", "media_tag", "provider", "voice_compatible"]
}`
