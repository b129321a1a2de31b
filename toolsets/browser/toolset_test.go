package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/catalog"
)

// env is a fake environment for Options.Getenv.
func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// fakeChromium is an executable file standing in for a browser binary.
func fakeChromium(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// homeWith returns a Hermes home whose config.yaml holds cfg.
func homeWith(t *testing.T, cfg string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// discover is a LookPath under which discovery finds the first of names
// (none: a machine without a browser), whatever this machine has
// installed; a configured path is looked up for real.
func discover(names ...string) func(string) (string, error) {
	return func(file string) (string, error) {
		if !slices.Contains(catalog.ChromiumNeed().Programs, file) {
			return exec.LookPath(file)
		}
		if len(names) == 0 {
			return "", exec.ErrNotFound
		}
		return exec.LookPath(names[0])
	}
}

func TestChecks(t *testing.T) {
	chromium := fakeChromium(t)
	const noVision = "vision_analyze needs a model: set VISION_MODEL"
	// browser_cdp is the original's: offered only with a browser to
	// attach to.
	const cdpOff = "browser_cdp is off"
	noChromium := "no Chromium found: install it (Debian: apt-get install -y chromium), set CHROME_PATH to a Chrome/Chromium binary, or set BROWSER_CDP_URL to attach to a running browser"
	for _, tc := range []struct {
		name string
		opts Options
		// discover are the names discovery finds; none: no browser is
		// installed.
		discover []string
		// browser is the error of the browser tools but vision ("" for none),
		// vision that of browser_vision, cdp that of browser_cdp; each is a
		// substring.
		browser, vision, cdp string
	}{
		{name: "discovered", discover: []string{chromium}, cdp: cdpOff},
		{name: "nothing installed", browser: noChromium, vision: noChromium, cdp: noChromium},
		{name: "flag path", opts: Options{ExecPath: chromium}, cdp: cdpOff},
		{name: "env path", opts: Options{Getenv: env(EnvChromePath, chromium)}, cdp: cdpOff},
		{name: "flag wins over env", opts: Options{ExecPath: chromium, Getenv: env(EnvChromePath, "/nonexistent/chrome")}, cdp: cdpOff},
		{
			name:    "missing flag path",
			opts:    Options{ExecPath: "/nonexistent/chrome"},
			browser: `browser binary "/nonexistent/chrome" not found (fix CHROME_PATH or the --browser-path flag)`,
			vision:  `browser binary "/nonexistent/chrome" not found`,
			cdp:     `browser binary "/nonexistent/chrome" not found`,
		},
		{
			name:    "missing env path",
			opts:    Options{Getenv: env(EnvChromePath, "no-such-chrome-binary")},
			browser: `browser binary "no-such-chrome-binary" not found`,
			vision:  `browser binary "no-such-chrome-binary" not found`,
			cdp:     `browser binary "no-such-chrome-binary" not found`,
		},
		// Attaching needs no local browser, however it is configured.
		{name: "CDP flag", opts: Options{CDPURL: "ws://127.0.0.1:1/devtools/browser/x", ExecPath: "/nonexistent/chrome"}},
		{name: "CDP env", opts: Options{Getenv: env(EnvCDPURL, "http://127.0.0.1:9222")}},
		{name: "CDP config", opts: Options{Home: homeWith(t, "browser:\n  cdp_url: http://127.0.0.1:9222\n")}},
		{
			name:    "broken config",
			opts:    Options{Home: homeWith(t, "browser: [\n"), CDPURL: "ws://127.0.0.1:1/x"},
			browser: "parse ", vision: "parse ", cdp: "parse ",
		},
		{
			// A key the check does not need still breaks the section, as
			// it does for the implementation.
			name:    "mistyped config key",
			opts:    Options{Home: homeWith(t, "browser:\n  allow_private_urls: [1]\n"), CDPURL: "ws://127.0.0.1:1/x"},
			browser: "parse ", vision: "parse ", cdp: "parse ",
		},
		{name: "no vision model", opts: Options{ExecPath: chromium, VisionUnavailable: noVision}, vision: noVision, cdp: cdpOff},
		{
			name:    "no browser outranks no vision model",
			opts:    Options{ExecPath: "/nonexistent/chrome", VisionUnavailable: noVision},
			browser: "not found", vision: "not found", cdp: "not found",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.LookPath = discover(tc.discover...)
			if tc.opts.Getenv == nil {
				tc.opts.Getenv = env()
			}
			if tc.opts.VisionUnavailable == "" {
				tc.opts.Vision = func(context.Context, []byte, string) (string, error) { return "", nil }
			}
			ts := New(tc.opts).Toolset()
			for _, tl := range ts.Tools {
				want := tc.browser
				switch tl.Name {
				case ToolVision:
					want = tc.vision
				case ToolCDP:
					want = tc.cdp
				}
				err := tl.Check()
				switch {
				case want == "" && err != nil:
					t.Errorf("%s hidden: %v", tl.Name, err)
				case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
					t.Errorf("%s check = %v, want an error containing %q", tl.Name, err, want)
				}
			}
		})
	}
}

// TestGetenvDefault: a nil Getenv reads the process environment.
func TestGetenvDefault(t *testing.T) {
	t.Setenv(EnvCDPURL, "")
	t.Setenv(EnvChromePath, "/nonexistent/from-env")
	b := ResolveBrowser(Options{}, Config{})
	if b.ExecPath != "/nonexistent/from-env" || b.CDPURL != "" {
		t.Errorf("ResolveBrowser with the process environment = %+v", b)
	}
}

func TestResolveBrowserPrecedence(t *testing.T) {
	cfg := Config{CDPURL: "http://config:9222"}
	for _, tc := range []struct {
		name string
		opts Options
		want Browser
	}{
		{"config", Options{Getenv: env()}, Browser{CDPURL: "http://config:9222"}},
		{"env over config", Options{Getenv: env(EnvCDPURL, "http://env:9222", EnvChromePath, "/env/chrome")}, Browser{CDPURL: "http://env:9222", ExecPath: "/env/chrome"}},
		{"flag over env", Options{CDPURL: "ws://flag", ExecPath: "/flag/chrome", Getenv: env(EnvCDPURL, "http://env:9222", EnvChromePath, "/env/chrome")}, Browser{CDPURL: "ws://flag", ExecPath: "/flag/chrome"}},
	} {
		if got := ResolveBrowser(tc.opts, cfg); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestReadConfig(t *testing.T) {
	home := homeWith(t, "model: x\nbrowser:\n  cdp_url: http://h:1\n  allow_private_urls: false\n  command_timeout: 2.5\n")
	cfg, err := ReadConfig(home)
	if err != nil || cfg.CDPURL != "http://h:1" || cfg.AllowPrivateURLs == nil || *cfg.AllowPrivateURLs || cfg.CommandTimeout != 2.5 {
		t.Errorf("ReadConfig = %+v, %v", cfg, err)
	}
	for _, home := range []string{"", t.TempDir()} {
		if cfg, err := ReadConfig(home); err != nil || cfg != (Config{}) {
			t.Errorf("ReadConfig(%q) without a file = %+v, %v", home, cfg, err)
		}
	}
}

// TestDeclarations checks the shape served: every tool in order, with a
// handler, an object schema and truthful hints.
func TestDeclarations(t *testing.T) {
	ts := New(Options{}).Toolset()
	want := []string{ToolNavigate, ToolSnapshot, ToolFind, ToolClick, ToolType, ToolFill, ToolPress, ToolScroll, ToolBack,
		ToolTabs, ToolDialog, ToolGetImages, ToolConsole, ToolVision, ToolCDP}
	if ts.Name != ToolsetName || !ts.Default || strings.Join(ts.EnvVars, ",") != EnvCDPURL+","+EnvChromePath {
		t.Errorf("toolset %q default %v env %v", ts.Name, ts.Default, ts.EnvVars)
	}
	if len(ts.Tools) != len(want) {
		t.Fatalf("%d tools; want %d", len(ts.Tools), len(want))
	}
	for i, tl := range ts.Tools {
		if tl.Name != want[i] {
			t.Errorf("tool %d = %s, want %s", i, tl.Name, want[i])
		}
		if tl.Check == nil || tl.Handler == nil {
			t.Errorf("%s has no check or no handler", tl.Name)
		}
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s schema: %v", tl.Name, err)
		}
		if tl.Hints.ReadOnly && tl.Hints.Destructive || !tl.Hints.OpenWorld {
			t.Errorf("%s hints: %+v", tl.Name, tl.Hints)
		}
	}
	// The schema advertises the limits the implementation applies.
	var snap struct {
		Properties struct {
			MaxChars struct {
				Maximum     int    `json:"maximum"`
				Description string `json:"description"`
			} `json:"max_chars"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(ts.Tools[1].InputSchema, &snap); err != nil {
		t.Fatal(err)
	}
	var find struct {
		Properties struct {
			MaxResults struct {
				Maximum int `json:"maximum"`
			} `json:"max_results"`
		} `json:"properties"`
	}
	var fill struct {
		Properties struct {
			Fields struct {
				MaxItems int `json:"maxItems"`
			} `json:"fields"`
		} `json:"properties"`
	}
	if json.Unmarshal(ts.Tools[2].InputSchema, &find) != nil || find.Properties.MaxResults.Maximum != findMaxMatches {
		t.Errorf("browser_find schema max_results %+v disagrees with %d", find.Properties.MaxResults, findMaxMatches)
	}
	if json.Unmarshal(ts.Tools[5].InputSchema, &fill) != nil || fill.Properties.Fields.MaxItems != maxFillFields {
		t.Errorf("browser_fill schema fields %+v disagrees with %d", fill.Properties.Fields, maxFillFields)
	}
	if snap.Properties.MaxChars.Maximum != MaxSnapshotChars || !strings.Contains(snap.Properties.MaxChars.Description, fmt.Sprintf("(default %d, or %d with full=true)", DefaultSnapshotChars, DefaultFullSnapshotChars)) {
		t.Errorf("browser_snapshot schema max_chars %+v disagrees with %d/%d", snap.Properties.MaxChars, DefaultSnapshotChars, MaxSnapshotChars)
	}
}
