package browser_test

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// pagingPages are generated pages of the shapes that paging must get
// right: a long list of text plus a link per item (the reviewer's page,
// smaller), a table, long text runs with controls between them, and a mix
// with nested containers, a listbox whose options are lines under its
// ref, and text that JSON must escape.
func pagingPages() map[string]string {
	var list, table, long, mixed strings.Builder
	list.WriteString(`<!doctype html><title>List</title><ul>`)
	for i := range 80 {
		fmt.Fprintf(&list, `<li>Item text %d about "things" <a href="/i/%d">link %d</a></li>`, i, i, i)
	}
	list.WriteString(`</ul>`)

	table.WriteString(`<!doctype html><title>Table</title><table><tr><th>#</th><th>Note</th><th>Go</th></tr>`)
	for i := range 60 {
		fmt.Fprintf(&table, `<tr><td>%d</td><td>note %d &lt;b&gt; &amp; more</td><td><a href="/t/%d">open %d</a> <button>del %d</button></td></tr>`, i, i, i, i, i)
	}
	table.WriteString(`</table>`)

	long.WriteString(`<!doctype html><title>Long</title><main>`)
	for p := range 4 {
		long.WriteString(`<p>`)
		for w := range 400 {
			fmt.Fprintf(&long, "w%d.%d ", p, w)
		}
		fmt.Fprintf(&long, `</p><button>after %d</button>`, p)
	}
	long.WriteString(`</main>`)

	mixed.WriteString(`<!doctype html><meta charset="utf-8"><title>Mixed "q"</title><nav><a href="/a">Home</a> <a href="/b">About</a></nav><main><h1>Mixed</h1>`)
	for s := range 6 {
		fmt.Fprintf(&mixed, `<section aria-label="Part %d"><h2>Part %d</h2><p>naïve “quoted” \ back \\ slash &lt;tag&gt; %d</p>`, s, s, s)
		fmt.Fprintf(&mixed, `<form><label>Name %d <input></label><select multiple aria-label="pick %d">`, s, s)
		for o := range 8 {
			fmt.Fprintf(&mixed, `<option>opt %d.%d</option>`, s, o)
		}
		fmt.Fprintf(&mixed, `</select><ul><li>one %d<ul><li>nested %d <a href="/n/%d">deep %d</a></li></ul></li></ul><button>Send %d</button></form></section>`, s, s, s, s, s)
	}
	// Shadow roots: an open one is outlined, a closed one cannot be
	// read from page script, which the description and notes admit.
	mixed.WriteString(`<div id="open"></div><div id="closed"></div><script>` +
		`document.getElementById('open').attachShadow({mode:'open'}).innerHTML='<button>Open shadow</button>';` +
		`document.getElementById('closed').attachShadow({mode:'closed'}).innerHTML='<button>Closed shadow</button>';</script>`)
	mixed.WriteString(`</main>`)
	return map[string]string{"/list": list.String(), "/table": table.String(), "/long": long.String(), "/mixed": mixed.String()}
}

var outlineLine = regexp.MustCompile(`^ *- `)

// outlineLines are the lines of a snapshot text that belong to the
// outline: not the header, not the notes.
func outlineLines(snapshot string) []string {
	var out []string
	for _, l := range strings.Split(snapshot, "\n") {
		if outlineLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// TestSnapshotPagingProperty is the paging rule on generated pages, in
// both modes and for several budgets: every result text fits max_chars
// (unless one line alone cannot, which the result says), the note's
// offset is next_offset, and following it from 0 to the end shows every
// control ref exactly once and every line of the whole outline at least
// once.
func TestSnapshotPagingProperty(t *testing.T) {
	pages := pagingPages()
	mux := http.NewServeMux()
	for path, body := range pages {
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	base := "http://" + ln.Addr().String()

	d := newDriver(t, browser.Options{})
	continueRE := regexp.MustCompile(`continue with offset=(\d+)`)
	for _, path := range []string{"/list", "/table", "/long", "/mixed"} {
		d.ok("browser_navigate", map[string]any{"url": base + path})
		for _, full := range []bool{false, true} {
			whole := d.ok("browser_snapshot", map[string]any{"full": full, "max_chars": browser.MaxSnapshotChars})
			if _, cut := whole["next_offset"]; cut {
				t.Fatalf("%s full=%v: the whole outline is cut", path, full)
			}
			want := outlineLines(whole["snapshot"].(string))
			wantRefs := refsIn(whole["snapshot"].(string))
			if w := whole["snapshot"].(string); path == "/mixed" && (!strings.Contains(w, `button "Open shadow"`) || strings.Contains(w, "Closed shadow")) {
				t.Errorf("full=%v: the open shadow root's button is missing or the closed one's shown:\n%s", full, w)
			}
			if len(wantRefs) == 0 {
				t.Fatalf("%s full=%v: no controls in the whole outline", path, full)
			}
			for _, budget := range []int{500, 1300, 4000} {
				name := fmt.Sprintf("%s full=%v max_chars=%d", path, full, budget)
				seenRefs := map[string]int{}
				seenLines := map[string]bool{}
				offset := 0
				for calls := 0; ; calls++ {
					// Every page shows at least one line.
					if calls > len(want)+1 {
						t.Fatalf("%s: no end after %d pages", name, calls)
					}
					res, size := d.okSized("browser_snapshot", map[string]any{"full": full, "max_chars": budget, "offset": offset})
					s := res["snapshot"].(string)
					lines := outlineLines(s)
					next, ok := res["next_offset"].(float64)
					if size > budget && (!strings.Contains(s, "[over max_chars=") || (ok && int(next) != offset+1)) {
						t.Fatalf("%s offset=%d: the result text is %d bytes:\n%s", name, offset, size, s)
					}
					for _, r := range refsIn(s) {
						seenRefs[r]++
					}
					for _, l := range lines {
						seenLines[l] = true
					}
					if ok && !strings.Contains(s, "(closed shadow roots not counted)") {
						t.Fatalf("%s offset=%d: the cut note does not say closed shadow roots are not counted:\n%s", name, offset, s)
					}
					m := continueRE.FindStringSubmatch(s)
					if !ok {
						if m != nil {
							t.Fatalf("%s offset=%d: the note says %q but there is no next_offset", name, offset, m[0])
						}
						break
					}
					if m == nil || m[1] != fmt.Sprint(next) {
						t.Fatalf("%s offset=%d: next_offset %v, but the note says %v:\n%s", name, offset, next, m, s)
					}
					if int(next) <= offset {
						t.Fatalf("%s: next_offset %v does not move on from %d", name, next, offset)
					}
					offset = int(next)
				}
				for _, r := range wantRefs {
					if seenRefs[r] != 1 {
						t.Errorf("%s: ref %s shown %d times, want once", name, r, seenRefs[r])
					}
				}
				if len(seenRefs) != len(wantRefs) {
					t.Errorf("%s: paging showed %d refs, the whole outline has %d", name, len(seenRefs), len(wantRefs))
				}
				missing := 0
				for _, l := range want {
					if !seenLines[l] {
						if missing++; missing <= 3 {
							t.Errorf("%s: line never shown: %q", name, l)
						}
					}
				}
			}
		}
	}
}
