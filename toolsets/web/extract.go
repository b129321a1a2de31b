package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/contain"
	"github.com/hermes-go/hermes/internal/pagetext"
	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Size caps. maxResultChars is the Python Hermes' cap on a web tool's
// whole result; it is shared out between the URLs of a call.
const (
	maxURLs        = 5
	maxResultChars = 100_000
	maxHTMLBytes   = 5 << 20
	maxPDFBytes    = 20 << 20
	maxRedirects   = 10
)

type extractArgs struct {
	URLs []string `json:"urls"`
}

// extracted is one URL's row in the Python Hermes' shape.
type extracted struct {
	URL             string  `json:"url"`
	Title           string  `json:"title"`
	Content         string  `json:"content"`
	Error           *string `json:"error"`
	BlockedByPolicy bool    `json:"blocked_by_policy,omitempty"`
}

func (r *extracted) fail(err error) {
	msg := err.Error()
	r.Error = &msg
	r.Content = ""
	r.BlockedByPolicy = isPolicy(err)
}

func isPolicy(err error) bool {
	var be *urlguard.BlockedError
	return errors.As(err, &be)
}

func (t *tools) handleExtract(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[extractArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	urls := args.URLs
	if len(urls) > maxURLs {
		urls = urls[:maxURLs]
	}
	if len(urls) == 0 {
		return tooldef.Errorf("urls is required: pass 1 to %d page URLs to read", maxURLs), nil
	}
	c, err := LoadConfig(t.home)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	backend, err := ExtractBackend(c, t.getenv)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	policy := urlPolicy(c, t.home)

	rows := make([]extracted, len(urls))
	// The policy check runs first, for every backend: a provider would
	// fetch a private URL from its side, but a secret in a URL leaks the
	// moment it is sent anywhere.
	var pending []int
	for i, u := range urls {
		u = strings.TrimSpace(u)
		rows[i].URL = u
		if _, err := urlguard.CheckURL(ctx, u, policy, t.resolver); err != nil {
			if errors.Is(err, urlguard.ErrSecret) || errors.Is(err, urlguard.ErrUserinfo) {
				// Do not echo the key back into the transcript.
				rows[i].URL = urlguard.RedactURL(u)
			}
			rows[i].fail(err)
			continue
		}
		pending = append(pending, i)
	}

	prog := newProgress(ctx, len(urls), len(urls)-len(pending))
	switch backend {
	case BackendTavily, BackendExa:
		// One batch request covers every URL.
		batch := make([]string, len(pending))
		for j, i := range pending {
			batch[j] = rows[i].URL
		}
		got, err := t.extractBatch(ctx, backend, batch)
		for j, i := range pending {
			switch {
			case err != nil:
				rows[i].fail(err)
			default:
				rows[i] = got[j]
			}
		}
	default:
		// One goroutine per URL (at most five), each writing only its
		// own row; all are waited for before the rows are read.
		var wg sync.WaitGroup
		for _, i := range pending {
			wg.Go(func() {
				// The page is hostile input to the HTML and PDF parsers: a
				// panic in them fails this URL's row, not the server.
				url := rows[i].URL
				err := contain.Call(nil, "web_extract", func() error {
					if backend == BackendFirecrawl {
						rows[i] = t.firecrawlScrape(ctx, url)
					} else {
						rows[i] = t.fetchPage(ctx, url, policy)
					}
					return nil
				})
				if err != nil {
					rows[i] = extracted{URL: url}
					rows[i].fail(errors.New("this page could not be read (an internal error while parsing it was logged)"))
				}
				prog.done(url)
			})
		}
		wg.Wait()
	}
	if ctx.Err() != nil {
		return tooldef.Failure(map[string]any{"error": "Interrupted", "success": false}), nil
	}

	perURL := maxResultChars / len(rows)
	for i := range rows {
		rows[i].Content = truncate(rows[i].Content, perURL)
		if rows[i].Error == nil && strings.TrimSpace(rows[i].Content) == "" {
			msg := "the page has no readable text; if it needs JavaScript or a login, use the browser tools"
			rows[i].Error = &msg
		}
	}
	return tooldef.OK(map[string]any{"results": rows}), nil
}

// truncate caps s at n characters, saying so, so the model knows the page
// goes on.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	total := utf8.RuneCountInString(s)
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("\n\n[… truncated: showing %d of %d characters]", n, total)
}

