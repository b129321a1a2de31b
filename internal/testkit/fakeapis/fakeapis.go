// Package fakeapis serves local fakes of the web, X search, vision, image
// and speech provider APIs the Hermes tools call (Firecrawl v2, Tavily,
// Exa, SearXNG, Brave, Perplexity, Parallel, Keenable, the keyless tier's
// Exa and Parallel MCP servers, DuckDuckGo's HTML search, Wikipedia, xAI
// responses, OpenAI chat/images/speech, FAL, ElevenLabs, Edge TTS's
// websocket, MiniMax, Mistral, Gemini and xAI speech), plus fixture web pages, on one httptest server bound to 127.0.0.1. Each fake speaks its
// provider's request and response format and checks its auth header, so a
// test through it proves the wire format, not just the plumbing.
//
// Every provider lives under its own path prefix; point a client's base-URL
// override at Server.Base(provider). Errors and timeouts are triggered from
// the request itself: a query, URL, prompt or text containing "trigger-429",
// "trigger-500" or "trigger-slow" makes the fake answer 429 (with a
// Retry-After), 500, or hang until the client gives up; "trigger-401"
// refuses the request as unauthorised; "trigger-malformed" answers 200 with
// a body that is not the provider's format; "throttle-<provider>" answers
// 429 from that provider only; "trigger-delay" answers normally after
// 400 ms. The search fakes' own triggers are listed in search.go.
package fakeapis

