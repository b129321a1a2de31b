package web

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/fakeapis"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

const allowPrivate = "web:\n  allow_private_urls: true\n"

// rows returns web_extract's results, failing the test on a failed call:
// a bad URL must never fail the whole call.
func rows(t *testing.T, out map[string]any, isErr bool) []map[string]any {
	t.Helper()
	if isErr {
		t.Fatalf("web_extract failed as a whole: %v", out)
	}
	var rs []map[string]any
	for _, r := range out["results"].([]any) {
		rs = append(rs, r.(map[string]any))
	}
	return rs
}

// Pages on loopback (allowed here) are read by our own extractor: no
// provider could reach them.
func TestExtractLocal(t *testing.T) {
	f := newFixture(t, nil, allowPrivate)
	fake := f.fake
	tests := []struct {
		url       string
		title     string
		want      string
		wantError string
	}{
		{fake.Page("article"), "Ada Gopher on Concurrency | The Fixture Gazette", "The quick amber fox audits seventeen ledgers", ""},
		{fake.Page("login"), "Sign in - Fixture Portal", "[input password: password]", ""},
		{fake.Page("table"), "Release table", "| 2.0     | 2026-09-30 | Harbour Lights  |", ""},
		{fake.Page("doc.pdf"), "Fixture PDF", "The harbour lights are visible from the brass telescope.", ""},
		{fake.Page("nope"), "", "", "HTTP 404"},
		{fake.Page("binary"), "", "", "unsupported content type"},
		{fake.Page("big"), "", "", "larger than 5 MB"},
		{fake.Page("redirect?to=" + url.QueryEscape(fake.Page("table"))), "Release table", "Brass Telescope", ""},
		{"http://127.0.0.1:1/closed", "", "", "fetch failed"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{tt.url}})
			r := rows(t, out, isErr)[0]
			if r["url"] != tt.url {
				t.Errorf("url = %v", r["url"])
			}
			if tt.wantError != "" {
				if e, _ := r["error"].(string); !strings.Contains(e, tt.wantError) {
					t.Errorf("error = %v, want %q", r["error"], tt.wantError)
				}
				return
			}
			if r["error"] != nil {
				t.Fatalf("error = %v", r["error"])
			}
			if r["title"] != tt.title || !strings.Contains(r["content"].(string), tt.want) {
				t.Errorf("title %q, content:\n%s\nwant title %q and %q", r["title"], r["content"], tt.title, tt.want)
			}
		})
	}
	// Nothing but the pages themselves was asked: loopback pages never go
	// to the keyless tier.
	for _, p := range []string{fakeapis.ExaMCP, fakeapis.ParallelMCP, fakeapis.Firecrawl, fakeapis.Keenable} {
		if n := len(fake.Requests(p)); n != 0 {
			t.Errorf("%s got %d requests for loopback pages", p, n)
		}
	}
}

func TestExtractConcurrentMixed(t *testing.T) {
	f := newFixture(t, nil, allowPrivate)
	urls := []string{
		f.fake.Page("slow?ms=300&name=article"),
		f.fake.Page("slow?ms=300&name=table"),
		f.fake.Page("missing"),
		"http://169.254.169.254/latest/meta-data/",
		f.fake.Page("slow?ms=300&name=login"),
	}
	start := time.Now()
	out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": urls})
	rs := rows(t, out, isErr)
	if d := time.Since(start); d > 800*time.Millisecond {
		t.Errorf("3 slow pages took %v; they should be fetched concurrently", d)
	}
	if len(rs) != 5 {
		t.Fatalf("got %d rows", len(rs))
	}
	for i, r := range rs {
		if r["url"] != urls[i] {
			t.Errorf("row %d url = %v, want input order", i, r["url"])
		}
	}
	if rs[0]["error"] != nil || rs[1]["error"] != nil || rs[4]["error"] != nil {
		t.Errorf("good rows failed: %v", rs)
	}
	if rs[2]["error"] == nil || rs[3]["blocked_by_policy"] != true {
		t.Errorf("bad rows: %v / %v", rs[2], rs[3])
	}
}