// fetchPage is the keyless extractor: fetch under the URL policy, then
// readability and Markdown for HTML, text for PDF.
func (t *tools) fetchPage(ctx context.Context, rawURL string, policy urlguard.Policy) (row extracted) {
	row.URL = rawURL
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		row.fail(fmt.Errorf("not a valid URL: %w", err))
		return row
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	req.Header.Set("Accept-Language", "en-US,en;q=0.8")
	resp, err := t.pageClient(policy).Do(req)
	if err != nil {
		if isPolicy(err) {
			row.fail(unwrapPolicy(err))
			return row
		}
		if errors.Is(err, context.DeadlineExceeded) {
			row.fail(fmt.Errorf("the page did not load within %v; try again or use the browser tools", t.timeout))
			return row
		}
		row.fail(fmt.Errorf("fetch failed: %w", redactErr(err)))
		return row
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		row.fail(fmt.Errorf("HTTP %s", resp.Status))
		return row
	}
	ct := resp.Header.Get("Content-Type")
	// The first bytes decide the cap: PDFs may be larger than pages.
	head := make([]byte, 512)
	n, _ := io.ReadFull(resp.Body, head)
	head = head[:n]
	kind := pagetext.Kind(ct, head)
	limit := int64(maxHTMLBytes)
	if kind == "pdf" {
		limit = maxPDFBytes
	}
	if kind == "" {
		row.fail(fmt.Errorf("unsupported content type %q: web_extract reads HTML, text and PDF; use vision_analyze for images", ct))
		return row
	}
	rest, err := io.ReadAll(io.LimitReader(resp.Body, limit-int64(n)+1))
	if err != nil {
		row.fail(fmt.Errorf("read page: %w", redactErr(err)))
		return row
	}
	body := append(head, rest...)
	if int64(len(body)) > limit {
		row.fail(fmt.Errorf("the document is larger than %d MB; web_extract refuses it (use the browser tools to read part of it)", limit>>20))
		return row
	}
	final := resp.Request.URL
	switch kind {
	case "pdf":
		p, err := pagetext.PDF(body, maxResultChars)
		if err != nil {
			row.fail(fmt.Errorf("PDF: %w", err))
			return row
		}
		row.Title, row.Content = p.Title, p.Markdown
	case "html":
		p, err := pagetext.HTML(body, ct, final)
		if err != nil {
			row.fail(err)
			return row
		}
		row.Title, row.Content = p.Title, p.Markdown
	default:
		row.Content = pagetext.PlainText(body, ct)
	}
	return row
}

// unwrapPolicy returns the refusal inside a transport error, so the row
// carries the refusal's own text rather than Go's "Get …: dial …" framing.
func unwrapPolicy(err error) error {
	var be *urlguard.BlockedError
	if errors.As(err, &be) {
		return be
	}
	return err
}

// pageClient returns the fetcher for a policy. Its dialer checks every
// address it connects to, after DNS and after each redirect, and it has no
// proxy: a proxy would make the dialer check the proxy instead of the page.
func (t *tools) pageClient(p urlguard.Policy) *http.Client {
	build := func() *http.Client {
		return &http.Client{
			Transport: &http.Transport{
				Proxy:                 nil,
				DialContext:           (&urlguard.Dialer{Policy: p, Resolver: t.resolver, Net: &net.Dialer{Timeout: 10 * time.Second}}).DialContext,
				TLSHandshakeTimeout:   10 * time.Second,
				ResponseHeaderTimeout: t.timeout,
				MaxIdleConnsPerHost:   2,
				IdleConnTimeout:       30 * time.Second,
			},
			CheckRedirect: func(req *http.Request, via []*http.Request) error {
				if len(via) >= maxRedirects {
					return fmt.Errorf("stopped after %d redirects", maxRedirects)
				}
				// The dialer checks addresses; this catches secrets and
				// schemes in the redirect target before it is requested.
				_, err := urlguard.CheckURL(req.Context(), req.URL.String(), p, nil)
				return err
			},
		}
	}
	if p.AllowPrivate {
		t.openOnce.Do(func() { t.open = build() })
		return t.open
	}
	t.strictOnce.Do(func() { t.strict = build() })
	return t.strict
}

