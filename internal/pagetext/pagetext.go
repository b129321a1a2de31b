// Package pagetext turns a fetched document into text a model can read:
// HTML through readability and HTML→Markdown (the whole page when
// readability finds no article, so forms, tables and link hubs survive),
// and PDF into plain text. It does no I/O of its own: callers fetch, cap
// sizes and enforce their URL policy.
package pagetext

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// Page is an extracted document.
type Page struct {
	Title    string
	Markdown string
	// Article is true when readability found the main content; false means
	// the whole page was converted.
	Article bool
}

// minArticleChars is the shortest readability text trusted as the page's
// content. Below it readability has usually kept a fragment (a login form
// becomes "User Pass"), and the whole page tells the model more.
const minArticleChars = 200

// Kind classifies a response for extraction from its Content-Type and its
// first bytes: "pdf", "html", "text" or "" (unsupported binary).
func Kind(contentType string, head []byte) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/pdf" || bytes.HasPrefix(head, []byte("%PDF-")):
		return "pdf"
	case mt == "text/html" || mt == "application/xhtml+xml":
		return "html"
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || mt == "application/xml" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml"):
		return "text"
	case mt == "" || mt == "application/octet-stream":
		// Servers that do not say: sniff.
		sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(head))
		switch {
		case sniffed == "text/html":
			return "html"
		case strings.HasPrefix(sniffed, "text/"):
			return "text"
		}
	}
	return ""
}

// HTML extracts a page. contentType (may be empty) supplies the charset;
// pageURL makes links absolute.
func HTML(body []byte, contentType string, pageURL *url.URL) (Page, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		// An unknown charset label: decoding as UTF-8 beats failing.
		r = bytes.NewReader(body)
	}
	doc, err := html.Parse(r)
	if err != nil {
		return Page{}, fmt.Errorf("parse HTML: %w", err)
	}
	title := documentTitle(doc)
	domain := ""
	if pageURL != nil {
		domain = pageURL.String()
	}

	if readability.CheckDocument(doc) {
		// ParseDocument works on a copy, so doc stays whole for the
		// fallback below.
		article, err := readability.FromDocument(doc, pageURL)
		if err == nil && article.Node != nil {
			var text strings.Builder
			if article.RenderText(&text) == nil && utf8.RuneCountInString(strings.TrimSpace(text.String())) >= minArticleChars {
				md, err := toMarkdown(article.Node, domain)
				if err == nil {
					if t := strings.TrimSpace(article.Title()); t != "" {
						title = t
					}
					// Readability drops the <h1> that repeats the title;
					// put it back so the Markdown reads as a document.
					if title != "" && !strings.HasPrefix(md, "# ") {
						md = "# " + title + "\n\n" + md
					}
					return Page{Title: title, Markdown: md, Article: true}, nil
				}
			}
		}
	}

	body2 := findElement(doc, atom.Body)
	if body2 == nil {
		body2 = doc
	}
	prune(body2)
	md, err := toMarkdown(body2, domain)
	if err != nil {
		return Page{}, err
	}
	return Page{Title: title, Markdown: md}, nil
}

// PlainText returns a text document as it is, decoded to UTF-8.
func PlainText(body []byte, contentType string) string {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD")
	}
	return string(b)
}

func toMarkdown(n *html.Node, domain string) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	out, err := conv.ConvertNode(n, converter.WithDomain(domain))
	if err != nil {
		return "", fmt.Errorf("convert HTML to Markdown: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// dropped are elements that never carry content a reader sees, or that
// repeat on every page of a site.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Footer: true, atom.Aside: true, atom.Svg: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Canvas: true,
	atom.Head: true,
}

// prune removes chrome and rewrites form controls as text. The converter
// drops <input>, <select> and <button> entirely, which would leave a login
// page as a list of labels; a model deciding how to proceed needs to know
// the form is there and what it asks for.
func prune(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch {
			case dropped[c.DataAtom]:
				n.RemoveChild(c)
			case c.DataAtom == atom.Input:
				if text := describeInput(c); text != "" {
					n.InsertBefore(&html.Node{Type: html.TextNode, Data: " " + text + " "}, c)
				}
				n.RemoveChild(c)
			case c.DataAtom == atom.Button:
				label := strings.Join(strings.Fields(NodeText(c)), " ")
				if label == "" {
					label = Attr(c, "aria-label")
				}
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " [button: " + label + "] "}, c)
				n.RemoveChild(c)
			case c.DataAtom == atom.Select || c.DataAtom == atom.Textarea:
				n.InsertBefore(&html.Node{Type: html.TextNode, Data: " [" + c.Data + ": " + fieldName(c) + "] "}, c)
				n.RemoveChild(c)
			default:
				prune(c)
			}
		} else if c.Type == html.CommentNode {
			n.RemoveChild(c)
		}
		c = next
	}
}

func describeInput(n *html.Node) string {
	typ := strings.ToLower(Attr(n, "type"))
	if typ == "" {
		typ = "text"
	}
	switch typ {
	case "hidden":
		return ""
	case "submit", "button", "reset":
		label := Attr(n, "value")
		if label == "" {
			label = typ
		}
		return "[button: " + label + "]"
	}
	return "[input " + typ + ": " + fieldName(n) + "]"
}

func fieldName(n *html.Node) string {
	for _, k := range []string{"aria-label", "placeholder", "name", "id"} {
		if v := Attr(n, k); v != "" {
			return v
		}
	}
	return "unnamed"
}

// Attr is the value of n's attribute key, "" when it has none.
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// NodeText is all the text below n, as written (no spacing added).
func NodeText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func findElement(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := findElement(c, a); f != nil {
			return f
		}
	}
	return nil
}

func documentTitle(doc *html.Node) string {
	if t := findElement(doc, atom.Title); t != nil {
		return strings.Join(strings.Fields(NodeText(t)), " ")
	}
	return ""
}

// ErrNoText means a document was read but holds no extractable text (a
// scanned PDF, for example).
var ErrNoText = errors.New("the document contains no extractable text")
