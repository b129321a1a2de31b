package tts

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
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
var ttsMaxChars = map[string]int{
	ProviderEdge: 5000, ProviderOpenAI: 4096, ProviderElevenLabs: 5000, ProviderEspeak: 5000,
	ProviderMiniMax: 10000, ProviderMistral: 4000, ProviderGemini: 32000, ProviderXAI: 15000,
}

// format is the audio a backend writes.
func (b Backend) format() string {
	switch {
	case b.Command != nil:
		return b.Command.format
	case b.Provider == ProviderEspeak, b.Provider == ProviderGemini:
		return "wav"
	}
	return "mp3"
}

// maxChars is the provider's character cap.
func (b Backend) maxChars() int {
	if b.Command != nil {
		if n := b.Settings.Providers[b.Provider].MaxTextLength; n > 0 {
			return n
		}
		return 5000
	}
	return cmp.Or(ttsMaxChars[b.Provider], 4000)
}

type speaker struct{ e *mediaapi.Env }

type callArgs struct {
	Text         string   `json:"text"`
	OutputPath   string   `json:"output_path"`
	Speed        *float64 `json:"speed"`
	Instructions string   `json:"instructions"`
}

// Speed multiplier bounds of the speed argument, as the original clamps it.
const (
	minSpeed = 0.25
	maxSpeed = 4.0
)

// withSpeed makes the speed argument win over every speed config.yaml
// sets for this call: tts.speed and each provider's own. Each provider
// then applies it as it applies a configured speed (its own range, its
// own units).
func (b Backend) withSpeed(speed float64) Backend {
	speed = min(max(speed, minSpeed), maxSpeed)
	b.Settings.Speed = speed
	b.Settings.Edge.Speed = speed
	b.Settings.OpenAI.Speed = speed
	b.Settings.XAI.Speed = speed
	b.Settings.MiniMax.Speed = &speed
	b.Settings.Espeak.Speed = int(math.Round(float64(cmp.Or(b.Settings.Espeak.Speed, defaultEspeakSpeed)) * speed))
	if b.Command != nil {
		c := *b.Command
		c.speed = strconv.FormatFloat(speed, 'f', -1, 64)
		b.Command = &c
	}
	return b
}

func (s *speaker) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[callArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	text := strings.TrimSpace(args.Text)
	if text == "" {
		return tooldef.Errorf("Text is required"), nil
	}
	conf, err := Resolve(s.e.Opts)
	if err != nil {
		return tooldef.Errorf("TTS configuration error (%s): %v", cmp.Or(conf.Provider, "tts"), err), nil
	}
	if args.Speed != nil && *args.Speed > 0 {
		conf = conf.withSpeed(*args.Speed)
	}
	if n := conf.maxChars(); utf8.RuneCountInString(text) > n {
		text = string([]rune(text)[:n])
	}
	format := conf.format()
	path, err := s.outputPath(args.OutputPath, format)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	if conf.Provider == ProviderOpenAI {
		// OpenAI writes what the file name asks for.
		if ext := strings.TrimPrefix(filepath.Ext(path), "."); openaiFormats[ext] {
			format = ext
		}
	} else if ext := strings.TrimPrefix(filepath.Ext(path), "."); ext != format {
		return tooldef.Errorf("%s produces %s audio: give output_path a .%s extension", conf.Provider, format, format), nil
	}

	provider := conf.Provider
	var audio []byte
	switch {
	case conf.Command != nil:
		audio, err = s.command(ctx, conf.Command, text, filepath.Dir(path))
	case conf.Provider == ProviderEdge:
		audio, err = s.edge(ctx, conf, text)
		var offline *edgeDialError
		if errors.As(err, &offline) && conf.Espeak != "" && ctx.Err() == nil {
			// Offline: espeak-ng speaks instead, into a WAV file.
			if args.OutputPath != "" {
				return tooldef.Errorf("TTS failed (edge): %v; espeak-ng could speak offline but writes WAV: give output_path a .wav extension or omit it", err), nil
			}
			provider, path = ProviderEspeak, strings.TrimSuffix(path, ".mp3")+".wav"
			audio, err = s.espeak(ctx, conf, text, filepath.Dir(path))
		}
	case conf.Provider == ProviderEspeak:
		audio, err = s.espeak(ctx, conf, text, filepath.Dir(path))
	case conf.Provider == ProviderOpenAI:
		audio, err = s.openai(ctx, conf, text, format, strings.TrimSpace(args.Instructions))
	case conf.Provider == ProviderElevenLabs:
		audio, err = s.elevenlabs(ctx, conf, text)
	case conf.Provider == ProviderMiniMax:
		audio, err = s.minimax(ctx, conf, text)
	case conf.Provider == ProviderMistral:
		audio, err = s.mistral(ctx, conf, text)
	case conf.Provider == ProviderGemini:
		audio, err = s.gemini(ctx, conf, text)
	case conf.Provider == ProviderXAI:
		audio, err = s.xai(ctx, conf, text)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tooldef.Failure(map[string]any{"error": "Interrupted", "success": false}), nil
		}
		return tooldef.Errorf("TTS failed (%s): %v", provider, err), nil
	}
	if err := mediaapi.WriteNew(path, audio); err != nil {
		if errors.Is(err, os.ErrExist) {
			return tooldef.Errorf("%s already exists; text_to_speech never overwrites files, choose another output_path", path), nil
		}
		return tooldef.Result{}, fmt.Errorf("save audio: %w", err)
	}
	// Opus in Ogg is what messaging apps play as a voice note; a command
	// provider says whether its output is.
	voice := format == "opus" || strings.EqualFold(filepath.Ext(path), ".ogg")
	if conf.Command != nil {
		voice = conf.Command.voiceOK
	}
	tag := "MEDIA:" + path
	if voice {
		tag = "[[audio_as_voice]]\n" + tag
	}
	return tooldef.OK(map[string]any{
		"success": true, "file_path": path, "media_tag": tag, "provider": provider, "voice_compatible": voice,
	}), nil
}

