package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/contain"
	"github.com/hermes-go/hermes/internal/pagetext"
	"github.com/hermes-go/hermes/internal/redact"
	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Size caps.
const (
	maxURLs      = 5
	maxHTMLBytes = 5 << 20
	maxPDFBytes  = 20 << 20
	maxRedirects = 10
	// maxOffset bounds the offset argument: no stored page is longer.
	maxOffset = maxStoredChars + 1000
)

type extractArgs struct {
	URLs      []string `json:"urls"`
	CharLimit *int     `json:"char_limit"`
	Offset    *int     `json:"offset"`
}

// extracted is one URL's row in the original's shape, plus where a cut or
// paged page goes on (ours: the original points at read_file only).
type extracted struct {
	URL             string  `json:"url"`
	Title           string  `json:"title"`
	Content         string  `json:"content"`
	Error           *string `json:"error"`
	BlockedByPolicy bool    `json:"blocked_by_policy,omitempty"`
	// TotalChars and NextOffset are set on a row that shows part of its
	// page: the page's length, and the offset to pass to read on (null
	// once the page has ended).
	TotalChars int             `json:"total_chars,omitempty"`
	NextOffset json.RawMessage `json:"next_offset,omitempty"`
}

func failed(u, msg string) extracted {
	return extracted{URL: u, Error: &msg}
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

// job is one URL of a call on its way through the pipeline.
type job struct {
	i     int
	url   string
	local bool // a private address the policy allows: only we can reach it
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
	offset := 0
	if args.Offset != nil {
		offset = *args.Offset
		if offset < 0 || offset > maxOffset {
			return tooldef.Errorf("offset must be between 0 and %d: pass the next_offset a cut result gave", maxOffset), nil
		}
	}
	c, err := LoadConfig(t.home)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	budget := c.CharLimit()
	if args.CharLimit != nil {
		budget = clampCharLimit(*args.CharLimit)
	}
	sel, err := ExtractBackend(c, t.getenv)
	if err != nil {
		return tooldef.Failure(searchFail{Success: false, Error: err.Error()}), nil
	}
	policy := urlPolicy(c, t.home)
	strict := policy
	strict.AllowPrivate = false

	rows := make([]extracted, len(urls))
	var pending []job
	for i, u := range urls {
		u = strings.TrimSpace(u)
		urls[i] = u
		rows[i].URL = u
		if _, err := urlguard.CheckURL(ctx, u, policy, t.resolver); err != nil {
			if errors.Is(err, urlguard.ErrSecret) {
				// The whole call is refused, as the original refuses it:
				// a key in one URL says the caller is leaking keys.
				return tooldef.Failure(searchFail{Success: false, Error: urlguard.ErrSecret.Error()}), nil
			}
			if errors.Is(err, urlguard.ErrUserinfo) {
				rows[i].URL = urlguard.RedactURL(u)
			}
			rows[i].fail(err)
			continue
		}
		_, serr := urlguard.CheckURL(ctx, u, strict, t.resolver)
		pending = append(pending, job{i: i, url: u, local: errors.Is(serr, urlguard.ErrPrivate)})
	}

	// A later page of a long document comes from the full text stored by
	// the call that cut it, so the offsets the model was given stay true.
	stored := map[int]string{}
	if offset > 0 {
		var fetch []job
		for _, j := range pending {
			if text, ok := t.loadStored(j.url); ok {
				stored[j.i] = text
			} else {
				fetch = append(fetch, j)
			}
		}
		pending = fetch
	}

	t.extract(ctx, c, sel, policy, pending, rows)
	if ctx.Err() != nil {
		return tooldef.Failure(map[string]any{"error": "Interrupted", "success": false}), nil
	}
	for i := range rows {
		if text, ok := stored[i]; ok {
			rows[i].Content = text
			rows[i].window(urls[i], offset, budget, false, t)
			continue
		}
		if rows[i].Error != nil || rows[i].Content == "" {
			continue
		}
		if kind := binaryKind(rows[i].Content); kind != "" {
			rows[i].fail(fmt.Errorf("URL returned binary content (%s), not a page. Download it with the terminal "+
				"(curl -L -o) and use read_file (SQLite/Office/PDF auto-extract) or terminal utilities on the file.", kind))
			continue
		}
		rows[i].Content = imagesToPlaceholders(rows[i].Content)
		if offset > 0 {
			rows[i].window(urls[i], offset, budget, true, t)
		} else {
			rows[i].cut(urls[i], budget, t)
		}
	}
	return tooldef.OK(map[string]any{"results": rows}), nil
}

// extract fills rows for the jobs through the selected backend.
func (t *tools) extract(ctx context.Context, c Config, sel Selection, policy urlguard.Policy, jobs []job, rows []extracted) {
	prog := newProgress(ctx, len(rows), len(rows)-len(jobs))
	var remote []job
	var local []job
	for _, j := range jobs {
		// Private addresses are reachable by us alone (and only when
		// config.yaml allows them): no provider is asked for them.
		if j.local || sel.Name == BackendLocal {
			local = append(local, j)
		} else {
			remote = append(remote, j)
		}
	}
	if len(remote) > 0 {
		urls := make([]string, len(remote))
		for k, j := range remote {
			urls[k] = j.url
		}
		var got []extracted
		if sel.Ring {
			got = t.ringExtract(ctx, c, "", urls)
		} else {
			got = t.extractNamed(ctx, c, sel.Name, urls)
		}
		for k, j := range remote {
			rows[j.i] = got[k]
			if rows[j.i].URL == "" {
				rows[j.i].URL = j.url
			}
		}
		if sel.Ring {
			// Nothing is configured: a page the free tier could not read
			// is fetched by us, the last resort that needs no provider.
			for _, j := range remote {
				if r := rows[j.i]; r.Error != nil && !r.BlockedByPolicy && ctx.Err() == nil {
					local = append(local, j)
				}
			}
		}
	}
	var wg sync.WaitGroup
	for _, j := range local {
		wg.Go(func() {
			prior := rows[j.i].Error
			// The page is hostile input to the HTML and PDF parsers: a
			// panic in them fails this URL's row, not the server.
			var row extracted
			err := contain.Call(nil, "web_extract", func() error {
				row = t.fetchPage(ctx, j.url, policy)
				return nil
			})
			if err != nil {
				row = extracted{URL: j.url}
				row.fail(errors.New("this page could not be read (an internal error while parsing it was logged)"))
			}
			if row.Error != nil && prior != nil {
				msg := *prior + "; reading it directly also failed: " + *row.Error
				row.Error = &msg
			}
			rows[j.i] = row
			prog.done(j.url)
		})
	}
	wg.Wait()
}

// extractNamed reads urls through a configured backend, with the
// original's one-shot keyless rescue when the whole batch failed.
func (t *tools) extractNamed(ctx context.Context, c Config, name string, urls []string) []extracted {
	if t.keylessRoute(c, name) {
		return t.ringExtract(ctx, c, name, urls)
	}
	rows := t.extractKeyed(ctx, c, name, urls)
	if !c.RescueOn() || ctx.Err() != nil {
		return rows
	}
	var retry []int
	for i, r := range rows {
		if r.BlockedByPolicy {
			continue
		}
		if r.Error == nil {
			return rows
		}
		retry = append(retry, i)
	}
	if len(retry) == 0 {
		return rows
	}
	again := make([]string, len(retry))
	for k, i := range retry {
		again[k] = urls[i]
	}
	rescued := t.ringExtract(ctx, c, name, again)
	for k, i := range retry {
		if rescued[k].Error == nil {
			rows[i] = rescued[k]
			continue
		}
		msg := *rows[i].Error + " (keyless rescue also failed: " + *rescued[k].Error + ")"
		rows[i].Error = &msg
	}
	t.log.Info("web_extract rescued on the keyless tier", "backend", name)
	return rows
}

// fetchPage is our own extractor: fetch under the URL policy, then
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
		// The whole text, up to what is ever stored: long PDFs are cut
		// and paged like long pages.
		p, err := pagetext.PDF(body, maxStoredChars)
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
	nd := t.pageNet
	if nd == nil {
		nd = &net.Dialer{Timeout: 10 * time.Second}
	}
	build := func() *http.Client {
		return &http.Client{
			Transport: &http.Transport{
				Proxy:                 nil,
				DialContext:           (&urlguard.Dialer{Policy: p, Resolver: t.resolver, Net: nd}).DialContext,
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

// jsonInt is n as a JSON number.
func jsonInt(n int) json.RawMessage { return json.RawMessage(strconv.Itoa(n)) }
