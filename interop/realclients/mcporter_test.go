//go:build unix

package realclients

import (
	"encoding/json"
	"os"
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
		// The throwaway user has no image key, so the server hides the
		// tool (web_search needs none: the keyless tier answers).
		if slices.Contains(names, "image_generate") || !slices.Contains(names, "web_search") {
			t.Errorf("mcporter lists image_generate though no image key is set, or no web_search; tools: %v", names)
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

// TestRealMCPorterEntryFields pins what MCPorter 0.12.3 makes of the
// entries hermes-migrate writes for a user's Hermes servers, the facts
// behind the MCPorter row: ${VAR:-} and ${VAR:-default} are expanded in
// args, url and headers wherever they stand, in env only as the whole
// value (so a mixed env value is left to the user, and said so), and a
// stdio server inherits MCPorter's environment. A probe shell writes its
// environment and argument to files and exits; a remote entry points at a
// recorder on 127.0.0.1 that refuses it.
func TestRealMCPorterEntryFields(t *testing.T) {
	npmFile(t, mcporterJS) // skip before any work when it is not installed
	h := newClientHome(t)
	dump := filepath.Join(h.tmp, "probe-env")

	remote := newRecorder(t, "mcporter-probe")

	yaml := "mcp_servers:\n" +
		"  probe:\n    command: /bin/sh\n" +
		"    args: [\"-c\", 'env > \"$0\"; printf %s \"$1\" > \"$0.arg\"; exit 1', " + dump + ", \"a-${PROBE_SET}-b-${PROBE_UNSET}\"]\n" +
		"    env:\n" +
		"      P_TOKEN: \"${PROBE_API_KEY}\"\n" +
		"      P_PLAIN: \"${PROBE_SET}\"\n" +
		"      P_DEFAULT: \"${PROBE_UNSET:-dflt}\"\n" +
		"      P_UNSET: \"${PROBE_UNSET}\"\n" +
		"      P_MIXED: \"pre-${PROBE_SET}\"\n" +
		"      P_LITERAL: fixed\n" +
		"  remote:\n    url: " + remote.URL() + "/${PROBE_SET}/mcp\n" +
		"    headers:\n" +
		"      Authorization: \"Bearer ${PROBE_API_KEY}\"\n" +
		"      X-Unset: \"x${PROBE_UNSET}y\"\n"
	if err := os.WriteFile(filepath.Join(h.home, ".hermes", "config.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	clientEnv := append([]string{"PROBE_INHERIT=inherited-value"}, probeClientEnv...)
	report := h.migrate(t, "mcporter", append([]string{"--user-servers"}, clientEnv...)...)
	t.Logf("hermes-migrate:\n%s", report)
	if !strings.Contains(report, "probe: env P_MIXED not written: MCPorter expands a variable in env only as the whole value") {
		t.Errorf("the report does not say why P_MIXED is left to the user:\n%s", report)
	}
	written, err := os.ReadFile(filepath.Join(h.home, ".mcporter", "mcporter.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(written), "secret-value") || strings.Contains(string(written), "set-value") {
		t.Errorf("mcporter.json holds the value of a variable, not a reference to it:\n%s", written)
	}

	// list starts every server; the two probes fail and MCPorter says so.
	stdout, stderr, err := h.runClient(t, h.env(clientEnv...), node24Binary(t), npmFile(t, mcporterJS), "list")
	t.Logf("mcporter list (%v) stdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	checkOffline(t, h.proxy, nil)

	t.Logf("mcporter.json as written:\n%s", written)
	want := map[string][]string{
		"P_TOKEN": {"secret-value"}, "P_PLAIN": {"set-value"}, "P_DEFAULT": {"dflt"},
		"P_UNSET": {absent, ""}, "P_MIXED": {absent}, "P_LITERAL": {"fixed"},
		"PROBE_INHERIT": {"inherited-value"},
	}
	checkServerEnv(t, "env", serverEnv(t, dump, "MCPorter"), want, nil)
	if b, _ := os.ReadFile(dump + ".arg"); string(b) != "a-set-value-b-" {
		t.Errorf("args a-${PROBE_SET}-b-${PROBE_UNSET} reached the server as %q, want a-set-value-b-", b)
	}

	remoteReqs := remote.requests()
	if len(remoteReqs) == 0 {
		t.Fatal("MCPorter never tried the remote entry")
	}
	for _, r := range remoteReqs {
		if r.URL.Path != "/set-value/mcp" || r.Header.Get("Authorization") != "Bearer secret-value" || r.Header.Get("X-Unset") != "xy" {
			t.Errorf("remote request %s, Authorization %q, X-Unset %q: want /set-value/mcp, Bearer secret-value, xy",
				r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Unset"))
		}
	}
}
