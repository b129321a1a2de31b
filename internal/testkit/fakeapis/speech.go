package fakeapis

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The speech providers beside OpenAI and ElevenLabs. Each takes the
// common triggers from the spoken text, in its own error shape.
const (
	// MiniMax is POST /v1/t2a_v2 (Base(MiniMax) + "/v1/t2a_v2" is the
	// URL to configure); audio comes back hex-encoded in JSON.
	MiniMax = "minimax"
	// Mistral is POST /v1/audio/speech; audio comes back base64 in JSON.
	Mistral = "mistral"
	// Gemini is POST /v1beta/models/<model>:generateContent?key=; audio
	// comes back as base64 16-bit PCM at 24 kHz.
	Gemini = "gemini"
	// xAI's speech is POST Base(XAI)/tts; raw audio.
)

// Keys the speech fakes accept.
const (
	MiniMaxKey = "minimax-fake-key-0001"
	MistralKey = "mistral-fake-key-0001"
	GeminiKey  = "gemini-fake-key-0001"
)

// GeminiPCM is the PCM the Gemini fake speaks: 0.01 s of 24 kHz mono
// 16-bit samples.
func GeminiPCM() []byte {
	pcm := make([]byte, 480)
	for i := 0; i < len(pcm); i += 2 {
		binary.LittleEndian.PutUint16(pcm[i:], uint16(i*50))
	}
	return pcm
}

