package web

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/urlguard"
)

// config is the part of config.yaml this toolset reads.
type config struct {
	Web struct {
		Backend          string `yaml:"backend"`
		SearchBackend    string `yaml:"search_backend"`
		ExtractBackend   string `yaml:"extract_backend"`
		AllowPrivateURLs bool   `yaml:"allow_private_urls"`
	} `yaml:"web"`
}

// loadConfig reads <home>/config.yaml; a missing file is the defaults.
func loadConfig(home string) (config, error) {
	var c config
	err := hermeshome.Decode(home, &c)
	return c, err
}

func (c config) policy() urlguard.Policy {
	return urlguard.Policy{AllowPrivate: c.Web.AllowPrivateURLs}
}

// Backend names, as config.yaml spells them.
const (
	backendFirecrawl = "firecrawl"
	backendTavily    = "tavily"
	backendExa       = "exa"
	backendSearXNG   = "searxng"
	backendBrave     = "brave-free"
	// backendLocal is the keyless extractor: fetch, readability, Markdown.
	backendLocal = "local"
)

// displayNames are the names used in messages.
var displayNames = map[string]string{
	backendFirecrawl: "Firecrawl", backendTavily: "Tavily", backendExa: "Exa",
	backendSearXNG: "SearXNG", backendBrave: "Brave Search", backendLocal: "the built-in extractor",
}

// normalize maps accepted spellings to a backend name.
func normalize(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "brave", "brave-search":
		return backendBrave
	case "builtin", "readability", "none", "fetch":
		return backendLocal
	}
	return name
}

// autoOrder is the Python Hermes' auto-detection order, minus the backends
// this build does not implement (parallel, the Nous gateway, ddgs).
var autoOrder = []string{backendTavily, backendExa, backendFirecrawl, backendSearXNG, backendBrave}

var extractCapable = map[string]bool{backendFirecrawl: true, backendTavily: true, backendExa: true}

// available reports whether a backend has what it needs in the environment.
func (t *tools) available(name string) bool {
	switch name {
	case backendTavily:
		return t.getenv("TAVILY_API_KEY") != ""
	case backendExa:
		return t.getenv("EXA_API_KEY") != ""
	case backendFirecrawl:
		// A self-hosted Firecrawl needs only its URL.
		return t.getenv("FIRECRAWL_API_KEY") != "" || t.getenv("FIRECRAWL_API_URL") != ""
	case backendSearXNG:
		return t.getenv("SEARXNG_URL") != ""
	case backendBrave:
		return t.getenv("BRAVE_SEARCH_API_KEY") != ""
	}
	return false
}

// errNoSearchBackend is the Python Hermes' text, extended with what to set
// here (there is no `hermes tools` wizard in this process).
var errNoSearchBackend = errors.New("No web search provider configured. Set one of TAVILY_API_KEY, EXA_API_KEY, " +
	"FIRECRAWL_API_KEY (or FIRECRAWL_API_URL for a self-hosted Firecrawl), SEARXNG_URL or BRAVE_SEARCH_API_KEY " +
	"in the environment hermes-tools runs in, or run `hermes tools` to set one up.")

// searchBackend picks the search provider: web.search_backend, then
// web.backend, each only if usable, then the first provider whose key is
// set.
func (t *tools) searchBackend(c config) (string, error) {
	for _, name := range []string{c.Web.SearchBackend, c.Web.Backend} {
		if n := normalize(name); n != "" && t.available(n) {
			return n, nil
		}
	}
	for _, n := range autoOrder {
		if t.available(n) {
			return n, nil
		}
	}
	return "", errNoSearchBackend
}

// extractBackend picks the extract provider the same way, falling back to
// the keyless extractor rather than failing.
func (t *tools) extractBackend(c config) (string, error) {
	if n := normalize(c.Web.ExtractBackend); n != "" {
		switch {
		case n == backendLocal:
			return backendLocal, nil
		case n == backendSearXNG || n == backendBrave:
			return "", fmt.Errorf("%s is a search-only backend and cannot extract URL content. Set web.extract_backend to firecrawl, tavily, exa, or local.", displayNames[n])
		case extractCapable[n] && t.available(n):
			return n, nil
		}
	}
	if n := normalize(c.Web.Backend); extractCapable[n] && t.available(n) {
		return n, nil
	}
	for _, n := range autoOrder {
		if extractCapable[n] && t.available(n) {
			return n, nil
		}
	}
	return backendLocal, nil
}

func (t *tools) checkSearch() error {
	c, err := loadConfig(t.home)
	if err != nil {
		return err
	}
	_, err = t.searchBackend(c)
	return err
}

// baseURL returns a provider's base URL: its override from the
// environment, else the public endpoint. No trailing slash.
func (t *tools) baseURL(name string) string {
	var env, def string
	switch name {
	case backendTavily:
		env, def = "TAVILY_BASE_URL", "https://api.tavily.com"
	case backendExa:
		env, def = "EXA_BASE_URL", "https://api.exa.ai"
	case backendFirecrawl:
		env, def = "FIRECRAWL_API_URL", "https://api.firecrawl.dev"
	case backendSearXNG:
		env = "SEARXNG_URL"
	case backendBrave:
		env, def = "BRAVE_SEARCH_BASE_URL", "https://api.search.brave.com"
	}
	u := t.getenv(env)
	if u == "" {
		u = def
	}
	return strings.TrimRight(u, "/")
}
