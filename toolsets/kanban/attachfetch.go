package kanban

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/urlguard"
)

// kanban_attach_url's limits, Hermes' (_download_url_with_cap).
const (
	attachMaxRedirects = 5
	// DefaultFetchTimeout bounds each step of a download (connecting, the
	// TLS handshake, the response header, each read), as httpx's
	// timeout=30 does.
	DefaultFetchTimeout = 30 * time.Second
	// fetchStepsPerDownload bounds a whole download at this many steps'
	// time, so a server dripping one byte every 29 s cannot hold the call
	// for ever (Hermes has no such ceiling).
	fetchStepsPerDownload = 10
	attachUserAgent       = "hermes-kanban/attach"
	envAllowPrivateURLs   = "HERMES_ALLOW_PRIVATE_URLS"
)

// fetchError is a download failure, with the text Hermes gives it after
// "kanban_attach_url: ".
type fetchError struct{ msg string }

func (e *fetchError) Error() string { return e.msg }

// urlPolicy is the URL policy kanban_attach_url fetches under, read as
// Hermes' tools/url_safety reads it: HERMES_ALLOW_PRIVATE_URLS
// (true/1/yes, or false/0/no, which also overrides the config), else
// security.allow_private_urls, else the legacy browser.allow_private_urls
// in config.yaml. Cloud metadata addresses are refused whatever it says.
func (k *kit) urlPolicy() urlguard.Policy {
	p := urlguard.Policy{AllowHint: fmt.Sprintf("set security.allow_private_urls: true in %s, or %s=1", k.configPath(), envAllowPrivateURLs)}
	switch strings.ToLower(strings.TrimSpace(k.getenv(envAllowPrivateURLs))) {
	case "true", "1", "yes":
		p.AllowPrivate = true
		return p
	case "false", "0", "no":
		return p
	}
	var cfg map[string]any
	if hermeshome.DecodeFile(k.configPath(), &cfg) != nil {
		return p
	}
	for _, section := range []string{"security", "browser"} {
		if m, ok := cfg[section].(map[string]any); ok && isTruthyValue(m["allow_private_urls"]) {
			p.AllowPrivate = true
		}
	}
	return p
}

// isTruthyValue is Hermes' utils.is_truthy_value: a boolean as it is, a
// string when it says 1/true/yes/on, anything else by Python truth.
func isTruthyValue(v any) bool {
	if s, ok := v.(string); ok {
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "1", "true", "yes", "on":
			return true
		}
		return false
	}
	return pystr.Truthy(v)
}

