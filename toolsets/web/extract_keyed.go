package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode"

	"github.com/hermes-go/hermes/internal/urlguard"
)

// noResultRow is the original's text for a URL a batch answer left out.
const noResultRow = "Extract backend returned no result for this URL"

// allFailed gives every URL the same error.
func allFailed(urls []string, err error) []extracted {
	rows := make([]extracted, len(urls))
	for i, u := range urls {
		rows[i] = failed(u, err.Error())
	}
	return rows
}

// extractKeyed reads urls through a configured backend on its keyed API
// (Tavily also in its opt-in keyless mode, Firecrawl also self-hosted or
// anonymous when named). Rows come back in input order.
func (t *tools) extractKeyed(ctx context.Context, c Config, name string, urls []string) []extracted {
	switch name {
	case BackendTavily:
		return t.tavilyExtract(ctx, c, urls)
	case BackendExa:
		return t.exaExtract(ctx, urls)
	case BackendParallel:
		return t.parallelExtract(ctx, urls)
	case BackendPerplexity:
		return t.perplexityExtract(ctx, urls)
	case BackendKeenable, BackendFirecrawl:
		rows := make([]extracted, len(urls))
		var wg sync.WaitGroup
		for i, u := range urls {
			wg.Go(func() {
				ctx, cancel := t.withTimeout(ctx)
				defer cancel()
				if name == BackendKeenable {
					rows[i] = t.keenableFetch(ctx, u)
				} else {
					rows[i] = t.firecrawlScrape(ctx, c, u)
				}
			})
		}
		wg.Wait()
		return rows
	}
	return allFailed(urls, unknownBackend("extract_backend", name))
}

// byURL puts a batch answer back in input order.
func byURL(urls []string, got map[string]extracted) []extracted {
	rows := make([]extracted, len(urls))
	for i, u := range urls {
		r, ok := got[u]
		if !ok {
			r = failed(u, noResultRow)
		}
		r.URL = u
		rows[i] = r
	}
	return rows
}

func (t *tools) tavilyExtract(ctx context.Context, c Config, urls []string) []extracted {
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	var resp struct {
		Results []struct {
			URL        string `json:"url"`
			Title      string `json:"title"`
			RawContent string `json:"raw_content"`
			Content    string `json:"content"`
		} `json:"results"`
		FailedResults []struct {
			URL   string `json:"url"`
			Error string `json:"error"`
		} `json:"failed_results"`
		FailedURLs []string `json:"failed_urls"`
	}
	if err := t.tavilyRequest(ctx, c, "extract", "extract", object{"urls", urls, "include_images", false}, &resp); err != nil {
		return allFailed(urls, err)
	}
	got := map[string]extracted{}
	for _, r := range resp.Results {
		got[r.URL] = extracted{URL: r.URL, Title: r.Title, Content: firstNonEmpty(r.RawContent, r.Content)}
	}
	for _, f := range resp.FailedResults {
		got[f.URL] = failed(f.URL, firstNonEmpty(f.Error, "extraction failed"))
	}
	for _, u := range resp.FailedURLs {
		got[u] = failed(u, "extraction failed")
	}
	return byURL(urls, got)
}

func (t *tools) exaExtract(ctx context.Context, urls []string) []extracted {
	key := t.getenv("EXA_API_KEY")
	if key == "" {
		return allFailed(urls, errors.New(exaMissingKey))
	}
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
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
	h := headers("Content-Type", "application/json", "x-api-key", key, "x-exa-integration", "hermes-agent")
	if err := t.vendorCall(ctx, BackendExa, "extract", http.MethodPost, t.url(exaAPI)+"/contents", h,
		object{"urls", urls, "text", true}, &resp); err != nil {
		return allFailed(urls, err)
	}
	got := map[string]extracted{}
	for _, s := range resp.Statuses {
		if s.Status != "success" {
			got[s.ID] = failed(s.ID, strings.TrimSpace(fmt.Sprintf("Exa could not extract this URL: %s (HTTP %d)", s.Error.Tag, s.Error.HTTPStatusCode)))
		}
	}
	for _, r := range resp.Results {
		row := extracted{URL: r.URL, Title: r.Title, Content: r.Text}
		got[r.URL] = row
		if r.ID != "" {
			got[r.ID] = row
		}
	}
	return byURL(urls, got)
}

func (t *tools) parallelExtract(ctx context.Context, urls []string) []extracted {
	key := t.getenv("PARALLEL_API_KEY")
	if key == "" {
		return allFailed(urls, errors.New(parallelMissingKey))
	}
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	var resp parallelExtract
	h := headers("Content-Type", "application/json", "x-api-key", key, "parallel-beta", parallelBeta)
	if err := t.vendorCall(ctx, BackendParallel, "extract", http.MethodPost, t.url(parallelAPI)+"/v1beta/extract", h,
		object{"urls", urls, "full_content", true}, &resp); err != nil {
		return allFailed(urls, err)
	}
	return resp.rows(urls)
}

