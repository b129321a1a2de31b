package web

import (
	"fmt"
	"slices"
	"strings"
)

// Backend names, as config.yaml spells them.
const (
	BackendFirecrawl  = "firecrawl"
	BackendTavily     = "tavily"
	BackendExa        = "exa"
	BackendParallel   = "parallel"
	BackendPerplexity = "perplexity"
	BackendKeenable   = "keenable"
	BackendSearXNG    = "searxng"
	BackendBrave      = "brave-free"
	BackendDDGS       = "ddgs"
	// BackendLocal is our own extractor: fetch, readability, Markdown,
	// PDF text. The original has none.
	BackendLocal = "local"
)

// ring is the keyless free tier's vendors, in the original's order: the
// round robin and the failover walk both follow it.
var ring = [...]string{BackendExa, BackendParallel, BackendFirecrawl, BackendKeenable}

func inRing(name string) bool { return slices.Contains(ring[:], name) }

// DisplayName is a backend's name as messages spell it.
func DisplayName(backend string) string {
	switch backend {
	case BackendFirecrawl:
		return "Firecrawl"
	case BackendTavily:
		return "Tavily"
	case BackendExa:
		return "Exa"
	case BackendParallel:
		return "Parallel"
	case BackendPerplexity:
		return "Perplexity"
	case BackendKeenable:
		return "Keenable"
	case BackendSearXNG:
		return "SearXNG"
	case BackendBrave:
		return "Brave Search"
	case BackendDDGS:
		return "DuckDuckGo"
	case BackendLocal:
		return "the built-in extractor"
	}
	return backend
}

// known reports whether this build has the backend.
func known(name string) bool {
	switch name {
	case BackendFirecrawl, BackendTavily, BackendExa, BackendParallel, BackendPerplexity,
		BackendKeenable, BackendSearXNG, BackendBrave, BackendDDGS:
		return true
	}
	return false
}

const supportedNames = "tavily, perplexity, exa, parallel, keenable, firecrawl, searxng, brave-free, ddgs"

// normalize maps accepted spellings to a backend name.
func normalize(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case "brave", "brave-search", "brave_free":
		return BackendBrave
	case "duckduckgo":
		return BackendDDGS
	case "nous":
		// The original's managed gateway is Firecrawl behind Nous'
		// subscription; this build reaches Firecrawl directly.
		return BackendFirecrawl
	case "builtin", "readability", "none", "fetch":
		return BackendLocal
	}
	return name
}

// autoOrder is the original's auto-detection ladder for a never
// configured install, each rung taken when its key (or URL) is set. ddgs
// is left out: the original takes it when its Python package is
// installed, which has no equivalent here; it is used only when named.
var autoOrder = [...]string{BackendTavily, BackendPerplexity, BackendExa, BackendParallel, BackendKeenable,
	BackendFirecrawl, BackendSearXNG, BackendBrave}

// extractCapable reports whether a backend can read pages, not only search.
func extractCapable(name string) bool {
	switch name {
	case BackendFirecrawl, BackendTavily, BackendExa, BackendParallel, BackendPerplexity, BackendKeenable:
		return true
	}
	return false
}

// keyEnv names a backend's key (SearXNG's URL stands in for one).
func keyEnv(backend string) string {
	switch backend {
	case BackendTavily:
		return "TAVILY_API_KEY"
	case BackendExa:
		return "EXA_API_KEY"
	case BackendParallel:
		return "PARALLEL_API_KEY"
	case BackendPerplexity:
		return "PERPLEXITY_API_KEY"
	case BackendKeenable:
		return "KEENABLE_API_KEY"
	case BackendFirecrawl:
		return "FIRECRAWL_API_KEY"
	case BackendBrave:
		return "BRAVE_SEARCH_API_KEY"
	case BackendSearXNG:
		return "SEARXNG_URL"
	}
	return ""
}

// available reports whether a backend has what it needs in the environment
// to run keyed (a self-hosted Firecrawl needs only its URL; ddgs nothing).
func available(name string, getenv func(string) string) bool {
	switch name {
	case BackendFirecrawl:
		return getenv("FIRECRAWL_API_KEY") != "" || getenv("FIRECRAWL_API_URL") != ""
	case BackendTavily:
		return len(tavilyKeys(getenv)) > 0
	case BackendDDGS:
		return true
	}
	if k := keyEnv(name); k != "" {
		return getenv(k) != ""
	}
	return false
}

// keylessCapable reports whether a backend can serve with no key at all
// once it is named: the ring vendors and Tavily's opt-in keyless mode,
// while the keyless tier is on or the vendor is pinned free.
func keylessCapable(c Config, name string) bool {
	if c.Tier(name) == "paid" {
		return false
	}
	if c.Tier(name) == "free" {
		return inRing(name) || name == BackendTavily
	}
	return (inRing(name) || name == BackendTavily) && c.KeylessOn()
}