// download fetches rawURL as Hermes' _download_url_with_cap does: http(s)
// only, every hop checked against the URL policy before it is requested
// (and every connection checked again by the dialer, so DNS cannot swap
// the address in between), at most five redirects followed by hand, the
// body streamed and refused once it passes limit bytes. It returns the body
// and the response's Content-Type without parameters ("" when absent).
func (k *kit) download(ctx context.Context, rawURL string, limit int64) ([]byte, string, error) {
	step := k.opts.FetchTimeout
	if step <= 0 {
		step = DefaultFetchTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, step*fetchStepsPerDownload)
	defer cancel()
	policy := k.urlPolicy()
	resolver := k.opts.Resolver
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	client := &http.Client{
		Transport: &http.Transport{
			// No proxy: the dialer must see the address it connects to.
			Proxy:                 nil,
			DialContext:           (&urlguard.Dialer{Policy: policy, Resolver: resolver, Net: &net.Dialer{Timeout: step}}).DialContext,
			TLSHandshakeTimeout:   step,
			ResponseHeaderTimeout: step,
			DisableKeepAlives:     true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer client.CloseIdleConnections()
	hop := rawURL
	for range attachMaxRedirects + 1 {
		u, err := url.Parse(hop)
		scheme := ""
		if err == nil {
			scheme = strings.ToLower(u.Scheme)
		} else if i := strings.Index(hop, ":"); i > 0 {
			scheme = strings.ToLower(hop[:i])
		}
		if scheme != "http" && scheme != "https" {
			return nil, "", &fetchError{fmt.Sprintf("unsupported URL scheme %s; only http/https are allowed", pyRepr(scheme))}
		}
		if err := k.checkHop(ctx, hop, policy, resolver); err != nil {
			return nil, "", err
		}
		next, data, ct, err := k.fetchOnce(ctx, client, hop, rawURL, limit, step)
		if err != nil {
			return nil, "", err
		}
		if next == "" {
			return data, ct, nil
		}
		hop = next
	}
	return nil, "", &fetchError{"too many redirects fetching " + rawURL}
}

// checkHop is Hermes' is_safe_url check of one hop, with its refusal
// text. A URL that carries a secret or a password is refused too (ours:
// it would be sent to the server and logged there).
func (k *kit) checkHop(ctx context.Context, hop string, policy urlguard.Policy, resolver urlguard.Resolver) error {
	u, err := urlguard.CheckURL(ctx, hop, policy, resolver)
	if errors.Is(err, urlguard.ErrSecret) || errors.Is(err, urlguard.ErrUserinfo) {
		return &fetchError{err.Error()}
	}
	if err == nil {
		// A name that does not resolve is refused, as Hermes refuses it
		// (fail closed), rather than left to fail at the connect.
		if h, herr := urlguard.ParseHost(u.Hostname()); herr == nil && h.Name != "" {
			if _, lerr := resolver.LookupNetIP(ctx, "ip", h.Name); lerr != nil {
				err = lerr
			}
		}
	}
	if err != nil {
		return ssrfRefusal(hop, err, policy)
	}
	return nil
}

// ssrfRefusal is Hermes' refusal of a hop, plus how to allow it when the
// address is merely private.
func ssrfRefusal(hop string, err error, policy urlguard.Policy) error {
	msg := "URL blocked by SSRF protection (private/internal address): " + hop
	if errors.Is(err, urlguard.ErrPrivate) && policy.AllowHint != "" {
		msg += "; to allow private addresses, " + policy.AllowHint
	}
	return &fetchError{msg}
}

// fetchOnce requests one hop. It returns the next hop for a redirect, or
// the body and content type.
func (k *kit) fetchOnce(ctx context.Context, client *http.Client, hop, original string, limit int64, step time.Duration) (next string, data []byte, ct string, err error) {
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, hop, nil)
	if err != nil {
		return "", nil, "", fetchFailed(original, err)
	}
	req.Header.Set("User-Agent", attachUserAgent)
	resp, err := client.Do(req)
	if err != nil {
		var be *urlguard.BlockedError
		if errors.As(err, &be) {
			return "", nil, "", ssrfRefusal(hop, be, k.urlPolicy())
		}
		return "", nil, "", fetchFailed(original, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		if loc := resp.Header.Get("Location"); loc != "" {
			target, err := resp.Request.URL.Parse(loc)
			if err != nil {
				return "", nil, "", fetchFailed(original, fmt.Errorf("redirect to an unreadable Location %q: %w", loc, err))
			}
			return target.String(), nil, "", nil
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return "", nil, "", fetchFailed(original, statusError(resp, hop))
	}
	ct = strings.TrimSpace(strings.SplitN(resp.Header.Get("Content-Type"), ";", 2)[0])
	// Each read gets a fresh step of time, as httpx's read timeout does.
	idle := time.AfterFunc(step, cancel)
	defer idle.Stop()
	buf := make([]byte, 0, min(max(resp.ContentLength, 0), limit)+1)
	chunk := make([]byte, 1<<20)
	for {
		n, rerr := resp.Body.Read(chunk)
		if n > 0 {
			idle.Reset(step)
			if int64(len(buf)+n) > limit {
				return "", nil, "", &fetchError{fmt.Sprintf("attachment exceeds %d MB limit", limit>>20)}
			}
			buf = append(buf, chunk[:n]...)
		}
		if rerr == io.EOF {
			return "", buf, ct, nil
		}
		if rerr != nil {
			if reqCtx.Err() != nil && ctx.Err() == nil {
				rerr = fmt.Errorf("no data for %v (read timed out)", step)
			}
			return "", nil, "", fetchFailed(original, rerr)
		}
	}
}

// fetchFailed is Hermes' text for every failure but the refusals it
// raises itself: "failed to fetch <url>: <what>".
func fetchFailed(original string, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &fetchError{fmt.Sprintf("failed to fetch %s: %v", original, err)}
}

// statusError words a status that is neither success nor a followed
// redirect as httpx's raise_for_status does.
func statusError(resp *http.Response, hop string) error {
	kind := "Error"
	switch resp.StatusCode / 100 {
	case 1:
		kind = "Informational response"
	case 3:
		kind = "Redirect response"
	case 4:
		kind = "Client error"
	case 5:
		kind = "Server error"
	}
	code := strconv.Itoa(resp.StatusCode)
	reason := strings.TrimSpace(strings.TrimPrefix(resp.Status, code))
	return fmt.Errorf("%s '%s %s' for url '%s'\nFor more information check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/%s",
		kind, code, reason, hop, code)
}
