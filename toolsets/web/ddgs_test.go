package web

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
)

const ddgsConfig = "web:\n  search_backend: ddgs\n"

// ddgs, named in config.yaml: Wikipedia's article first, then
// DuckDuckGo's results, title-first, the ad dropped, tags and entities
// gone, links unquoted as ddgs unquotes them; the form DuckDuckGo's HTML
// endpoint takes.
func TestDDGSResults(t *testing.T) {
	f := newFixture(t, nil, ddgsConfig)
	raw, isErr := f.callRaw(t, context.Background(), "web_search", map[string]any{"query": "gopher news", "limit": 4})
	out := map[string]any{}
	if err := jsonUnmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	web := webRows(t, out, isErr)
	if len(web) != 4 || !strings.Contains(raw, `"web":[{"title":`) {
		t.Fatalf("want 4 title-first rows: %s", raw)
	}
	if web[0]["url"] != "https://en.wikipedia.org/wiki/Gopher_(fixture)" || web[0]["title"] != "Gopher (fixture)" ||
		web[0]["description"] != "The gopher is a fixture animal that digs tunnels under the brass telescope." {
		t.Errorf("row 0 = %v, want the Wikipedia article", web[0])
	}
	if web[1]["title"] != "Result 1 for gopher news & friends" || web[1]["url"] != "https://example.com/ddg/gopher+news/1?ref=a+b" ||
		web[1]["description"] != "Snippet 1 with bold & entities — about gopher news." || web[1]["position"] != float64(2) {
		t.Errorf("row 1 = %v", web[1])
	}
	for _, w := range web {
		if strings.Contains(w["url"].(string), "y.js") {
			t.Errorf("the ad was kept: %v", w)
		}
	}
	reqs := f.fake.Requests(fakeapis.DuckDuckGo)
	if len(reqs) != 1 || reqs[0].Method != "POST" || reqs[0].Path != "/html/" || string(reqs[0].Body) != "q=gopher+news&b=&l=us-en" {
		t.Errorf("DuckDuckGo request: %+v", reqs)
	}
	wiki := f.fake.Requests(fakeapis.Wikipedia)
	if len(wiki) != 2 || wiki[0].Query.Get("search") != "gopher news" || wiki[1].Query.Get("titles") != "Gopher (fixture)" {
		t.Errorf("Wikipedia requests: %+v", wiki)
	}
}

// A disambiguation page or no article leaves DuckDuckGo's results alone.
func TestDDGSWithoutWikipedia(t *testing.T) {
	for _, q := range []string{"nowiki gophers", "ambiguous gophers"} {
		f := newFixture(t, nil, ddgsConfig)
		out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": q})
		web := webRows(t, out, isErr)
		if len(web) != 5 || strings.Contains(web[0]["url"].(string), "wikipedia") {
			t.Errorf("%s: %v", q, web)
		}
	}
}

// No results is never an empty success: what DuckDuckGo sent back is said,
// with the setting that picks another backend (rescue off here, so the
// failure itself is the answer).
func TestDDGSNoResults(t *testing.T) {
	cfg := ddgsConfig + "  keyless_rescue: false\n"
	pickOther := "set web.search_backend in config.yaml"
	tests := []struct {
		query string
		want  string
	}{
		{"nowiki trigger-202", "DuckDuckGo search failed: No results found: DuckDuckGo answered HTTP 202 with its bot challenge (captcha) page instead of results"},
		{"nowiki trigger-challenge", "DuckDuckGo answered HTTP 200 with its bot challenge (captcha) page"},
		{"nowiki trigger-noresults", "DuckDuckGo has no results for this query"},
		{"nowiki trigger-empty", "DuckDuckGo's page held no results it could read"},
		{"nowiki trigger-500", "DuckDuckGo answered HTTP 500"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			f := newFixture(t, nil, cfg)
			out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": tt.query})
			msg := errorText(t, out, isErr)
			if !strings.Contains(msg, tt.want) || !strings.Contains(msg, pickOther) {
				t.Errorf("error = %q, want %q and the setting", msg, tt.want)
			}
		})
	}
	// With the rescue on, as by default, the keyless tier answers and
	// says why.
	f := newFixture(t, nil, ddgsConfig)
	out, isErr := f.call(t, context.Background(), "web_search", map[string]any{"query": "nowiki trigger-202"})
	webRows(t, out, isErr)
	if data := out["data"].(map[string]any); data["rescued_from"] != BackendDDGS ||
		!strings.Contains(data["backend_error"].(string), "bot challenge") {
		t.Errorf("data = %v", data)
	}
}

func TestDDGSText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  Snippet with <b>bold</b>\u00a0&amp; more\u2028lines  ", "Snippet with bold & more lines"},
		{"Cafe\u0301", "Café"},
	}
	for _, tt := range tests {
		if got := normalizeDDG(tt.in); got != tt.want {
			t.Errorf("normalizeDDG(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for in, want := range map[string]string{
		"https://a.example/x%20y?q=%E2%9C%93": "https://a.example/x+y?q=✓",
		"https://a.example/100%zz":            "https://a.example/100%zz",
		"https://a.example/%ff":               "https://a.example/\uFFFD",
	} {
		if got := normalizeDDGURL(in); got != want {
			t.Errorf("normalizeDDGURL(%q) = %q, want %q", in, got, want)
		}
	}
	if got := pyQuote("a b/c&d=é"); got != "a%20b/c%26d%3D%C3%A9" {
		t.Errorf("pyQuote = %q", got)
	}
	if u, _ := url.QueryUnescape(pyQuote("x y")); u != "x y" {
		t.Error("pyQuote does not round-trip")
	}
	ranked := rankDDG([]ddgHit{
		{"Neither", "https://n.example", "nothing"},
		{"Body only", "https://b.example", "about gophers"},
		{"Category:Gophers - Wikimedia Commons", "https://commons.example", "gophers"},
		{"Gophers", "https://t.example", "title only"},
		{"Gophers both", "https://tb.example", "gophers here"},
		{"Gopher", "https://en.wikipedia.org/wiki/Gopher", "x"},
	}, "gophers")
	var order []string
	for _, h := range ranked {
		order = append(order, h.title)
	}
	if got := strings.Join(order, "|"); got != "Gopher|Gophers both|Gophers|Body only|Neither" {
		t.Errorf("ranked %s", got)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }
