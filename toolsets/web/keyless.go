package web

// The keyless free tier: four vendors' anonymous public endpoints (Exa's
// and Parallel's MCP servers, Firecrawl's cloud API without a key,
// Keenable's public API), called in a round robin that starts at a random
// vendor per process and moves to the next vendor only when one answers
// with a rate limit, as the original's plugins/web/keyless_mcp.py does.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/redact"
)

// ringState is the round robin's cursor and the per-process session id
// Parallel's free tier counts requests by. Both belong to one toolset
// (one process), never to the package.
type ringState struct {
	mu      sync.Mutex
	cursor  int
	session string
}

func newRingState(start *int) *ringState {
	r := &ringState{}
	var b [16]byte
	_, _ = rand.Read(b[:])
	r.session = hex.EncodeToString(b[:])
	if start != nil {
		r.cursor = ((*start % len(ring)) + len(ring)) % len(ring)
	} else {
		// The original derives the start from its random session id;
		// any uniform start spreads a fleet the same way.
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(ring))))
		r.cursor = int(n.Int64())
	}
	return r
}

// order is the vendors to try for a call on behalf of name: from name's
// place in the ring when config.yaml pins it (names it as a backend, or
// tier free), else from the cursor, which then moves on by one; vendors
// pinned paid are left out.
func (r *ringState) order(c Config, name string) []string {
	start := 0
	if name != "" && (c.Tier(name) == "free" || c.selects(name)) {
		for i, v := range ring {
			if v == name {
				start = i
			}
		}
	} else {
		r.mu.Lock()
		start = r.cursor
		r.cursor = (r.cursor + 1) % len(ring)
		r.mu.Unlock()
	}
	var out []string
	for i := range ring {
		v := ring[(start+i)%len(ring)]
		if c.Tier(v) != "paid" {
			out = append(out, v)
		}
	}
	return out
}

const allPaidError = "All keyless web providers are pinned to paid tiers."

// rateLimited is the original's test for a throttled free tier: only
// these failures move a call on to the next vendor; any other error
// would fail everywhere (a malformed query) and ends the walk.
func rateLimited(msg string) bool {
	m := strings.ToLower(msg)
	for _, marker := range []string{"rate limit", "rate-limit", "ratelimit", "too many requests", "429", "quota exceeded", "slow down"} {
		if strings.Contains(m, marker) {
			return true
		}
	}
	return false
}

// vendorHint is the label, key variable and sign-up site of a ring vendor.
func vendorHint(vendor string) (label, key, site string) {
	switch vendor {
	case BackendExa:
		return "Exa", "EXA_API_KEY", "https://exa.ai"
	case BackendParallel:
		return "Parallel", "PARALLEL_API_KEY", "https://parallel.ai"
	case BackendFirecrawl:
		return "Firecrawl", "FIRECRAWL_API_KEY", "https://firecrawl.dev"
	}
	return "Keenable", "KEENABLE_API_KEY", "https://keenable.ai"
}

// keylessFail is the original's failure text for a keyless call, with its
// pointer to the `hermes tools` wizard replaced by the config.yaml setting
// that picks a keyed backend.
func keylessFail(vendor, kind string, err error, otherBackends bool) error {
	label, key, site := vendorHint(vendor)
	alt := ""
	if otherBackends {
		alt = " or another web backend (web.search_backend / web.extract_backend in config.yaml)"
	}
	return fmt.Errorf("Keyless %s %s failed: %v. Set %s (%s)%s for reliable service.", label, kind, err, key, site, alt)
}

// ringSearch runs one search on the keyless tier on behalf of name ("" for
// a call nothing was configured for). servedBy is the vendor that
// answered when it is not name.
func (t *tools) ringSearch(ctx context.Context, c Config, name, query string, limit int) (rows []json.RawMessage, servedBy string, err error) {
	order := t.ring.order(c, name)
	if len(order) == 0 {
		return nil, "", errors.New(allPaidError)
	}
	if name == "" {
		name = order[0]
	}
	var last error
	for i, v := range order {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		rows, err := t.keylessSearch(ctx, v, query, limit)
		if err == nil {
			if v != name {
				servedBy = v
			}
			return rows, servedBy, nil
		}
		if ctx.Err() != nil || !rateLimited(err.Error()) {
			return nil, "", err
		}
		last = err
		if i+1 < len(order) {
			t.log.Info("keyless search throttled; failing over", "vendor", v, "next", order[i+1])
		}
	}
	return nil, "", fmt.Errorf("%v (all keyless vendors throttled: %s)", last, strings.Join(order, ", "))
}

