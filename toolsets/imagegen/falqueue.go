package imagegen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/toolsets/internal/mediaapi"
)

// falQueue speaks FAL's queue protocol for one request.
type falQueue struct {
	g    *generator
	conf Backend
}

// falPoll bounds how often the status URL is asked: fal-client asks every
// 0.1 s; starting there and backing off to 1 s keeps short jobs fast and
// long ones cheap.
const (
	falPollFirst = 100 * time.Millisecond
	falPollMax   = time.Second
)

func (q *falQueue) header() http.Header {
	h := http.Header{}
	h.Set("Authorization", "Key "+q.conf.APIKey)
	return h
}

func (q *falQueue) run(ctx context.Context, endpoint string, body payload) ([]byte, error) {
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the FAL request: %w", err)
	}
	h := q.header()
	h.Set("Content-Type", "application/json")
	idem := make([]byte, 16)
	_, _ = rand.Read(idem)
	h.Set("x-idempotency-key", hex.EncodeToString(idem))
	base := strings.TrimRight(q.conf.BaseURL, "/")
	sub, err := q.g.e.PostBody(ctx, base+"/"+strings.Trim(endpoint, "/"), h, raw, q.g.e.CallTimeout(0))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, q.apiError(err)
	}
	var job struct {
		RequestID   string `json:"request_id"`
		StatusURL   string `json:"status_url"`
		ResponseURL string `json:"response_url"`
		CancelURL   string `json:"cancel_url"`
	}
	if err := json.Unmarshal(sub, &job); err != nil || job.RequestID == "" || job.StatusURL == "" || job.ResponseURL == "" {
		return nil, fmt.Errorf("FAL answered the submission with something that is not a queue receipt: %s", clip(sub))
	}
	// The URLs come from FAL's answer: they must stay on the queue's
	// host, so neither the key nor our requests go anywhere else.
	for _, u := range []string{job.StatusURL, job.ResponseURL, job.CancelURL} {
		if u != "" && !sameHost(u, base) {
			return nil, fmt.Errorf("FAL's queue receipt points at another host (%s); refusing to follow it", clip([]byte(u)))
		}
	}
	done := false
	defer func() {
		if !done && job.CancelURL != "" {
			// Best effort: a cancelled call should not keep a paid job
			// running.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if req, err := http.NewRequestWithContext(cctx, http.MethodPut, job.CancelURL, nil); err == nil {
				req.Header = q.header()
				if resp, err := q.g.e.Client.Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	}()
	wait := falPollFirst
	for {
		st, err := q.get(ctx, job.StatusURL+"?logs=false")
		if err != nil {
			return nil, err
		}
		var status struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(st, &status); err != nil {
			return nil, fmt.Errorf("FAL answered a status poll with something that is not a status: %s", clip(st))
		}
		switch status.Status {
		case "COMPLETED":
			done = true
			return q.get(ctx, job.ResponseURL)
		case "IN_QUEUE", "IN_PROGRESS":
		default:
			return nil, fmt.Errorf("FAL reported an unknown status %q for request %s", status.Status, job.RequestID)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(wait*2, falPollMax)
	}
}

func (q *falQueue) get(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("FAL queue URL: %w", err)
	}
	req.Header = q.header()
	req.Header.Set("Accept", "application/json")
	resp, err := q.g.e.Client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("FAL request failed: %s", redact.String(err.Error()))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("read FAL's answer: %w", err)
	}
	if resp.StatusCode >= 300 {
		return nil, q.apiError(&httpStatus{code: resp.StatusCode, body: b, retryAfter: resp.Header.Get("Retry-After")})
	}
	return b, nil
}

// httpStatus is a non-2xx answer to a queue GET.
type httpStatus struct {
	code       int
	body       []byte
	retryAfter string
}

func (e *httpStatus) Error() string { return fmt.Sprintf("HTTP %d", e.code) }

// apiError words a FAL failure: its `detail`, and what to check.
func (q *falQueue) apiError(err error) error {
	var hs *httpStatus
	if errors.As(err, &hs) {
		msg := falDetail(hs.body)
		out := fmt.Sprintf("FAL model %s returned HTTP %d: %s", q.conf.Model, hs.code, redact.String(msg))
		switch {
		case hs.code == http.StatusUnauthorized || hs.code == http.StatusForbidden:
			out += " (check FAL_KEY)"
		case hs.code == http.StatusTooManyRequests && hs.retryAfter != "":
			out += " (rate limited; retry after " + hs.retryAfter + "s)"
		case hs.code >= 500:
			out += " (FAL is failing; retry later)"
		}
		return errors.New(out)
	}
	return mediaapi.APIError("FAL model "+q.conf.Model, q.conf.BaseURL, "FAL_KEY", err)
}

// falDetail is FAL's error `detail` (a string, or validation entries),
// else the body.
func falDetail(b []byte) string {
	var e struct {
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(b, &e) == nil && len(e.Detail) > 0 {
		var s string
		if json.Unmarshal(e.Detail, &s) == nil {
			return s
		}
		return clip(e.Detail)
	}
	return clip(b)
}

func sameHost(u, base string) bool {
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(base)
	return err1 == nil && err2 == nil && a.Scheme == b.Scheme && a.Host == b.Host
}

func clip(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
