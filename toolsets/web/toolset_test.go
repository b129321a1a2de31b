package web

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

func writeConfig(t *testing.T, configYAML string) string {
	t.Helper()
	home := t.TempDir()
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(configYAML), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func tool(t *testing.T, ts tooldef.Toolset, name string) tooldef.Tool {
	t.Helper()
	for _, tl := range ts.Tools {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return tooldef.Tool{}
}

func TestToolsetDeclaration(t *testing.T) {
	ts := Toolset(Options{Home: t.TempDir()})
	if ts.Name != ToolsetName || !ts.Default || len(ts.EnvVars) == 0 || len(ts.Tools) != 2 {
		t.Errorf("toolset = %+v", ts)
	}
	for _, tl := range ts.Tools {
		if !tl.Hints.ReadOnly || tl.Hints.Destructive || !tl.Hints.OpenWorld {
			t.Errorf("%s hints = %+v", tl.Name, tl.Hints)
		}
	}
	// web_extract has a keyless path and stays available.
	if tool(t, ts, ExtractTool).Check != nil {
		t.Error("web_extract has a Check; it must always be available")
	}
	if tool(t, ts, SearchTool).Check == nil {
		t.Error("web_search has no Check")
	}
}

func TestSearchCheck(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		config string
		// want is a substring of the reason; "" means available.
		want string
		is   error
	}{
		{"fresh home: the keyless tier", nil, "", "", nil},
		{"keyless tier off, nothing set", nil, "web:\n  keyless_fallback: false\n", "PERPLEXITY_API_KEY", ErrNoSearchBackend},
		{"keyless tier off by null", nil, "web:\n  keyless_fallback:\n", "web.keyless_fallback", ErrNoSearchBackend},
		// Python's bool("false") is True: the original keeps the tier on.
		{"the string false is true", nil, "web:\n  keyless_fallback: \"false\"\n", "", nil},
		{"tier off, key set", map[string]string{"TAVILY_API_KEY": "k"}, "web:\n  keyless_fallback: false\n", "", nil},
		{"tier off, named backend without key", nil, "web:\n  keyless_fallback: false\n  backend: perplexity\n",
			"PERPLEXITY_API_KEY is not set", nil},
		{"tier off, ddgs needs nothing", nil, "web:\n  keyless_fallback: false\n  search_backend: ddgs\n", "", nil},
		{"named backend without key is rescued", nil, "web:\n  backend: brave\n", "", nil},
		{"unknown backend", nil, "web:\n  backend: bingo\n", `web.backend is set to "bingo"`, nil},
		{"self-hosted firecrawl by URL", map[string]string{"FIRECRAWL_API_URL": "http://127.0.0.1:3002"}, "web:\n  keyless_fallback: false\n", "", nil},
		{"bad config.yaml", map[string]string{"TAVILY_API_KEY": "k"}, "web: [unclosed\n", "config.yaml", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := Toolset(Options{Home: writeConfig(t, tt.config), Getenv: envOf(tt.env)})
			err := tool(t, ts, SearchTool).Check()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Check = %v, want available", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Check = %v, want a reason containing %q", err, tt.want)
			case tt.is != nil && !errors.Is(err, tt.is):
				t.Errorf("Check = %v, want %v", err, tt.is)
			}
		})
	}
	t.Run("nil Getenv reads the environment", func(t *testing.T) {
		for _, k := range EnvVars() {
			t.Setenv(k, "")
		}
		ts := Toolset(Options{Home: writeConfig(t, "web:\n  keyless_fallback: false\n")})
		check := tool(t, ts, SearchTool).Check
		if err := check(); !errors.Is(err, ErrNoSearchBackend) {
			t.Fatalf("Check = %v with no keys", err)
		}
		// The check reads the environment on every call, not once.
		t.Setenv("EXA_API_KEY", "k")
		if err := check(); err != nil {
			t.Errorf("Check = %v after EXA_API_KEY was set", err)
		}
	})
}