func (t *tools) keylessSearch(ctx context.Context, vendor, query string, limit int) ([]json.RawMessage, error) {
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	switch vendor {
	case BackendExa:
		text, err := t.mcpCall(ctx, t.url(exaMCP), "web_search_exa", object{"query", query, "numResults", max(1, limit)})
		if err != nil {
			return nil, keylessFail(vendor, "search", err, true)
		}
		return parseExaBlocks(text, limit), nil
	case BackendParallel:
		text, err := t.mcpCall(ctx, t.url(parallelMCP), "web_search",
			object{"objective", query, "search_queries", []string{query}, "session_id", t.ring.session})
		if err != nil {
			return nil, keylessFail(vendor, "search", err, true)
		}
		var data struct {
			Results []struct {
				URL      string   `json:"url"`
				Title    string   `json:"title"`
				Excerpts []string `json:"excerpts"`
			} `json:"results"`
		}
		if err := json.Unmarshal([]byte(text), &data); err != nil {
			return nil, fmt.Errorf("Keyless Parallel search returned an unexpected payload: %v", err)
		}
		res := data.Results
		if limit > 0 && len(res) > limit {
			res = res[:limit]
		}
		rows := make([]json.RawMessage, len(res))
		for i, r := range res {
			rows[i] = row(urlHit{r.URL, r.Title, strings.Join(r.Excerpts, " "), i + 1})
		}
		return rows, nil
	case BackendFirecrawl:
		r, err := t.send(ctx, http.MethodPost, t.url(firecrawlKeyless)+"/v2/search",
			headers("Content-Type", "application/json"), encodeBody(object{"query", query, "limit", limit}))
		if err != nil {
			err = t.transportErr(err)
		} else if !r.ok() {
			err = statusErr(r)
		}
		if err != nil {
			return nil, keylessFail(vendor, "search", err, true)
		}
		rows, perr := firecrawlRows(r.body)
		if perr != nil {
			return nil, keylessFail(vendor, "search", perr, true)
		}
		return rows, nil
	default:
		r, err := t.send(ctx, http.MethodPost, t.url(keenableAPI)+"/v1/search/public",
			headers("Content-Type", "application/json", "X-Keenable-Title", keenableTitle),
			encodeBody(object{"query", query, "max_results", max(1, limit)}))
		if err != nil {
			err = t.transportErr(err)
		} else if !r.ok() {
			err = errors.New(bodyText(r) + retryNote(r))
		}
		if err != nil {
			return nil, keylessFail(vendor, "search", err, true)
		}
		rows, perr := keenableRows(r.body)
		if perr != nil {
			return nil, keylessFail(vendor, "search", perr, true)
		}
		return rows, nil
	}
}

// statusErr is an HTTP status as the original's clients word it when they
// raise for it.
func statusErr(r reply) error {
	return fmt.Errorf("HTTP %d: %s%s", r.status, clip(strings.TrimSpace(redact.String(string(r.body))), 300), retryNote(r))
}

// transportErr words a transport failure as the original's clients do.
func (t *tools) transportErr(err error) error {
	return fmt.Errorf("request failed: %s", t.describe(err))
}

const keenableTitle = "hermes-agent"

// keenableRows maps Keenable's {"results":[{title,url,snippet}]}.
func keenableRows(body []byte) ([]json.RawMessage, error) {
	var data struct {
		Results []struct {
			URL         string `json:"url"`
			Title       string `json:"title"`
			Snippet     string `json:"snippet"`
			Description string `json:"description"`
		} `json:"results"`
	}
	if err := json.Unmarshal(body, &data); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v", err)
	}
	rows := make([]json.RawMessage, len(data.Results))
	for i, r := range data.Results {
		rows[i] = row(urlHit{r.URL, r.Title, firstNonEmpty(r.Snippet, r.Description), i + 1})
	}
	return rows, nil
}