var openaiFormats = map[string]bool{"mp3": true, "opus": true, "aac": true, "flac": true, "wav": true, "pcm": true}

// outputPath resolves output_path: absolute or ~/ as given, relative under
// the audio cache, default a new name there. It refuses an existing file.
func (s *speaker) outputPath(p, format string) (string, error) {
	dir, err := s.e.CacheDir("audio")
	if err != nil {
		return "", err
	}
	if p == "" {
		return filepath.Join(dir, mediaapi.Stamp("tts", "."+format)), nil
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
func (s *speaker) espeak(ctx context.Context, conf Backend, text, dir string) ([]byte, error) {
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

	ctx, cancel := context.WithTimeout(ctx, s.e.CallTimeout(0))
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

// edge speaks through Edge TTS at the configured voice and speed.
func (s *speaker) edge(ctx context.Context, conf Backend, text string) ([]byte, error) {
	c := &edgeClient{endpoint: conf.BaseURL, http: s.e.Client, timeout: s.e.CallTimeout(0), now: time.Now}
	if c.timeout > 60*time.Second {
		// edge-tts reads for at most 60 s per chunk.
		c.timeout = 60 * time.Second
	}
	speed := conf.Settings.Edge.Speed
	if speed <= 0 {
		speed = conf.Settings.Speed
	}
	return c.synthesize(ctx, text, cmp.Or(strings.TrimSpace(conf.Settings.Edge.Voice), defaultEdgeVoice), edgeRate(speed))
}

// openai speaks through /audio/speech; instructions is the voice-design
// guidance gpt-4o-mini-tts (and compatible servers) take, sent only when
// given. A speed of 1 is the API's default and is not sent, as the
// original does.
func (s *speaker) openai(ctx context.Context, conf Backend, text, format, instructions string) ([]byte, error) {
	o := conf.Settings.OpenAI
	model := cmp.Or(o.Model, defaultOpenAITTSModel)
	params := map[string]any{
		"input":           text,
		"model":           model,
		"voice":           cmp.Or(o.Voice, defaultOpenAIVoice),
		"response_format": format,
	}
	if o.Speed > 0 && o.Speed != 1 {
		params["speed"] = o.Speed
	}
	if instructions != "" {
		params["instructions"] = instructions
	}
	audio, err := s.e.PostOpenAI(ctx, conf.BaseURL, conf.APIKey, "audio/speech", params, s.e.CallTimeout(0))
	if err != nil {
		return nil, mediaapi.APIError("the speech model "+model, conf.BaseURL, "OPENAI_API_KEY", err)
	}
	if len(audio) == 0 {
		return nil, errors.New("the speech model returned no audio")
	}
	return audio, nil
}

// elevenlabs calls POST /v1/text-to-speech/{voice_id} and gets MP3 back.
func (s *speaker) elevenlabs(ctx context.Context, conf Backend, text string) ([]byte, error) {
	el := conf.Settings.ElevenLabs
	ctx, cancel := context.WithTimeout(ctx, s.e.CallTimeout(0))
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
	resp, err := s.e.Client.Do(req)
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

// Speech providers, as results report them.
const (
	ProviderEdge       = "edge"
	ProviderEspeak     = "espeak-ng"
	ProviderOpenAI     = "openai"
	ProviderElevenLabs = "elevenlabs"
)

const defaultElevenBase = "https://api.elevenlabs.io"

// Backend is a resolved speech backend.
type Backend struct {
	// Provider is ProviderEdge, ProviderEspeak, ProviderOpenAI,
	// ProviderElevenLabs, or the name of a command provider.
	Provider string
	// APIKey and BaseURL are the remote provider's; empty for espeak-ng.
	APIKey, BaseURL string
	// Espeak is the path to espeak-ng when Provider is ProviderEspeak,
	// and Edge's offline fallback when it is installed.
	Espeak string
	// Command is the user's program when Provider names one.
	Command *commandSpec
	// Settings is the tts section of config.yaml, for voices and speeds.
	Settings Settings
}

// Resolve maps tts.provider to a backend. Unset and "edge" (Hermes'
// default) speak through Edge TTS, keyless, with espeak-ng as the offline
// fallback when it is installed; "espeak-ng" (or "local") speaks with
// espeak-ng only; a name under tts.providers runs the user's program. On
// error the returned backend still names the provider when one was
// recognised, so the caller's message can say which.
func Resolve(opts Options) (Backend, error) {
	c, err := mediaapi.LoadConfig(opts.Home)
	if err != nil {
		return Backend{}, err
	}
	conf := Backend{Settings: c.TTS}
	switch p := strings.ToLower(strings.TrimSpace(c.TTS.Provider)); p {
	case "", ProviderEdge:
		conf.Provider = ProviderEdge
		conf.BaseURL = cmp.Or(opts.Var(EdgeURLEnv), defaultEdgeURL)
		if u, err := url.Parse(conf.BaseURL); err != nil || (u.Scheme != "wss" && u.Scheme != "ws") || u.Host == "" {
			return conf, fmt.Errorf("%s=%q is not a ws:// or wss:// URL", EdgeURLEnv, conf.BaseURL)
		}
		if path, err := opts.FindProgram("espeak-ng"); err == nil {
			conf.Espeak = path
		}
	case "espeak", ProviderEspeak, "local":
		conf.Provider = ProviderEspeak
		path, err := opts.FindProgram("espeak-ng")
		if err != nil {
			return conf, errors.New("text_to_speech needs espeak-ng: install it (Debian/Ubuntu: apt-get install espeak-ng), or set tts.provider in config.yaml to edge (no key), openai (OPENAI_API_KEY) or elevenlabs (ELEVENLABS_API_KEY)")
		}
		conf.Espeak = path
	case ProviderOpenAI:
		conf.Provider = p
		conf.APIKey = opts.Var("OPENAI_API_KEY")
		conf.BaseURL = cmp.Or(c.TTS.OpenAI.BaseURL, opts.Var("OPENAI_BASE_URL"), mediaapi.DefaultOpenAIBase)
		if conf.APIKey == "" && strings.Contains(conf.BaseURL, "api.openai.com") {
			return conf, errors.New("tts.provider is openai but OPENAI_API_KEY is not set")
		}
	case ProviderElevenLabs:
		conf.Provider = p
		conf.APIKey = opts.Var("ELEVENLABS_API_KEY")
		conf.BaseURL = cmp.Or(c.TTS.ElevenLabs.BaseURL, opts.Var("ELEVENLABS_BASE_URL"), defaultElevenBase)
		if conf.APIKey == "" {
			return conf, errors.New("tts.provider is elevenlabs but ELEVENLABS_API_KEY is not set")
		}
	case ProviderMiniMax, ProviderMistral, ProviderGemini, ProviderXAI:
		conf.Provider = p
		if err := resolveHTTP(&conf, opts); err != nil {
			return conf, err
		}
	default:
		name := strings.TrimSpace(c.TTS.Provider)
		if cp, ok := commandEntry(c.TTS.Providers, name); ok && !builtinProviders[p] {
			conf.Provider = name
			conf.Command, err = resolveCommand(name, cp, c.TTS.Speed)
			return conf, err
		}
		return conf, fmt.Errorf("tts.provider %q is not supported by hermes-tools (supported: edge, espeak-ng, openai, elevenlabs, minimax, mistral, gemini, xai, or your own program under tts.providers.<name> with a command)", c.TTS.Provider)
	}
	return conf, nil
}

// commandEntry finds tts.providers.<name>, the name matched without
// regard to case as tts.provider is.
func commandEntry(m map[string]mediaapi.CommandTTS, name string) (mediaapi.CommandTTS, bool) {
	if cp, ok := m[name]; ok {
		return cp, true
	}
	for k, cp := range m {
		if strings.EqualFold(k, name) {
			return cp, true
		}
	}
	return mediaapi.CommandTTS{}, false
}
