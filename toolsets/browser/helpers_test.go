package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/mcpserver/mcptest"
	"github.com/hermes-go/hermes/mcpserver/sessionstate"
	"github.com/hermes-go/hermes/toolsets/browser"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// realServer starts the real hermes-tools-mcp serving the browser toolset
// over home, as an MCP client would.
func realServer(t testing.TB, home string) *mcptest.Client {
	t.Helper()
	cmd := exec.Command(toolsbuild.ServerBinary(t), "--hermes-home", home, "--toolsets", "browser")
	return mcptest.Start(t, cmd)
}

// needChromium skips without a browser, except in CI where a missing
// browser is a broken setup.
func needChromium(t testing.TB) {
	t.Helper()
	if _, err := browser.FindChromium(os.Getenv(browser.EnvChromePath)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Chromium is required in CI (run `make test`, which installs it): %v", err)
		}
		t.Skipf("no Chromium: %v", err)
	}
}

// site serves testdata/pages on 127.0.0.1 plus a few dynamic pages.
func site(t testing.TB) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata/pages")))
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if r.FormValue("pass") != "hunter2" {
			http.Error(w, "wrong password", http.StatusForbidden)
			return
		}
		http.Redirect(w, r, "/welcome.html?user="+r.FormValue("user"), http.StatusSeeOther)
	})
	mux.HandleFunc("/img/", func(w http.ResponseWriter, r *http.Request) {
		img := image.NewRGBA(image.Rect(0, 0, 10, 10))
		for i := range 10 {
			img.Set(i, i, color.Black)
		}
		w.Header().Set("Content-Type", "image/png")
		_ = png.Encode(w, img)
	})
	// The cookies the browser sent, as the page's title: what the server
	// side of a site sees of a session.
	mux.HandleFunc("/cookies", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<!doctype html><title>cookies: %s</title><h1>Cookies</h1>", html.EscapeString(r.Header.Get("Cookie")))
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, bigPage(1000))
	})
	mux.HandleFunc("/table", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, tablePage(intParam(r, "rows", 1000)))
	})
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, articlePage(intParam(r, "words", 5000)))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

// bigPage is a table of n rows, each with a link, a text field and a
// button: 3n interactive elements.
func bigPage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Big</title></head><body><h1>Orders</h1><table>`)
	for i := range n {
		fmt.Fprintf(&b, `<tr><td><a href="/order/%d">Order %d</a></td><td>Item number %d, shipped</td><td><input aria-label="Note %d"></td><td><button>Cancel %d</button></td></tr>`, i, i, i, i, i)
	}
	b.WriteString(`</table></body></html>`)
	return b.String()
}

func intParam(r *http.Request, name string, def int) int {
	if n, err := strconv.Atoi(r.URL.Query().Get(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// tablePage is the table of the issue that measured the peers: n rows of a
// number, a link and a button, 2n controls.
func tablePage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Items</title></head><body><h1>Items</h1><table><thead><tr><th>#</th><th>Item</th><th>Action</th></tr></thead><tbody>`)
	for i := range n {
		fmt.Fprintf(&b, `<tr><td>%d</td><td><a href="/item/%d">Item %d</a></td><td><button>Delete %d</button></td></tr>`, i, i, i, i)
	}
	b.WriteString(`</tbody></table></body></html>`)
	return b.String()
}

