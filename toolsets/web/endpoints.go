package web

import "strings"

// Endpoint overrides. The vendors' own variables (TAVILY_BASE_URL,
// PERPLEXITY_BASE_URL, XAI_BASE_URL, FIRECRAWL_API_URL, SEARXNG_URL) are
// the original's; the rest are this build's, for tests and self-hosting:
// the original calls those endpoints at fixed addresses.
const (
	envExaBase          = "EXA_BASE_URL"
	envTavilyBase       = "TAVILY_BASE_URL"
	envParallelBase     = "PARALLEL_BASE_URL"
	envPerplexityBase   = "PERPLEXITY_BASE_URL"
	envFirecrawlURL     = "FIRECRAWL_API_URL"
	envBraveBase        = "BRAVE_SEARCH_BASE_URL"
	envSearXNG          = "SEARXNG_URL"
	envExaMCP           = "HERMES_EXA_MCP_URL"
	envParallelMCP      = "HERMES_PARALLEL_MCP_URL"
	envFirecrawlKeyless = "HERMES_FIRECRAWL_KEYLESS_URL"
	envKeenableBase     = "HERMES_KEENABLE_URL"
	envDuckDuckGo       = "HERMES_DUCKDUCKGO_URL"
	envWikipedia        = "HERMES_WIKIPEDIA_URL"
)

// endpoint is one provider address: the variable that overrides it and
// its public default.
type endpoint struct{ env, def string }

var (
	exaAPI           = endpoint{envExaBase, "https://api.exa.ai"}
	exaMCP           = endpoint{envExaMCP, "https://mcp.exa.ai/mcp"}
	tavilyAPI        = endpoint{envTavilyBase, "https://api.tavily.com"}
	parallelAPI      = endpoint{envParallelBase, "https://api.parallel.ai"}
	parallelMCP      = endpoint{envParallelMCP, "https://search.parallel.ai/mcp"}
	perplexityAPI    = endpoint{envPerplexityBase, "https://api.perplexity.ai"}
	firecrawlAPI     = endpoint{envFirecrawlURL, "https://api.firecrawl.dev"}
	firecrawlKeyless = endpoint{envFirecrawlKeyless, "https://api.firecrawl.dev"}
	keenableAPI      = endpoint{envKeenableBase, "https://api.keenable.ai"}
	braveAPI         = endpoint{envBraveBase, "https://api.search.brave.com"}
	searxngAPI       = endpoint{envSearXNG, ""}
	duckduckgoHTML   = endpoint{envDuckDuckGo, "https://html.duckduckgo.com"}
	wikipediaAPI     = endpoint{envWikipedia, "https://en.wikipedia.org"}
)

// url returns the endpoint's address without a trailing slash.
func (t *tools) url(e endpoint) string {
	u := strings.TrimSpace(t.getenv(e.env))
	if u == "" {
		u = e.def
	}
	return strings.TrimRight(u, "/")
}