// ErrNoSearchBackend is the reason web_search is hidden when the keyless
// tier is turned off and nothing else is configured. The original sends
// the user to its `hermes tools` wizard; this says what to set instead.
var ErrNoSearchBackend error = noSearchBackendError{}

type noSearchBackendError struct{}

func (noSearchBackendError) Error() string {
	return "No web search provider configured. Set one of TAVILY_API_KEY, PERPLEXITY_API_KEY, EXA_API_KEY, " +
		"PARALLEL_API_KEY, KEENABLE_API_KEY, FIRECRAWL_API_KEY (or FIRECRAWL_API_URL for a self-hosted Firecrawl), " +
		"SEARXNG_URL or BRAVE_SEARCH_API_KEY in the environment hermes-tools runs in (for an MCP client, the env " +
		"section of its hermes-tools entry), or web.search_backend in config.yaml; or remove " +
		"web.keyless_fallback: false from config.yaml to search through the keyless free tier."
}

// Selection is the backend a call goes to. Ring means the keyless tier
// was chosen because nothing else is configured: the vendor is the ring's
// next, not a name.
type Selection struct {
	Name string
	Ring bool
}

// unknownBackend is the error for a config.yaml name this build lacks.
func unknownBackend(key, name string) error {
	return fmt.Errorf("web.%s is set to %q, which hermes-tools does not have (supported: %s); fix it in config.yaml",
		key, name, supportedNames)
}

// SearchBackend picks the search provider as the original does:
// web.search_backend, then web.backend, used as named (a backend missing
// its key reports that on the call); else the first backend of the
// auto-detection ladder whose key is set; else the keyless tier. It fails
// with ErrNoSearchBackend when the tier is off and nothing is set.
func SearchBackend(c Config, getenv func(string) string) (Selection, error) {
	for _, k := range []struct{ key, val string }{{"search_backend", c.Web.SearchBackend}, {"backend", c.Web.Backend}} {
		n := normalize(k.val)
		if n == "" {
			continue
		}
		if !known(n) {
			return Selection{}, unknownBackend(k.key, strings.TrimSpace(k.val))
		}
		return Selection{Name: n}, nil
	}
	for _, n := range autoOrder {
		if available(n, getenv) {
			return Selection{Name: n}, nil
		}
	}
	if c.KeylessOn() {
		return Selection{Ring: true}, nil
	}
	return Selection{}, ErrNoSearchBackend
}

// searchUsable is the check's question: will a call to sel do more than
// report a missing key?
func searchUsable(c Config, sel Selection, getenv func(string) string) error {
	// An explicitly named Firecrawl without a key reaches its cloud
	// anonymously; a failed call is rescued while the rescue is on.
	if sel.Ring || available(sel.Name, getenv) || keylessCapable(c, sel.Name) || c.RescueOn() || sel.Name == BackendFirecrawl {
		return nil
	}
	return fmt.Errorf("web search is set to %s in config.yaml, but %s is not set and the keyless tier cannot stand in "+
		"(web.keyless_fallback or web.keyless_rescue is off); set %s in the environment hermes-tools runs in, or pick another backend",
		DisplayName(sel.Name), keyEnv(sel.Name), keyEnv(sel.Name))
}

// ExtractBackend picks the extract provider: web.extract_backend (strict:
// a search-only name is an error), then web.backend when it can extract,
// then the ladder's extract-capable backends, then the keyless tier, then
// our own extractor (BackendLocal).
func ExtractBackend(c Config, getenv func(string) string) (Selection, error) {
	if raw := strings.TrimSpace(c.Web.ExtractBackend); raw != "" {
		n := normalize(raw)
		switch {
		case n == BackendLocal:
			return Selection{Name: BackendLocal}, nil
		case n == BackendSearXNG || n == BackendBrave || n == BackendDDGS:
			return Selection{}, fmt.Errorf("%s is a search-only backend and cannot extract URL content. "+
				"Set web.extract_backend to firecrawl, tavily, keenable, exa, or parallel.", DisplayName(n))
		case !known(n):
			return Selection{}, unknownBackend("extract_backend", raw)
		}
		return Selection{Name: n}, nil
	}
	if n := normalize(c.Web.Backend); extractCapable(n) {
		return Selection{Name: n}, nil
	} else if n == BackendLocal {
		return Selection{Name: BackendLocal}, nil
	}
	for _, n := range autoOrder {
		if extractCapable(n) && available(n, getenv) {
			return Selection{Name: n}, nil
		}
	}
	if c.KeylessOn() {
		return Selection{Ring: true}, nil
	}
	return Selection{Name: BackendLocal}, nil
}
