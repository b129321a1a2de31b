package fakeapis

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Krea is Krea's API: POST /generate/image/krea/krea-2/<size> answers a
// job id; GET /jobs/<id> is "completed" with result.urls ("processing"
// on the first poll with "trigger-processing" in the prompt).
// "trigger-jobfail" in the prompt fails the job.
const Krea = "krea"

// KreaKey is the key the Krea fake accepts.
const KreaKey = "krea-fake-key-0001"

func (s *Server) xaiImages(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	shape := func(status int, msg string) {
		writeJSON(w, status, map[string]any{"code": http.StatusText(status), "error": msg})
	}
	if bearer(r) != XAIKey {
		shape(http.StatusUnauthorized, "Incorrect API key provided: xa***.")
		return
	}
	var req struct {
		Model       string           `json:"model"`
		Prompt      string           `json:"prompt"`
		AspectRatio string           `json:"aspect_ratio"`
		Image       *json.RawMessage `json:"image"`
		Images      []map[string]any `json:"images"`
	}
	if json.Unmarshal(body, &req) != nil || req.Model == "" || req.Prompt == "" {
		shape(http.StatusBadRequest, "model and prompt are required")
		return
	}
	edit := path == "v1/images/edits"
	if edit != (req.Image != nil || len(req.Images) > 0) || (req.Image != nil && len(req.Images) > 0) || len(req.Images) == 1 {
		shape(http.StatusBadRequest, "edits take one `image` or several `images`; generations take neither")
		return
	}
	if s.speechTrigger(w, r, req.Prompt, shape) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": []any{map[string]any{"b64_json": base64.StdEncoding.EncodeToString(PNG())}},
		"usage": map[string]any{"cost_in_usd_ticks": 1}})
}

func (s *Server) krea(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	shape := func(status int, msg string) {
		writeJSON(w, status, map[string]any{"error": msg})
	}
	if bearer(r) != KreaKey {
		shape(http.StatusUnauthorized, "Invalid API key")
		return
	}
	if id, ok := strings.CutPrefix(path, "/jobs/"); ok && r.Method == http.MethodGet {
		s.mu.Lock()
		job := s.falJobs["krea-"+id]
		if job != nil {
			job.polls++
		}
		s.mu.Unlock()
		switch {
		case job == nil:
			shape(http.StatusNotFound, "job not found")
		case job.polls == 1 && strings.Contains(job.prompt, "trigger-processing"):
			writeJSON(w, http.StatusOK, map[string]any{"job_id": id, "status": "processing", "completed_at": nil})
		case strings.Contains(job.prompt, "trigger-jobfail"):
			writeJSON(w, http.StatusOK, map[string]any{"job_id": id, "status": "failed", "completed_at": nil, "result": map[string]any{"error": "content policy"}})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"job_id": id, "status": "completed", "completed_at": "2026-01-01T00:00:00Z",
				"result": map[string]any{"urls": []string{s.Page("image.png")}}})
		}
		return
	}
	size, ok := strings.CutPrefix(path, "/generate/image/krea/krea-2/")
	var req struct {
		Prompt      string `json:"prompt"`
		AspectRatio string `json:"aspect_ratio"`
		Resolution  string `json:"resolution"`
		Creativity  string `json:"creativity"`
	}
	if !ok || (size != "medium" && size != "large" && size != "medium-turbo") || r.Method != http.MethodPost {
		shape(http.StatusNotFound, "not found")
		return
	}
	if json.Unmarshal(body, &req) != nil || req.Prompt == "" || req.AspectRatio == "" {
		shape(http.StatusBadRequest, "prompt and aspect_ratio are required")
		return
	}
	if s.speechTrigger(w, r, req.Prompt, shape) {
		return
	}
	s.mu.Lock()
	if s.falJobs == nil {
		s.falJobs = map[string]*falJob{}
	}
	id := fmt.Sprintf("kj-%04d", len(s.falJobs)+1)
	s.falJobs["krea-"+id] = &falJob{model: size, prompt: req.Prompt}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"job_id": id})
}

// xaiVideos is xAI Imagine's video API: POST /videos/generations,
// /videos/edits and /videos/extensions answer a request id; GET
// /videos/<id> answers "pending" on the first poll when the prompt holds
// "trigger-pending", else "done" with the video; "trigger-videofail"
// fails the job.
func (s *Server) xaiVideos(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	shape := func(status int, msg string) {
		writeJSON(w, status, map[string]any{"code": http.StatusText(status), "error": msg})
	}
	if bearer(r) != XAIKey {
		shape(http.StatusUnauthorized, "Incorrect API key provided: xa***.")
		return
	}
	if id, ok := strings.CutPrefix(path, "/"); ok && r.Method == http.MethodGet {
		s.mu.Lock()
		job := s.falJobs["xai-"+id]
		if job != nil {
			job.polls++
		}
		s.mu.Unlock()
		switch {
		case job == nil:
			shape(http.StatusNotFound, "request not found")
		case job.polls == 1 && strings.Contains(job.prompt, "trigger-pending"):
			writeJSON(w, http.StatusOK, map[string]any{"status": "pending"})
		case strings.Contains(job.prompt, "trigger-videofail"):
			writeJSON(w, http.StatusOK, map[string]any{"status": "failed", "error": "moderation"})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"status": "done", "model": job.model,
				"video": map[string]any{"url": "https://vidgen.x.ai/fake/" + id + ".mp4", "duration": 8}, "usage": map[string]any{"cost_in_usd_ticks": 1}})
		}
		return
	}
	var req struct {
		Model  string         `json:"model"`
		Prompt string         `json:"prompt"`
		Video  map[string]any `json:"video"`
	}
	op := strings.TrimPrefix(path, "/")
	if r.Method != http.MethodPost || (op != "generations" && op != "edits" && op != "extensions") {
		shape(http.StatusNotFound, "No handler")
		return
	}
	if json.Unmarshal(body, &req) != nil || req.Model == "" || req.Prompt == "" || (op != "generations") != (req.Video != nil) {
		shape(http.StatusBadRequest, "model and prompt are required; edits and extensions take a video")
		return
	}
	if s.speechTrigger(w, r, req.Prompt, shape) {
		return
	}
	s.mu.Lock()
	if s.falJobs == nil {
		s.falJobs = map[string]*falJob{}
	}
	id := fmt.Sprintf("vid-%04d", len(s.falJobs)+1)
	s.falJobs["xai-"+id] = &falJob{model: req.Model, prompt: req.Prompt}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"request_id": id})
}
