package tts

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
)

// The original's other providers with public HTTP APIs, with its defaults.
const (
	ProviderMiniMax = "minimax"
	ProviderMistral = "mistral"
	ProviderGemini  = "gemini"
	ProviderXAI     = "xai"

	defaultMiniMaxURL   = "https://api.minimax.io/v1/t2a_v2"
	defaultMiniMaxCNURL = "https://api.minimaxi.com/v1/t2a_v2"
	defaultMiniMaxModel = "speech-02-hd"
	defaultMiniMaxVoice = "English_expressive_narrator"
	defaultMistralBase  = "https://api.mistral.ai"
	defaultMistralModel = "voxtral-mini-tts-2603"
	defaultMistralVoice = "c69964a6-ab8b-4f8a-9465-ec0925096ec8"
	defaultGeminiBase   = "https://generativelanguage.googleapis.com/v1beta"
	defaultGeminiModel  = "gemini-2.5-flash-preview-tts"
	defaultGeminiVoice  = "Kore"
	defaultXAIBase      = "https://api.x.ai/v1"
	defaultXAIVoice     = "eve"

	// MiniMaxURLEnv overrides MiniMax's endpoint (ours; the original
	// reads tts.minimax.base_url only).
	MiniMaxURLEnv = "HERMES_MINIMAX_TTS_URL"
	// MistralBaseEnv overrides Mistral's server (ours; the original reads
	// tts.mistral.base_url only).
	MistralBaseEnv = "HERMES_MISTRAL_BASE_URL"
)

// resolveHTTP fills the key and endpoint of the providers in this file; the
// error says which variable to set.
func resolveHTTP(conf *Backend, opts Options) error {
	t := conf.Settings
	switch conf.Provider {
	case ProviderMiniMax:
		global, cn := opts.Var("MINIMAX_API_KEY"), opts.Var("MINIMAX_CN_API_KEY")
		region := strings.ToLower(strings.TrimSpace(t.MiniMax.Region))
		def := defaultMiniMaxURL
		conf.APIKey = global
		if region == "cn" || (global == "" && cn != "") {
			conf.APIKey, def = cn, defaultMiniMaxCNURL
		}
		conf.BaseURL = cmp.Or(t.MiniMax.BaseURL, opts.Var(MiniMaxURLEnv), def)
		if g := cmp.Or(t.MiniMax.GroupID, opts.Var("MINIMAX_GROUP_ID")); g != "" {
			sep := "?"
			if strings.Contains(conf.BaseURL, "?") {
				sep = "&"
			}
			conf.BaseURL += sep + "GroupId=" + url.QueryEscape(g)
		}
		if conf.APIKey == "" {
			return errors.New("tts.provider is minimax but MINIMAX_API_KEY (or MINIMAX_CN_API_KEY) is not set")
		}
	case ProviderMistral:
		conf.APIKey = opts.Var("MISTRAL_API_KEY")
		conf.BaseURL = cmp.Or(t.Mistral.BaseURL, opts.Var(MistralBaseEnv), defaultMistralBase)
		if conf.APIKey == "" {
			return errors.New("tts.provider is mistral but MISTRAL_API_KEY is not set")
		}
	case ProviderGemini:
		conf.APIKey = cmp.Or(opts.Var("GEMINI_API_KEY"), opts.Var("GOOGLE_API_KEY"))
		conf.BaseURL = cmp.Or(t.Gemini.BaseURL, opts.Var("GEMINI_BASE_URL"), defaultGeminiBase)
		if conf.APIKey == "" {
			return errors.New("tts.provider is gemini but GEMINI_API_KEY (or GOOGLE_API_KEY) is not set")
		}
	case ProviderXAI:
		conf.APIKey = opts.Var("XAI_API_KEY")
		conf.BaseURL = cmp.Or(t.XAI.BaseURL, opts.Var("XAI_BASE_URL"), defaultXAIBase)
		if conf.APIKey == "" {
			return errors.New("tts.provider is xai but XAI_API_KEY is not set")
		}
	}
	return nil
}

