package media

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Defaults. gpt-4o-mini-tts is the SDK's current speech model (every
// listed one has an announced shutdown, 2027-01-06); tts.openai.model
// replaces it. The ElevenLabs voice is one of its premade voices.
const (
	defaultOpenAITTSModel = "gpt-4o-mini-tts"
	defaultOpenAIVoice    = "alloy"
	defaultElevenVoice    = "pNInz6obpgDQGcFmaJgB"
	defaultElevenModel    = "eleven_multilingual_v2"
	defaultEspeakVoice    = "en-us"
	defaultEspeakSpeed    = 170
)

// Character caps per provider (the Python Hermes' limits); longer text is
// truncated.
var ttsMaxChars = map[string]int{TTSOpenAI: 4096, TTSElevenLabs: 5000, TTSEspeak: 5000}

type tts struct{ e *env }

// TTSToolset returns the `tts` toolset.
func TTSToolset(opts Options) tooldef.Toolset {
	s := &tts{e: newEnv(opts)}
	return ttsToolset(s.e.opts, s.handle)
}

type ttsArgs struct {
	Text       string `json:"text"`
	OutputPath string `json:"output_path"`
}

func (s *tts) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[ttsArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	text := strings.TrimSpace(args.Text)
	if text == "" {
		return tooldef.Errorf("Text is required"), nil
	}
	conf, err := ResolveTTS(s.e.opts)
	if err != nil {
		return tooldef.Errorf("TTS configuration error (%s): %v", cmp.Or(conf.Provider, "tts"), err), nil
	}
	if n := ttsMaxChars[conf.Provider]; utf8.RuneCountInString(text) > n {
		text = string([]rune(text)[:n])
	}
	format := map[string]string{TTSEspeak: "wav", TTSOpenAI: "mp3", TTSElevenLabs: "mp3"}[conf.Provider]
	path, err := s.outputPath(args.OutputPath, format)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	if conf.Provider == TTSOpenAI {
		// OpenAI writes what the file name asks for.
		if ext := strings.TrimPrefix(filepath.Ext(path), "."); openaiFormats[ext] {
			format = ext
		}
	} else if ext := strings.TrimPrefix(filepath.Ext(path), "."); ext != format {
		return tooldef.Errorf("%s produces %s audio: give output_path a .%s extension", conf.Provider, format, format), nil
	}

	var audio []byte
	switch conf.Provider {
	case TTSEspeak:
		audio, err = s.espeak(ctx, conf, text, filepath.Dir(path))
	case TTSOpenAI:
		audio, err = s.openai(ctx, conf, text, format)
	case TTSElevenLabs:
		audio, err = s.elevenlabs(ctx, conf, text)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tooldef.Failure(map[string]any{"error": "Interrupted", "success": false}), nil
		}
		return tooldef.Errorf("TTS failed (%s): %v", conf.Provider, err), nil
	}
	if err := writeNew(path, audio); err != nil {
		if errors.Is(err, os.ErrExist) {
			return tooldef.Errorf("%s already exists; text_to_speech never overwrites files, choose another output_path", path), nil
		}
		return tooldef.Result{}, fmt.Errorf("save audio: %w", err)
	}
	// Opus in Ogg is what messaging apps play as a voice note.
	voice := format == "opus" || strings.EqualFold(filepath.Ext(path), ".ogg")
	tag := "MEDIA:" + path
	if voice {
		tag = "[[audio_as_voice]]\n" + tag
	}
	return tooldef.OK(map[string]any{
		"success": true, "file_path": path, "media_tag": tag, "provider": conf.Provider, "voice_compatible": voice,
	}), nil
}

var openaiFormats = map[string]bool{"mp3": true, "opus": true, "aac": true, "flac": true, "wav": true, "pcm": true}

// outputPath resolves output_path: absolute or ~/ as given, relative under
// the audio cache, default a new name there. It refuses an existing file.
func (s *tts) outputPath(p, format string) (string, error) {
	dir, err := s.e.cacheDir("audio")
	if err != nil {
		return "", err
	}
	if p == "" {
		return filepath.Join(dir, stamp("tts", "."+format)), nil
	}
	if strings.HasPrefix(p, "~/") {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("expand %s: %w", p, err)
		}
		p = filepath.Join(h, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if _, err := os.Lstat(p); err == nil {
		return "", fmt.Errorf("%s already exists; text_to_speech never overwrites files, choose another output_path", p)
	}
	if filepath.Ext(p) == "" {
		p += "." + format
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(p), err)
	}
	return p, nil
}

