package web

import (
	"strings"

	"github.com/hermes-go/hermes/internal/urlguard"
)

// urlPolicy is the URL policy config.yaml in home asks for.
func urlPolicy(c Config, home string) urlguard.Policy {
	return urlguard.Policy{
		AllowPrivate: c.Web.AllowPrivateURLs,
		AllowHint:    urlguard.AllowPrivateHint(home, "web.allow_private_urls"),
	}
}

// baseURL returns a provider's base URL: its override from the
// environment, else the public endpoint. No trailing slash.
func (t *tools) baseURL(name string) string {
	var env, def string
	switch name {
	case BackendTavily:
		env, def = "TAVILY_BASE_URL", "https://api.tavily.com"
	case BackendExa:
		env, def = "EXA_BASE_URL", "https://api.exa.ai"
	case BackendFirecrawl:
		env, def = "FIRECRAWL_API_URL", "https://api.firecrawl.dev"
	case BackendSearXNG:
		env = "SEARXNG_URL"
	case BackendBrave:
		env, def = "BRAVE_SEARCH_BASE_URL", "https://api.search.brave.com"
	}
	u := t.getenv(env)
	if u == "" {
		u = def
	}
	return strings.TrimRight(u, "/")
}
