package browser_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/toolsets/browser"
)

// A navigation that did not reach a page is an error naming why, never
// success with an empty title: the model would read the browser's own
// error page as the site.
func TestNavigateFailureIsError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.Error(w, "no such page", http.StatusNotFound)
		case "/broken":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, "<title>Oops</title><p>server error")
		default:
			fmt.Fprint(w, "<title>Fine</title><p>hello")
		}
	}))
	t.Cleanup(srv.Close)
	// A port that was just closed refuses connections.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	allow := true
	d := newDriver(t, browser.Options{AllowPrivateURLs: &allow})
	for _, tc := range []struct {
		name, url string
		want      []string
	}{
		{"refused port", "http://" + closed + "/", []string{"connection refused"}},
		{"unknown host", "http://no-such-host.invalid/", []string{"no such host"}},
		{"HTTP 404", srv.URL + "/missing", []string{"404"}},
		{"HTTP 500", srv.URL + "/broken", []string{"500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, isErr := d.call("browser_navigate", map[string]any{"url": tc.url})
			if !isErr {
				t.Fatalf("navigate %s succeeded, want an error naming the cause: %v", tc.url, m)
			}
			msg, _ := m["error"].(string)
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("navigate %s: error %q does not name %q", tc.url, msg, w)
				}
			}
		})
	}
	// A working page after the failures still succeeds.
	m := d.ok("browser_navigate", map[string]any{"url": srv.URL + "/"})
	if m["title"] != "Fine" {
		t.Errorf("title after failures = %v, want Fine", m["title"])
	}
}

// A navigation the page starts on its own (a timer setting location.href)
// while the model's browser_navigate is under way must not win: the model
// asked for dest.
func TestNavigateWinsOverPageNavigation(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/jumpy":
			fmt.Fprint(w, `<title>Jumpy</title><script>setTimeout(() => { location.href = "/elsewhere?ms=150"; }, 30)</script>`)
		case "/elsewhere":
			time.Sleep(time.Duration(intParam(r, "ms", 0)) * time.Millisecond)
			fmt.Fprint(w, `<title>Elsewhere</title>`)
		case "/dest":
			// Slow enough that the page's timer fires while we wait.
			time.Sleep(time.Duration(intParam(r, "ms", 0)) * time.Millisecond)
			fmt.Fprint(w, `<title>Dest</title><a href="/x">go there</a>`)
		}
	}))
	t.Cleanup(srv.Close)
	// The page's timer navigation replaces or aborts ours (round 1 on the
	// old code, every run); navigate goes to dest again until it lands.
	allow := true
	d := newDriver(t, browser.Options{AllowPrivateURLs: &allow})
	for i := range 12 {
		d.ok("browser_navigate", map[string]any{"url": srv.URL + "/jumpy"})
		time.Sleep(time.Duration(i*5) * time.Millisecond)
		m, isErr := d.call("browser_navigate", map[string]any{"url": fmt.Sprintf("%s/dest?ms=%d", srv.URL, (i%3)*100)})
		if isErr || m["title"] != "Dest" {
			t.Fatalf("round %d: navigate to /dest while the page navigates itself = %v, want Dest", i, m)
		}
	}
}
