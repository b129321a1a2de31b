//go:build unix

package realclients

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/fakeanthropic"
	"github.com/hermes-go/hermes/internal/testkit/fakegemini"
)

// absent marks a variable the server's environment does not have.
const absent = "<absent>"

// serverEnv is the environment a probe server wrote to dump (`env >
// dump`); it fails t when who (the client) never started the server.
func serverEnv(t *testing.T, dump, who string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("%s did not start the probe server: %v", who, err)
	}
	got := map[string]string{}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			got[k] = v
		}
	}
	return got
}

// checkServerEnv compares each variable of want with what reached the
// server (absent when it did not), logging every one; a variable may
// have several right values. written holds the values as the entry had
// them, for the messages (nil when they are not the point).
func checkServerEnv(t *testing.T, label string, got map[string]string, want map[string][]string, written map[string]string) {
	t.Helper()
	for _, k := range slices.Sorted(maps.Keys(want)) {
		v, ok := got[k]
		if !ok {
			v = absent
		}
		t.Logf("%s: %-18s %-26q -> %q", label, k, written[k], v)
		if !slices.Contains(want[k], v) {
			t.Errorf("%s: %s (%q) reached the server as %q, want one of %q", label, k, written[k], v, want[k])
		}
	}
}

// exactly is want with one right value per variable.
func exactly(want map[string]string) map[string][]string {
	out := make(map[string][]string, len(want))
	for k, v := range want {
		out[k] = []string{v}
	}
	return out
}

// envProbe is an MCP server entry's env: each form of variable reference
// hermes-migrate might write, resolved against a client environment in
// which PROBE_SET and PROBE_API_KEY are set and PROBE_UNSET is not.
var envProbe = map[string]string{
	"E_BRACE":         "${PROBE_SET}",
	"E_MIXED":         "a-${PROBE_SET}-b",
	"E_DEFAULT_SET":   "${PROBE_SET:-dflt}",
	"E_DEFAULT_UNSET": "${PROBE_UNSET:-dflt}",
	"E_EMPTY_DEFAULT": "${PROBE_UNSET:-}",
	"E_UNSET":         "${PROBE_UNSET}",
	"E_DOLLAR":        "$PROBE_SET",
	"E_DOLLAR_UNSET":  "$PROBE_UNSET",
	"E_SECRET":        "${PROBE_API_KEY}",
}

var probeClientEnv = []string{"PROBE_SET=set-value", "PROBE_API_KEY=secret-value"}

// TestRealClientEnvExpansion pins how each real client resolves the
// variable references in a stdio server's env, and which of its own
// variables the server inherits: these facts decide the reference syntax
// hermes-migrate writes for each client. The probe server is a shell that
// writes its environment to a file; the clients carry on without it.
func TestRealClientEnvExpansion(t *testing.T) {
	tests := []struct {
		client string
		want   map[string]string // also PROBE_SET, PROBE_API_KEY: inherited?
	}{
		{"claude-code", map[string]string{
			"E_BRACE": "set-value", "E_MIXED": "a-set-value-b", "E_DEFAULT_SET": "set-value",
			"E_DEFAULT_UNSET": "dflt", "E_EMPTY_DEFAULT": "",
			// An unset ${VAR} without a default stays literal text, and
			// $VAR is not a reference at all.
			"E_UNSET": "${PROBE_UNSET}", "E_DOLLAR": "$PROBE_SET", "E_DOLLAR_UNSET": "$PROBE_UNSET",
			"E_SECRET": "secret-value",
			// The server inherits Claude Code's whole environment.
			"PROBE_SET": "set-value", "PROBE_API_KEY": "secret-value",
		}},
		{"gemini", map[string]string{
			"E_BRACE": "set-value", "E_MIXED": "a-set-value-b", "E_DEFAULT_SET": "set-value",
			"E_DEFAULT_UNSET": "dflt", "E_EMPTY_DEFAULT": "",
			// $VAR is a reference too, and an unset one becomes empty.
			"E_UNSET": "", "E_DOLLAR": "set-value", "E_DOLLAR_UNSET": "",
			// A named reference to a secret resolves...
			"E_SECRET": "secret-value",
			// ...but secrets (names with KEY, TOKEN, SECRET, AUTH...) are
			// not inherited: only what the entry's env names.
			"PROBE_SET": "set-value", "PROBE_API_KEY": absent,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			npmFile(t, map[string]string{"claude-code": claudeBin, "gemini": geminiJS}[tt.client])
			h := newClientHome(t)
			dump := filepath.Join(h.tmp, "probe-env")
			probe := map[string]any{
				"command": "/bin/sh",
				"args":    []string{"-c", `env > "$0"; exit 1`, dump},
				"env":     envProbe,
			}
			switch tt.client {
			case "claude-code":
				probe["type"] = "stdio"
				writeJSON(t, filepath.Join(h.home, ".claude.json"), map[string]any{"mcpServers": map[string]any{"probe": probe}})
				fake := fakeanthropic.New(t)
				fake.Enqueue(fakeanthropic.Reply{Text: "ok"})
				runClaude(t, h, fake, probeClientEnv, "-p", "hi")
			case "gemini":
				writeGeminiUserSettings(t, h, map[string]any{"mcpServers": map[string]any{"probe": probe}})
				fake := fakegemini.New(t)
				fake.Enqueue(fakegemini.Reply{Text: "ok"})
				runGemini(t, h, fake, probeClientEnv, "-p", "hi")
			}
			checkServerEnv(t, tt.client, serverEnv(t, dump, tt.client), exactly(tt.want), envProbe)
		})
	}
}
