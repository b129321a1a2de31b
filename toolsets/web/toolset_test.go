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
		{"no key", nil, "", "TAVILY_API_KEY", ErrNoSearchBackend},
		{"configured backend without its key", nil, "web:\n  backend: tavily\n", "No web search provider configured", ErrNoSearchBackend},
		{"extract key only is not a search key", map[string]string{"TAVILY_BASE_URL": "http://127.0.0.1:1"}, "", "SEARXNG_URL", ErrNoSearchBackend},
		{"tavily key", map[string]string{"TAVILY_API_KEY": "k"}, "", "", nil},
		{"self-hosted firecrawl by URL", map[string]string{"FIRECRAWL_API_URL": "http://127.0.0.1:3002"}, "", "", nil},
		{"searxng", map[string]string{"SEARXNG_URL": "http://127.0.0.1:8888"}, "", "", nil},
		{"brave", map[string]string{"BRAVE_SEARCH_API_KEY": "k"}, "", "", nil},
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
		ts := Toolset(Options{Home: writeConfig(t, "")})
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
		"TAVILY_API_KEY": "t", "EXA_API_KEY": "e", "FIRECRAWL_API_KEY": "f",
		"SEARXNG_URL": "http://127.0.0.1:1", "BRAVE_SEARCH_API_KEY": "b",
	}
	only := func(keys ...string) map[string]string {
		m := map[string]string{}
		for _, k := range keys {
			m[k] = all[k]
		}
		return m
	}
	tests := []struct {
		name                  string
		env                   map[string]string
		config                string
		wantSearch, wantExtra string
	}{
		{"auto order: tavily first", all, "", BackendTavily, BackendTavily},
		{"auto: exa before firecrawl", only("EXA_API_KEY", "FIRECRAWL_API_KEY"), "", BackendExa, BackendExa},
		{"auto: firecrawl by URL alone", map[string]string{"FIRECRAWL_API_URL": "http://127.0.0.1:3002"}, "", BackendFirecrawl, BackendFirecrawl},
		{"auto: searxng before brave, extract keyless", only("SEARXNG_URL", "BRAVE_SEARCH_API_KEY"), "", BackendSearXNG, BackendLocal},
		{"auto: brave", only("BRAVE_SEARCH_API_KEY"), "", BackendBrave, BackendLocal},
		{"web.backend wins", all, "web:\n  backend: exa\n", BackendExa, BackendExa},
		{"web.search_backend over web.backend", all, "web:\n  backend: exa\n  search_backend: brave\n", BackendBrave, BackendExa},
		{"search-only web.backend keeps auto extract", all, "web:\n  backend: searxng\n", BackendSearXNG, BackendTavily},
		{"configured but unavailable falls through", only("EXA_API_KEY"), "web:\n  backend: tavily\n", BackendExa, BackendExa},
		{"extract_backend local", all, "web:\n  extract_backend: local\n", BackendTavily, BackendLocal},
		{"extract_backend spelled builtin", all, "web:\n  extract_backend: builtin\n", BackendTavily, BackendLocal},
		{"extract_backend firecrawl", all, "web:\n  extract_backend: firecrawl\n", BackendTavily, BackendFirecrawl},
		{"nothing: keyless extract", nil, "", "", BackendLocal},
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
				t.Errorf("search, extract = %q, %q (%v); want %q, %q", s, e, err, tt.wantSearch, tt.wantExtra)
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