// espeak runs espeak-ng writing a WAV file with -w (its --stdout WAV has
// placeholder sizes some players reject). The text goes on stdin, never
// through a shell or as an argument that could look like a flag.
func (s *tts) espeak(ctx context.Context, conf TTSBackend, text, dir string) ([]byte, error) {
	voice := cmp.Or(conf.Settings.Espeak.Voice, defaultEspeakVoice)
	speed := conf.Settings.Espeak.Speed
	if speed <= 0 {
		speed = defaultEspeakSpeed
	}
	tmp, err := os.CreateTemp(dir, ".tts-*.wav")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file in %s: %w", dir, err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpName)

	ctx, cancel := context.WithTimeout(ctx, s.e.callTimeout(0))
	defer cancel()
	cmd := exec.CommandContext(ctx, conf.Espeak, "-v", voice, "-s", strconv.Itoa(speed), "-w", tmpName, "--stdin")
	cmd.Stdin = strings.NewReader(text)
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("espeak-ng: %w: %s (check tts.espeak.voice; `espeak-ng --voices` lists them)", err, strings.TrimSpace(stderr.String()))
	}
	audio, err := os.ReadFile(tmpName)
	if err != nil {
		return nil, fmt.Errorf("read espeak-ng output: %w", err)
	}
	if err := checkWAV(audio); err != nil {
		return nil, fmt.Errorf("espeak-ng wrote a bad WAV file: %w", err)
	}
	return audio, nil
}

// checkWAV verifies a RIFF/WAVE header with real sizes.
func checkWAV(b []byte) error {
	if len(b) < 44 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return errors.New("no RIFF/WAVE header")
	}
	if riff := binary.LittleEndian.Uint32(b[4:8]); int(riff) != len(b)-8 {
		return fmt.Errorf("RIFF size %d does not match the file (%d bytes)", riff, len(b))
	}
	return nil
}

func (s *tts) openai(ctx context.Context, conf TTSBackend, text, format string) ([]byte, error) {
	o := conf.Settings.OpenAI
	model := cmp.Or(o.Model, defaultOpenAITTSModel)
	params := map[string]any{
		"input":           text,
		"model":           model,
		"voice":           cmp.Or(o.Voice, defaultOpenAIVoice),
		"response_format": format,
	}
	if o.Speed > 0 {
		params["speed"] = o.Speed
	}
	audio, err := s.e.postOpenAI(ctx, conf.BaseURL, conf.APIKey, "audio/speech", params, s.e.callTimeout(0))
	if err != nil {
		return nil, apiError("the speech model "+model, conf.BaseURL, "OPENAI_API_KEY", err)
	}
	if len(audio) == 0 {
		return nil, errors.New("the speech model returned no audio")
	}
	return audio, nil
}

// elevenlabs calls POST /v1/text-to-speech/{voice_id} and gets MP3 back.
func (s *tts) elevenlabs(ctx context.Context, conf TTSBackend, text string) ([]byte, error) {
	el := conf.Settings.ElevenLabs
	ctx, cancel := context.WithTimeout(ctx, s.e.callTimeout(0))
	defer cancel()
	body, _ := json.Marshal(map[string]any{"text": text, "model_id": cmp.Or(el.ModelID, defaultElevenModel)})
	u := strings.TrimRight(conf.BaseURL, "/") + "/v1/text-to-speech/" + url.PathEscape(cmp.Or(el.VoiceID, defaultElevenVoice)) +
		"?output_format=mp3_44100_128"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("ElevenLabs URL: %w (check ELEVENLABS_BASE_URL)", err)
	}
	req.Header.Set("xi-api-key", conf.APIKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "audio/mpeg")
	resp, err := s.e.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, errors.New("ElevenLabs did not answer in time; retry")
		}
		return nil, fmt.Errorf("ElevenLabs request failed: %s", redact.String(err.Error()))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("read ElevenLabs audio: %w", err)
	}
	if resp.StatusCode >= 300 {
		var e struct {
			Detail struct {
				Status  string `json:"status"`
				Message string `json:"message"`
			} `json:"detail"`
		}
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && e.Detail.Message != "" {
			msg = e.Detail.Message
		}
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		hint := ""
		switch resp.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			hint = " (check ELEVENLABS_API_KEY)"
		case http.StatusNotFound:
			hint = " (check tts.elevenlabs.voice_id)"
		case http.StatusTooManyRequests:
			hint = " (rate limited or out of characters; wait and retry)"
		}
		return nil, fmt.Errorf("ElevenLabs returned HTTP %d: %s%s", resp.StatusCode, redact.String(msg), hint)
	}
	return data, nil
}

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

// TTSToolsetName is what users type in --toolsets.
const TTSToolsetName = "tts"

// TTSEnvVars returns the environment variables the `tts` toolset reads.
func TTSEnvVars() []string {
	return []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ELEVENLABS_API_KEY", "ELEVENLABS_BASE_URL"}
}

// ttsToolset declares the `tts` toolset with handle as
// text_to_speech's handler.
func ttsToolset(opts Options, handle tooldef.Handler) tooldef.Toolset {
	return tooldef.Toolset{
		Name:        TTSToolsetName,
		Description: "Turn text into speech audio files (espeak-ng locally, or OpenAI or ElevenLabs).",
		Default:     true,
		EnvVars:     TTSEnvVars(),
		Tools: []tooldef.Tool{{
			Name:         TextToSpeechTool,
			Title:        "Text to speech",
			Description:  ttsDescription,
			InputSchema:  json.RawMessage(ttsInputSchema),
			OutputSchema: json.RawMessage(ttsOutputSchema),
			// Creates a new audio file and never replaces one; the
			// configured provider may be a remote API.
			Hints:   tooldef.Hints{ReadOnly: false, Destructive: false, Idempotent: false, OpenWorld: true},
			Handler: handle,
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