func TestExtractURLPolicy(t *testing.T) {
	strict := newFixture(t, nil, "")
	open := newFixtureWith(t, strict.fake, nil, allowPrivate, 3*time.Second)
	fake := strict.fake
	secret := "https://example.com/page?api_key=sk-abcdefghijklmnopqrstuvwx123"
	// The fake's own address, spelt as one decimal number.
	decimalLoopback := strings.Replace(fake.Page("article"), "127.0.0.1", "2130706433", 1)
	hint := "; to allow it, set web.allow_private_urls: true in " + filepath.Join(strict.home, "config.yaml")
	tests := []struct {
		name string
		f    *fixture
		url  string
		want string
	}{
		{"loopback refused by default", strict, fake.Page("article"), "Blocked: URL targets a private or internal network address (host 127.0.0.1)" + hint},
		{"decimal spelling of loopback", strict, decimalLoopback, "Blocked: URL targets a private or internal network address (host 2130706433, address 127.0.0.1)" + hint},
		{"hex spelling of metadata", open, "http://0xA9FEA9FE/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint (host 0xA9FEA9FE, address 169.254.169.254)"},
		{"mapped IPv6 metadata", open, "http://[::ffff:a9fe:a9fe]/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint"},
		{"localhost refused by default", strict, "http://localhost:9/", "Blocked: URL targets a private or internal network address"},
		{"private range refused by default", strict, "http://10.1.2.3/", "Blocked: URL targets a private or internal network address"},
		{"metadata refused even when private allowed", open, "http://169.254.169.254/latest/meta-data/", "Blocked: URL targets a cloud metadata endpoint"},
		{"metadata host name", open, "http://metadata.google.internal/computeMetadata/v1/", "Blocked: URL targets a cloud metadata endpoint"},
		{"password in URL", open, "https://bob:abcdefghijklmnop@example.com/", "Blocked: URL contains a user name or password"},
		{"redirect to a spelling of metadata", open, fake.Page("redirect?to=" + url.QueryEscape("http://0xa9.0xfe.0xa9.0xfe/latest/")), "Blocked: URL targets a cloud metadata endpoint"},
		{"redirect to metadata", open, fake.Page("redirect?to=" + url.QueryEscape("http://169.254.169.254/latest/")), "Blocked: URL targets a cloud metadata endpoint"},
		{"redirect to a secret", open, fake.Page("redirect-secret"), "Blocked: URL contains what appears to be an API key or token"},
		{"redirect to file", open, fake.Page("redirect?to=" + url.QueryEscape("file:///etc/passwd")), "Blocked: only http and https"},
		{"file scheme", open, "file:///etc/passwd", "Blocked: only http and https"},
		{"not a URL", open, "not a url", "Blocked: only http and https"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, isErr := tt.f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{tt.url, tt.f.fake.Page("table")}})
			rs := rows(t, out, isErr)
			if e, _ := rs[0]["error"].(string); !strings.HasPrefix(e, tt.want) || rs[0]["blocked_by_policy"] != true {
				t.Errorf("row = %v, want error %q and blocked_by_policy", rs[0], tt.want)
			}
			if strings.Contains(rs[0]["url"].(string), "abcdefghijklmnop") {
				t.Errorf("refused row echoes the secret: %v", rs[0]["url"])
			}
			if tt.f == open && rs[1]["error"] != nil {
				t.Errorf("second URL failed: %v", rs[1])
			}
		})
	}
	// A key in any URL of a call refuses the whole call, as the original
	// does, and echoes no URL.
	for _, u := range []string{secret, "https://example.com/?t=ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789",
		"https://example.com/?t=ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789&x=%zz"} {
		raw, isErr := open.callRaw(t, context.Background(), "web_extract", map[string]any{"urls": []string{fake.Page("table"), u}})
		if !isErr || raw != `{"success":false,"error":"Blocked: URL contains what appears to be an API key or token. Secrets must not be sent in URLs."}` {
			t.Errorf("%s: %s", u, raw)
		}
	}
	// Nothing refused reached the network: no request carried the secret
	// or a metadata path.
	for _, p := range []string{fakeapis.Pages, fakeapis.ExaMCP, fakeapis.ParallelMCP} {
		for _, r := range fake.Requests(p) {
			if strings.Contains(r.Path, "meta-data") || strings.Contains(string(r.Body)+r.Query.Encode(), "abcdefghijklmnop") && r.Path != "/redirect" {
				t.Errorf("refused URL reached %s: %s %v", p, r.Path, r.Query)
			}
		}
	}
}

