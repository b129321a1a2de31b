package web

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
)

// Config is the part of config.yaml the web toolset reads. The search
// check and the handlers choose backends from it in one place, so a tool
// that is listed is a tool that works.
type Config struct {
	Web struct {
		Backend          string `yaml:"backend"`
		SearchBackend    string `yaml:"search_backend"`
		ExtractBackend   string `yaml:"extract_backend"`
		AllowPrivateURLs bool   `yaml:"allow_private_urls"`
	} `yaml:"web"`
}

// LoadConfig reads <home>/config.yaml; a missing file is the defaults.
func LoadConfig(home string) (Config, error) {
	var c Config
	err := hermeshome.Decode(home, &c)
	return c, err
}

// Backend names, as config.yaml spells them.
const (
	BackendFirecrawl = "firecrawl"
	BackendTavily    = "tavily"
	BackendExa       = "exa"
	BackendSearXNG   = "searxng"
	BackendBrave     = "brave-free"
	// BackendLocal is the keyless extractor: fetch, readability, Markdown.
	BackendLocal = "local"
)

// DisplayName is a backend's name as messages spell it. A switch rather
// than a map keeps package init empty.
func DisplayName(backend string) string {
	switch backend {
	case BackendFirecrawl:
		return "Firecrawl"
	case BackendTavily:
		return "Tavily"
	case BackendExa:
		return "Exa"
	case BackendSearXNG:
		return "SearXNG"
	case BackendBrave:
		return "Brave Search"
	case BackendLocal:
		return "the built-in extractor"
	}
	return ""
}

// normalize maps accepted spellings to a backend name.
func normalize(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "brave", "brave-search":
		return BackendBrave
	case "builtin", "readability", "none", "fetch":
		return BackendLocal
	}
	return name
}

// autoOrder is the Python Hermes' auto-detection order, minus the backends
// this build does not implement (parallel, the Nous gateway, ddgs).
var autoOrder = [...]string{BackendTavily, BackendExa, BackendFirecrawl, BackendSearXNG, BackendBrave}

// extractCapable reports whether a backend can read pages, not only search.
func extractCapable(name string) bool {
	switch name {
	case BackendFirecrawl, BackendTavily, BackendExa:
		return true
	}
	return false
}

// available reports whether a backend has what it needs in the environment.
func available(name string, getenv func(string) string) bool {
	switch name {
	case BackendTavily:
		return getenv("TAVILY_API_KEY") != ""
	case BackendExa:
		return getenv("EXA_API_KEY") != ""
	case BackendFirecrawl:
		// A self-hosted Firecrawl needs only its URL.
		return getenv("FIRECRAWL_API_KEY") != "" || getenv("FIRECRAWL_API_URL") != ""
	case BackendSearXNG:
		return getenv("SEARXNG_URL") != ""
	case BackendBrave:
		return getenv("BRAVE_SEARCH_API_KEY") != ""
	}
	return false
}

// ErrNoSearchBackend is the Python Hermes' text with its pointer to the
// `hermes tools` wizard replaced by what to set: `hermes tools` here lists
// this very text, so sending the user there would go round in a circle. It is the
// reason web_search is hidden and the error a call gets when nothing is
// configured. Its own type, rather than errors.New, lets the variable be
// initialised statically instead of at package init.
var ErrNoSearchBackend error = noSearchBackendError{}

type noSearchBackendError struct{}

func (noSearchBackendError) Error() string {
	return "No web search provider configured. Set one of TAVILY_API_KEY, EXA_API_KEY, " +
		"FIRECRAWL_API_KEY (or FIRECRAWL_API_URL for a self-hosted Firecrawl), SEARXNG_URL or BRAVE_SEARCH_API_KEY " +
		"in the environment hermes-tools runs in (for an MCP client, the env section of its hermes-tools entry), " +
		"or web.search_backend in config.yaml to pick one."
}

// SearchBackend picks the search provider: web.search_backend, then
// web.backend, each only if usable, then the first provider whose key is
// set. It fails with ErrNoSearchBackend when none is usable. getenv must
// not be nil.
func SearchBackend(c Config, getenv func(string) string) (string, error) {
	for _, name := range []string{c.Web.SearchBackend, c.Web.Backend} {
		if n := normalize(name); n != "" && available(n, getenv) {
			return n, nil
		}
	}
	for _, n := range autoOrder {
		if available(n, getenv) {
			return n, nil
		}
	}
	return "", ErrNoSearchBackend
}

// ExtractBackend picks the extract provider the same way, falling back to
// the keyless extractor (BackendLocal) rather than failing; it fails only
// when web.extract_backend names a search-only backend. getenv must not be
// nil.
func ExtractBackend(c Config, getenv func(string) string) (string, error) {
	if n := normalize(c.Web.ExtractBackend); n != "" {
		switch {
		case n == BackendLocal:
			return BackendLocal, nil
		case n == BackendSearXNG || n == BackendBrave:
			return "", fmt.Errorf("%s is a search-only backend and cannot extract URL content. Set web.extract_backend to firecrawl, tavily, exa, or local.", DisplayName(n))
		case extractCapable(n) && available(n, getenv):
			return n, nil
		}
	}
	if n := normalize(c.Web.Backend); extractCapable(n) && available(n, getenv) {
		return n, nil
	}
	for _, n := range autoOrder {
		if extractCapable(n) && available(n, getenv) {
			return n, nil
		}
	}
	return BackendLocal, nil
}
