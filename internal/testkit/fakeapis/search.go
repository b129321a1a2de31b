package fakeapis

// The search fakes added for the keyless tier and the backends beside it:
// the Exa and Parallel MCP servers (Exa answers as a server-sent event
// stream and then keeps the stream open, as a streaming server may, so a
// client that waits for the end of the body hangs), Keenable (public and
// keyed), Perplexity, Parallel's keyed API, DuckDuckGo's HTML endpoint and
// Wikipedia's API. Each answers in its own error shapes.
//
// Triggers, besides the common ones (trigger-401, trigger-429,
// trigger-500, trigger-malformed, trigger-slow, throttle-<provider>):
//   - exa-mcp: "trigger-mcp-ratelimit" answers 200 with a tool result
//     flagged isError that says "rate limit", as Exa's free tier does;
//     "trigger-rpc-error" answers a JSON-RPC error.
//   - duckduckgo: "trigger-202" answers 202 with the bot challenge page,
//     "trigger-challenge" 200 with it, "trigger-noresults" DuckDuckGo's
//     no-results page, "trigger-empty" an empty page.
//   - wikipedia: a query with "nowiki" finds no article, one with
//     "ambiguous" finds a disambiguation page.
//   - extract fakes: a URL with "trigger-404" fails that URL alone; a URL
//     with "long" gets LongText; Parallel drops a URL with "dropme".
//   - xai (POST /v1/responses): "trigger-flaky" answers 429 with
//     Retry-After XAIRetryAfter once per query, then succeeds;
//     "trigger-busyonce" answers 503 once; "trigger-429", "trigger-500" and
//     "trigger-400" always fail; "trigger-nocite" answers without
//     citations (x_search_calls 0), "trigger-nousage" without usage.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ownTriggers reports whether a provider answers its triggers in its own
// handler (its error shapes differ from the common ones).
func ownTriggers(provider string) bool {
	switch provider {
	case ExaMCP, ParallelMCP, Keenable, Perplexity, Parallel, DuckDuckGo, Wikipedia, XAI:
		return true
	}
	return false
}

// hasToken reports whether s holds tok as a whole word (so
// "throttle-exa" does not match "throttle-exa-mcp").
func hasToken(s, tok string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		end := i + j + len(tok)
		if end == len(s) || !isWordByte(s[end]) {
			return true
		}
		i = end
	}
}

func isWordByte(c byte) bool {
	return c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// LongText is the page the extract fakes return for a URL with "long" in
// it: numbered lines, n characters in all, so a reader can tell which
// part of it it holds.
func LongText(n int) string {
	var b strings.Builder
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Line %06d of the long fixture page, about the brass telescope and the harbour lights.\n", i)
	}
	return b.String()[:n]
}

// longChars is how long LongText pages are.
const longChars = 60_000

// pageFor is what the extract fakes return for a URL: LongText for a URL
// with "long"; a PNG file's bytes as text (as a provider that fetched an
// image hands it back) for "pngbytes"; Markdown with inline base64 images
// for "inline-image".
func pageFor(u string) (title, text string) {
	switch {
	case strings.Contains(u, "long"):
		return "Long fixture page", LongText(longChars)
	case strings.Contains(u, "pngbytes"):
		return "", "\u0089PNG\r\n\u001a\n\u0000\u0000\u0000\rIHDR binary image data"
	case strings.Contains(u, "inline-image"):
		return "Images", "# Images\n\n![a chart](data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==) and ![](data:image/gif;base64,R0lGODlhAQABAAAAACw=)\n" +
			"bare data:image/jpeg;base64,/9j/4AAQSkZJRg== and a real ![photo](https://example.com/p.png)"
	}
	title, text = pageText(u)
	return title, text
}

// failure is a common trigger the request carries, for the search fakes.
func failure(trigger, provider string) string {
	switch {
	case strings.Contains(trigger, "trigger-slow"):
		return "slow"
	case strings.Contains(trigger, "trigger-429") || hasToken(trigger, "throttle-"+provider):
		return "429"
	case strings.Contains(trigger, "trigger-500"):
		return "500"
	case strings.Contains(trigger, "trigger-401"):
		return "401"
	case strings.Contains(trigger, "trigger-malformed"):
		return "malformed"
	}
	return ""
}

