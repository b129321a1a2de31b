package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestToolNeeds: the tools listed as waiting are exactly those of enabled
// toolsets that hermes-tools' own checks hide for an unset variable; a
// key that is set, a toolset left out or a tool excluded takes them off,
// and kanban (whose variables the dispatcher sets) is never listed.
func TestToolNeeds(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		env     map[string]string
		want    []string // tools listed
		notWant []string
	}{
		{name: "nothing set", want: []string{"web_search", "vision_analyze", "browser_vision", "image_generate"}},
		{name: "a search key", env: map[string]string{"TAVILY_API_KEY": "k"}, want: []string{"vision_analyze", "image_generate"}, notWant: []string{"web_search"}},
		{name: "an OpenAI key and a vision model", yaml: "auxiliary:\n  vision:\n    model: gpt-5-mini\n", env: map[string]string{"OPENAI_API_KEY": "k"}, want: []string{"web_search"}, notWant: []string{"vision_analyze", "browser_vision", "image_generate"}},
		{name: "only memory enabled", yaml: "hermes_tools:\n  toolsets: [memory]\n", notWant: []string{"web_search", "vision_analyze", "image_generate"}},
		{name: "web_search excluded", yaml: "hermes_tools:\n  exclude_tools: [web_search]\n", want: []string{"vision_analyze"}, notWant: []string{"web_search"}},
		{name: "kanban enabled", yaml: "toolsets: [kanban]\n", want: []string{"web_search"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.yaml != "" {
				if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tt.yaml), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			needs, err := toolNeeds(home, func(k string) string { return tt.env[k] })
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