// Each keyed extract backend on its wire: one batch request for the
// batch APIs, one per URL for the others; a URL the provider could not
// read fails alone; a refused URL is never sent.
func TestExtractAPIBackends(t *testing.T) {
	fake := fakeapis.Start(t)
	tests := []struct {
		backend       string
		header, value string
		path          string
		notBody       []string
		titled        bool
	}{
		{BackendFirecrawl, "Authorization", "Bearer " + fakeapis.FirecrawlKey, "/v2/scrape", []string{"onlyMainContent", "timeout"}, true},
		{BackendTavily, "X-Client-Name", "hermes-agent", "/extract", []string{"extract_depth", `"format"`}, false},
		{BackendExa, "X-Api-Key", fakeapis.ExaKey, "/contents", nil, true},
		{BackendPerplexity, "Authorization", "Bearer " + fakeapis.PerplexityKey, "/sdk/content/snippets", nil, false},
		{BackendParallel, "X-Api-Key", fakeapis.ParallelKey, "/v1beta/extract", nil, true},
		{BackendKeenable, "Authorization", "Bearer " + fakeapis.KeenableKey, "/v1/fetch", nil, true},
	}
	urls := []string{"https://example.com/a", "https://example.com/trigger-404", "http://169.254.169.254/"}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			f := newFixtureWith(t, fake, searchEnv(fake, tt.backend), "web:\n  extract_backend: "+tt.backend+"\n", 2*time.Second)
			before := len(fake.Requests(fakeProvider[tt.backend]))
			out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": urls})
			rs := rows(t, out, isErr)
			if rs[0]["error"] != nil || !strings.Contains(rs[0]["content"].(string), "Content of https://example.com/a.") {
				t.Errorf("row 0 = %v", rs[0])
			}
			if tt.titled && rs[0]["title"] != "Fake page https://example.com/a" {
				t.Errorf("title = %v", rs[0]["title"])
			}
			if rs[1]["error"] == nil {
				t.Errorf("row 1 should carry the provider's per-URL failure: %v", rs[1])
			}
			if rs[2]["blocked_by_policy"] != true {
				t.Errorf("metadata URL was not refused: %v", rs[2])
			}
			reqs := fake.Requests(fakeProvider[tt.backend])[before:]
			if len(reqs) == 0 {
				t.Fatal("provider got no request")
			}
			for _, r := range reqs {
				if r.Path != tt.path || r.Header.Get(tt.header) != tt.value {
					t.Errorf("request %s with %s=%q", r.Path, tt.header, r.Header.Get(tt.header))
				}
				if strings.Contains(string(r.Body)+r.Query.Encode(), "169.254") {
					t.Errorf("refused URL was sent to the provider: %s", r.Body)
				}
				for _, w := range tt.notBody {
					if strings.Contains(string(r.Body), w) {
						t.Errorf("request %s carries %s, which the original does not send", r.Body, w)
					}
				}
			}
		})
		t.Run(tt.backend+"/errors", func(t *testing.T) {
			for _, c := range []struct {
				url  string
				want []string // any of them
			}{
				{"https://example.com/trigger-401", []string{"401", "Invalid API key", "Unauthorized"}},
				{"https://example.com/trigger-429", []string{"Retry-After: 7"}},
				{"https://example.com/trigger-500", []string{"500", "server error"}},
				{"https://example.com/trigger-slow", []string{"300ms"}},
			} {
				f := newFixtureWith(t, fake, searchEnv(fake, tt.backend), "web:\n  keyless_rescue: false\n  extract_backend: "+tt.backend+"\n", 300*time.Millisecond)
				out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{c.url}})
				r := rows(t, out, isErr)[0]
				e, _ := r["error"].(string)
				if !slices.ContainsFunc(c.want, func(w string) bool { return strings.Contains(e, w) }) {
					t.Errorf("%s: error = %q, want one of %q", c.url, e, c.want)
				}
			}
		})
	}
}