func (s *Server) searchFake(w http.ResponseWriter, r *http.Request, provider, path string, body []byte, trigger string) {
	if f := failure(trigger, provider); f == "slow" {
		s.hang(r)
		return
	}
	switch provider {
	case ExaMCP:
		s.exaMCP(w, r, path, body, trigger)
	case ParallelMCP:
		s.parallelMCP(w, r, path, body, trigger)
	case Keenable:
		s.keenable(w, r, path, body, trigger)
	case Perplexity:
		s.perplexity(w, r, path, body, trigger)
	case Parallel:
		s.parallelAPI(w, r, path, body, trigger)
	case DuckDuckGo:
		s.duckduckgo(w, r, path, body)
	case Wikipedia:
		s.wikipedia(w, r, path)
	case XAI:
		s.xai(w, r, path, body, trigger)
	}
}

// rpcCall is a JSON-RPC tools/call request as the keyless clients send it.
type rpcCall struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"params"`
}

// readRPC checks the transport the MCP servers require: a JSON POST that
// accepts both JSON and an event stream, carrying a tools/call.
func readRPC(w http.ResponseWriter, r *http.Request, body []byte) (rpcCall, bool) {
	var c rpcCall
	accept := r.Header.Get("Accept")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		http.Error(w, "Method Not Allowed: POST application/json only", http.StatusMethodNotAllowed)
		return c, false
	}
	if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"}}`, http.StatusNotAcceptable)
		return c, false
	}
	if json.Unmarshal(body, &c) != nil || c.JSONRPC != "2.0" || c.Method != "tools/call" || len(c.ID) == 0 {
		http.Error(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}`, http.StatusBadRequest)
		return c, false
	}
	return c, true
}

// rpcResult is a JSON-RPC answer carrying one text content item.
func rpcResult(id json.RawMessage, text string, isError bool) []byte {
	res := map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
	if isError {
		res["isError"] = true
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": res})
	return b
}

func rpcError(id json.RawMessage, code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}

// plainFailure answers a common failure as a plain HTTP error, as the MCP
// servers' fronts do; it reports whether it answered.
func plainFailure(w http.ResponseWriter, f string) bool {
	switch f {
	case "429":
		w.Header().Set("Retry-After", "7")
		http.Error(w, "Too Many Requests: rate limit exceeded for anonymous access", http.StatusTooManyRequests)
	case "500":
		http.Error(w, "Internal Server Error", http.StatusInternalServerError)
	case "401":
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	default:
		return false
	}
	return true
}

func (s *Server) exaMCP(w http.ResponseWriter, r *http.Request, path string, body []byte, trigger string) {
	if path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	f := failure(trigger, ExaMCP)
	if plainFailure(w, f) {
		return
	}
	c, ok := readRPC(w, r, body)
	if !ok {
		return
	}
	var msg []byte
	switch {
	case f == "malformed":
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "event: message\ndata: {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"content\": [\n\n")
		return
	case strings.Contains(trigger, "trigger-mcp-ratelimit"):
		msg = rpcResult(c.ID, "You've hit Exa's free MCP rate limit. Add an Exa API key for higher limits.", true)
	case strings.Contains(trigger, "trigger-rpc-error"):
		msg = rpcError(c.ID, -32602, "Invalid params: query must be a non-empty string")
	case c.Params.Name == "web_search_exa":
		q, _ := c.Params.Arguments["query"].(string)
		n, _ := c.Params.Arguments["numResults"].(float64)
		if q == "" || n < 1 {
			msg = rpcError(c.ID, -32602, "Invalid params: query and numResults are required")
			break
		}
		var blocks []string
		for i, h := range searchHits(q, int(n)) {
			blocks = append(blocks, fmt.Sprintf("Title: %s\nURL: %s\nPublished: 2026-01-0%dT00:00:00.000Z\nAuthor: Fixture Author\nHighlights:\n%s\nsecond highlight line %d",
				h["title"], strings.Replace(h["url"].(string), "example.com/", "example.com/exa/", 1), i%9+1, h["text"], i+1))
		}
		// Exa appends blocks without a URL now and then; they are not results.
		blocks = append(blocks, "Title: Related searches\nHighlights:\nno link here")
		msg = rpcResult(c.ID, strings.Join(blocks, "\n---\n"), false)
	case c.Params.Name == "web_fetch_exa":
		urls, _ := c.Params.Arguments["urls"].([]any)
		if len(urls) != 1 {
			msg = rpcError(c.ID, -32602, "Invalid params: urls")
			break
		}
		u, _ := urls[0].(string)
		if strings.Contains(u, "trigger-404") {
			msg = rpcResult(c.ID, "Error fetching "+u+": CRAWL_NOT_FOUND", true)
			break
		}
		title, text := pageFor(u)
		msg = rpcResult(c.ID, "Title: "+title+"\nURL: "+u+"\n\n"+text, false)
	default:
		msg = rpcError(c.ID, -32601, "Unknown tool: "+c.Params.Name)
	}
	// A stream: the answer as one event, then the stream stays open until
	// the client goes away.
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "event: message\ndata: "+string(msg)+"\n\n")
	if fl, ok := w.(http.Flusher); ok {
		fl.Flush()
	}
	s.hang(r)
}

var hex32 = regexp.MustCompile(`^[0-9a-f]{32}$`)

func (s *Server) parallelMCP(w http.ResponseWriter, r *http.Request, path string, body []byte, trigger string) {
	if path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	f := failure(trigger, ParallelMCP)
	switch f {
	case "429":
		w.Header().Set("Retry-After", "7")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "Rate limit exceeded", "type": "rate_limit"}})
		return
	case "500", "401":
		code := map[string]int{"500": 500, "401": 401}[f]
		writeJSON(w, code, map[string]any{"error": map[string]any{"message": http.StatusText(code)}})
		return
	}
	c, ok := readRPC(w, r, body)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if f == "malformed" {
		_, _ = io.WriteString(w, `{"jsonrpc": "2.0", "id": 1, "result": `)
		return
	}
	if sid, _ := c.Params.Arguments["session_id"].(string); !hex32.MatchString(sid) {
		_, _ = w.Write(rpcError(c.ID, -32602, "Invalid params: session_id"))
		return
	}
	switch c.Params.Name {
	case "web_search":
		q, _ := c.Params.Arguments["objective"].(string)
		queries, _ := c.Params.Arguments["search_queries"].([]any)
		if q == "" || len(queries) != 1 || queries[0] != q {
			_, _ = w.Write(rpcError(c.ID, -32602, "Invalid params: objective and search_queries"))
			return
		}
		var results []map[string]any
		for _, h := range searchHits(q, 10) {
			results = append(results, map[string]any{"url": strings.Replace(h["url"].(string), "example.com/", "example.com/parallel/", 1),
				"title": h["title"], "excerpts": []string{h["text"].(string), "More about " + q + "."}})
		}
		text, _ := json.Marshal(map[string]any{"search_id": "search_fake", "results": results})
		_, _ = w.Write(rpcResult(c.ID, string(text), false))
	case "web_fetch":
		raw, _ := c.Params.Arguments["urls"].([]any)
		results, errs := []map[string]any{}, []map[string]any{}
		for _, v := range raw {
			u, _ := v.(string)
			switch {
			case strings.Contains(u, "dropme"):
			case strings.Contains(u, "trigger-404"):
				errs = append(errs, map[string]any{"url": u, "error_type": "fetch_error", "content": "404 Not Found"})
			default:
				title, text := pageFor(u)
				results = append(results, map[string]any{"url": u, "title": title, "full_content": text})
			}
		}
		text, _ := json.Marshal(map[string]any{"extract_id": "extract_fake", "results": results, "errors": errs})
		_, _ = w.Write(rpcResult(c.ID, string(text), false))
	default:
		_, _ = w.Write(rpcError(c.ID, -32601, "Unknown tool: "+c.Params.Name))
	}
}

// keenableFailure answers Keenable's error shapes.
func keenableFailure(w http.ResponseWriter, f string) bool {
	switch f {
	case "429":
		w.Header().Set("Retry-After", "7")
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"detail": "rate limit exceeded"})
	case "500":
		writeJSON(w, http.StatusInternalServerError, map[string]any{"detail": "internal server error"})
	case "401":
		writeJSON(w, http.StatusUnauthorized, map[string]any{"detail": "Invalid API key"})
	case "malformed":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"results": [`)
	default:
		return false
	}
	return true
}