import (
	"bytes"
	"embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The keys each fake accepts.
const (
	FirecrawlKey  = "fc-fakefirecrawlkey0001"
	TavilyKey     = "tvly-fake-tavily-key-0001"
	ExaKey        = "exa-fake-key-0001"
	BraveKey      = "brave-fake-key-0001"
	OpenAIKey     = "sk-fake-openai-key-000000000001"
	FalKey        = "fal-fake-key-0001:secret"
	ElevenLabsKey = "el-fake-key-0001"
	PerplexityKey = "pplx-fake-key-0001"
	ParallelKey   = "parallel-fake-key-0001"
	KeenableKey   = "keenable-fake-key-0001"
	XAIKey        = "xai-fake-key-0001"
)

// Provider path prefixes, for Base.
const (
	Firecrawl  = "firecrawl"
	Tavily     = "tavily"
	Exa        = "exa"
	SearXNG    = "searxng"
	Brave      = "brave"
	OpenAI     = "openai"
	FAL        = "fal"
	ElevenLabs = "elevenlabs"
	Perplexity = "perplexity"
	Parallel   = "parallel"
	Keenable   = "keenable"
	// ExaMCP and ParallelMCP are the keyless tier's MCP servers; Base
	// returns their endpoint URL.
	ExaMCP      = "exa-mcp"
	ParallelMCP = "parallel-mcp"
	DuckDuckGo  = "duckduckgo"
	Wikipedia   = "wikipedia"
	XAI         = "xai"
	Pages       = "pages"
)

//go:embed pages
var pageFS embed.FS

// Request is one request a fake received.
type Request struct {
	Provider string
	Method   string
	Path     string // below the provider prefix
	Query    url.Values
	Header   http.Header
	Body     []byte
}

// Server is the running fake.
type Server struct {
	URL string
	// SearXNGJSONDisabled makes SearXNG answer 403, as an instance whose
	// settings.yml does not list the json format does.
	SearXNGJSONDisabled bool

	srv  *httptest.Server
	done chan struct{}

	mu       sync.Mutex
	requests []Request
	// seen counts requests per provider and trigger, for the fakes that
	// fail once and then answer.
	seen map[string]int
	// edge holds the Edge TTS websocket sessions.
	edge []EdgeSession
	// falJobs are the FAL queue's requests by id.
	falJobs map[string]*falJob
}

// Start starts a fake on 127.0.0.1 and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{done: make(chan struct{}), seen: map[string]int{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fakeapis: listen on 127.0.0.1: %v", err)
	}
	// URL is set before the server starts: handlers read it.
	s.URL = "http://" + ln.Addr().String()
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	t.Cleanup(func() {
		// Release handlers parked on trigger-slow before Close waits
		// for them.
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
	return s
}

// Base returns the base URL to configure for a provider: for OpenAI and
// xAI it includes /v1, as OPENAI_BASE_URL and XAI_BASE_URL do; for the MCP
// servers it is the endpoint itself.
func (s *Server) Base(provider string) string {
	switch provider {
	case OpenAI, XAI:
		return s.URL + "/" + provider + "/v1"
	case ExaMCP, ParallelMCP:
		return s.URL + "/" + provider + "/mcp"
	}
	return s.URL + "/" + provider
}

// once reports whether this is the first request of a provider carrying
// key, for fakes that fail once and then answer.
func (s *Server) once(provider, key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := provider + "\x00" + key
	s.seen[k]++
	return s.seen[k] == 1
}

// Page returns the URL of a fixture page: "article", "login", "table",
// "doc.pdf", "long.txt" (LongText), "long.pdf" (LongPDF), "image.png",
// "image-2x.png" (UpscaledPNG), "big", "binary", "redirect?to=<url>", "redirect-secret",
// "slow?ms=<n>&name=<fixture>".
func (s *Server) Page(name string) string { return s.URL + "/pages/" + name }

// Requests returns the requests a provider received, in order.
func (s *Server) Requests(provider string) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if r.Provider == provider {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	provider, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	body, _ := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	s.mu.Lock()
	s.requests = append(s.requests, Request{
		Provider: provider, Method: r.Method, Path: "/" + rest,
		Query: r.URL.Query(), Header: r.Header.Clone(), Body: body,
	})
	s.mu.Unlock()

	trigger := string(body) + " " + r.URL.RawQuery + " " + r.URL.Path
	switch {
	case provider == XAI && rest == "v1/tts":
		s.xaiTTS(w, r, body)
		return
	case provider == XAI && (rest == "v1/images/generations" || rest == "v1/images/edits"):
		s.xaiImages(w, r, rest, body)
		return
	case provider == Krea:
		s.krea(w, r, "/"+rest, body)
		return
	case provider == XAI && strings.HasPrefix(rest, "v1/videos"):
		s.xaiVideos(w, r, strings.TrimPrefix(rest, "v1/videos"), body)
		return
	case provider == MiniMax:
		s.minimax(w, r, "/"+rest, body)
		return
	case provider == Mistral:
		s.mistral(w, r, "/"+rest, body)
		return
	case provider == Gemini:
		s.gemini(w, r, "/"+rest, body)
		return
	}
	if ownTriggers(provider) {
		s.searchFake(w, r, provider, "/"+rest, body, trigger)
		return
	}
	if provider != Pages {
		switch {
		case strings.Contains(trigger, "trigger-slow"):
			s.hang(r)
			return
		case strings.Contains(trigger, "trigger-delay"):
			// A slow but successful provider, for progress reporting.
			select {
			case <-time.After(400 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		case strings.Contains(trigger, "trigger-429") || hasToken(trigger, "throttle-"+provider):
			w.Header().Set("Retry-After", "7")
			writeError(w, provider, http.StatusTooManyRequests, "rate limit exceeded")
			return
		case strings.Contains(trigger, "trigger-500"):
			writeError(w, provider, http.StatusInternalServerError, "internal server error")
			return
		case strings.Contains(trigger, "trigger-401"):
			writeError(w, provider, http.StatusUnauthorized, "Unauthorized: invalid token")
			return
		case strings.Contains(trigger, "trigger-malformed"):
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"success": true, "data": [unterminated`)
			return
		}
	}

	switch provider {
	case Firecrawl:
		s.firecrawl(w, r, "/"+rest, body)
	case Tavily:
		s.tavily(w, r, "/"+rest, body)
	case Exa:
		s.exa(w, r, "/"+rest, body)
	case SearXNG:
		s.searxng(w, r, "/"+rest)
	case Brave:
		s.brave(w, r, "/"+rest)
	case OpenAI:
		s.openai(w, r, "/"+rest, body)
	case FAL:
		s.fal(w, r, "/"+rest, body)
	case ElevenLabs:
		s.elevenlabs(w, r, "/"+rest, body)
	case Edge:
		s.edgeTTS(w, r, "/"+rest)
	case Pages:
		s.page(w, r, rest)
	default:
		http.NotFound(w, r)
	}
}

// hang blocks until the client gives up (or the fake stops), so the
// caller's timeout is what ends the request.
func (s *Server) hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-s.done:
	case <-time.After(30 * time.Second):
	}
}

// writeError answers in the provider's own error shape.
func writeError(w http.ResponseWriter, provider string, status int, msg string) {
	var v any
	switch provider {
	case Firecrawl:
		v = map[string]any{"success": false, "error": msg}
	case Tavily:
		v = map[string]any{"detail": map[string]any{"error": msg}}
	case Exa:
		v = map[string]any{"requestId": "req-fake", "error": msg, "tag": "FAKE_ERROR"}
	case Brave:
		v = map[string]any{"type": "ErrorResponse", "error": map[string]any{"id": "fake", "status": status, "code": "FAKE", "detail": msg}}
	case OpenAI:
		v = map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": "fake_error"}}
	case ElevenLabs:
		v = map[string]any{"detail": map[string]any{"status": "fake_error", "message": msg}}
	case FAL:
		v = map[string]any{"detail": msg}
	default:
		http.Error(w, msg, status)
		return
	}
	writeJSON(w, status, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func bearer(r *http.Request) string {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return ""
	}
	return tok
}

// searchHits are the fake's search results for q: n of them, numbered.
func searchHits(q string, n int) []map[string]any {
	if n <= 0 || n > 20 {
		n = 20
	}
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{
			"title": fmt.Sprintf("Result %d for %s", i+1, q),
			"url":   fmt.Sprintf("https://example.com/%s/%d", url.PathEscape(q), i+1),
			"text":  fmt.Sprintf("Snippet %d about %s.", i+1, q),
		}
	}
	return out
}

// pageText is what the extract fakes return for a URL.
func pageText(u string) (title, markdown string) {
	return "Fake page " + u, "# Fake page\n\nContent of " + u + "."
}

func (s *Server) firecrawl(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	// Self-hosted Firecrawl runs without a key; the cloud requires one. The
	// fake accepts either no header or the right key, and refuses a wrong
	// one.
	if h := r.Header.Get("Authorization"); h != "" && bearer(r) != FirecrawlKey {
		writeError(w, Firecrawl, http.StatusUnauthorized, "Unauthorized: Invalid token")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, Firecrawl, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	switch path {
	case "/v2/search":
		var req struct {
			Query string `json:"query"`
			Limit int    `json:"limit"`
		}
		if json.Unmarshal(body, &req) != nil || req.Query == "" {
			writeError(w, Firecrawl, http.StatusBadRequest, "Bad Request: query is required")
			return
		}
		// Rows in Firecrawl's own key order: clients pass them through.
		var web []json.RawMessage
		for i, h := range searchHits(req.Query, req.Limit) {
			row, _ := json.Marshal(struct {
				URL         string `json:"url"`
				Title       string `json:"title"`
				Description string `json:"description"`
				Position    int    `json:"position"`
			}{h["url"].(string), h["title"].(string), h["text"].(string), i + 1})
			web = append(web, row)
		}
		writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": map[string]any{"web": web}})
	case "/v2/scrape":
		var req struct {
			URL     string   `json:"url"`
			Formats []string `json:"formats"`
		}
		if json.Unmarshal(body, &req) != nil || req.URL == "" {
			writeError(w, Firecrawl, http.StatusBadRequest, "Bad Request: url is required")
			return
		}
		if strings.Contains(req.URL, "trigger-404") {
			writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": map[string]any{
				"markdown": "", "metadata": map[string]any{"sourceURL": req.URL, "statusCode": 404, "error": "Not Found"},
			}})
			return
		}
		title, md := pageText(req.URL)
		writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": map[string]any{
			"markdown": md,
			"metadata": map[string]any{"title": title, "sourceURL": req.URL, "url": req.URL, "statusCode": 200},
		}})
	default:
		writeError(w, Firecrawl, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) tavily(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	// Tavily's opt-in keyless mode: no key, and a header saying so.
	keyless := r.Header.Get("Authorization") == "" && r.Header.Get("X-Tavily-Access-Mode") == "keyless"
	if !keyless && bearer(r) != TavilyKey {
		writeError(w, Tavily, http.StatusUnauthorized, "Unauthorized: missing or invalid API key.")
		return
	}
	switch path {
	case "/search":
		var req struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
		}
		if json.Unmarshal(body, &req) != nil || req.Query == "" {
			writeError(w, Tavily, http.StatusBadRequest, "query is required")
			return
		}
		var results []map[string]any
		for i, h := range searchHits(req.Query, req.MaxResults) {
			results = append(results, map[string]any{"title": h["title"], "url": h["url"], "content": h["text"], "score": 1 - float64(i)/100})
		}
		writeJSON(w, http.StatusOK, map[string]any{"query": req.Query, "images": []any{}, "results": results, "response_time": 0.01, "request_id": "fake"})
	case "/extract":
		var req struct {
			URLs   []string `json:"urls"`
			Format string   `json:"format"`
		}
		if json.Unmarshal(body, &req) != nil || len(req.URLs) == 0 {
			writeError(w, Tavily, http.StatusBadRequest, "urls is required")
			return
		}
		results, failed := []map[string]any{}, []map[string]any{}
		for _, u := range req.URLs {
			if strings.Contains(u, "trigger-404") {
				failed = append(failed, map[string]any{"url": u, "error": "Failed to fetch url"})
				continue
			}
			_, md := pageText(u)
			results = append(results, map[string]any{"url": u, "raw_content": md})
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": results, "failed_results": failed, "response_time": 0.01})
	default:
		writeError(w, Tavily, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) exa(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	if r.Header.Get("x-api-key") != ExaKey {
		writeError(w, Exa, http.StatusUnauthorized, "Invalid API key")
		return
	}
	switch path {
	case "/search":
		var req struct {
			Query      string `json:"query"`
			NumResults int    `json:"numResults"`
			Contents   struct {
				Highlights any `json:"highlights"`
				Text       any `json:"text"`
			} `json:"contents"`
		}
		if json.Unmarshal(body, &req) != nil || req.Query == "" {
			writeError(w, Exa, http.StatusBadRequest, "query is required")
			return
		}
		var results []map[string]any
		for i, h := range searchHits(req.Query, req.NumResults) {
			res := map[string]any{"id": h["url"], "url": h["url"], "title": h["title"], "score": 1 - float64(i)/100}
			// Exa sends only the contents asked for.
			if req.Contents.Highlights != nil {
				res["highlights"] = []string{h["text"].(string), "and more."}
				res["highlightScores"] = []float64{0.9, 0.5}
			}
			if req.Contents.Text != nil {
				res["text"] = h["text"]
			}
			results = append(results, res)
		}
		writeJSON(w, http.StatusOK, map[string]any{"requestId": "req-fake", "resolvedSearchType": "neural", "results": results})
	case "/contents":
		var req struct {
			URLs []string `json:"urls"`
		}
		if json.Unmarshal(body, &req) != nil || len(req.URLs) == 0 {
			writeError(w, Exa, http.StatusBadRequest, "urls is required")
			return
		}
		results, statuses := []map[string]any{}, []map[string]any{}
		for _, u := range req.URLs {
			if strings.Contains(u, "trigger-404") {
				statuses = append(statuses, map[string]any{"id": u, "status": "error", "error": map[string]any{"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}})
				continue
			}
			title, md := pageText(u)
			results = append(results, map[string]any{"id": u, "url": u, "title": title, "text": md})
			statuses = append(statuses, map[string]any{"id": u, "status": "success"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"requestId": "req-fake", "results": results, "statuses": statuses})
	default:
		writeError(w, Exa, http.StatusNotFound, "Not Found")
	}
}

func (s *Server) searxng(w http.ResponseWriter, r *http.Request, path string) {
	if path != "/search" && path != "/" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if r.Method == http.MethodPost {
		_ = r.ParseForm()
		q = r.Form
	}
	if q.Get("format") != "json" || s.SearXNGJSONDisabled {
		http.Error(w, "403 Forbidden", http.StatusForbidden)
		return
	}
	if q.Get("q") == "" {
		http.Error(w, "400 Bad Request", http.StatusBadRequest)
		return
	}
	var results []map[string]any
	for i, h := range searchHits(q.Get("q"), 0) {
		results = append(results, map[string]any{"url": h["url"], "title": h["title"], "content": h["text"], "engine": "fake", "engines": []string{"fake"}, "score": 20 - i, "category": "general"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"query": q.Get("q"), "number_of_results": len(results), "results": results,
		"answers": []any{}, "suggestions": []any{}, "infoboxes": []any{}, "unresponsive_engines": []any{}})
}

func (s *Server) brave(w http.ResponseWriter, r *http.Request, path string) {
	if r.Header.Get("X-Subscription-Token") != BraveKey {
		writeError(w, Brave, http.StatusUnauthorized, "The provided subscription token is invalid.")
		return
	}
	if path != "/res/v1/web/search" || r.Method != http.MethodGet {
		writeError(w, Brave, http.StatusNotFound, "Not Found")
		return
	}
	q := r.URL.Query().Get("q")
	count, _ := strconv.Atoi(r.URL.Query().Get("count"))
	if q == "" || count > 20 {
		writeError(w, Brave, http.StatusUnprocessableEntity, "Unable to validate request parameter(s)")
		return
	}
	var results []map[string]any
	for _, h := range searchHits(q, count) {
		results = append(results, map[string]any{"type": "search_result", "title": h["title"], "url": h["url"], "description": h["text"], "age": "1 day ago"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"type": "search", "query": map[string]any{"original": q}, "web": map[string]any{"type": "search", "results": results}})
}

func (s *Server) openai(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	if bearer(r) != OpenAIKey {
		writeError(w, OpenAI, http.StatusUnauthorized, "Incorrect API key provided.")
		return
	}
	switch path {
	case "/v1/chat/completions":
		s.openaiChat(w, body)
	case "/v1/images/generations":
		var req struct {
			Prompt         string `json:"prompt"`
			Model          string `json:"model"`
			Size           string `json:"size"`
			ResponseFormat string `json:"response_format"`
		}
		if json.Unmarshal(body, &req) != nil || req.Prompt == "" || req.Model == "" {
			writeError(w, OpenAI, http.StatusBadRequest, "prompt and model are required")
			return
		}
		item := map[string]any{"b64_json": base64.StdEncoding.EncodeToString(PNG()), "revised_prompt": req.Prompt}
		// URL-mode models answer with a link instead of the bytes.
		if strings.Contains(req.Model, "url") {
			item = map[string]any{"url": s.Page("image.png")}
		}
		writeJSON(w, http.StatusOK, map[string]any{"created": time.Now().Unix(), "data": []any{item}, "size": req.Size})
	case "/v1/images/edits":
		s.openaiImageEdit(w, r, body)
	case "/v1/audio/speech":
		var req struct {
			Input          string `json:"input"`
			Model          string `json:"model"`
			Voice          string `json:"voice"`
			ResponseFormat string `json:"response_format"`
		}
		if json.Unmarshal(body, &req) != nil || req.Input == "" || req.Model == "" || req.Voice == "" {
			writeError(w, OpenAI, http.StatusBadRequest, "input, model and voice are required")
			return
		}
		w.Header().Set("Content-Type", "audio/mpeg")
		_, _ = w.Write(MP3())
	default:
		writeError(w, OpenAI, http.StatusNotFound, "Unknown request URL: "+path)
	}
}

// openaiChat answers a vision request with a sentence naming what it got,
// so a test can check the image really reached the model.
func (s *Server) openaiChat(w http.ResponseWriter, body []byte) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || req.Model == "" || len(req.Messages) == 0 {
		writeError(w, OpenAI, http.StatusBadRequest, "model and messages are required")
		return
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
		VideoURL struct {
			URL string `json:"url"`
		} `json:"video_url"`
	}
	_ = json.Unmarshal(req.Messages[len(req.Messages)-1].Content, &parts)
	var text, mediaType string
	kind := "image"
	size := -1
	for _, p := range parts {
		switch p.Type {
		case "text":
			text = p.Text
		case "image_url", "video_url":
			u := p.ImageURL.URL
			if p.Type == "video_url" {
				u, kind = p.VideoURL.URL, "video"
			}
			meta, data, ok := strings.Cut(strings.TrimPrefix(u, "data:"), ",")
			if !ok || !strings.HasSuffix(meta, ";base64") {
				writeError(w, OpenAI, http.StatusBadRequest, p.Type+" must be a base64 data URL in this fake")
				return
			}
			raw, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				writeError(w, OpenAI, http.StatusBadRequest, "image data is not base64")
				return
			}
			mediaType, size = strings.TrimSuffix(meta, ";base64"), len(raw)
		}
	}
	if size < 0 {
		writeError(w, OpenAI, http.StatusBadRequest, "no image in the last message")
		return
	}
	answer := fmt.Sprintf("I see a %s %s of %d bytes. You asked: %s", mediaType, kind, size, text)
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": answer, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
	})
}

// fal is FAL's queue (queue.fal.run): POST /<model> submits and answers
// a receipt whose status and response URLs point back here; the status
// goes IN_QUEUE, IN_PROGRESS, COMPLETED on successive polls; the response
// is the model's output. "trigger-joberror" in the prompt makes the
// finished job's response a 500 with FAL's detail; "trigger-offsite"
// answers a receipt pointing at another host; "trigger-weird" reports an
// unknown status. The upscaler app (FALUpscaler) answers one image.
func (s *Server) fal(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	if r.Header.Get("Authorization") != "Key "+FalKey {
		writeError(w, FAL, http.StatusUnauthorized, "Unauthorized: invalid or missing key")
		return
	}
	if id, rest, ok := strings.Cut(path, "/requests/"); ok && id != "" {
		s.falJob(w, r, rest)
		return
	}
	var req struct {
		Prompt    string   `json:"prompt"`
		ImageURLs []string `json:"image_urls"`
	}
	if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil || req.Prompt == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": []any{map[string]any{"loc": []string{"body", "prompt"}, "msg": "field required", "type": "value_error.missing"}}})
		return
	}
	if r.Header.Get("x-idempotency-key") == "" {
		writeError(w, FAL, http.StatusBadRequest, "x-idempotency-key is required by this fake")
		return
	}
	s.mu.Lock()
	if s.falJobs == nil {
		s.falJobs = map[string]*falJob{}
	}
	id := fmt.Sprintf("req-%04d", len(s.falJobs)+1)
	s.falJobs[id] = &falJob{model: strings.TrimPrefix(path, "/"), prompt: req.Prompt, images: len(req.ImageURLs)}
	s.mu.Unlock()
	// Real receipts truncate the app path to owner/alias.
	parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 3)
	app := strings.Join(parts[:min(2, len(parts))], "/")
	base := s.URL + "/fal/" + app + "/requests/" + id
	if strings.Contains(req.Prompt, "trigger-offsite") {
		base = "http://198.51.100.7/fal/" + app + "/requests/" + id
	}
	writeJSON(w, http.StatusOK, map[string]any{"request_id": id, "response_url": base, "status_url": base + "/status",
		"cancel_url": base + "/cancel", "queue_position": 0})
}

// falJob is one queued FAL request.
type falJob struct {
	model, prompt string
	images, polls int
	cancelled     bool
}

// FALCancelled reports whether the FAL job with the given request id was
// cancelled.
func (s *Server) FALCancelled(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := s.falJobs[id]
	return j != nil && j.cancelled
}

func (s *Server) falJob(w http.ResponseWriter, r *http.Request, rest string) {
	id, action, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	job := s.falJobs[id]
	if job != nil && action == "status" {
		job.polls++
	}
	if job != nil && action == "cancel" {
		job.cancelled = true
	}
	s.mu.Unlock()
	if job == nil {
		writeError(w, FAL, http.StatusNotFound, "Request not found")
		return
	}
	switch {
	case action == "cancel" && r.Method == http.MethodPut:
		writeJSON(w, http.StatusAccepted, map[string]any{"status": "CANCELLATION_REQUESTED"})
	case action == "status" && r.Method == http.MethodGet:
		switch {
		case strings.Contains(job.prompt, "trigger-weird"):
			writeJSON(w, http.StatusOK, map[string]any{"status": "EXPLODED"})
		case strings.Contains(job.prompt, "trigger-stuck") || job.polls == 1:
			writeJSON(w, http.StatusOK, map[string]any{"status": "IN_QUEUE", "queue_position": 0})
		case job.polls == 2:
			writeJSON(w, http.StatusOK, map[string]any{"status": "IN_PROGRESS", "logs": nil})
		default:
			writeJSON(w, http.StatusOK, map[string]any{"status": "COMPLETED", "logs": nil, "metrics": map[string]any{"inference_time": 0.01}})
		}
	case action == "" && r.Method == http.MethodGet:
		if strings.Contains(job.prompt, "trigger-joberror") {
			writeError(w, FAL, http.StatusInternalServerError, "model crashed while generating")
			return
		}
		if strings.Contains(job.prompt, "trigger-noimages") {
			writeJSON(w, http.StatusOK, map[string]any{"images": []any{}, "seed": 42})
			return
		}
		if job.model == FALUpscaler {
			// The clarity upscaler answers one image, not a list; with
			// "trigger-upscalefail" in the prompt it fails as a model does.
			if strings.Contains(job.prompt, "trigger-upscalefail") {
				writeError(w, FAL, http.StatusInternalServerError, "upscaler ran out of memory")
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{
				"image": map[string]any{"url": s.Page("image-2x.png"), "width": 4, "height": 4, "content_type": "image/png"},
				"seed":  42,
			})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"images":  []any{map[string]any{"url": s.Page("image.png"), "width": 2, "height": 2, "content_type": "image/png"}},
			"prompt":  job.prompt,
			"seed":    42,
			"model":   job.model,
			"timings": map[string]any{"inference": 0.01},
		})
	default:
		writeError(w, FAL, http.StatusMethodNotAllowed, "method not allowed")
	}
}

func (s *Server) elevenlabs(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	if r.Header.Get("xi-api-key") != ElevenLabsKey {
		writeError(w, ElevenLabs, http.StatusUnauthorized, "Invalid API key")
		return
	}
	voice, ok := strings.CutPrefix(path, "/v1/text-to-speech/")
	if !ok || voice == "" || r.Method != http.MethodPost {
		writeError(w, ElevenLabs, http.StatusNotFound, "Not Found")
		return
	}
	var req struct {
		Text    string `json:"text"`
		ModelID string `json:"model_id"`
	}
	if json.Unmarshal(body, &req) != nil || req.Text == "" {
		writeError(w, ElevenLabs, http.StatusUnprocessableEntity, "text is required")
		return
	}
	w.Header().Set("Content-Type", "audio/mpeg")
	_, _ = w.Write(MP3())
}

func (s *Server) page(w http.ResponseWriter, r *http.Request, name string) {
	q := r.URL.Query()
	switch name {
	case "doc.pdf":
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(PDF("Fixture PDF", "The harbour lights are visible from the brass telescope."))
	case "long.txt":
		// A long page: LongText, as plain text so its characters arrive
		// unchanged.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, LongText(longChars))
	case "long.pdf":
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = w.Write(LongPDF())
	case "image.png":
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(PNG())
	case "image-2x.png":
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(UpscaledPNG())
	case "big":
		// Larger than any sensible download cap, streamed so the fake
		// itself stays small.
		w.Header().Set("Content-Type", "text/html")
		chunk := bytes.Repeat([]byte("<p>big page filler text</p>\n"), 1<<12)
		for range 512 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	case "binary":
		w.Header().Set("Content-Type", "application/zip")
		_, _ = w.Write([]byte("PK\x03\x04 not really a zip"))
	case "redirect":
		http.Redirect(w, r, q.Get("to"), http.StatusFound)
	case "redirect-secret":
		// The key appears only in the Location header, so only a
		// redirect check can catch it.
		http.Redirect(w, r, "http://127.0.0.1:1/?api_key=sk-"+"fakeredirectsecret0123456789", http.StatusFound)
	case "status":
		code, _ := strconv.Atoi(q.Get("code"))
		http.Error(w, "fixture status", code)
	case "slow":
		ms, _ := strconv.Atoi(q.Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
		s.page(w, r, q.Get("name"))
	default:
		data, err := pageFS.ReadFile("pages/" + name + ".html")
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(data)
	}
}

// PNG returns a small valid PNG.
func PNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	img.Set(1, 1, color.RGBA{B: 255, A: 255})
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

// FALUpscaler is the FAL app the original runs for upscale: its fake
// answers UpscaledPNG.
const FALUpscaler = "fal-ai/clarity-upscaler"

// UpscaledPNG is PNG at twice the size: what the fake FAL upscaler
// returns, so a test can tell the two apart.
func UpscaledPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	img.Set(3, 3, color.RGBA{B: 255, A: 255})
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

// MP3 returns bytes that start like an MP3 file (an ID3 tag and a frame
// header); enough for a client that saves what it is sent.
func MP3() []byte {
	return append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), append([]byte{0xFF, 0xFB, 0x90, 0x64}, make([]byte, 413)...)...)
}

// PDF returns a minimal valid one-page PDF whose Info title is title and
// whose page shows text in Helvetica.
func PDF(title, text string) []byte { return PDFPages(title, [][]string{{text}}) }

// LongPDFPages is how many pages LongPDF has.
const LongPDFPages = 12

// LongPDF is a PDF of LongPDFPages pages of 40 numbered lines each, some
// 30,000 characters of text in all: longer than web_extract's default
// budget, so it is cut and paged.
func LongPDF() []byte {
	pages := make([][]string, LongPDFPages)
	for p := range pages {
		for l := range 40 {
			pages[p] = append(pages[p], fmt.Sprintf("Page %02d line %02d of the long fixture PDF about the harbour lights.", p+1, l+1))
		}
	}
	return PDFPages("Long fixture PDF", pages)
}

// PDFPages returns a valid PDF with one page per entry, each showing its
// lines in Helvetica, top to bottom. Offsets in the xref table are
// computed, so strict readers accept it.
func PDFPages(title string, pages [][]string) []byte {
	esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	n := len(pages)
	// Objects: 1 catalog, 2 pages, 3 font, 4 info, then a page and its
	// content stream per page.
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 5+2*i)
	}
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Title (%s) >>", esc.Replace(title)),
	}
	for i, lines := range pages {
		var st strings.Builder
		st.WriteString("BT /F1 10 Tf 72 750 Td")
		for j, l := range lines {
			if j > 0 {
				st.WriteString(" 0 -14 Td")
			}
			fmt.Fprintf(&st, " (%s) Tj", esc.Replace(l))
		}
		st.WriteString(" ET")
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", st.Len(), st.String()))
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}
