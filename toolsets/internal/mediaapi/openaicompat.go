package mediaapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The three OpenAI-compatible calls these tools make (chat completions with
// an image, images/generations, audio/speech) are plain JSON POSTs, sent
// here with net/http. openai-go, which the agent uses for its chat loop, is
// deliberately not linked into the MCP server: its package initialisation
// and ~7 MB of code cost every spawn of hermes-tools-mcp milliseconds and
// megabytes of RSS (see the README's benchmark notes), for three requests.

// statusError is a provider's non-2xx answer.
type statusError struct {
	StatusCode int
	// Message is the provider's error.message, else its raw body.
	Message string
	// RetryAfter is the Retry-After header of a 429 or 503, if any.
	RetryAfter string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d: %s", e.StatusCode, e.Message)
}

// maxResponse bounds what one provider answer may hold (speech audio and
// base64 images are the large ones).
const maxResponse = 64 << 20

// PostOpenAI POSTs body as JSON to <baseURL>/<path> with the key as a
// bearer token and returns the response body. A dropped connection, a 408,
// 409, 429 or 5xx is retried once: more would multiply a slow provider's
// latency past what a tool call should take.
func (e *Env) PostOpenAI(ctx context.Context, baseURL, apiKey, path string, body any, timeout time.Duration) ([]byte, error) {
	url := strings.TrimRight(baseURL, "/")
	if path != "" {
		// An empty path posts to baseURL itself (MiniMax's is the full
		// endpoint, query included).
		url = strings.TrimRight(baseURL, "/") + "/" + path
	}
	h := http.Header{}
	if apiKey != "" {
		h.Set("Authorization", "Bearer "+apiKey)
	}
	return e.PostJSON(ctx, url, h, body, timeout)
}

// PostJSON POSTs body as JSON to url with the given headers (a native
// API's own auth headers) and returns the response body, retrying as
// PostOpenAI does.
func (e *Env) PostJSON(ctx context.Context, url string, header http.Header, body any, timeout time.Duration) ([]byte, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	h := header.Clone()
	if h == nil {
		h = http.Header{}
	}
	h.Set("Content-Type", "application/json")
	return e.PostBody(ctx, url, h, payload, timeout)
}

// PostBody POSTs an encoded payload (its Content-Type in header: JSON, or
// a multipart form) and returns the response body, retrying as
// PostOpenAI does.
func (e *Env) PostBody(ctx context.Context, url string, header http.Header, payload []byte, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var lastErr error
	for attempt := range 2 {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return nil, errors.Join(lastErr, ctx.Err())
			case <-time.After(retryDelay):
			}
		}
		out, retry, err := e.postOnce(ctx, url, header, payload)
		if err == nil || !retry {
			return out, err
		}
		lastErr = err
	}
	return nil, lastErr
}

// retryDelay is short: the one retry is for a blip, not an outage.
const retryDelay = 300 * time.Millisecond

func (e *Env) postOnce(ctx context.Context, url string, header http.Header, payload []byte) (body []byte, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, false, fmt.Errorf("invalid base URL: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := e.Client.Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, ctx.Err() == nil, fmt.Errorf("read the response: %w", err)
	}
	if len(body) > maxResponse {
		return nil, false, fmt.Errorf("the response is larger than %d MB", maxResponse>>20)
	}
	if resp.StatusCode/100 != 2 {
		se := &statusError{StatusCode: resp.StatusCode, Message: errorMessage(body), RetryAfter: resp.Header.Get("Retry-After")}
		switch resp.StatusCode {
		case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
			return nil, true, se
		}
		return nil, resp.StatusCode >= 500, se
	}
	return body, false, nil
}

// errorMessage extracts error.message from an OpenAI-style error body, or
// returns the body itself.
func errorMessage(body []byte) string {
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && len(env.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(env.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		var s string
		if json.Unmarshal(env.Error, &s) == nil && s != "" {
			return s
		}
	}
	var flat struct {
		Message string `json:"message"`
		// Detail is FAL's and FastAPI's error text.
		Detail any `json:"detail"`
	}
	if json.Unmarshal(body, &flat) == nil {
		if flat.Message != "" {
			return flat.Message
		}
		if d, ok := flat.Detail.(string); ok && d != "" {
			return d
		}
	}
	const limit = 500
	msg := strings.TrimSpace(string(body))
	if len(msg) > limit {
		msg = msg[:limit] + "..."
	}
	return msg
}
