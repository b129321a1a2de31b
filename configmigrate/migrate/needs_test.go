package migrate

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestToolNeeds: the tools listed as waiting are exactly those of enabled
// toolsets that hermes-tools' own checks hide for an unset variable; a
// key that is set, a toolset left out or a tool excluded takes them off,
// and kanban (whose variables the dispatcher sets) is never listed. A
// program found (Chromium, espeak-ng) meets a need as a variable does; a
// tool that waits for a program alone is not listed, nor one whose
// backend config.yaml chooses.
func TestToolNeeds(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		env     map[string]string
		missing []string // programs not installed; every other one is
		want    []string // tools listed
		notWant []string
		// vars are the variables listed for a tool.
		vars map[string][]string
	}{
		// web_search needs no key: the keyless tier answers on a fresh install.
		{name: "nothing set", want: []string{"vision_analyze", "browser_vision", "image_generate"}, notWant: []string{"web_search"}},
		{name: "a search key", env: map[string]string{"TAVILY_API_KEY": "k"}, want: []string{"vision_analyze", "image_generate"}, notWant: []string{"web_search"}},
		{name: "an OpenAI key and a vision model", yaml: "auxiliary:\n  vision:\n    model: gpt-5-mini\n", env: map[string]string{"OPENAI_API_KEY": "k"}, notWant: []string{"web_search", "vision_analyze", "browser_vision", "image_generate"}},
		{name: "only memory enabled", yaml: "hermes_tools:\n  toolsets: [memory]\n", notWant: []string{"web_search", "vision_analyze", "image_generate"}},
		{name: "web_search excluded", yaml: "hermes_tools:\n  exclude_tools: [web_search]\n", want: []string{"vision_analyze"}, notWant: []string{"web_search"}},
		{name: "kanban enabled", yaml: "toolsets: [kanban]\n", want: []string{"image_generate"}},
		{name: "the variables of each need", want: []string{"vision_analyze", "image_generate"}, vars: map[string][]string{
			"vision_analyze": {"OPENAI_API_KEY", "OPENROUTER_API_KEY", "NOUS_API_KEY", "ANTHROPIC_API_KEY"},
			"browser_vision": {"OPENAI_API_KEY", "OPENROUTER_API_KEY", "NOUS_API_KEY", "ANTHROPIC_API_KEY"},
			"image_generate": {"FAL_KEY", "OPENAI_API_KEY"},
		}},
		{name: "no Chromium", missing: []string{"/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chromium-headless-shell", "headless_shell"},
			want: []string{"browser_navigate", "browser_console", "browser_vision"}, vars: map[string][]string{"browser_navigate": {"CHROME_PATH", "BROWSER_CDP_URL"}, "browser_vision": {"CHROME_PATH", "BROWSER_CDP_URL"}}},
		{name: "no Chromium but a browser to attach to", yaml: "browser:\n  cdp_url: http://127.0.0.1:9222\n", missing: []string{"/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chromium-headless-shell", "headless_shell"},
			want: []string{"browser_vision"}, notWant: []string{"browser_navigate"}, vars: map[string][]string{"browser_vision": {"OPENAI_API_KEY", "OPENROUTER_API_KEY", "NOUS_API_KEY", "ANTHROPIC_API_KEY"}}},
		{name: "no espeak-ng: a program, not a variable", missing: []string{"espeak-ng"}, want: []string{"image_generate"}, notWant: []string{"text_to_speech"}},
		{name: "vision on a server config.yaml names", yaml: "auxiliary:\n  vision:\n    base_url: http://127.0.0.1:8080/v1\n", want: []string{"image_generate"}, notWant: []string{"vision_analyze", "browser_vision"}},
		{name: "image provider chosen in config.yaml", yaml: "image_gen:\n  provider: openai\n  base_url: http://127.0.0.1:8080/v1\n", want: []string{"vision_analyze"}, notWant: []string{"image_generate"}},
		{name: "todo enabled waits for nothing", yaml: "hermes_tools:\n  toolsets: [todo, memory]\n", notWant: []string{"todo", "memory", "web_search"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.yaml != "" {
				if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tt.yaml), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			needs, err := toolNeeds(home, func(k string) string { return tt.env[k] }, func(p string) (string, error) {
				if slices.Contains(tt.missing, p) {
					return "", exec.ErrNotFound
				}
				return "/usr/bin/" + p, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			var tools []string
			for _, n := range needs {
				if len(n.tools) == 0 || len(n.vars) == 0 {
					t.Errorf("empty group %+v", n)
				}
				for _, v := range n.vars {
					if tt.env[v] != "" || strings.HasPrefix(v, "HERMES_KANBAN_") {
						t.Errorf("%s listed as needed: %+v", v, n)
					}
				}
				tools = append(tools, n.tools...)
				for _, tool := range n.tools {
					if want, ok := tt.vars[tool]; ok && !slices.Equal(n.vars, want) {
						t.Errorf("%s waits for %v, want %v", tool, n.vars, want)
					}
				}
			}
			for _, w := range tt.want {
				if !slices.Contains(tools, w) {
					t.Errorf("%s not listed: %+v", w, needs)
				}
			}
			for _, w := range append(tt.notWant, "kanban_show", "kanban_complete") {
				if slices.Contains(tools, w) {
					t.Errorf("%s listed: %+v", w, needs)
				}
			}
		})
	}
}

func TestLists(t *testing.T) {
	tests := []struct {
		in      []string
		or, and string
	}{
		{nil, "", ""},
		{[]string{"A"}, "A", "A"},
		{[]string{"A", "B"}, "A or B", "A and B"},
		{[]string{"A", "B", "C"}, "A, B or C", "A, B and C"},
	}
	for _, tt := range tests {
		if got := orList(tt.in); got != tt.or {
			t.Errorf("orList(%q) = %q, want %q", tt.in, got, tt.or)
		}
		if got := andList(tt.in); got != tt.and {
			t.Errorf("andList(%q) = %q, want %q", tt.in, got, tt.and)
		}
	}
}