// firecrawlScrape reads one URL through Firecrawl's /v2/scrape.
func (t *tools) firecrawlScrape(ctx context.Context, u string) (row extracted) {
	row.URL = u
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	var resp struct {
		Success bool `json:"success"`
		Data    struct {
			Markdown string `json:"markdown"`
			Metadata struct {
				Title      string `json:"title"`
				StatusCode int    `json:"statusCode"`
				Error      string `json:"error"`
			} `json:"metadata"`
		} `json:"data"`
		Error string `json:"error"`
	}
	body := map[string]any{"url": u, "formats": []string{"markdown"}, "onlyMainContent": true,
		"timeout": t.timeout.Milliseconds()}
	if err := t.postJSON(ctx, BackendFirecrawl, t.baseURL(BackendFirecrawl)+"/v2/scrape", firecrawlAuth(t.getenv), body, &resp); err != nil {
		row.fail(err)
		return row
	}
	md := resp.Data.Metadata
	if md.Error != "" || md.StatusCode >= 400 {
		row.fail(fmt.Errorf("HTTP %d: %s", md.StatusCode, firstNonEmpty(md.Error, http.StatusText(md.StatusCode))))
		return row
	}
	row.Title, row.Content = md.Title, resp.Data.Markdown
	return row
}

// extractBatch reads URLs through Tavily's /extract or Exa's /contents,
// which take them all in one request. Rows come back in input order.
func (t *tools) extractBatch(ctx context.Context, backend string, urls []string) ([]extracted, error) {
	if len(urls) == 0 {
		return nil, nil
	}
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	byURL := map[string]extracted{}
	failed := map[string]string{}
	base := t.baseURL(backend)
	switch backend {
	case BackendTavily:
		var resp struct {
			Results []struct {
				URL        string `json:"url"`
				RawContent string `json:"raw_content"`
			} `json:"results"`
			FailedResults []struct {
				URL   string `json:"url"`
				Error string `json:"error"`
			} `json:"failed_results"`
		}
		body := map[string]any{"urls": urls, "format": "markdown", "extract_depth": "basic", "include_images": false}
		if err := t.postJSON(ctx, backend, base+"/extract", bearerAuth(t.getenv("TAVILY_API_KEY")), body, &resp); err != nil {
			return nil, err
		}
		for _, r := range resp.Results {
			byURL[r.URL] = extracted{URL: r.URL, Content: r.RawContent}
		}
		for _, f := range resp.FailedResults {
			failed[f.URL] = f.Error
		}
	case BackendExa:
		var resp struct {
			Results []struct {
				ID    string `json:"id"`
				URL   string `json:"url"`
				Title string `json:"title"`
				Text  string `json:"text"`
			} `json:"results"`
			Statuses []struct {
				ID     string `json:"id"`
				Status string `json:"status"`
				Error  struct {
					Tag            string `json:"tag"`
					HTTPStatusCode int    `json:"httpStatusCode"`
				} `json:"error"`
			} `json:"statuses"`
		}
		body := map[string]any{"urls": urls, "text": true}
		if err := t.postJSON(ctx, backend, base+"/contents", headerAuth("x-api-key", t.getenv("EXA_API_KEY")), body, &resp); err != nil {
			return nil, err
		}
		for _, r := range resp.Results {
			row := extracted{URL: r.URL, Title: r.Title, Content: r.Text}
			byURL[r.URL] = row
			if r.ID != "" {
				byURL[r.ID] = row
			}
		}
		for _, s := range resp.Statuses {
			if s.Status != "success" {
				failed[s.ID] = strings.TrimSpace(fmt.Sprintf("%s (HTTP %d)", s.Error.Tag, s.Error.HTTPStatusCode))
			}
		}
	}
	out := make([]extracted, len(urls))
	for i, u := range urls {
		row, ok := byURL[u]
		switch {
		case ok:
			row.URL = u
			out[i] = row
		default:
			out[i].URL = u
			msg := failed[u]
			if msg == "" {
				msg = "no content returned"
			}
			out[i].fail(fmt.Errorf("%s could not extract this URL: %s", DisplayName(backend), msg))
		}
	}
	return out, nil
}

// progress reports finished URLs of a multi-URL extraction. Updates are
// throttled, and the last URL is never reported: the result follows at
// once, and clients drop progress that arrives after it.
type progress struct {
	ctx   context.Context
	total int

	mu   sync.Mutex
	n    int
	last time.Time
}

const progressInterval = 100 * time.Millisecond

func newProgress(ctx context.Context, total, already int) *progress {
	p := &progress{ctx: ctx, total: total, n: already}
	if total > 1 && already < total {
		p.last = time.Now()
		tooldef.ReportProgress(ctx, float64(already), float64(total), fmt.Sprintf("Reading %d URLs", total))
	}
	return p
}

func (p *progress) done(u string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.total <= 1 || p.n >= p.total || time.Since(p.last) < progressInterval {
		return
	}
	p.last = time.Now()
	tooldef.ReportProgress(p.ctx, float64(p.n), float64(p.total), "Read "+redact.String(u))
}
