package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// Environment variables the toolset reads.
const (
	// EnvCDPURL attaches to a running browser (ws:// or http:// DevTools
	// address) instead of launching Chromium.
	EnvCDPURL = catalog.EnvBrowserCDPURL
	// EnvChromePath overrides Chromium discovery.
	EnvChromePath = catalog.EnvChromePath
)

// Config is the browser section of config.yaml. A section that does not
// decode hides the tools with the decode error, rather than letting a call
// run on settings the user did not write.
type Config struct {
	// AllowPrivateURLs lets the browser open loopback and private-network
	// pages; nil means the default (allowed).
	AllowPrivateURLs *bool `yaml:"allow_private_urls"`
	// CDPURL attaches to an existing browser.
	CDPURL string `yaml:"cdp_url"`
	// CommandTimeout bounds each tool call, in seconds; 0 means the
	// default.
	CommandTimeout float64 `yaml:"command_timeout"`
}

// ReadConfig reads browser.* from home/config.yaml. A missing file (or an
// empty home) is the defaults; a broken one is an error naming the file,
// because silently ignoring it could turn a refusal of private URLs into an
// allowance.
func ReadConfig(home string) (Config, error) {
	var c struct {
		Browser Config `yaml:"browser"`
	}
	err := hermeshome.Decode(home, &c)
	return c.Browser, err
}

// Browser is the browser the tools would drive.
type Browser struct {
	// CDPURL, when set, is a running browser to attach to; no Chromium is
	// launched and ExecPath is unused.
	CDPURL string
	// ExecPath is the configured Chromium binary; empty means discovery.
	ExecPath string
}

// ResolveBrowser applies the precedence of the settings: an option (a
// command-line flag) wins over the environment, which wins over
// config.yaml (the Chromium path has no config key).
func ResolveBrowser(opts Options, cfg Config) Browser {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return Browser{
		CDPURL:   firstNonEmpty(opts.CDPURL, getenv(EnvCDPURL), cfg.CDPURL),
		ExecPath: firstNonEmpty(opts.ExecPath, getenv(EnvChromePath)),
	}
}

// check reports whether the browser tools can work: attaching needs
// nothing local (a browser that is down is reported by the first call, not
// guessed at here), launching needs a Chromium binary, found by lookPath.
func (b Browser) check(lookPath func(string) (string, error)) error {
	if b.CDPURL != "" {
		return nil
	}
	_, err := findChromium(b.ExecPath, lookPath)
	return err
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// FindChromium returns the browser binary: path when non-empty (it must
// exist), else the first of the usual names found (catalog.ChromiumNeed
// lists them, in the order they are tried).
func FindChromium(path string) (string, error) { return findChromium(path, exec.LookPath) }

func findChromium(path string, lookPath func(string) (string, error)) (string, error) {
	if path != "" {
		p, err := lookPath(path)
		if err != nil {
			return "", fmt.Errorf("browser binary %q not found (fix %s or the --browser-path flag): %w", path, EnvChromePath, err)
		}
		return p, nil
	}
	for _, c := range catalog.ChromiumNeed().Programs {
		if p, err := lookPath(c); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found: install it (Debian: apt-get install -y chromium), set " +
		EnvChromePath + " to a Chrome/Chromium binary, or set " + EnvCDPURL + " to attach to a running browser")
}