// articlePage is a long article: words words in paragraphs of 100 under a
// heading every 1,000, with two links and a button around it.
func articlePage(words int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Article</title></head><body>` +
		`<nav><a href="/prev">Previous article</a> <a href="/next">Next article</a></nav><main><article><h1>A long article</h1>`)
	vocab := []string{"river", "stone", "quiet", "market", "lantern", "across", "the", "of", "morning", "harbour", "slowly", "and"}
	for i := range words {
		if i%1000 == 0 && i > 0 {
			fmt.Fprintf(&b, "</p><h2>Part %d</h2>", i/1000+1)
		}
		if i%100 == 0 {
			if i%1000 != 0 || i == 0 {
				b.WriteString("</p>")
			}
			b.WriteString("<p>")
		}
		b.WriteString(vocab[(i*7+i/13)%len(vocab)])
		b.WriteByte(' ')
	}
	b.WriteString(`</p></article></main><footer><button>Subscribe</button></footer></body></html>`)
	return b.String()
}

// driver calls the toolset's handlers directly, as the MCP server does.
type driver struct {
	t     testing.TB
	s     *browser.Session
	tools map[string]tooldef.Tool
	// st is the MCP session the calls belong to, as a transport puts it in
	// their context; nil: none.
	st *sessionstate.State
}

// in returns a driver of the same toolset whose calls belong to the MCP
// session st.
func (d *driver) in(st *sessionstate.State) *driver {
	e := *d
	e.st = st
	return &e
}

func newDriver(t testing.TB, opts browser.Options) *driver {
	t.Helper()
	needChromium(t)
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	s := browser.New(opts)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	d := &driver{t: t, s: s, tools: map[string]tooldef.Tool{}}
	for _, tl := range s.Toolset().Tools {
		d.tools[tl.Name] = tl
	}
	return d
}

// call runs a tool and returns its decoded JSON result and whether it
// failed (as a model sees it).
func (d *driver) call(name string, args any) (map[string]any, bool) {
	d.t.Helper()
	res, _ := d.callFull(name, args)
	return res.m, res.isErr
}

type result struct {
	m      map[string]any
	isErr  bool
	images []tooldef.Image
	// size is the bytes of the result text as the server sends it.
	size int
}

func (d *driver) callFull(name string, args any) (result, error) {
	d.t.Helper()
	tl, ok := d.tools[name]
	if !ok {
		d.t.Fatalf("no tool %s", name)
	}
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if d.st != nil {
		ctx = sessionstate.NewContext(ctx, d.st)
	}
	res, err := tl.Handler(ctx, raw)
	if err != nil {
		d.t.Fatalf("%s(%s): infrastructure error: %v", name, raw, err)
	}
	b, err := tooldef.EncodeJSON(res.Value)
	if err != nil {
		d.t.Fatalf("%s: encode: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		d.t.Fatalf("%s: decode %s: %v", name, b, err)
	}
	return result{m: m, isErr: res.IsError, images: res.Images, size: len(b)}, nil
}

// ok calls a tool that must succeed.
func (d *driver) ok(name string, args any) map[string]any {
	d.t.Helper()
	m, isErr := d.call(name, args)
	if isErr || m["success"] != true {
		d.t.Fatalf("%s(%v) failed: %v", name, args, m)
	}
	return m
}

// okSized calls a tool that must succeed and also returns the size in
// bytes of its result text.
func (d *driver) okSized(name string, args any) (map[string]any, int) {
	d.t.Helper()
	res, _ := d.callFull(name, args)
	if res.isErr || res.m["success"] != true {
		d.t.Fatalf("%s(%v) failed: %v", name, args, res.m)
	}
	return res.m, res.size
}

// fail calls a tool that must fail and returns its error text.
func (d *driver) fail(name string, args any) string {
	d.t.Helper()
	m, isErr := d.call(name, args)
	if !isErr {
		d.t.Fatalf("%s(%v) succeeded, want a failure: %v", name, args, m)
	}
	s, _ := m["error"].(string)
	return s
}

// ref finds the ref of the first snapshot line containing all of parts.
func ref(t testing.TB, snapshot string, parts ...string) string {
	t.Helper()
	if len(parts) == 0 {
		t.Fatal("ref: name a part of the line")
	}
	for _, line := range strings.Split(snapshot, "\n") {
		all := true
		for _, p := range parts {
			if !strings.Contains(line, p) {
				all = false
				break
			}
		}
		if !all {
			continue
		}
		// A table row's line lists several controls: take the first ref
		// after the last part named.
		at := strings.Index(line, parts[len(parts)-1])
		i := strings.Index(line[at:], "[ref=")
		if i < 0 {
			continue
		}
		i += at
		j := strings.IndexByte(line[i:], ']')
		return "@" + line[i+5:i+j]
	}
	t.Fatalf("no ref for %q in snapshot:\n%s", parts, snapshot)
	return ""
}

func eval(d *driver, expr string) any {
	d.t.Helper()
	return d.ok("browser_console", map[string]any{"expression": expr})["result"]
}

// waitTitle polls document.title, for effects that land after a click.
func waitTitle(d *driver, want string) {
	d.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	var got any
	for time.Now().Before(deadline) {
		if got = eval(d, "document.title"); got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.t.Fatalf("title = %v, want %q", got, want)
}

var _ = bytes.Contains
