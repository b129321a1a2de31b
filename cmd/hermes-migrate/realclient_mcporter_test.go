//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mcporterJS is MCPorter's CLI in the npm package.
const mcporterJS = "mcporter/dist/cli.js"

// TestRealMCPorterCallsMigratedTool: after `hermes-migrate --client
// mcporter`, the real MCPorter CLI (an MCP client with no model) finds our
// entry in ~/.mcporter/mcporter.json, starts hermes-tools-mcp, lists its
// tools and calls skills_list, with and without an argument, and gets the
// real skills of ~/.hermes/skills back. hermes-tools is not on MCPorter's
// keep-alive list (dist/lifecycle.js), so each run starts and stops its
// own server and no MCPorter daemon outlives the process group.
func TestRealMCPorterCallsMigratedTool(t *testing.T) {
	npmFile(t, mcporterJS) // skip before any work when it is not installed
	h := newClientHome(t)
	report := h.migrate(t, "mcporter")
	if !strings.Contains(report, "mcporter: wrote ~/.mcporter/mcporter.json") {
		t.Fatalf("hermes-migrate report:\n%s", report)
	}
	configPath := filepath.Join(h.home, ".mcporter", "mcporter.json")

	t.Run("list", func(t *testing.T) {
		var listing struct {
			Status string
			Source struct{ Path string }
			Tools  []struct{ Name string }
		}
		out := runMCPorter(t, h, "list", "hermes-tools", "--json")
		if err := json.Unmarshal([]byte(out), &listing); err != nil {
			t.Fatalf("mcporter list --json is not JSON (%v):\n%s", err, out)
		}
		if listing.Status != "ok" || listing.Source.Path != configPath {
			t.Errorf("mcporter list: status %q from %q, want ok from %s", listing.Status, listing.Source.Path, configPath)
		}
		var names []string
		for _, tool := range listing.Tools {
			names = append(names, tool.Name)
		}
		for _, want := range []string{"skills_list", "skill_view", "memory", "browser_navigate"} {
			if !slices.Contains(names, want) {
				t.Errorf("mcporter lists no %s; tools: %v", want, names)
			}
		}
		// The throwaway user has no search key, so the server hides the tool.
		if slices.Contains(names, "web_search") {
			t.Errorf("mcporter lists web_search though no search key is set; tools: %v", names)
		}
	})

	tests := []struct {
		name      string
		args      []string
		want      []string
		wantCount int
	}{
		{"all skills", []string{"call", "hermes-tools.skills_list"},
			[]string{"interop-alpha", "interop-notes", "interop-deploy"}, 3},
		{"one category", []string{"call", "hermes-tools.skills_list", "category=devops"},
			[]string{"interop-deploy"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// --output json prints the tool's JSON result as it came back.
			out := runMCPorter(t, h, append(tt.args, "--output", "json")...)
			var result struct {
				Success bool
				Count   int
				Skills  []struct{ Name string }
			}
			if err := json.Unmarshal([]byte(out), &result); err != nil {
				t.Fatalf("mcporter call result is not JSON (%v):\n%s", err, out)
			}
			var names []string
			for _, s := range result.Skills {
				names = append(names, s.Name)
			}
			slices.Sort(names)
			want := slices.Sorted(slices.Values(tt.want))
			if !result.Success || result.Count != tt.wantCount || !slices.Equal(names, want) {
				t.Errorf("skills_list via mcporter: success %v, count %d, skills %v; want count %d, skills %v\n%s",
					result.Success, result.Count, names, tt.wantCount, want, out)
			}
		})
	}
	checkOffline(t, h.proxy, nil)
}

// node24Binary is the Node.js 24 pinned in .ci/npm (MCPorter needs Node 24
// or later).
func node24Binary(t *testing.T) string { return pinnedNode(t, "node24/bin/node", "24") }

// runMCPorter runs the pinned MCPorter CLI as h's user with nothing but
// 127.0.0.1 reachable and returns its stdout; it fails t when the run
// fails.
func runMCPorter(t *testing.T, h *clientHome, args ...string) string {
	t.Helper()
	cli := npmFile(t, mcporterJS)
	stdout, stderr, err := h.runClient(t, h.env(), node24Binary(t), append([]string{cli}, args...)...)
	if err != nil || testing.Verbose() {
		t.Logf("mcporter %q stdout:\n%s\nstderr:\n%s", args, stdout, stderr)
	}
	if err != nil {
		t.Fatalf("mcporter %q: %v", args, err)
	}
	return stdout
}