// firecrawlRows finds Firecrawl's result list in whichever shape the API
// version sent (data as a list, data.web, data.results, web, results) and
// passes its objects through as they are, as the original does.
func firecrawlRows(body []byte) ([]json.RawMessage, error) {
	var plain map[string]json.RawMessage
	if err := json.Unmarshal(body, &plain); err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %v", err)
	}
	objects := func(raw json.RawMessage) []json.RawMessage {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil
		}
		var out []json.RawMessage
		for _, item := range list {
			if t := bytes.TrimSpace(item); len(t) > 0 && t[0] == '{' {
				out = append(out, t)
			}
		}
		return out
	}
	data := bytes.TrimSpace(plain["data"])
	if len(data) > 0 && data[0] == '[' {
		return nonNil(objects(data)), nil
	}
	var nested map[string]json.RawMessage
	_ = json.Unmarshal(data, &nested)
	for _, cand := range []json.RawMessage{nested["web"], nested["results"], plain["web"], plain["results"]} {
		if rows := objects(cand); len(rows) > 0 {
			return rows, nil
		}
	}
	return []json.RawMessage{}, nil
}

func nonNil(rows []json.RawMessage) []json.RawMessage {
	if rows == nil {
		return []json.RawMessage{}
	}
	return rows
}

// exaLabels start the labelled lines of an Exa MCP result block.
var exaLabels = []string{"Title:", "URL:", "Highlights:", "Published:", "Author:"}

func hasLabel(s string) bool {
	for _, l := range exaLabels {
		if strings.HasPrefix(s, l) {
			return true
		}
	}
	return false
}

// parseExaBlocks reads Exa's MCP search text: blocks split by "---"
// lines, each with Title:, URL:, Published:, Author: and Highlights:
// followed by free lines that run to the next label. Blocks without a URL
// are skipped.
func parseExaBlocks(text string, limit int) []json.RawMessage {
	rows := []json.RawMessage{}
	for _, block := range strings.Split(text, "\n---\n") {
		var title, link string
		var highlights []string
		inHighlights := false
		for _, line := range strings.Split(block, "\n") {
			s := strings.TrimSpace(line)
			switch {
			case strings.HasPrefix(s, "Title:"):
				title = strings.TrimSpace(strings.TrimPrefix(s, "Title:"))
			case strings.HasPrefix(s, "URL:"):
				link = strings.TrimSpace(strings.TrimPrefix(s, "URL:"))
			case inHighlights && s != "" && !hasLabel(s):
				highlights = append(highlights, s)
			}
			if hasLabel(s) {
				inHighlights = strings.HasPrefix(s, "Highlights:")
			}
		}
		if link != "" {
			rows = append(rows, row(urlHit{link, title, strings.Join(highlights, " "), len(rows) + 1}))
		}
		if limit > 0 && len(rows) >= limit {
			break
		}
	}
	return rows
}

// mcpCall sends one JSON-RPC tools/call to a public MCP endpoint, with no
// initialize handshake and no session, as the original does, and returns
// the first text the result carries. A reply may be plain JSON or a
// server-sent event stream; on a stream the first event with an answer
// ends the call, so a server that keeps the stream open does not hold it.
func (t *tools) mcpCall(ctx context.Context, endpointURL, tool string, args object) (string, error) {
	payload := encodeBody(object{"jsonrpc", "2.0", "id", 1, "method", "tools/call",
		"params", object{"name", tool, "arguments", args}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpointURL, bytes.NewReader(payload))
	if err != nil {
		return "", fmt.Errorf("request failed: bad endpoint URL: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("User-Agent", "hermes-agent")
	resp, err := t.api.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("request failed: no answer within %v", t.timeout)
		}
		return "", fmt.Errorf("request failed: %v", redactErr(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return "", statusErr(reply{status: resp.StatusCode, header: resp.Header, body: body})
	}
	br := bufio.NewReader(io.LimitReader(resp.Body, maxAPIResponse))
	first, _ := peekNonSpace(br)
	if first == '{' {
		body, err := io.ReadAll(br)
		if err != nil && ctx.Err() != nil {
			return "", fmt.Errorf("request failed: no answer within %v", t.timeout)
		}
		if text, found, err := mcpPayload(string(body)); err != nil || found {
			return text, err
		}
		return "", errors.New("Unrecognized MCP response shape")
	}
	for {
		line, rerr := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			if text, found, err := mcpPayload(data); err != nil || found {
				return text, err
			}
		}
		if rerr != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("request failed: no answer within %v", t.timeout)
			}
			return "", errors.New("Unrecognized MCP response shape")
		}
	}
}

