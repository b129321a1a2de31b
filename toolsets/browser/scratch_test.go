package browser_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hermes-go/hermes/toolsets/browser"
)

func TestScratch(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir("testdata/tasks")))
	defer srv.Close()
	d := newDriver(t, browser.Options{})
	d.ok("browser_navigate", map[string]any{"url": srv.URL + "/article.html"})
	m, n := d.okSized("browser_snapshot", map[string]any{"full": true, "max_chars": 200000})
	s := m["snapshot"].(string)
	t.Log(n, len(s))
	t.Log(s[:3000])
	m, n = d.okSized("browser_snapshot", map[string]any{"full": true})
	t.Log(n, m["next_offset"])
}
