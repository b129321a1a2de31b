package tts

const description = "Convert text to speech audio. Saves an audio file (under the Hermes home's " +
	"cache/audio unless output_path is given; existing files are never overwritten) and returns its path " +
	"in file_path and a media_tag (MEDIA:<path>) that chat front-ends turn into an audio attachment. The " +
	"voice and provider are configured by the user; very long text is truncated to the provider's limit."

const inputSchema = `{
  "type": "object",
  "properties": {
    "text": {
      "type": "string", "maxLength": 100000,
      "description": "The text to convert to speech. Keep under 4000 characters."
    },
    "output_path": {
      "type": "string", "maxLength": 16384,
      "description": "Optional file path for the audio (absolute, ~/..., or relative to the Hermes audio cache). Must not exist yet. Defaults to a new file in <HERMES_HOME>/cache/audio/."
    },
    "speed": {
      "type": "number",
      "description": "Playback speed multiplier. 1.0 = normal, 0.5 = very slow (language learning), 2.0 = fast. Range: 0.25-4.0. Overrides the speed configured in config.yaml."
    },
    "instructions": {
      "type": "string", "maxLength": 100000,
      "description": "Optional voice-design guidance: tone, emotion, pacing, accent, whispering, impressions (e.g. 'Speak in a cheerful, excited whisper'). Forwarded to the OpenAI backend (gpt-4o-mini-tts and OpenAI-compatible voice-design servers). Silently ignored by backends that don't support it."
    }
  },
  "required": ["text"]
}`

const outputSchema = `{
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