func (s *Server) keenable(w http.ResponseWriter, r *http.Request, path string, body []byte, trigger string) {
	if keenableFailure(w, failure(trigger, Keenable)) {
		return
	}
	if r.Header.Get("X-Keenable-Title") != "hermes-agent" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"detail": "X-Keenable-Title header is required"})
		return
	}
	public := strings.HasSuffix(path, "/public")
	switch {
	case public && r.Header.Get("Authorization") != "":
		writeJSON(w, http.StatusBadRequest, map[string]any{"detail": "public endpoints take no key"})
		return
	case !public && bearer(r) != KeenableKey:
		writeJSON(w, http.StatusUnauthorized, map[string]any{"detail": "Invalid API key"})
		return
	}
	switch strings.TrimSuffix(path, "/public") {
	case "/v1/search":
		var req struct {
			Query      string `json:"query"`
			MaxResults int    `json:"max_results"`
		}
		if r.Method != http.MethodPost || json.Unmarshal(body, &req) != nil || req.Query == "" || req.MaxResults < 1 {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": "query and max_results are required"})
			return
		}
		var results []map[string]any
		for _, h := range searchHits(req.Query, req.MaxResults) {
			results = append(results, map[string]any{"title": h["title"],
				"url": strings.Replace(h["url"].(string), "example.com/", "example.com/keenable/", 1), "snippet": h["text"]})
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": results})
	case "/v1/fetch":
		u := r.URL.Query().Get("url")
		if r.Method != http.MethodGet || u == "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": "url is required"})
			return
		}
		if strings.Contains(u, "trigger-404") {
			writeJSON(w, http.StatusNotFound, map[string]any{"detail": "page not found"})
			return
		}
		title, text := pageFor(u)
		writeJSON(w, http.StatusOK, map[string]any{"url": u, "title": title, "content": text})
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"detail": "Not Found"})
	}
}

