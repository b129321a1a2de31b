// Package web is the `web` toolset: web_search and web_extract through the
// backend the user configured (Tavily, Perplexity, Exa, Parallel, Keenable,
// Firecrawl, SearXNG, Brave or DuckDuckGo, chosen as the Python Hermes
// chooses them) or, with nothing configured, through the original's keyless
// free tier (Exa's and Parallel's public MCP servers, Firecrawl and Keenable
// without a key, in a round robin that fails over on rate limits). A
// configured backend that fails a call is rescued once by the free tier.
// web_extract reads up to five pages; what no provider can read (a page on
// a private address the user allowed, or one the free tier failed on) is
// fetched by our own extractor (readability, HTML→Markdown, PDF text). A
// long page is cut to a head and tail, its full text stored, and read on
// with offset.
//
// Every URL a model supplies passes internal/urlguard before it is fetched
// or handed to a provider: URLs carrying secrets and cloud metadata
// addresses are always refused, private and loopback addresses unless
// config.yaml says web.allow_private_urls: true.
package web

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the web toolset.
type Options struct {
	// Home is HERMES_HOME, absolute; config.yaml is read from it on every
	// call, so edits apply without a restart.
	Home string
	// Getenv reads provider keys and base URLs; nil means os.Getenv.
	Getenv func(string) string
	// HTTPClient sends requests to the search and extract providers; nil
	// means a client with sane timeouts. Pages the model names are never
	// fetched through it: they go through a client whose dialer enforces
	// the URL policy.
	HTTPClient *http.Client
	// Resolver resolves host names for the URL policy check; nil means
	// net.DefaultResolver.
	Resolver urlguard.Resolver
	// Timeout bounds one provider request or one page fetch; 0 means 30 s.
	Timeout time.Duration
	// RingStart, when set, is the keyless tier's first vendor (an index
	// into exa, parallel, firecrawl, keenable), for tests; nil starts at
	// a random vendor, as the original does per process.
	RingStart *int
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// tools holds the resolved options shared by both handlers.
type tools struct {
	home     string
	getenv   func(string) string
	api      *http.Client
	resolver urlguard.Resolver
	timeout  time.Duration
	log      *slog.Logger
	ring     *ringState
	// tavilyNext turns Tavily's key pool round robin.
	tavilyNext atomic.Uint64
	// pageNet makes the connections of page fetches (after the URL
	// policy's checks); nil means a plain dialer. Tests refuse every
	// address but loopback with it.
	pageNet *net.Dialer

	// Page fetchers, one per policy, built on first use so connections
	// are reused across calls.
	strictOnce, openOnce sync.Once
	strict, open         *http.Client
}

func newTools(opts Options) *tools {
	t := &tools{
		home:     opts.Home,
		getenv:   opts.Getenv,
		api:      opts.HTTPClient,
		resolver: opts.Resolver,
		timeout:  opts.Timeout,
		log:      logger(opts.Logger),
		ring:     newRingState(opts.RingStart),
	}
	if t.getenv == nil {
		t.getenv = os.Getenv
	}
	if t.api == nil {
		t.api = &http.Client{Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
			MaxIdleConnsPerHost:   5,
		}}
	}
	if t.resolver == nil {
		t.resolver = net.DefaultResolver
	}
	if t.timeout <= 0 {
		t.timeout = 30 * time.Second
	}
	return t
}

// Toolset returns the web toolset.
func Toolset(opts Options) tooldef.Toolset { return newTools(opts).toolset() }

// withTimeout bounds one outbound request.
func (t *tools) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, t.timeout)
}

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.Web

// Tool names.
const (
	SearchTool  = catalog.WebSearch
	ExtractTool = catalog.WebExtract
)

// EnvVars returns the environment variables the toolset reads: the keys
// the checks look at and the base URLs the handlers honour.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// toolset declares the web toolset with t's handlers.
func (t *tools) toolset() tooldef.Toolset {
	home, getenv := t.home, t.getenv
	hints := tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "Search the web, then extract the pages worth reading; use the browser only when a page needs interaction.",
		EnvVars:      meta.EnvVars,
		Tools: []tooldef.Tool{
			{
				Name:         SearchTool,
				Title:        "Search the web",
				Description:  searchDescription,
				InputSchema:  json.RawMessage(searchInputSchema),
				OutputSchema: json.RawMessage(searchOutputSchema),
				Hints:        hints,
				Handler:      t.handleSearch,
				Check:        func() error { return checkSearch(home, getenv) },
			},
			{
				Name:         ExtractTool,
				Title:        "Read web pages",
				Description:  extractDescription,
				InputSchema:  json.RawMessage(extractInputSchema),
				OutputSchema: json.RawMessage(extractOutputSchema),
				Hints:        hints,
				Handler:      t.handleExtract,
				// No Check: with no provider at all web_extract fetches
				// the page itself, so it is always available.
			},
		},
	}
}

// checkSearch hides web_search while no search provider is usable, with
// the reason shown to the user: only when config.yaml turns the keyless
// tier off and nothing else is set (or names a backend this build lacks).
// It reads config.yaml on every call so a change shows without a restart.
func checkSearch(home string, getenv func(string) string) error {
	c, err := LoadConfig(home)
	if err != nil {
		return err
	}
	sel, err := SearchBackend(c, getenv)
	if err != nil {
		return err
	}
	return searchUsable(c, sel, getenv)
}