// speechTrigger answers a common trigger in the provider's error shape;
// it reports whether it did.
func (s *Server) speechTrigger(w http.ResponseWriter, r *http.Request, text string, shape func(status int, msg string)) bool {
	switch {
	case strings.Contains(text, "trigger-slow"):
		s.hang(r)
	case strings.Contains(text, "trigger-429"):
		w.Header().Set("Retry-After", "7")
		shape(http.StatusTooManyRequests, "rate limit exceeded")
	case strings.Contains(text, "trigger-500"):
		shape(http.StatusInternalServerError, "internal server error")
	case strings.Contains(text, "trigger-malformed"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"data": [unterminated`)
	default:
		return false
	}
	return true
}

func (s *Server) minimax(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	baseResp := func(code int, msg string) map[string]any {
		return map[string]any{"status_code": code, "status_msg": msg}
	}
	shape := func(status int, msg string) {
		writeJSON(w, status, map[string]any{"base_resp": baseResp(1000+status, msg)})
	}
	if path != "/v1/t2a_v2" || r.Method != http.MethodPost {
		shape(http.StatusNotFound, "not found")
		return
	}
	if bearer(r) != MiniMaxKey {
		// MiniMax reports a bad key inside a 200.
		writeJSON(w, http.StatusOK, map[string]any{"base_resp": baseResp(1004, "login fail: Please carry the API secret key in the 'Authorization' field of the request header")})
		return
	}
	var req struct {
		Model        string         `json:"model"`
		Text         string         `json:"text"`
		VoiceSetting map[string]any `json:"voice_setting"`
		AudioSetting struct {
			Format     string `json:"format"`
			SampleRate int    `json:"sample_rate"`
			Channel    int    `json:"channel"`
		} `json:"audio_setting"`
	}
	if json.Unmarshal(body, &req) != nil || req.Model == "" || req.Text == "" || req.VoiceSetting["voice_id"] == nil || req.AudioSetting.Format == "" {
		writeJSON(w, http.StatusOK, map[string]any{"base_resp": baseResp(2013, "invalid params: model, text, voice_setting.voice_id and audio_setting.format are required")})
		return
	}
	if s.speechTrigger(w, r, req.Text, shape) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"data":       map[string]any{"audio": hex.EncodeToString(MP3()), "status": 2},
		"extra_info": map[string]any{"audio_format": req.AudioSetting.Format, "audio_sample_rate": req.AudioSetting.SampleRate, "audio_channel": req.AudioSetting.Channel},
		"trace_id":   "fake-trace",
		"base_resp":  baseResp(0, "success"),
	})
}

func (s *Server) mistral(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	shape := func(status int, msg string) {
		writeJSON(w, status, map[string]any{"object": "error", "message": msg, "type": "fake_error", "param": nil, "code": strconv.Itoa(status)})
	}
	if path != "/v1/audio/speech" || r.Method != http.MethodPost {
		shape(http.StatusNotFound, "Not Found")
		return
	}
	if bearer(r) != MistralKey {
		shape(http.StatusUnauthorized, "Unauthorized")
		return
	}
	var req struct {
		Model          string `json:"model"`
		Input          string `json:"input"`
		VoiceID        string `json:"voice_id"`
		ResponseFormat string `json:"response_format"`
	}
	if json.Unmarshal(body, &req) != nil || req.Model == "" || req.Input == "" {
		shape(http.StatusUnprocessableEntity, "model and input are required")
		return
	}
	if s.speechTrigger(w, r, req.Input, shape) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"audio_data": base64.StdEncoding.EncodeToString(MP3())})
}

func (s *Server) gemini(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	shape := func(status int, msg string) {
		st := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}[status]
		writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}})
	}
	model, ok := strings.CutPrefix(path, "/v1beta/models/")
	model, ok2 := strings.CutSuffix(model, ":generateContent")
	if !ok || !ok2 || r.Method != http.MethodPost {
		shape(http.StatusNotFound, "not found")
		return
	}
	if r.URL.Query().Get("key") != GeminiKey {
		shape(http.StatusBadRequest, "API key not valid. Please pass a valid API key.")
		return
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
		GenerationConfig struct {
			ResponseModalities []string `json:"responseModalities"`
			SpeechConfig       struct {
				VoiceConfig struct {
					PrebuiltVoiceConfig struct {
						VoiceName string `json:"voiceName"`
					} `json:"prebuiltVoiceConfig"`
				} `json:"voiceConfig"`
			} `json:"speechConfig"`
		} `json:"generationConfig"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Contents) != 1 || len(req.Contents[0].Parts) != 1 || req.Contents[0].Parts[0].Text == "" ||
		len(req.GenerationConfig.ResponseModalities) != 1 || req.GenerationConfig.ResponseModalities[0] != "AUDIO" ||
		req.GenerationConfig.SpeechConfig.VoiceConfig.PrebuiltVoiceConfig.VoiceName == "" {
		shape(http.StatusBadRequest, "contents with one text part and an AUDIO speechConfig with a prebuilt voice are required")
		return
	}
	if s.speechTrigger(w, r, req.Contents[0].Parts[0].Text, shape) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"candidates": []any{map[string]any{
			"content": map[string]any{"role": "model", "parts": []any{map[string]any{
				"inlineData": map[string]any{"mimeType": "audio/L16;codec=pcm;rate=24000", "data": base64.StdEncoding.EncodeToString(GeminiPCM())},
			}}},
			"finishReason": "STOP",
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 5, "candidatesTokenCount": 10, "totalTokenCount": 15},
		"modelVersion":  model,
	})
}

func (s *Server) xaiTTS(w http.ResponseWriter, r *http.Request, body []byte) {
	shape := func(status int, msg string) {
		writeJSON(w, status, map[string]any{"code": http.StatusText(status), "error": msg})
	}
	if r.Method != http.MethodPost {
		shape(http.StatusNotFound, "No handler")
		return
	}
	if bearer(r) != XAIKey {
		shape(http.StatusUnauthorized, "Incorrect API key provided: xa***. You can obtain an API key from https://console.x.ai.")
		return
	}
	var req struct {
		Text     string `json:"text"`
		VoiceID  string `json:"voice_id"`
		Language string `json:"language"`
	}
	if json.Unmarshal(body, &req) != nil || req.Text == "" || req.VoiceID == "" {
		shape(http.StatusBadRequest, "text and voice_id are required")
		return
	}
	if s.speechTrigger(w, r, req.Text, shape) {
		return
	}
	w.Header().Set("Content-Type", "audio/mpeg")
	_, _ = w.Write(MP3())
}

// openaiImageEdit is POST /v1/images/edits: a multipart form with model,
// prompt and the source images as one `image` part or several `image[]`
// parts (never both), each an image file.
func (s *Server) openaiImageEdit(w http.ResponseWriter, r *http.Request, body []byte) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		writeError(w, OpenAI, http.StatusBadRequest, "images/edits takes multipart/form-data")
		return
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	fields := map[string]string{}
	names := map[string]int{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			writeError(w, OpenAI, http.StatusBadRequest, "bad multipart body: "+err.Error())
			return
		}
		data, _ := io.ReadAll(p)
		if p.FileName() == "" {
			fields[p.FormName()] = string(data)
			continue
		}
		if ct := http.DetectContentType(data); !strings.HasPrefix(ct, "image/") || p.Header.Get("Content-Type") != ct {
			writeError(w, OpenAI, http.StatusBadRequest, "Invalid image file: "+p.FileName())
			return
		}
		names[p.FormName()]++
	}
	single, multi := names["image"], names["image[]"]
	if fields["model"] == "" || fields["prompt"] == "" || (single > 0) == (multi > 0) || single > 1 || multi == 1 {
		writeError(w, OpenAI, http.StatusBadRequest, "model, prompt and either one `image` part or several `image[]` parts are required")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"created": time.Now().Unix(),
		"data": []any{map[string]any{"b64_json": base64.StdEncoding.EncodeToString(PNG())}}, "size": fields["size"]})
}