func (s *Server) perplexity(w http.ResponseWriter, r *http.Request, path string, body []byte, trigger string) {
	perr := func(status int, typ, msg string) {
		writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": status}})
	}
	switch failure(trigger, Perplexity) {
	case "429":
		w.Header().Set("Retry-After", "7")
		perr(http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit exceeded. Please try again later.")
		return
	case "500":
		perr(http.StatusInternalServerError, "internal_error", "Internal server error")
		return
	case "401":
		perr(http.StatusUnauthorized, "invalid_api_key", "Invalid API key provided")
		return
	case "malformed":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `<html>upstream error</html>`)
		return
	}
	if bearer(r) != PerplexityKey {
		perr(http.StatusUnauthorized, "invalid_api_key", "Invalid API key provided")
		return
	}
	switch path {
	case "/search":
		var req struct {
			Query       string `json:"query"`
			MaxResults  int    `json:"max_results"`
			ContextSize string `json:"search_context_size"`
		}
		if json.Unmarshal(body, &req) != nil || req.Query == "" || req.MaxResults < 1 || req.MaxResults > 20 || req.ContextSize == "" {
			perr(http.StatusBadRequest, "bad_request", "query, max_results (1-20) and search_context_size are required")
			return
		}
		var results []map[string]any
		for _, h := range searchHits(req.Query, req.MaxResults) {
			results = append(results, map[string]any{"title": h["title"], "url": h["url"], "snippet": h["text"],
				"date": "2026-01-01", "last_updated": "2026-01-02"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": "pplx-fake", "results": results})
	case "/sdk/content/snippets":
		var req struct {
			Query string   `json:"query"`
			URLs  []string `json:"urls"`
			Max   int      `json:"max_tokens"`
			Per   int      `json:"max_tokens_per_page"`
		}
		if json.Unmarshal(body, &req) != nil || req.Query == "" || len(req.URLs) == 0 || req.Max < 1 || req.Per < 1 {
			perr(http.StatusBadRequest, "bad_request", "query, urls, max_tokens and max_tokens_per_page are required")
			return
		}
		var results []map[string]any
		for _, u := range req.URLs {
			if strings.Contains(u, "trigger-404") {
				results = append(results, map[string]any{"url": u, "error": "Failed to fetch page"})
				continue
			}
			_, text := pageFor(u)
			results = append(results, map[string]any{"url": u, "text": text, "tokens_count": len(text) / 4})
		}
		writeJSON(w, http.StatusOK, map[string]any{"results": results})
	default:
		perr(http.StatusNotFound, "not_found", "Not Found")
	}
}

func (s *Server) parallelAPI(w http.ResponseWriter, r *http.Request, path string, body []byte, trigger string) {
	perr := func(status int, msg string) {
		writeJSON(w, status, map[string]any{"error": map[string]any{"ref_id": "ref_fake", "message": msg}})
	}
	switch failure(trigger, Parallel) {
	case "429":
		w.Header().Set("Retry-After", "7")
		perr(http.StatusTooManyRequests, "Rate limit exceeded")
		return
	case "500":
		perr(http.StatusInternalServerError, "Internal server error")
		return
	case "401":
		perr(http.StatusUnauthorized, "Invalid API key")
		return
	case "malformed":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"search_id": "x", "results": [{"url": `)
		return
	}
	if r.Header.Get("x-api-key") != ParallelKey {
		perr(http.StatusUnauthorized, "Invalid API key")
		return
	}
	if r.Header.Get("parallel-beta") == "" {
		perr(http.StatusBadRequest, "This endpoint is in beta: send the parallel-beta header")
		return
	}
	switch path {
	case "/v1beta/search":
		var req struct {
			Objective  string   `json:"objective"`
			Queries    []string `json:"search_queries"`
			Mode       string   `json:"mode"`
			MaxResults int      `json:"max_results"`
		}
		if json.Unmarshal(body, &req) != nil || req.Objective == "" || len(req.Queries) == 0 || req.MaxResults < 1 || req.MaxResults > 20 {
			perr(http.StatusUnprocessableEntity, "objective, search_queries and max_results (1-20) are required")
			return
		}
		if req.Mode != "agentic" && req.Mode != "fast" && req.Mode != "one-shot" {
			perr(http.StatusUnprocessableEntity, "mode must be agentic, fast or one-shot")
			return
		}
		var results []map[string]any
		for _, h := range searchHits(req.Objective, req.MaxResults) {
			results = append(results, map[string]any{"url": h["url"], "title": h["title"], "excerpts": []string{h["text"].(string)},
				"publish_date": "2026-01-01"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"search_id": "search_fake", "results": results})
	case "/v1beta/extract":
		var req struct {
			URLs        []string `json:"urls"`
			FullContent bool     `json:"full_content"`
		}
		if json.Unmarshal(body, &req) != nil || len(req.URLs) == 0 {
			perr(http.StatusUnprocessableEntity, "urls is required")
			return
		}
		results, errs := []map[string]any{}, []map[string]any{}
		for _, u := range req.URLs {
			if strings.Contains(u, "trigger-404") {
				errs = append(errs, map[string]any{"url": u, "error_type": "fetch_error", "content": "404 Not Found"})
				continue
			}
			title, text := pageFor(u)
			item := map[string]any{"url": u, "title": title, "excerpts": []string{"an excerpt"}}
			if req.FullContent {
				item["full_content"] = text
			}
			results = append(results, item)
		}
		writeJSON(w, http.StatusOK, map[string]any{"extract_id": "extract_fake", "results": results, "errors": errs})
	default:
		perr(http.StatusNotFound, "Not Found")
	}
}

// ddgChallenge is the shape of DuckDuckGo's anomaly page.
const ddgChallenge = `<!DOCTYPE html><html><head><title>DuckDuckGo</title></head><body>
<div class="anomaly-modal__mask"><div class="anomaly-modal__modal">
<div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
<form id="challenge-form" action="/anomaly.js?sv=html" method="POST"><div class="anomaly-modal__images"></div></form>
</div></div></body></html>`

func (s *Server) duckduckgo(w http.ResponseWriter, r *http.Request, path string, body []byte) {
	if path != "/html/" || r.Method != http.MethodPost {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		http.Error(w, "Bad Request", http.StatusBadRequest)
		return
	}
	form, err := url.ParseQuery(strings.TrimSpace(string(body)))
	q := form.Get("q")
	if err != nil || q == "" || !form.Has("b") || form.Get("l") != "us-en" {
		http.Error(w, "Bad Request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	switch {
	case strings.Contains(q, "trigger-202"):
		w.WriteHeader(http.StatusAccepted)
		_, _ = io.WriteString(w, ddgChallenge)
		return
	case strings.Contains(q, "trigger-challenge"):
		_, _ = io.WriteString(w, ddgChallenge)
		return
	case strings.Contains(q, "trigger-500"):
		w.WriteHeader(http.StatusInternalServerError)
		return
	case strings.Contains(q, "trigger-noresults"):
		_, _ = io.WriteString(w, `<html><body><div class="serp__results"><div id="links" class="results">
<div class="no-results">No results.</div></div></div></body></html>`)
		return
	case strings.Contains(q, "trigger-empty"):
		_, _ = io.WriteString(w, `<html><body></body></html>`)
		return
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>` + htmlEscape(q) + ` at DuckDuckGo</title></head><body><div class="serp__results"><div id="links" class="results">`)
	// An ad first: it must be dropped.
	b.WriteString(`<div class="result results_links results_links_deep result--ad "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Buy <b>` + htmlEscape(q) + `</b> now</a></h2>
<a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x">Sponsored snippet.</a></div></div>`)
	for i, h := range searchHits(q, 10) {
		link := strings.Replace(h["url"].(string), "example.com/", "example.com/ddg/", 1) + "?ref=a%20b"
		fmt.Fprintf(&b, `<div class="result results_links results_links_deep web-result "><div class="links_main links_deep result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a" href="%s">Result %d for <b>%s</b> &amp; friends</a></h2>
<div class="result__extras"><div class="result__extras__url"><span class="result__icon"><a rel="nofollow" href="%s"><img class="result__icon__img" src="//external-content.duckduckgo.com/ip3/example.com.ico"/></a></span>
<a class="result__url" href="%s">example.com/ddg</a></div></div>
<a class="result__snippet" href="%s">Snippet %d  with <b>bold</b> &amp; entities &#8212; about %s.</a>
</div></div>`, link, i+1, htmlEscape(q), link, link, link, i+1, htmlEscape(q))
	}
	b.WriteString(`</div></div></body></html>`)
	_, _ = io.WriteString(w, b.String())
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

func (s *Server) wikipedia(w http.ResponseWriter, r *http.Request, path string) {
	q := r.URL.Query()
	if path != "/w/api.php" || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	switch q.Get("action") {
	case "opensearch":
		term := q.Get("search")
		if q.Get("profile") != "fuzzy" || q.Get("limit") != "1" || term == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": "badparams"}})
			return
		}
		if strings.Contains(term, "nowiki") {
			writeJSON(w, http.StatusOK, []any{term, []string{}, []string{}, []string{}})
			return
		}
		title := "Gopher (fixture)"
		if strings.Contains(term, "ambiguous") {
			title = "Ambiguous (fixture)"
		}
		writeJSON(w, http.StatusOK, []any{term, []string{title}, []string{""},
			[]string{"https://en.wikipedia.org/wiki/" + strings.ReplaceAll(title, " ", "_")}})
	case "query":
		title := q.Get("titles")
		if q.Get("prop") != "extracts" || q.Get("format") != "json" || !q.Has("explaintext") || title == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": "badparams"}})
			return
		}
		extract := "The gopher is a fixture animal that digs tunnels under the brass telescope."
		if strings.HasPrefix(title, "Ambiguous") {
			extract = "Ambiguous may refer to:\nOne thing\nAnother thing"
		}
		writeJSON(w, http.StatusOK, map[string]any{"batchcomplete": "", "query": map[string]any{"pages": map[string]any{
			"4242": map[string]any{"pageid": 4242, "ns": 0, "title": title, "extract": extract}}}})
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"code": "unknown_action"}})
	}
}

// XAIRetryAfter is what the xAI fake's 429 says to wait, in seconds.
const XAIRetryAfter = 2

func (s *Server) xai(w http.ResponseWriter, r *http.Request, path string, body []byte, trigger string) {
	xerr := func(status int, code, msg string) {
		writeJSON(w, status, map[string]any{"code": code, "error": msg})
	}
	if path != "/v1/responses" || r.Method != http.MethodPost {
		xerr(http.StatusNotFound, "Not found", "No handler for "+path)
		return
	}
	if bearer(r) != XAIKey {
		xerr(http.StatusUnauthorized, "Unauthenticated", "Incorrect API key provided: xa***. You can obtain an API key from https://console.x.ai.")
		return
	}
	var req struct {
		Model string `json:"model"`
		Input []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"input"`
		Tools []map[string]any `json:"tools"`
		Store *bool            `json:"store"`
	}
	if json.Unmarshal(body, &req) != nil || req.Model == "" || len(req.Input) != 1 || req.Input[0].Role != "user" ||
		req.Input[0].Content == "" || len(req.Tools) != 1 || req.Tools[0]["type"] != "x_search" || req.Store == nil || *req.Store {
		xerr(http.StatusBadRequest, "Client specified an invalid argument", "model, one user input, one x_search tool and store:false are required")
		return
	}
	q := req.Input[0].Content
	switch {
	case strings.Contains(q, "trigger-flaky") && s.once(XAI, q):
		w.Header().Set("Retry-After", strconv.Itoa(XAIRetryAfter))
		xerr(http.StatusTooManyRequests, "Too Many Requests", "rate limited, retry later")
		return
	case strings.Contains(q, "trigger-busyonce") && s.once(XAI, q):
		xerr(http.StatusServiceUnavailable, "Unavailable", "upstream busy")
		return
	case strings.Contains(q, "trigger-429"):
		w.Header().Set("Retry-After", strconv.Itoa(XAIRetryAfter))
		xerr(http.StatusTooManyRequests, "Too Many Requests", "rate limited, retry later")
		return
	case strings.Contains(q, "trigger-500"):
		xerr(http.StatusInternalServerError, "Internal error", "upstream failure")
		return
	case strings.Contains(q, "trigger-400"):
		xerr(http.StatusBadRequest, "Client specified an invalid argument", "x_search tool rejected the filters")
		return
	case strings.Contains(q, "trigger-malformed"):
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, "<html>bad gateway</html>")
		return
	}
	answer := "People on X are discussing " + q + "."
	resp := map[string]any{
		"id": "resp_fake", "object": "response", "created_at": time.Now().Unix(), "model": req.Model, "status": "completed",
		"output": []any{
			map[string]any{"type": "x_search_call", "id": "xs_1", "status": "completed"},
			map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{
				"type": "output_text", "text": answer,
				"annotations": []any{map[string]any{"type": "url_citation", "url": "https://x.com/gopher/status/1", "title": "1",
					"start_index": 0, "end_index": 6}},
			}}},
		},
		"citations": []string{"https://x.com/gopher/status/1", "https://x.com/gopher/status/2"},
		"usage":     map[string]any{"input_tokens": 10, "output_tokens": 20, "server_side_tool_usage_details": map[string]any{"x_search_calls": 1}},
	}
	switch {
	case strings.Contains(q, "trigger-nocite"):
		resp["output"] = []any{map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{
			"type": "output_text", "text": answer, "annotations": []any{}}}}}
		resp["citations"] = []string{}
		resp["usage"] = map[string]any{"server_side_tool_usage_details": map[string]any{"x_search_calls": 0}}
	case strings.Contains(q, "trigger-nousage"):
		resp["output"] = []any{map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{
			"type": "output_text", "text": answer}}}}
		delete(resp, "citations")
		delete(resp, "usage")
	}
	writeJSON(w, http.StatusOK, resp)
}