// minimax calls t2a_v2; the audio comes back hex-encoded, and errors,
// a bad key among them, inside base_resp of a 200.
func (s *speaker) minimax(ctx context.Context, conf Backend, text string) ([]byte, error) {
	m := conf.Settings.MiniMax
	speed := 1.0
	if m.Speed != nil {
		speed = *m.Speed
	} else if conf.Settings.Speed > 0 {
		speed = conf.Settings.Speed
	}
	vol, pitch := 1.0, 0.0
	if m.Vol != nil {
		vol = *m.Vol
	}
	if m.Pitch != nil {
		pitch = *m.Pitch
	}
	body := map[string]any{
		"model": cmp.Or(m.Model, defaultMiniMaxModel),
		"text":  text,
		"voice_setting": map[string]any{
			"voice_id": cmp.Or(m.VoiceID, defaultMiniMaxVoice), "speed": speed, "vol": vol, "pitch": pitch,
			"emotion": cmp.Or(m.Emotion, "neutral"),
		},
		"audio_setting": map[string]any{
			"sample_rate": cmp.Or(m.SampleRate, 32000), "bitrate": cmp.Or(m.Bitrate, 128000), "format": "mp3", "channel": 1,
		},
	}
	raw, err := s.e.PostOpenAI(ctx, conf.BaseURL, conf.APIKey, "", body, s.e.CallTimeout(0))
	if err != nil {
		return nil, mediaapi.APIError("MiniMax", endpointOnly(conf.BaseURL), "MINIMAX_API_KEY", stripURL(err))
	}
	var resp struct {
		Data struct {
			Audio string `json:"audio"`
		} `json:"data"`
		BaseResp *struct {
			StatusCode int    `json:"status_code"`
			StatusMsg  string `json:"status_msg"`
		} `json:"base_resp"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || resp.BaseResp == nil {
		return nil, fmt.Errorf("MiniMax answered with something that is not its t2a_v2 response: %s", snippet(raw))
	}
	if c := resp.BaseResp.StatusCode; c != 0 {
		hint := ""
		if c == 1004 {
			hint = " (check MINIMAX_API_KEY, and tts.minimax.region for a mainland-China key)"
		}
		return nil, fmt.Errorf("MiniMax TTS API error (code %d): %s%s", c, resp.BaseResp.StatusMsg, hint)
	}
	audio, err := hex.DecodeString(resp.Data.Audio)
	if err != nil || len(audio) == 0 {
		return nil, errors.New("MiniMax returned no audio")
	}
	return audio, nil
}

func (s *speaker) mistral(ctx context.Context, conf Backend, text string) ([]byte, error) {
	m := conf.Settings.Mistral
	base := strings.TrimRight(conf.BaseURL, "/")
	body := map[string]any{
		"model": cmp.Or(m.Model, defaultMistralModel), "input": text,
		"voice_id": cmp.Or(m.VoiceID, defaultMistralVoice), "response_format": "mp3",
	}
	raw, err := s.e.PostOpenAI(ctx, base, conf.APIKey, "v1/audio/speech", body, s.e.CallTimeout(0))
	if err != nil {
		return nil, mediaapi.APIError("Mistral speech", base, "MISTRAL_API_KEY", err)
	}
	var resp struct {
		AudioData *string `json:"audio_data"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil || resp.AudioData == nil {
		return nil, fmt.Errorf("Mistral answered with something that is not a speech response: %s", snippet(raw))
	}
	audio, err := base64.StdEncoding.DecodeString(*resp.AudioData)
	if err != nil || len(audio) == 0 {
		return nil, errors.New("Mistral returned no audio")
	}
	return audio, nil
}

// gemini asks a TTS model for audio; it answers 24 kHz 16-bit mono PCM,
// which becomes a WAV file.
func (s *speaker) gemini(ctx context.Context, conf Backend, text string) ([]byte, error) {
	g := conf.Settings.Gemini
	base := strings.TrimRight(conf.BaseURL, "/")
	model := cmp.Or(g.Model, defaultGeminiModel)
	body := map[string]any{
		"contents": []any{map[string]any{"parts": []any{map[string]any{"text": text}}}},
		"generationConfig": map[string]any{
			"responseModalities": []string{"AUDIO"},
			"speechConfig": map[string]any{"voiceConfig": map[string]any{"prebuiltVoiceConfig": map[string]any{
				"voiceName": cmp.Or(g.Voice, defaultGeminiVoice)}}},
		},
	}
	path := "models/" + url.PathEscape(model) + ":generateContent?key=" + url.QueryEscape(conf.APIKey)
	raw, err := s.e.PostOpenAI(ctx, base, "", path, body, s.e.CallTimeout(0))
	if err != nil {
		return nil, mediaapi.APIError("Gemini TTS model "+model, base, "GEMINI_API_KEY", stripURL(err))
	}
	var resp struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					InlineData *struct {
						Data string `json:"data"`
					} `json:"inlineData"`
					InlineDataSnake *struct {
						Data string `json:"data"`
					} `json:"inline_data"`
				} `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, fmt.Errorf("Gemini answered with something that is not a generateContent response: %s", snippet(raw))
	}
	for _, c := range resp.Candidates {
		for _, p := range c.Content.Parts {
			d := p.InlineData
			if d == nil {
				d = p.InlineDataSnake
			}
			if d == nil {
				continue
			}
			pcm, err := base64.StdEncoding.DecodeString(d.Data)
			if err != nil || len(pcm) == 0 {
				return nil, errors.New("Gemini returned audio that is not base64 PCM")
			}
			return wavFromPCM(pcm, 24000), nil
		}
	}
	return nil, errors.New("Gemini returned no audio (the model may have refused the text)")
}

// xai calls xAI's /tts, which answers raw MP3.
func (s *speaker) xai(ctx context.Context, conf Backend, text string) ([]byte, error) {
	x := conf.Settings.XAI
	body := map[string]any{"text": text, "voice_id": cmp.Or(x.VoiceID, defaultXAIVoice), "language": cmp.Or(x.Language, "en")}
	speed := x.Speed
	if speed <= 0 {
		speed = conf.Settings.Speed
	}
	if speed > 0 && speed != 1 {
		body["speed"] = min(max(speed, 0.7), 1.5)
	}
	audio, err := s.e.PostOpenAI(ctx, conf.BaseURL, conf.APIKey, "tts", body, s.e.CallTimeout(0))
	if err != nil {
		return nil, mediaapi.APIError("xAI speech", conf.BaseURL, "XAI_API_KEY", err)
	}
	if len(audio) == 0 || audio[0] == '{' {
		return nil, fmt.Errorf("xAI answered with something that is not audio: %s", snippet(audio))
	}
	return audio, nil
}

// wavFromPCM wraps 16-bit mono little-endian PCM in a WAV header.
func wavFromPCM(pcm []byte, rate int) []byte {
	h := make([]byte, 44, 44+len(pcm))
	copy(h[0:], "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(pcm)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 1) // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(pcm)))
	return append(h, pcm...)
}

// stripURL drops the request URL from a transport error: Gemini's carries
// the key in its query.
func stripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// endpointOnly is a URL without its query, for messages.
func endpointOnly(u string) string {
	base, _, _ := strings.Cut(u, "?")
	return base
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
