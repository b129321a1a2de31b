package web

// The ddgs backend: what the original gets from the ddgs Python package
// with backend "auto", reduced to the two engines that can be reproduced
// deterministically: Wikipedia (asked first, as ddgs asks it first) and
// DuckDuckGo's HTML endpoint, merged and ranked as ddgs ranks them. ddgs
// also asks Grokipedia and a random pick of other engines; those are left
// out. DuckDuckGo answers automated searches with a challenge page from
// time to time; that is reported as what it is, never as an empty result.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"

	"github.com/hermes-go/hermes/internal/pagetext"
	"github.com/hermes-go/hermes/internal/pystr"
)

// ddgHit is one ddgs text result.
type ddgHit struct{ title, href, body string }

// ddgPage is what DuckDuckGo's HTML endpoint answered, for the message
// when it gave no results.
type ddgPage struct {
	hits      []ddgHit
	status    int
	challenge bool
	noResults bool
	err       error
}

const ddgPickOther = "To search through another backend, set web.search_backend in config.yaml (for example exa, " +
	"or searxng with SEARXNG_URL), or remove the ddgs setting to use the keyless free tier."

func (t *tools) ddgsSearch(ctx context.Context, query string, limit int) ([]json.RawMessage, error) {
	var wiki []ddgHit
	var page ddgPage
	var wg sync.WaitGroup
	wg.Go(func() { wiki = t.wikipedia(ctx, query) })
	wg.Go(func() { page = t.duckduckgo(ctx, query) })
	wg.Wait()
	if ctx.Err() != nil && !errors.Is(page.err, errTimeout) {
		return nil, ctx.Err()
	}
	hits := rankDDG(mergeDDG(append(wiki, page.hits...)), query)
	if len(hits) == 0 {
		return nil, ddgNoResults(page, t)
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	rows := make([]json.RawMessage, len(hits))
	for i, h := range hits {
		rows[i] = row(titleHit{h.title, h.href, h.body, i + 1})
	}
	return rows, nil
}

// ddgNoResults says why DuckDuckGo gave nothing. The original can only
// say "No results found."; the page tells more.
func ddgNoResults(p ddgPage, t *tools) error {
	const prefix = "DuckDuckGo search failed: No results found"
	switch {
	case errors.Is(p.err, errTimeout):
		return fmt.Errorf("DuckDuckGo search timed out after %v — DuckDuckGo may be rate-limiting or slow. "+
			"Try again later or switch to a different search provider. %s", t.timeout, ddgPickOther)
	case p.err != nil:
		return fmt.Errorf("%s: could not reach DuckDuckGo (%v). %s", prefix, p.err, ddgPickOther)
	case p.status == http.StatusAccepted || p.challenge:
		return fmt.Errorf("%s: DuckDuckGo answered HTTP %d with its bot challenge (captcha) page instead of results: "+
			"it is rate-limiting searches from this machine. %s", prefix, p.status, ddgPickOther)
	case p.status != http.StatusOK:
		return fmt.Errorf("%s: DuckDuckGo answered HTTP %d. %s", prefix, p.status, ddgPickOther)
	case p.noResults:
		return fmt.Errorf("%s: DuckDuckGo has no results for this query; try other words. %s", prefix, ddgPickOther)
	}
	return fmt.Errorf("%s: DuckDuckGo's page held no results it could read (an empty or changed page). %s", prefix, ddgPickOther)
}

// duckduckgo posts the query to the HTML endpoint as ddgs does
// (q, an empty b, region us-en) and reads the result blocks.
func (t *tools) duckduckgo(ctx context.Context, query string) ddgPage {
	form := "q=" + url.QueryEscape(query) + "&b=&l=us-en"
	r, err := t.send(ctx, http.MethodPost, t.url(duckduckgoHTML)+"/html/",
		headers("Content-Type", "application/x-www-form-urlencoded", "Accept", "*/*", "User-Agent", browserUA), []byte(form))
	if err != nil {
		return ddgPage{err: err}
	}
	p := ddgPage{status: r.status}
	low := bytes.ToLower(r.body)
	p.challenge = bytes.Contains(low, []byte("anomaly-modal")) || bytes.Contains(low, []byte("challenge-form"))
	p.noResults = bytes.Contains(low, []byte(`class="no-results"`))
	if r.status == http.StatusOK {
		p.hits = parseDDG(r.body)
	}
	return p
}

// browserUA is what ddgs sends in spirit: a browser's User-Agent, since
// DuckDuckGo serves its HTML page to browsers.
const browserUA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36"

// parseDDG reads result blocks: each div whose class mentions "body"; the
// title is its h2's text, the link and snippet its direct-child <a>. Ads
// (links through duckduckgo.com/y.js) are dropped.
func parseDDG(page []byte) []ddgHit {
	doc, err := xhtml.Parse(bytes.NewReader(page))
	if err != nil {
		return nil
	}
	var hits []ddgHit
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && n.DataAtom == atom.Div && strings.Contains(pagetext.Attr(n, "class"), "body") {
			var title, href, body strings.Builder
			var inH2 func(n *xhtml.Node)
			inH2 = func(n *xhtml.Node) {
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == xhtml.ElementNode && c.DataAtom == atom.H2 {
						title.WriteString(pagetext.NodeText(c))
					} else {
						inH2(c)
					}
				}
			}
			inH2(n)
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == xhtml.ElementNode && c.DataAtom == atom.A {
					href.WriteString(pagetext.Attr(c, "href"))
					body.WriteString(pagetext.NodeText(c))
				}
			}
			h := ddgHit{title: normalizeDDG(title.String()), href: normalizeDDGURL(href.String()), body: normalizeDDG(body.String())}
			if h.href != "" && !strings.HasPrefix(h.href, "https://duckduckgo.com/y.js?") {
				hits = append(hits, h)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return hits
}

var tagRE = regexp.MustCompile(`<.*?>`)

// normalizeDDG is ddgs' text normalisation: tags stripped, entities
// unescaped (a second time, as ddgs does after its parser), NFC, every
// separator a space, white space collapsed.
func normalizeDDG(s string) string {
	s = norm.NFC.String(html.UnescapeString(tagRE.ReplaceAllString(s, "")))
	s = strings.Map(func(r rune) rune {
		if unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.FieldsFunc(s, pystr.IsSpace), " ")
}

// normalizeDDGURL is Python's unquote(href).replace(" ", "+").
func normalizeDDGURL(s string) string {
	return strings.ReplaceAll(pyUnquote(s), " ", "+")
}

// pyUnquote decodes %XX escapes, leaving malformed ones as they are and
// replacing bytes that do not form UTF-8, as Python's unquote does.
func pyUnquote(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexByte(s[i+1]) && isHexByte(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// pyQuote is Python's urllib.parse.quote with its default safe "/".
func pyQuote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("_.-~/", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// mergeDDG drops repeated links, keeping the longer snippet, and puts the
// links more engines returned first, as ddgs' aggregator does.
func mergeDDG(hits []ddgHit) []ddgHit {
	type entry struct {
		hit   ddgHit
		count int
		first int
	}
	byHref := map[string]*entry{}
	var order []*entry
	for i, h := range hits {
		if e, ok := byHref[h.href]; ok {
			e.count++
			if utf8.RuneCountInString(h.body) > utf8.RuneCountInString(e.hit.body) {
				e.hit.body = h.body
			}
			continue
		}
		e := &entry{hit: h, count: 1, first: i}
		byHref[h.href] = e
		order = append(order, e)
	}
	// A stable sort by count keeps first-seen order among equals.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && order[j].count > order[j-1].count; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	out := make([]ddgHit, len(order))
	for i, e := range order {
		out[i] = e.hit
	}
	return out
}

// rankDDG is ddgs' SimpleFilterRanker: Wikimedia category pages dropped,
// Wikipedia first, then hits whose title and body both hold a query word
// (three letters or more), title only, body only, neither.
func rankDDG(hits []ddgHit, query string) []ddgHit {
	var tokens []string
	for _, tok := range strings.FieldsFunc(pystr.Lower(query), func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || unicode.Is(unicode.Mn, r))
	}) {
		if utf8.RuneCountInString(tok) >= 3 {
			tokens = append(tokens, tok)
		}
	}
	has := func(s string) bool {
		s = pystr.Lower(s)
		for _, tok := range tokens {
			if strings.Contains(s, tok) {
				return true
			}
		}
		return false
	}
	var wiki, both, titleOnly, bodyOnly, neither []ddgHit
	for _, h := range hits {
		switch {
		case strings.Contains(h.title, "Category:") && strings.Contains(h.title, "Wikimedia"):
		case strings.Contains(h.href, "wikipedia.org"):
			wiki = append(wiki, h)
		case has(h.title) && has(h.body):
			both = append(both, h)
		case has(h.title):
			titleOnly = append(titleOnly, h)
		case has(h.body):
			bodyOnly = append(bodyOnly, h)
		default:
			neither = append(neither, h)
		}
	}
	out := append(wiki, both...)
	out = append(out, titleOnly...)
	out = append(out, bodyOnly...)
	return append(out, neither...)
}

// wikipedia asks Wikipedia's opensearch for the best title, then its
// plain-text intro, as ddgs' Wikipedia engine does. Any failure is simply
// no Wikipedia result.
func (t *tools) wikipedia(ctx context.Context, query string) []ddgHit {
	base := t.url(wikipediaAPI) + "/w/api.php?"
	r, err := t.send(ctx, http.MethodGet, base+"action=opensearch&profile=fuzzy&limit=1&search="+pyQuote(query),
		headers("User-Agent", browserUA), nil)
	if err != nil || r.status != http.StatusOK {
		return nil
	}
	var found []json.RawMessage
	if json.Unmarshal(r.body, &found) != nil || len(found) < 4 {
		return nil
	}
	var titles, links []string
	if json.Unmarshal(found[1], &titles) != nil || json.Unmarshal(found[3], &links) != nil || len(titles) == 0 || len(links) == 0 {
		return nil
	}
	h := ddgHit{title: titles[0], href: links[0]}
	r, err = t.send(ctx, http.MethodGet, base+"action=query&format=json&prop=extracts&titles="+pyQuote(h.title)+
		"&explaintext=0&exintro=0&redirects=1", headers("User-Agent", browserUA), nil)
	if err == nil && r.status == http.StatusOK {
		var q struct {
			Query struct {
				Pages map[string]struct {
					Extract string `json:"extract"`
				} `json:"pages"`
			} `json:"query"`
		}
		if json.Unmarshal(r.body, &q) == nil {
			for _, p := range q.Query.Pages {
				h.body = p.Extract
				break
			}
		}
	}
	if strings.Contains(h.body, "may refer to:") {
		return nil
	}
	h.title, h.body, h.href = normalizeDDG(h.title), normalizeDDG(h.body), normalizeDDGURL(h.href)
	return []ddgHit{h}
}
