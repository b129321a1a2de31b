// Package web is the `web` toolset: web_search through the provider the user
// configured (Firecrawl v2, Tavily, Exa, SearXNG or Brave, chosen as the
// Python Hermes chooses), and web_extract, which reads up to five pages at
// once through an extract-capable provider or, with no key at all, by
// fetching the page itself (readability, HTML→Markdown, PDF text).
//
// Every URL a model supplies passes internal/urlguard before it is fetched
// or handed to a provider: URLs carrying secrets and cloud metadata
// addresses are always refused, private and loopback addresses unless
// config.yaml says web.allow_private_urls: true.
package web

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
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
}

// Env vars read by this toolset, for Toolset.EnvVars.
var envVars = []string{
	"TAVILY_API_KEY", "TAVILY_BASE_URL",
	"EXA_API_KEY", "EXA_BASE_URL",
	"FIRECRAWL_API_KEY", "FIRECRAWL_API_URL",
	"SEARXNG_URL",
	"BRAVE_SEARCH_API_KEY", "BRAVE_SEARCH_BASE_URL",
}

// tools holds the resolved options shared by both handlers.
type tools struct {
	home     string
	getenv   func(string) string
	api      *http.Client
	resolver urlguard.Resolver
	timeout  time.Duration

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
func Toolset(opts Options) tooldef.Toolset {
	t := newTools(opts)
	hints := tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}
	return tooldef.Toolset{
		Name:        "web",
		Description: "Search the web and read pages (HTML, PDF) as Markdown.",
		Default:     true,
		EnvVars:     envVars,
		Tools: []tooldef.Tool{
			{
				Name:         "web_search",
				Title:        "Search the web",
				Description:  searchDescription,
				InputSchema:  json.RawMessage(searchInputSchema),
				OutputSchema: json.RawMessage(searchOutputSchema),
				Hints:        hints,
				Handler:      t.handleSearch,
				Check:        t.checkSearch,
			},
			{
				Name:         "web_extract",
				Title:        "Read web pages",
				Description:  extractDescription,
				InputSchema:  json.RawMessage(extractInputSchema),
				OutputSchema: json.RawMessage(extractOutputSchema),
				Hints:        hints,
				Handler:      t.handleExtract,
			},
		},
	}
}

// withTimeout bounds one outbound request.
func (t *tools) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, t.timeout)
}

const searchDescription = "Search the web for information on any topic. Returns up to 5 relevant results " +
	"by default (set limit for more, up to 100) with titles, URLs and descriptions. The query is passed " +
	"to the search backend as written, so operators such as site:, filetype:, intitle:, -term and " +
	"\"quoted phrases\" may work depending on the backend. Use web_extract to read a result in full."

const extractDescription = "Extract content from web page URLs as Markdown. Also reads PDF files: pass " +
	"the PDF link directly. Up to 5 URLs per call, fetched concurrently; each URL gets its own result, " +
	"and a URL that cannot be read reports its own error without failing the others. Very long pages " +
	"are truncated. URLs that carry API keys or tokens, and cloud metadata or private-network " +
	"addresses, are refused. If a page needs JavaScript or a login and comes back empty, use the " +
	"browser tools instead."

const searchInputSchema = `{
  "type": "object",
  "properties": {
    "query": {
      "type": "string",
      "description": "The search query to look up on the web. May include operators the backend supports, such as site:example.com, filetype:pdf, -term or \"exact phrase\"."
    },
    "limit": {
      "type": "integer",
      "description": "Maximum number of results to return (default 5).",
      "default": 5,
      "minimum": 1,
      "maximum": 100
    }
  },
  "required": ["query"]
}`

const searchOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "data": {
      "type": "object",
      "properties": {
        "web": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "title": {"type": "string"},
              "url": {"type": "string"},
              "description": {"type": "string"},
              "position": {"type": "integer", "minimum": 1}
            },
            "required": ["title", "url", "description", "position"]
          }
        }
      },
      "required": ["web"]
    }
  },
  "required": ["success", "data"]
}`

const extractInputSchema = `{
  "type": "object",
  "properties": {
    "urls": {
      "type": "array",
      "items": {"type": "string"},
      "description": "List of URLs to extract content from (max 5 URLs per call)",
      "maxItems": 5
    }
  },
  "required": ["urls"]
}`

const extractOutputSchema = `{
  "type": "object",
  "properties": {
    "results": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "url": {"type": "string"},
          "title": {"type": "string"},
          "content": {"type": "string"},
          "error": {"type": ["string", "null"]},
          "blocked_by_policy": {"type": "boolean"}
        },
        "required": ["url", "title", "content", "error"]
      }
    }
  },
  "required": ["results"]
}`
