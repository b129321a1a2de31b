package pagetext

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
)

func TestHTML(t *testing.T) {
	base, _ := url.Parse("https://gazette.example/2026/concurrency")
	tests := []struct {
		fixture     string
		article     bool
		title       string
		want        []string
		wantMissing []string
	}{
		{
			fixture: "article", article: true, title: "Ada Gopher on Concurrency | The Fixture Gazette",
			want: []string{
				"# Ada Gopher on Concurrency",
				"The quick amber fox audits seventeen ledgers",
				"## Measuring leaks",
				"[the leak guide](https://gazette.example/docs/leaks)",
				"func worker(ctx context.Context",
			},
			wantMissing: []string{"BUY GOPHER PLUSHIES", "tracking", "All rights reserved", "About"},
		},
		{
			fixture: "login", title: "Sign in - Fixture Portal",
			want: []string{"Sign in", "[input text: Email or username]", "[input password: password]",
				"[button: Sign in]", "[Forgot your password?](https://gazette.example/forgot)"},
			wantMissing: []string{"csrf", "abc123"},
		},
		{
			fixture: "table", title: "Release table",
			want: []string{"# Releases", "| Version | Date       | Codename        |", "|---------|", "| 2.0     | 2026-09-30 | Harbour Lights  |"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join("..", "testkit", "fakeapis", "pages", tt.fixture+".html"))
			if err != nil {
				t.Fatal(err)
			}
			p, err := HTML(body, "text/html; charset=utf-8", base)
			if err != nil {
				t.Fatal(err)
			}
			if p.Article != tt.article {
				t.Errorf("Article = %v, want %v", p.Article, tt.article)
			}
			if p.Title != tt.title {
				t.Errorf("Title = %q, want %q", p.Title, tt.title)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.Markdown, w) {
					t.Errorf("markdown lacks %q:\n%s", w, p.Markdown)
				}
			}
			for _, w := range tt.wantMissing {
				if strings.Contains(p.Markdown, w) {
					t.Errorf("markdown keeps %q:\n%s", w, p.Markdown)
				}
			}
		})
	}
}

func TestHTMLCharset(t *testing.T) {
	// "café" in ISO-8859-1, declared only in the Content-Type header.
	body := []byte("<html><head><title>Caf\xe9</title></head><body><p>Caf\xe9 au lait</p></body></html>")
	p, err := HTML(body, "text/html; charset=iso-8859-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Café" || !strings.Contains(p.Markdown, "Café au lait") {
		t.Errorf("got title %q markdown %q, want the Latin-1 text decoded", p.Title, p.Markdown)
	}
}

func TestPDF(t *testing.T) {
	p, err := PDF(fakeapis.PDF("Fixture PDF", "The harbour lights are visible (really)."), 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Fixture PDF" {
		t.Errorf("Title = %q", p.Title)
	}
	if !strings.Contains(p.Markdown, "The harbour lights are visible (really).") {
		t.Errorf("text = %q", p.Markdown)
	}
}

func TestPDFBroken(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("%PDF-1.4\ngarbage"), fakeapis.PDF("t", "x")[:200]} {
		if _, err := PDF(data, 0); err == nil {
			t.Errorf("PDF(%q) succeeded, want an error", data)
		}
	}
	if _, err := PDF(fakeapis.PDF("Empty", ""), 0); !errors.Is(err, ErrNoText) {
		t.Errorf("empty PDF: err = %v, want ErrNoText", err)
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		ct   string
		head string
		want string
	}{
		{"text/html; charset=utf-8", "<html>", "html"},
		{"application/pdf", "%PDF-1.7", "pdf"},
		{"application/octet-stream", "%PDF-1.7", "pdf"},
		{"", "<!DOCTYPE html><html>", "html"},
		{"text/plain", "hello", "text"},
		{"application/json", "{}", "text"},
		{"image/png", "\x89PNG", ""},
		{"application/zip", "PK\x03\x04", ""},
	}
	for _, tt := range tests {
		if got := Kind(tt.ct, []byte(tt.head)); got != tt.want {
			t.Errorf("Kind(%q, %q) = %q, want %q", tt.ct, tt.head, got, tt.want)
		}
	}
}
