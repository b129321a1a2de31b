package browser_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/browser"
)

var refsRE = regexp.MustCompile(`\[ref=(e\d+)\]`)

// refsIn lists the refs a snapshot text carries, in order.
func refsIn(snapshot string) []string {
	var out []string
	for _, m := range refsRE.FindAllStringSubmatch(snapshot, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestSnapshotContainers: controls keep their refs in every kind of
// container (grid rows, list items, table cells, nested shadow roots, a
// table in a same-origin iframe) in both modes, the full outline gives
// text whole, and every snapshot says where the page is; a script
// redirect after load is reported by the next result.
func TestSnapshotContainers(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	nav := d.ok("browser_navigate", map[string]any{"url": base + "/containers.html"})
	controls := []string{"Edit Ada", "Profile Ada", "Edit Grace", "Open one", "Remove two", "Qty basic",
		"Choose basic", "Reply to post", "Layout button", "Outer link", "Deep button", "Framed button"}
	for _, full := range []bool{false, true} {
		snap := d.ok("browser_snapshot", map[string]any{"full": full})["snapshot"].(string)
		if !strings.HasPrefix(snap, "url: "+base+"/containers.html\ntitle: \"Containers\"\n") {
			t.Errorf("full=%v: snapshot does not start with the url and title:\n%s", full, snap)
		}
		for _, c := range controls {
			if !strings.Contains(snap, `"`+c+`"`) {
				t.Errorf("full=%v: snapshot lacks %q:\n%s", full, c, snap)
				continue
			}
			ref(t, snap, `"`+c+`"`)
		}
		if n := len(refsIn(snap)); n != len(controls)+1 { // the iframe has a ref too
			t.Errorf("full=%v: %d refs, want %d:\n%s", full, n, len(controls)+1, snap)
		}
		if !strings.Contains(snap, `row "Ada": button "Edit Ada" [ref=`) {
			t.Errorf("full=%v: the grid row is not one line with its text and controls:\n%s", full, snap)
		}
		// A table used for layout is not one giant row named by the page.
		if !strings.Contains(snap, `row "Inner data": button "Layout button" [ref=`) {
			t.Errorf("full=%v: the row inside the layout table is not one line:\n%s", full, snap)
		}
		for _, line := range strings.Split(snap, "\n") {
			if strings.Contains(line, "Inner data") && strings.Contains(line, "LAYOUT TEXT") {
				t.Errorf("full=%v: the layout table's text is folded into one line: %s", full, line)
			}
		}
		// A row with a long text keeps it whole, over lines no longer
		// than a text line.
		if full {
			var words []string
			for _, line := range strings.Split(snap, "\n") {
				if len(line) > 600 {
					t.Errorf("a %d-byte line: %.100s...", len(line), line)
				}
				if strings.Contains(line, "beta") {
					_, text, _ := strings.Cut(line, "text: ")
					words = append(words, strings.Fields(text)...)
				}
			}
			if len(words) != 122 || words[0] != "BETA-START" || words[121] != "BETA-END" {
				t.Errorf("the long row's text comes back as %d words, want its 122:\n%s", len(words), snap)
			}
		}
		long := "Start of a long paragraph." + strings.Repeat(" ALPHA-0123456789", 20) + " and the END OF THE LONG PARAGRAPH."
		if full && !strings.Contains(snap, long) {
			t.Errorf("full snapshot cuts the %d-character paragraph:\n%s", len(long), snap)
		}
	}
	if nav["title"] != "Containers" || !strings.HasPrefix(nav["snapshot"].(string), "url: ") {
		t.Errorf("navigate result: %v", nav)
	}

	// The refs act: through two shadow roots, and inside the iframe's table.
	full := d.ok("browser_snapshot", map[string]any{"full": true})["snapshot"].(string)
	clicked := d.ok("browser_click", map[string]any{"ref": ref(t, full, `"Deep button"`)})
	waitTitle(d, "deep clicked")
	if clicked["url"] != base+"/containers.html" || clicked["navigated"] != false {
		t.Errorf("click result does not say where the page is: %v", clicked)
	}
	d.ok("browser_click", map[string]any{"ref": ref(t, full, `"Framed button"`)})
	waitTitle(d, "framed clicked")

	// A page that moves itself after load: navigate shows it as loaded,
	// the next snapshot says where it went.
	nav = d.ok("browser_navigate", map[string]any{"url": base + "/redirect.html"})
	if s := nav["snapshot"].(string); !strings.HasPrefix(s, "url: "+base+"/redirect.html\n") || !strings.Contains(s, "navigated: yes") {
		t.Errorf("navigate snapshot header:\n%s", s)
	}
	waitTitle(d, "Dashboard")
	snap := d.ok("browser_snapshot", nil)["snapshot"].(string)
	want := "url: " + base + "/welcome.html\ntitle: \"Dashboard\"\nnavigated: yes, since the previous result (it showed " + base + "/redirect.html)\n"
	if !strings.HasPrefix(snap, want) {
		t.Errorf("after the redirect the snapshot starts\n%s\nwant\n%s", snap, want)
	}
	if snap = d.ok("browser_snapshot", nil)["snapshot"].(string); strings.Contains(snap, "navigated:") {
		t.Errorf("a second snapshot of the same page says it navigated:\n%s", snap)
	}
	clicked = d.ok("browser_click", map[string]any{"ref": ref(t, snap, `"Sign out"`)})
	if clicked["url"] != base+"/login.html" || clicked["title"] != "Sign in" || clicked["navigated"] != true {
		t.Errorf("a click that navigated: %v", clicked)
	}
	scrolled := d.ok("browser_scroll", map[string]any{"direction": "down"})
	if scrolled["url"] != base+"/login.html" || scrolled["navigated"] != false {
		t.Errorf("scroll result: %v", scrolled)
	}
}

// TestSnapshotBudget is the rule that nothing is dropped silently: for
// every mode and budget, each result fits max_chars (header and notes
// included), and following next_offset from the top lists every control
// of the page exactly once; text gives way to controls, never the reverse.
func TestSnapshotBudget(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})

	// The page: 1,000 rows of a number, a link and a button.
	d.ok("browser_navigate", map[string]any{"url": base + "/table?rows=1000"})
	for _, full := range []bool{false, true} {
		all := d.ok("browser_snapshot", map[string]any{"full": full, "max_chars": browser.MaxSnapshotChars})
		s := all["snapshot"].(string)
		if n := len(refsIn(s)); n != 2000 || all["element_count"] != 2000.0 {
			t.Errorf("full=%v: complete snapshot lists %d refs (element_count %v), want 2000", full, n, all["element_count"])
		}
		if !strings.Contains(s, `row "999": link "Item 999" [`) || strings.Contains(s, "cut to fit") {
			t.Errorf("full=%v: complete snapshot ends:\n%s", full, s[max(0, len(s)-400):])
		}
		def, size := d.okSized("browser_snapshot", map[string]any{"full": full})
		s = def["snapshot"].(string)
		limit := browser.DefaultSnapshotChars
		if full {
			limit = browser.DefaultFullSnapshotChars
		}
		if size > limit || size < limit*9/10 {
			t.Errorf("full=%v: default result text is %d bytes, want just under %d", full, size, limit)
		}
		shown := len(refsIn(s))
		note := fmt.Sprintf("%d of the page's 2000 controls shown (closed shadow roots not counted), %d more controls", shown, 2000-shown)
		if !strings.Contains(s, note) || !strings.Contains(s, fmt.Sprintf("offset=%v", def["next_offset"])) || !strings.Contains(s, `selector="`) {
			t.Errorf("full=%v: the cut note does not say %q and how to go on:\n%s", full, note, s[max(0, len(s)-700):])
		}
	}

	type page struct {
		path     string
		controls int
	}
	for _, pg := range []page{{"/table?rows=120", 240}, {"/big?", 3000}} {
		if pg.path == "/big?" {
			continue // covered whole by TestBigPage; paging it costs too many calls
		}
		d.ok("browser_navigate", map[string]any{"url": base + pg.path})
		for _, full := range []bool{false, true} {
			for _, budget := range []int{700, 3000} {
				seen := map[string]int{}
				offset, calls := 0, 0
				for {
					res, size := d.okSized("browser_snapshot", map[string]any{"full": full, "max_chars": budget, "offset": offset})
					s := res["snapshot"].(string)
					if size > budget {
						t.Fatalf("full=%v max_chars=%d offset=%d: %d bytes returned:\n%s", full, budget, offset, size, s)
					}
					for _, r := range refsIn(s) {
						seen[r]++
					}
					next, ok := res["next_offset"].(float64)
					if !ok {
						break
					}
					if int(next) <= offset {
						t.Fatalf("full=%v max_chars=%d: next_offset %v does not move on from %d:\n%s", full, budget, next, offset, s)
					}
					offset = int(next)
					if calls++; calls > 200 {
						t.Fatalf("full=%v max_chars=%d: no end after 200 pages", full, budget)
					}
				}
				if len(seen) != pg.controls {
					t.Errorf("full=%v max_chars=%d: paging %s listed %d distinct refs, want %d", full, budget, pg.path, len(seen), pg.controls)
				}
			}
		}
	}

	// A long article: a tight budget shows its start and counts the
	// controls that follow; reading on from next_offset reaches every
	// word and every control, each once, in a bounded number of calls.
	d.ok("browser_navigate", map[string]any{"url": base + "/article?words=5000"})
	words, offset := 0, 0
	var controls []string
	for calls := 0; ; calls++ {
		if calls > 40 {
			t.Fatalf("reading the article 3000 bytes at a time did not end after %d calls", calls)
		}
		res, size := d.okSized("browser_snapshot", map[string]any{"full": true, "max_chars": 3000, "offset": offset})
		s := res["snapshot"].(string)
		if size > 3000 {
			t.Fatalf("offset=%d: %d bytes returned", offset, size)
		}
		if calls == 0 && (!strings.Contains(s, "more controls") || !strings.Contains(s, "omit full to list the controls alone")) {
			t.Errorf("the first page does not count the controls after it, or say how to list them first:\n%s", s)
		}
		for _, line := range strings.Split(s, "\n") {
			if _, text, ok := strings.Cut(line, "text: "); ok {
				words += len(strings.Fields(text))
			} else if _, text, ok := strings.Cut(line, "paragraph: "); ok {
				words += len(strings.Fields(text))
			} else if strings.Contains(line, "[ref=") {
				controls = append(controls, strings.TrimSpace(line))
			}
		}
		next, ok := res["next_offset"].(float64)
		if !ok {
			break
		}
		if int(next) <= offset {
			t.Fatalf("next_offset %v does not move on from %d:\n%s", next, offset, s)
		}
		offset = int(next)
	}
	if words != 5000 {
		t.Errorf("reading the article page by page gave %d words, want the page's 5000", words)
	}
	if len(controls) != 3 || !strings.Contains(strings.Join(controls, "\n"), `button "Subscribe"`) {
		t.Errorf("reading the article page by page gave the controls %q, want its two links and its button once each", controls)
	}
	whole := d.ok("browser_snapshot", map[string]any{"full": true, "max_chars": browser.MaxSnapshotChars})["snapshot"].(string)
	if words := len(strings.Fields(whole)); words < 5000 || strings.Contains(whole, "left out") {
		t.Errorf("the whole article: %d words, want the 5000 of the page and no note", words)
	}
}

// A page's text reads in one call: the full outline of a 5,000-word
// article fits browser_snapshot's default for full=true, and only a text
// longer than that is paged.
func TestFullSnapshotReadsAnArticleInOneCall(t *testing.T) {
	base := site(t)
	d := newDriver(t, browser.Options{})
	for _, tc := range []struct {
		words int
		paged bool
	}{{5000, false}, {12000, true}} {
		d.ok("browser_navigate", map[string]any{"url": fmt.Sprintf("%s/article?words=%d", base, tc.words)})
		m, size := d.okSized("browser_snapshot", map[string]any{"full": true})
		s := m["snapshot"].(string)
		_, paged := m["next_offset"]
		if paged != tc.paged || strings.Contains(s, `button "Subscribe"`) == tc.paged || size > browser.DefaultFullSnapshotChars {
			t.Errorf("%d words: paged=%v (want %v), %d bytes, ends:\n%s", tc.words, paged, tc.paged, size, s[max(0, len(s)-300):])
		}
	}
}
