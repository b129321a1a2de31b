// Package spec declares the `web` toolset, web_search and web_extract, without
// implementing it: names, descriptions, schemas, hints, the environment
// variables the toolset reads, and the availability check that hides
// web_search until a search provider is configured.
//
// It exists so the MCP front process (hermes-tools-mcp) can serve the
// declarations and hide unavailable tools without linking the implementation
// in the parent package, whose HTML, readability and PDF libraries cost every
// spawn start-up time; the front forwards calls to a worker process that does
// link it. The parent package builds its toolset from these same
// declarations, binding its real handlers, so there is one copy of every
// description and schema and one copy of the backend-selection logic.
//
// Keep this package light: it may import only the standard library,
// gopkg.in/yaml.v3 (through internal/hermeshome) and mcpserver/tooldef.
// TestLightDeps enforces it. Nothing here may do work at package init.
package spec

import (
	"encoding/json"
	"os"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Tool names, for binding handlers by name.
const (
	SearchTool  = "web_search"
	ExtractTool = "web_extract"
)

// Options is what the declarations and checks need.
type Options struct {
	// Home is HERMES_HOME, absolute; config.yaml is read from it on every
	// check, so edits apply without a restart.
	Home string
	// Getenv reads provider keys; nil means os.Getenv.
	Getenv func(string) string
}

// envVars are the variables the toolset reads, for Toolset.EnvVars: the
// keys the checks look at and the base URLs the implementation honours.
// A slice of constants is laid out statically, with no init code.
var envVars = []string{
	"TAVILY_API_KEY", "TAVILY_BASE_URL",
	"EXA_API_KEY", "EXA_BASE_URL",
	"FIRECRAWL_API_KEY", "FIRECRAWL_API_URL",
	"SEARXNG_URL",
	"BRAVE_SEARCH_API_KEY", "BRAVE_SEARCH_BASE_URL",
}

// Toolset returns the web toolset's declarations. Each tool's Handler is
// bind(tool name): the implementation binds its real handlers, the MCP front
// process binds handlers that forward to the worker. bind must not be nil.
func Toolset(opts Options, bind func(toolName string) tooldef.Handler) tooldef.Toolset {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	home := opts.Home
	hints := tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: true}
	return tooldef.Toolset{
		Name:        "web",
		Description: "Search the web and read pages (HTML, PDF) as Markdown.",
		Default:     true,
		EnvVars:     envVars,
		Tools: []tooldef.Tool{
			{
				Name:         SearchTool,
				Title:        "Search the web",
				Description:  searchDescription,
				InputSchema:  json.RawMessage(searchInputSchema),
				OutputSchema: json.RawMessage(searchOutputSchema),
				Hints:        hints,
				Handler:      bind(SearchTool),
				Check:        func() error { return checkSearch(home, getenv) },
			},
			{
				Name:         ExtractTool,
				Title:        "Read web pages",
				Description:  extractDescription,
				InputSchema:  json.RawMessage(extractInputSchema),
				OutputSchema: json.RawMessage(extractOutputSchema),
				Hints:        hints,
				Handler:      bind(ExtractTool),
				// No Check: with no provider key web_extract fetches the
				// page itself, so it is always available.
			},
		},
	}
}

// checkSearch hides web_search while no search provider is usable, with
// the reason shown to the user. It reads config.yaml on every call so a
// newly configured backend shows up without a restart.
func checkSearch(home string, getenv func(string) string) error {
	c, err := LoadConfig(home)
	if err != nil {
		return err
	}
	_, err = SearchBackend(c, getenv)
	return err
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