func TestBackendSelection(t *testing.T) {
	all := map[string]string{
		"TAVILY_API_KEY": "t", "PERPLEXITY_API_KEY": "p", "EXA_API_KEY": "e", "PARALLEL_API_KEY": "pa",
		"KEENABLE_API_KEY": "k", "FIRECRAWL_API_KEY": "f", "SEARXNG_URL": "http://127.0.0.1:1", "BRAVE_SEARCH_API_KEY": "b",
	}
	without := func(keys ...string) map[string]string {
		m := map[string]string{}
		for k, v := range all {
			m[k] = v
		}
		for _, k := range keys {
			delete(m, k)
		}
		return m
	}
	ring := Selection{Ring: true}
	named := func(n string) Selection { return Selection{Name: n} }
	tests := []struct {
		name                  string
		env                   map[string]string
		config                string
		wantSearch, wantExtra Selection
	}{
		{"ladder: tavily first", all, "", named(BackendTavily), named(BackendTavily)},
		{"ladder: perplexity second", without("TAVILY_API_KEY"), "", named(BackendPerplexity), named(BackendPerplexity)},
		{"ladder: exa third", without("TAVILY_API_KEY", "PERPLEXITY_API_KEY"), "", named(BackendExa), named(BackendExa)},
		{"ladder: parallel", without("TAVILY_API_KEY", "PERPLEXITY_API_KEY", "EXA_API_KEY"), "", named(BackendParallel), named(BackendParallel)},
		{"ladder: keenable", without("TAVILY_API_KEY", "PERPLEXITY_API_KEY", "EXA_API_KEY", "PARALLEL_API_KEY"), "", named(BackendKeenable), named(BackendKeenable)},
		{"ladder: firecrawl by URL alone", map[string]string{"FIRECRAWL_API_URL": "http://127.0.0.1:3002"}, "", named(BackendFirecrawl), named(BackendFirecrawl)},
		{"ladder: searxng before brave, extract keyless", map[string]string{"SEARXNG_URL": "x", "BRAVE_SEARCH_API_KEY": "b"}, "", named(BackendSearXNG), ring},
		{"a Tavily pool of empty keys is no key", map[string]string{"TAVILY_API_KEY": " , ;"}, "", ring, ring},
		{"web.backend used as named, key or not", nil, "web:\n  backend: exa\n", named(BackendExa), named(BackendExa)},
		{"web.search_backend over web.backend", all, "web:\n  backend: exa\n  search_backend: brave\n", named(BackendBrave), named(BackendExa)},
		{"search-only web.backend keeps auto extract", all, "web:\n  backend: searxng\n", named(BackendSearXNG), named(BackendTavily)},
		{"ddgs only when named", nil, "web:\n  search_backend: duckduckgo\n", named(BackendDDGS), ring},
		{"nous is firecrawl", nil, "web:\n  backend: nous\n", named(BackendFirecrawl), named(BackendFirecrawl)},
		{"extract_backend local", all, "web:\n  extract_backend: local\n", named(BackendTavily), named(BackendLocal)},
		{"extract_backend firecrawl", all, "web:\n  extract_backend: firecrawl\n", named(BackendTavily), named(BackendFirecrawl)},
		{"nothing: keyless tier", nil, "", ring, ring},
		{"nothing, tier off: our extractor", nil, "web:\n  keyless_fallback: false\n", Selection{}, named(BackendLocal)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := LoadConfig(writeConfig(t, tt.config))
			if err != nil {
				t.Fatal(err)
			}
			s, _ := SearchBackend(c, envOf(tt.env))
			e, err := ExtractBackend(c, envOf(tt.env))
			if s != tt.wantSearch || e != tt.wantExtra || err != nil {
				t.Errorf("search, extract = %+v, %+v (%v); want %+v, %+v", s, e, err, tt.wantSearch, tt.wantExtra)
			}
		})
	}
	t.Run("search-only extract_backend", func(t *testing.T) {
		c, err := LoadConfig(writeConfig(t, "web:\n  extract_backend: brave\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ExtractBackend(c, envOf(all)); err == nil || !strings.HasPrefix(err.Error(), "Brave Search is a search-only backend") {
			t.Errorf("ExtractBackend = %v", err)
		}
	})
}

// config.yaml's web settings are read as the original reads them.
func TestConfigValues(t *testing.T) {
	tests := []struct {
		yaml                string
		keyless, rescue     bool
		charLimit           int
		tierExa, tierTavily string
	}{
		{"", true, true, 15000, "auto", "auto"},
		{"web:\n  keyless_fallback: false\n", false, false, 15000, "auto", "auto"},
		{"web:\n  keyless_rescue: 0\n", true, false, 15000, "auto", "auto"},
		{"web:\n  extract_char_limit: 100\n", true, true, 2000, "auto", "auto"},
		{"web:\n  extract_char_limit: 9000000\n", true, true, 500000, "auto", "auto"},
		{"web:\n  extract_char_limit: \" 20_000 \"\n", true, true, 20000, "auto", "auto"},
		{"web:\n  extract_char_limit: lots\n", true, true, 15000, "auto", "auto"},
		{"web:\n  extract_char_limit: 30000.9\n", true, true, 30000, "auto", "auto"},
		{"web:\n  provider_tier:\n    exa: FREE\n    tavily: gold\n", true, true, 15000, "free", "auto"},
		{"web:\n  provider_tier:\n    exa: ' paid '\n", true, true, 15000, "paid", "auto"},
	}
	for _, tt := range tests {
		c, err := LoadConfig(writeConfig(t, tt.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if c.KeylessOn() != tt.keyless || c.RescueOn() != tt.rescue || c.CharLimit() != tt.charLimit ||
			c.Tier(BackendExa) != tt.tierExa || c.Tier(BackendTavily) != tt.tierTavily {
			t.Errorf("%q: keyless %v rescue %v limit %d tiers %s/%s", tt.yaml, c.KeylessOn(), c.RescueOn(), c.CharLimit(),
				c.Tier(BackendExa), c.Tier(BackendTavily))
		}
	}
}
