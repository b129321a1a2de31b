package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/toolsets/browser"
)

// Off loopback the browser's private-URL default becomes "refused"; an
// explicit setting in config.yaml wins, true with a warning.
func TestBrowserPrivateURLsOffLoopback(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listen string
		config string // browser.allow_private_urls in config.yaml; "" leaves it out
		want   string // "nil" (config or default applies) or "false"
		warn   bool
	}{
		{"stdio", "", "", "nil", false},
		{"loopback", "127.0.0.1:8787", "", "nil", false},
		{"localhost", "localhost:8787", "", "nil", false},
		{"every interface", ":8787", "", "false", false},
		{"wildcard", "0.0.0.0:8787", "", "false", false},
		{"a host name", "mcp.example.com:8787", "", "false", false},
		{"explicitly allowed", "0.0.0.0:8787", "true", "nil", true},
		{"explicitly refused", "0.0.0.0:8787", "false", "nil", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("browser:\n  allow_private_urls: "+tc.config+"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, notes, err := browserPrivateURLs(options{command: "serve", listen: tc.listen}, home)
			if err != nil {
				t.Fatal(err)
			}
			if s := fmtBoolPtr(got); s != tc.want {
				t.Errorf("got %s, want %s", s, tc.want)
			}
			warned := false
			for _, n := range notes {
				warned = warned || n.level == slog.LevelWarn
			}
			if warned != tc.warn {
				t.Errorf("warned %v, want %v: %v", warned, tc.warn, notes)
			}
		})
	}
}

func fmtBoolPtr(b *bool) string {
	switch {
	case b == nil:
		return "nil"
	case *b:
		return "true"
	default:
		return "false"
	}
}

// The real server listening on every interface: its Chromium refuses a
// loopback page by default and opens it when config.yaml allows it, and
// the start-up log warns about plain HTTP and about that setting. The
// test sends traffic to 127.0.0.1 only.
func TestHTTPOffLoopbackBrowser(t *testing.T) {
	if _, err := browser.FindChromium(""); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Chromium is required in CI (make test installs it): %v", err)
		}
		t.Skipf("no Chromium: %v", err)
	}
	site := cookieSite(t) // a page on 127.0.0.1
	var b [16]byte
	rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	for _, tc := range []struct {
		name    string
		config  string
		refused bool
		warning string
	}{
		{"default", "", true, "the browser refuses loopback and private-network URLs"},
		{"allowed in config.yaml", "browser:\n  allow_private_urls: true\n", false, "browser.allow_private_urls is true in config.yaml while serving off loopback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			srv := startHTTPServer(t, toolsbuild.ServerBinary(t), []string{"--hermes-home", home, "--toolsets", "browser", "--listen", "0.0.0.0:0"},
				[]string{TokenEnv + "=" + token}, nil)
			s, err := openHTTPSession(&http.Client{Timeout: 2 * time.Minute}, srv.url)
			if err == nil {
				t.Fatalf("a session opened without the token")
			}
			s, err = (&httpSession{c: &http.Client{Timeout: 2 * time.Minute}, url: srv.url, token: token}).open()
			if err != nil {
				t.Fatalf("session: %v\n%s", err, srv.stderr)
			}
			defer s.close()
			body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
				"params": map[string]any{"name": "browser_navigate", "arguments": map[string]any{"url": site + "/a"}}})
			raw, err := s.post(string(body))
			if err != nil {
				t.Fatal(err)
			}
			var msg struct {
				Result struct {
					IsError bool
					Content []struct{ Text string }
				}
			}
			if err := json.Unmarshal(raw, &msg); err != nil || len(msg.Result.Content) == 0 {
				t.Fatalf("browser_navigate: %s", raw)
			}
			text := msg.Result.Content[0].Text
			if refused := msg.Result.IsError && strings.Contains(text, "private or internal network"); refused != tc.refused {
				t.Errorf("refused %v, want %v: %.300s", refused, tc.refused, text)
			}
			if !tc.refused && !strings.Contains(text, "Page a") {
				t.Errorf("the allowed page did not load: %.300s", text)
			}
			log := srv.stderr.String()
			for _, want := range []string{"serving plain HTTP off loopback", tc.warning} {
				if !strings.Contains(log, want) {
					t.Errorf("start-up log lacks %q:\n%.2000s", want, log)
				}
			}
			if strings.Contains(log, token) {
				t.Error("the server log contains the token")
			}
		})
	}
}