// A long page comes back cut as the original cuts it, says how long it
// is and where to read on, and offset pages through the rest to the end;
// the windows put back together are the page. HTML-less text and a
// multi-page PDF alike.
func TestExtractPaging(t *testing.T) {
	for _, page := range []string{"long.txt", "long.pdf"} {
		t.Run(page, func(t *testing.T) {
			f := newFixture(t, nil, allowPrivate)
			u := f.fake.Page(page)
			out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{u}, "char_limit": 5000})
			first := rows(t, out, isErr)[0]
			total := int(first["total_chars"].(float64))
			next := int(first["next_offset"].(float64))
			content := first["content"].(string)
			if total <= 5000 || next <= 0 || next > 3750 {
				t.Fatalf("total_chars %d, next_offset %d", total, next)
			}
			stored := filepath.Join(f.home, "cache", "web", storedName(u))
			for _, w := range []string{
				"\n\n[... middle omitted — see footer ...]\n\n",
				"\n──────── [TRUNCATED] ────────\nShowing " + commas(next) + " chars (head) + ",
				" total clean characters.\nFull text saved to: " + stored + "\n",
				`To read the omitted middle: read_file path="` + stored + `" offset=`,
				"offset=" + itoa(next) + " (each call returns the next 5,000 characters).\n─────────────────────────────",
			} {
				if !strings.Contains(content, w) {
					t.Errorf("first window lacks %q:\n…%s", w, content[max(0, len(content)-900):])
				}
			}
			full, err := os.ReadFile(stored)
			if err != nil {
				t.Fatalf("full text not stored: %v", err)
			}
			fullText := string(full)
			if n := len([]rune(fullText)); n != total {
				t.Errorf("stored %d characters, total_chars says %d", n, total)
			}
			head, _, _ := strings.Cut(content, "\n\n[... middle omitted")
			assembled := head
			pageFetches := len(f.fake.Requests(fakeapis.Pages))
			for calls := 0; ; calls++ {
				if calls > 20 {
					t.Fatal("paging never ended")
				}
				out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{u}, "char_limit": 5000, "offset": next})
				r := rows(t, out, isErr)[0]
				if r["error"] != nil || int(r["total_chars"].(float64)) != total {
					t.Fatalf("offset %d: %v", next, r)
				}
				body, footer, ok := strings.Cut(r["content"].(string), "\n\n──────── [PAGE] ────────\n")
				if !ok {
					t.Fatalf("offset %d: no page footer: %s", next, r["content"])
				}
				assembled += body
				if r["next_offset"] == nil {
					if !strings.Contains(footer, "End of page: nothing follows.") || !strings.Contains(footer, "to "+commas(total)+" of "+commas(total)) {
						t.Errorf("last footer = %q", footer)
					}
					break
				}
				n := int(r["next_offset"].(float64))
				if n != next+5000 || !strings.Contains(footer, "offset="+itoa(n)+".") {
					t.Errorf("next_offset %d after %d; footer %q", n, next, footer)
				}
				next = n
			}
			if assembled != fullText {
				t.Errorf("head and windows put together (%d chars) are not the page (%d chars)", len([]rune(assembled)), total)
			}
			if got := len(f.fake.Requests(fakeapis.Pages)); got != pageFetches {
				t.Errorf("paging fetched the page %d more times; the stored text should serve it", got-pageFetches)
			}
			if page == "long.pdf" && (!strings.Contains(fullText, "Page 01 line 01") || !strings.Contains(fullText, "Page 12 line 40")) {
				t.Errorf("PDF text lacks its first or last line:\n%.300s", fullText)
			}
			out, isErr = f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{u}, "offset": total})
			if e, _ := rows(t, out, isErr)[0]["error"].(string); !strings.Contains(e, "past the end of this page") {
				t.Errorf("offset at the end: %v", e)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// With nothing configured a public page is read through the keyless tier;
// a long one is cut and stored, and later offsets read the stored text
// without asking the vendor again.
func TestExtractPagingThroughTheRing(t *testing.T) {
	f := newFixture(t, nil, "")
	u := "https://example.com/long-article"
	out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{u}})
	first := rows(t, out, isErr)[0]
	if first["error"] != nil || first["title"] != "Long fixture page" {
		t.Fatalf("first = %v", first)
	}
	asked := len(f.fake.Requests(fakeapis.ExaMCP))
	if asked != 1 {
		t.Fatalf("exa got %d requests, want the ring's first vendor asked once", asked)
	}
	next := int(first["next_offset"].(float64))
	stored, err := os.ReadFile(filepath.Join(f.home, "cache", "web", storedName(u)))
	if err != nil || !strings.Contains(string(stored), fakeapis.LongText(60_000)) {
		t.Fatalf("stored text: %v", err)
	}
	out, isErr = f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{u}, "offset": next})
	r := rows(t, out, isErr)[0]
	if r["error"] != nil || !strings.HasPrefix(r["content"].(string), string([]rune(string(stored))[next:next+100])) {
		t.Errorf("window at %d = %.200v", next, r)
	}
	if got := len(f.fake.Requests(fakeapis.ExaMCP)) + len(f.fake.Requests(fakeapis.ParallelMCP)); got != asked {
		t.Errorf("the offset call asked the ring again (%d requests)", got-asked)
	}
}

