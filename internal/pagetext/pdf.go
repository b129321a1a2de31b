package pagetext

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// PDF extracts the text of a PDF, page by page, stopping once maxChars
// characters are collected (0 means no limit) so a huge document costs no
// more than what will be shown. Title is the document's Info title, if any.
func PDF(data []byte, maxChars int) (p Page, err error) {
	// The PDF reader panics on some malformed files instead of returning an
	// error; a bad download must cost one URL, not the server.
	defer func() {
		if r := recover(); r != nil {
			p, err = Page{}, fmt.Errorf("malformed PDF: %v", r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Page{}, fmt.Errorf("read PDF: %w (encrypted or damaged PDFs cannot be extracted)", err)
	}
	title := strings.TrimSpace(r.Trailer().Key("Info").Key("Title").Text())
	fonts := map[string]*pdf.Font{}
	var b strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		page := r.Page(i)
		if page.V.IsNull() {
			continue
		}
		for _, name := range page.Fonts() {
			if _, ok := fonts[name]; !ok {
				f := page.Font(name)
				fonts[name] = &f
			}
		}
		text, err := page.GetPlainText(fonts)
		if err != nil {
			return Page{}, fmt.Errorf("read PDF page %d: %w", i, err)
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(text)
		if maxChars > 0 && b.Len() >= maxChars {
			break
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return Page{Title: title}, ErrNoText
	}
	return Page{Title: title, Markdown: b.String()}, nil
}
