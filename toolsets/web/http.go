package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/internal/redact"
)

// maxAPIResponse bounds what a provider may send back.
const maxAPIResponse = 16 << 20

// reply is a provider's answer, read whole (bounded).
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) ok() bool { return r.status >= 200 && r.status < 300 }

// errTimeout marks a request that ran out of time, so callers can say so
// in their own words.
var errTimeout = errors.New("timed out")

// encodeBody is JSON as the original's clients send it: no HTML escaping.
func encodeBody(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// send makes one request to a provider endpoint (configuration, not model
// input: these are never checked against the URL policy) and reads the
// answer. A transport failure is an error that never quotes a key; a
// status of any kind is a reply.
func (t *tools) send(ctx context.Context, method, u string, header http.Header, body []byte) (reply, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return reply{}, fmt.Errorf("bad endpoint URL %s: %w", redact.String(u), err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", userAgent)
	}
	resp, err := t.api.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return reply{}, errTimeout
		}
		return reply{}, redactErr(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIResponse))
	if err != nil {
		if ctx.Err() != nil {
			return reply{}, errTimeout
		}
		return reply{}, fmt.Errorf("read the response: %w", redactErr(err))
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: data}, nil
}

// headers builds a header set from name/value pairs.
func headers(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			h.Set(kv[i], kv[i+1])
		}
	}
	return h
}

// bodyText is the original's http_status_detail: the body as sent, or
// "HTTP <n>" when there is none. It is bounded and keys are redacted.
func bodyText(r reply) string {
	s := strings.TrimSpace(string(r.body))
	if s == "" {
		return fmt.Sprintf("HTTP %d", r.status)
	}
	return clip(redact.String(s), 1000)
}

// retryNote says how long the provider asked the caller to wait, when it
// did: the original never reads Retry-After for web calls, but a model
// deciding whether to retry can use it.
func retryNote(r reply) string {
	if v := strings.TrimSpace(r.header.Get("Retry-After")); v != "" && r.status == http.StatusTooManyRequests {
		return " (Retry-After: " + clip(v, 40) + ")"
	}
	return ""
}

// fixHint says what fixes a keyed provider's error status.
func fixHint(backend string, status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		if backend == BackendSearXNG {
			return " (enable the json format in the SearXNG instance's settings.yml: search: formats: [html, json])"
		}
		if k := keyEnv(backend); k != "" {
			return " (check " + k + ")"
		}
	case status == http.StatusPaymentRequired || status == 432 || status == 433:
		return " (the " + DisplayName(backend) + " plan's credits or limits are exhausted)"
	case status == http.StatusTooManyRequests:
		return " (rate limited; wait a moment and retry)"
	case status >= 500:
		return " (" + DisplayName(backend) + " had a server error; retry later)"
	}
	return ""
}

// clip cuts s to n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// redactErr keeps keys out of transport errors, which quote URLs.
func redactErr(err error) error {
	return errors.New(redact.String(err.Error()))
}

// describe turns a transport error into words for a failure message.
func (t *tools) describe(err error) string {
	if errors.Is(err, errTimeout) {
		return fmt.Sprintf("no answer within %v", t.timeout)
	}
	return err.Error()
}

const userAgent = "Mozilla/5.0 (compatible; hermes-tools; +https://github.com/hermes-go/hermes)"

// object is a JSON object whose keys keep the order given (name, value,
// name, value…): request bodies are sent with the keys in the order the
// original's clients send them.
type object []any

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(o[i])
		b.Write(k)
		b.WriteByte(':')
		v := encodeBody(o[i+1])
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