// The stored copy never lands outside the home: a cache/web that is a
// link is refused, the footer says the text was not stored, and offsets
// still work by reading the page again.
func TestExtractStoreRefusesLinks(t *testing.T) {
	f := newFixture(t, nil, allowPrivate)
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(f.home, "cache"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.home, "cache", "web")); err != nil {
		t.Fatal(err)
	}
	u := f.fake.Page("long.txt")
	out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{u}})
	r := rows(t, out, isErr)[0]
	if !strings.Contains(r["content"].(string), "Full text could not be stored;") {
		t.Errorf("footer does not say the text was not stored:\n%s", r["content"].(string)[len(r["content"].(string))-600:])
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a page was written through the link: %v", entries)
	}
	out, isErr = f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{u}, "offset": 20000})
	if r := rows(t, out, isErr)[0]; r["error"] != nil || !strings.HasPrefix(r["content"].(string), fakeapis.LongText(80_000)[20000:20100]) {
		t.Errorf("offset without a store: %.200v", r)
	}
}

// What a provider hands back is cleaned as the original cleans it: a
// binary file's bytes become an error naming the type, inline base64
// images become placeholders, real image links stay.
func TestExtractCleansProviderText(t *testing.T) {
	// Parallel hands pages back as they are (Exa's MCP server puts a
	// header of its own in front).
	f := newFixture(t, nil, "web:\n  extract_backend: parallel\n")
	out, isErr := f.call(t, context.Background(), "web_extract", map[string]any{"urls": []string{
		"https://example.com/pngbytes", "https://example.com/inline-image"}})
	rs := rows(t, out, isErr)
	if e, _ := rs[0]["error"].(string); !strings.HasPrefix(e, "URL returned binary content (PNG image), not a page.") || rs[0]["content"] != "" {
		t.Errorf("binary row = %v", rs[0])
	}
	c := rs[1]["content"].(string)
	if strings.Contains(c, "base64") || !strings.Contains(c, "[IMAGE: a chart] and [IMAGE]\nbare [IMAGE] and a real ![photo](https://example.com/p.png)") {
		t.Errorf("images not replaced: %q", c)
	}
}

// Progress for a multi-URL call arrives in order, counts up, and stops
// short of the total: the result itself says the call is done.
func TestExtractProgress(t *testing.T) {
	f := newFixture(t, nil, allowPrivate)
	var mu sync.Mutex
	type update struct {
		progress, total float64
		msg             string
	}
	var got []update
	ctx := tooldef.WithProgress(context.Background(), func(p, total float64, msg string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, update{p, total, msg})
	})
	urls := []string{
		f.fake.Page("slow?ms=150&name=article"),
		f.fake.Page("slow?ms=400&name=table"),
		f.fake.Page("slow?ms=650&name=login"),
	}
	out, isErr := f.call(t, ctx, "web_extract", map[string]any{"urls": urls})
	rows(t, out, isErr)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 {
		t.Fatalf("got %d updates, want 3 (start, 1/3, 2/3): %+v", len(got), got)
	}
	for i, u := range got {
		if u.progress != float64(i) || u.total != 3 || u.msg == "" {
			t.Errorf("update %d = %+v", i, u)
		}
	}
	got = nil
	f.call(t, ctx, "web_extract", map[string]any{"urls": urls[:1]})
	if len(got) != 0 {
		t.Errorf("single URL sent progress: %+v", got)
	}
}
