package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// TestHTTPBrowserSessions drives the browser tools of one --listen server
// from two HTTP sessions: each sees only its own tabs and cookies, and
// after one session is deleted the other keeps working while the deleted
// one's id is refused.
func TestHTTPBrowserSessions(t *testing.T) {
	if _, err := browser.FindChromium(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Chromium is required in CI (make test installs it): %v", err)
		}
		t.Skipf("no Chromium: %v", err)
	}
	base := cookieSite(t)
	home := t.TempDir()
	srv := startHTTPServer(t, toolsbuild.ServerBinary(t), []string{"--hermes-home", home, "--toolsets", "browser"}, nil, nil)
	if strings.Contains(srv.stderr.String(), "share one Chromium") {
		t.Errorf("the server still warns that sessions share the browser's tabs:\n%s", srv.stderr)
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	var sessions [2]*httpSession
	for i := range sessions {
		s, err := openHTTPSession(client, srv.url)
		if err != nil {
			t.Fatalf("session %d: %v\n%s", i, err, srv.stderr)
		}
		sessions[i] = s
	}
	a, b := sessions[0], sessions[1]
	defer a.close()

	browserCall(t, a, "browser_navigate", map[string]any{"url": base + "/a"})
	browserCall(t, b, "browser_navigate", map[string]any{"url": base + "/b"})
	browserCall(t, a, "browser_console", map[string]any{"expression": `document.cookie = "who=a; path=/"`})

	for _, tc := range []struct {
		name string
		s    *httpSession
		url  string
	}{{"a", a, base + "/a"}, {"b", b, base + "/b"}} {
		r := browserCall(t, tc.s, "browser_tabs", map[string]any{"action": "list"})
		tabs, _ := r["tabs"].([]any)
		if len(tabs) != 1 || tabs[0].(map[string]any)["url"] != tc.url {
			t.Errorf("session %s's tabs = %v, want only %s", tc.name, tabs, tc.url)
		}
	}
	// The site's server sees each session's own cookies only.
	for _, tc := range []struct {
		name string
		s    *httpSession
		want string
	}{{"a", a, "cookies: who=a"}, {"b", b, "cookies:"}} {
		browserCall(t, tc.s, "browser_navigate", map[string]any{"url": base + "/cookies"})
		if got := browserCall(t, tc.s, "browser_console", map[string]any{"expression": "document.title"})["result"]; got != tc.want {
			t.Errorf("session %s: the server saw %q, want %q", tc.name, got, tc.want)
		}
	}

	b.close()
	if _, err := b.post(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"browser_snapshot","arguments":{}}}`); err == nil {
		t.Errorf("a deleted session's call was served")
	}
	r := browserCall(t, a, "browser_navigate", map[string]any{"url": base + "/a"})
	if !strings.Contains(fmt.Sprint(r["snapshot"]), "Page a") {
		t.Errorf("session a after b was deleted: %v", r)
	}
}

// browserCall calls a tool that must succeed and returns its JSON result.
func browserCall(t *testing.T, s *httpSession, name string, args map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
	raw, err := s.post(string(body))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var msg struct {
		Result struct {
			IsError bool
			Content []struct{ Text string }
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(raw, &msg); err != nil || msg.Error != nil || msg.Result.IsError || len(msg.Result.Content) == 0 {
		t.Fatalf("%s(%v): %s", name, args, raw)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(msg.Result.Content[0].Text), &m); err != nil {
		t.Fatalf("%s: result is not JSON: %s", name, msg.Result.Content[0].Text)
	}
	return m
}

// cookieSite serves /a and /b, and /cookies, whose title is the Cookie
// header the browser sent.
func cookieSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	for _, p := range []string{"a", "b"} {
		mux.HandleFunc("/"+p, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>Page %s</h1>", p, p)
		})
	}
	mux.HandleFunc("/cookies", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<!doctype html><title>cookies: %s</title><h1>Cookies</h1>", html.EscapeString(r.Header.Get("Cookie")))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}