// perplexityQuery is the relevance query the original derives from the
// URLs' path words (Perplexity returns passages relevant to a query, not
// whole pages).
func perplexityQuery(urls []string) string {
	var words []string
	seen := map[string]bool{}
	for _, raw := range urls {
		p, err := url.Parse(raw)
		if err != nil {
			continue
		}
		path := strings.NewReplacer("-", " ", "_", " ", "/", " ").Replace(p.Path)
		for _, tok := range strings.Fields(path) {
			low := strings.ToLower(tok)
			if !seen[low] && !isDigits(tok) {
				seen[low] = true
				words = append(words, low)
			}
		}
		if strings.Trim(p.Path, "/") == "" {
			words = append(words, p.Host)
		}
	}
	q := clipRunes(strings.Join(words, " "), 500)
	if q == "" {
		q = clipRunes(strings.Join(urls, " "), 500)
	}
	return q
}

func isDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) {
			return false
		}
	}
	return s != ""
}

func (t *tools) perplexityExtract(ctx context.Context, urls []string) []extracted {
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	var resp struct {
		Results []struct {
			URL   string `json:"url"`
			Text  string `json:"text"`
			Error any    `json:"error"`
		} `json:"results"`
	}
	payload := object{"query", perplexityQuery(urls), "urls", urls, "max_tokens", 16384, "max_tokens_per_page", 4096}
	if err := t.perplexityRequest(ctx, "sdk/content/snippets", "extract", payload, &resp); err != nil {
		return allFailed(urls, err)
	}
	got := map[string]extracted{}
	for _, r := range resp.Results {
		row := extracted{URL: r.URL, Content: r.Text}
		switch {
		case r.Error != nil && r.Error != "" && r.Error != false:
			row = failed(r.URL, fmt.Sprint(r.Error))
		case r.Text == "":
			row = failed(r.URL, "no content returned")
		}
		got[r.URL] = row
	}
	rows := byURL(urls, got)
	for i := range rows {
		if rows[i].Error != nil && *rows[i].Error == noResultRow {
			rows[i] = failed(urls[i], "no content returned")
		}
	}
	return rows
}

func (t *tools) keenableFetch(ctx context.Context, u string) extracted {
	r, err := t.send(ctx, http.MethodGet, t.url(keenableAPI)+"/v1/fetch?"+url.Values{"url": {u}}.Encode(), t.keenableHeaders(false), nil)
	if err != nil {
		return failed(u, "Keenable extract failed: "+t.describe(err))
	}
	if !r.ok() {
		return failed(u, "Keenable extract failed: "+bodyText(r)+retryNote(r)+fixHint(BackendKeenable, r.status))
	}
	return keenablePage(u, r.body)
}

// firecrawlScrape reads one URL through Firecrawl's /v2/scrape, keyed,
// self-hosted or (when named without either) anonymously.
func (t *tools) firecrawlScrape(ctx context.Context, c Config, u string) extracted {
	base, h, err := t.firecrawlTarget(c)
	if err != nil {
		return failed(u, err.Error())
	}
	r, err := t.send(ctx, http.MethodPost, base+"/v2/scrape", h, encodeBody(object{"url", u, "formats", []string{"markdown"}}))
	if errors.Is(err, errTimeout) {
		return failed(u, fmt.Sprintf("Scrape timed out after %v — page may be too large or unresponsive. Try browser_navigate instead.", t.timeout))
	}
	if err != nil {
		return failed(u, "Firecrawl scrape failed: "+t.describe(err))
	}
	if !r.ok() {
		return failed(u, fmt.Sprintf("Firecrawl scrape failed: %v%s", statusErr(r), fixHint(BackendFirecrawl, r.status)))
	}
	return t.firecrawlPage(ctx, u, r.body)
}

// firecrawlPage maps a scrape answer, checking the page it ended on (after
// Firecrawl followed redirects) against the URL policy again.
func (t *tools) firecrawlPage(ctx context.Context, u string, body []byte) extracted {
	var plain struct {
		Data     json.RawMessage `json:"data"`
		Markdown string          `json:"markdown"`
		HTML     string          `json:"html"`
		Metadata json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(body, &plain); err != nil {
		return failed(u, fmt.Sprintf("Firecrawl answered with something that is not JSON: %v", err))
	}
	payload := plain
	if len(plain.Data) > 0 && plain.Data[0] == '{' {
		payload = struct {
			Data     json.RawMessage `json:"data"`
			Markdown string          `json:"markdown"`
			HTML     string          `json:"html"`
			Metadata json.RawMessage `json:"metadata"`
		}{}
		_ = json.Unmarshal(plain.Data, &payload)
	}
	var md struct {
		Title      any    `json:"title"`
		SourceURL  string `json:"sourceURL"`
		StatusCode int    `json:"statusCode"`
		Error      string `json:"error"`
	}
	_ = json.Unmarshal(payload.Metadata, &md)
	title, _ := md.Title.(string)
	final := firstNonEmpty(md.SourceURL, u)
	c, _ := LoadConfig(t.home)
	if _, err := urlguard.CheckURL(ctx, final, urlPolicy(c, t.home), t.resolver); err != nil && final != u {
		row := extracted{URL: final, Title: title}
		row.fail(err)
		return row
	}
	if md.Error != "" || md.StatusCode >= 400 {
		return failed(final, fmt.Sprintf("HTTP %d: %s", md.StatusCode, firstNonEmpty(md.Error, http.StatusText(md.StatusCode))))
	}
	return extracted{URL: final, Title: title, Content: firstNonEmpty(payload.Markdown, payload.HTML)}
}