// peekNonSpace returns the first byte that is not white space, leaving it
// unread.
func peekNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			_, _ = br.ReadByte()
		default:
			return b[0], nil
		}
	}
}

// mcpPayload reads one JSON-RPC message: a JSON-RPC error or a result
// flagged isError is the call's error (Exa's free-tier rate limit comes as
// the latter); found is false for anything that is not an answer.
func mcpPayload(s string) (text string, found bool, err error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") {
		return "", false, nil
	}
	var msg struct {
		Error  json.RawMessage `json:"error"`
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text any `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if json.Unmarshal([]byte(s), &msg) != nil {
		return "", false, nil
	}
	if e := bytes.TrimSpace(msg.Error); len(e) > 0 && string(e) != "null" && string(e) != "{}" && string(e) != `""` && string(e) != "false" {
		var obj struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e, &obj) == nil && obj.Message != "" {
			return "", true, errors.New(obj.Message)
		}
		return "", true, errors.New(string(e))
	}
	var texts []string
	for _, c := range msg.Result.Content {
		if s, ok := c.Text.(string); ok && s != "" {
			texts = append(texts, s)
		} else if c.Text != nil && c.Text != "" {
			texts = append(texts, fmt.Sprint(c.Text))
		}
	}
	if msg.Result.IsError {
		if len(texts) == 0 {
			return "", true, errors.New("MCP tool call failed")
		}
		return "", true, errors.New(strings.Join(texts, " "))
	}
	if len(texts) == 0 {
		return "", false, nil
	}
	return texts[0], true, nil
}

// ringExtract reads pages on the keyless tier on behalf of name, moving to
// the next vendor only when every page of the batch was refused with a
// rate limit.
func (t *tools) ringExtract(ctx context.Context, c Config, name string, urls []string) []extracted {
	order := t.ring.order(c, name)
	if len(order) == 0 {
		rows := make([]extracted, len(urls))
		for i, u := range urls {
			rows[i] = failed(u, allPaidError)
		}
		return rows
	}
	var last []extracted
	for i, v := range order {
		if ctx.Err() != nil {
			break
		}
		rows := t.keylessExtract(ctx, v, urls)
		throttled := len(rows) > 0
		for _, r := range rows {
			if r.Error == nil || !rateLimited(*r.Error) || r.BlockedByPolicy {
				throttled = false
			}
		}
		if !throttled {
			return rows
		}
		last = rows
		if i+1 < len(order) {
			t.log.Info("keyless extract throttled; failing over", "vendor", v, "next", order[i+1])
		}
	}
	if last == nil {
		last = make([]extracted, len(urls))
		for i, u := range urls {
			last[i] = failed(u, "Interrupted")
		}
	}
	return last
}

// keylessExtract reads urls through one ring vendor; rows come back in
// input order.
func (t *tools) keylessExtract(ctx context.Context, vendor string, urls []string) []extracted {
	rows := make([]extracted, len(urls))
	if vendor == BackendParallel {
		ctx, cancel := t.withTimeout(ctx)
		defer cancel()
		text, err := t.mcpCall(ctx, t.url(parallelMCP), "web_fetch",
			object{"urls", urls, "objective", "Full page content", "session_id", t.ring.session})
		var data parallelExtract
		if err == nil {
			if jerr := json.Unmarshal([]byte(text), &data); jerr != nil {
				err = jerr
			}
		}
		if err != nil {
			msg := keylessFail(vendor, "extract", err, true).Error()
			for i, u := range urls {
				rows[i] = failed(u, msg)
			}
			return rows
		}
		return data.rows(urls)
	}
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Go(func() {
			ctx, cancel := t.withTimeout(ctx)
			defer cancel()
			rows[i] = t.keylessFetch(ctx, vendor, u)
		})
	}
	wg.Wait()
	return rows
}

// keylessFetch reads one page through Exa, Firecrawl or Keenable.
func (t *tools) keylessFetch(ctx context.Context, vendor, u string) extracted {
	switch vendor {
	case BackendExa:
		text, err := t.mcpCall(ctx, t.url(exaMCP), "web_fetch_exa", object{"urls", []string{u}})
		if err != nil {
			return failed(u, keylessFail(vendor, "extract", err, true).Error())
		}
		return extracted{URL: u, Title: exaTitle(text), Content: text}
	case BackendFirecrawl:
		r, err := t.send(ctx, http.MethodPost, t.url(firecrawlKeyless)+"/v2/scrape",
			headers("Content-Type", "application/json"), encodeBody(object{"url", u, "formats", []string{"markdown"}}))
		if err != nil {
			err = t.transportErr(err)
		} else if !r.ok() {
			err = statusErr(r)
		}
		if err != nil {
			return failed(u, keylessFail(vendor, "extract", err, false).Error())
		}
		return t.firecrawlPage(ctx, u, r.body)
	default:
		r, err := t.send(ctx, http.MethodGet, t.url(keenableAPI)+"/v1/fetch/public?"+url.Values{"url": {u}}.Encode(),
			headers("X-Keenable-Title", keenableTitle), nil)
		if err != nil {
			err = t.transportErr(err)
		} else if !r.ok() {
			err = errors.New(bodyText(r) + retryNote(r))
		}
		if err != nil {
			return failed(u, keylessFail(vendor, "extract", err, false).Error())
		}
		return keenablePage(u, r.body)
	}
}

// exaTitle is the first Markdown heading or Title: line of Exa's text.
func exaTitle(text string) string {
	for _, line := range strings.Split(text, "\n") {
		s := strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(s, "# "); ok {
			return strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(s, "Title:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// parallelExtract is Parallel's extract answer, from its MCP fetch tool
// and its keyed API alike.
type parallelExtract struct {
	Results []struct {
		URL         string   `json:"url"`
		Title       string   `json:"title"`
		FullContent string   `json:"full_content"`
		Content     string   `json:"content"`
		Excerpts    []string `json:"excerpts"`
	} `json:"results"`
	Errors []struct {
		URL       string `json:"url"`
		Content   string `json:"content"`
		ErrorType string `json:"error_type"`
	} `json:"errors"`
}

// rows puts Parallel's answer in input order; a URL it dropped gets the
// original's "no content returned".
func (p parallelExtract) rows(urls []string) []extracted {
	byURL := map[string]extracted{}
	for _, r := range p.Results {
		content := firstNonEmpty(r.FullContent, r.Content, strings.Join(r.Excerpts, "\n\n"))
		byURL[r.URL] = extracted{URL: r.URL, Title: r.Title, Content: content}
	}
	for _, e := range p.Errors {
		if _, ok := byURL[e.URL]; !ok {
			byURL[e.URL] = failed(e.URL, firstNonEmpty(e.Content, e.ErrorType, "extraction failed"))
		}
	}
	rows := make([]extracted, len(urls))
	for i, u := range urls {
		r, ok := byURL[u]
		if !ok {
			r = failed(u, "no content returned")
		}
		r.URL = u
		rows[i] = r
	}
	return rows
}

// keenablePage maps Keenable's {url,title,content}.
func keenablePage(u string, body []byte) extracted {
	var d struct {
		URL     string `json:"url"`
		Title   string `json:"title"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return failed(u, fmt.Sprintf("Keenable answered with something that is not JSON: %v", err))
	}
	return extracted{URL: u, Title: d.Title, Content: d.Content}
}

// logger returns l, or one that discards.
func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
