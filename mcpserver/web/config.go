package web

import (
	"strings"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/mcpserver/web/spec"
)

// Reading config.yaml and choosing backends live in spec, which the MCP
// front process uses to hide web_search: one copy keeps the check and the
// handlers in agreement about which provider is in use.

// urlPolicy is the URL policy config.yaml asks for.
func urlPolicy(c spec.Config) urlguard.Policy {
	return urlguard.Policy{AllowPrivate: c.Web.AllowPrivateURLs}
}

// baseURL returns a provider's base URL: its override from the
// environment, else the public endpoint. No trailing slash.
func (t *tools) baseURL(name string) string {
	var env, def string
	switch name {
	case spec.BackendTavily:
		env, def = "TAVILY_BASE_URL", "https://api.tavily.com"
	case spec.BackendExa:
		env, def = "EXA_BASE_URL", "https://api.exa.ai"
	case spec.BackendFirecrawl:
		env, def = "FIRECRAWL_API_URL", "https://api.firecrawl.dev"
	case spec.BackendSearXNG:
		env = "SEARXNG_URL"
	case spec.BackendBrave:
		env, def = "BRAVE_SEARCH_BASE_URL", "https://api.search.brave.com"
	}
	u := t.getenv(env)
	if u == "" {
		u = def
	}
	return strings.TrimRight(u, "/")
}
