package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextFormatClients: Goose's YAML and Grok Build's TOML get the same
// guarantees as the JSON clients through the CLI: dry run writes nothing,
// the user's bytes and comments stay, a backup is kept, --remove restores.
func TestTextFormatClients(t *testing.T) {
	tests := []struct {
		client, rel, content, entry string
	}{
		{"goose", ".config/goose/config.yaml", "# mine\nGOOSE_MODEL: gpt-4o  # pinned\nextensions:\n  memory:\n    name: memory\n    cmd: npx\n    type: stdio\n", "  hermes-tools:\n    name: hermes-tools\n"},
		{"grok-build", ".grok/config.toml", "# mine\nmodel = \"grok-4\"  # pinned\n\n[mcp_servers.memory]\ncommand = \"npx\"\n", "[mcp_servers.hermes-tools]\ncommand = "},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			e := newTestEnv(t)
			p := filepath.Join(e.env["HOME"], filepath.FromSlash(tt.rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			e.write(t, p, tt.content)

			code, out, stderr := e.run(t, "--client", tt.client, "--dry-run")
			if got, _ := os.ReadFile(p); code != exitOK || string(got) != tt.content || !strings.Contains(out, "+"+strings.SplitN(tt.entry, "\n", 2)[0]) {
				t.Fatalf("dry run: exit %d %s\n%s\nfile:\n%s", code, stderr, out, got)
			}
			if code, _, stderr := e.run(t, "--client", tt.client); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, _ := os.ReadFile(p)
			if !strings.HasPrefix(string(got), tt.content) || !strings.Contains(string(got), tt.entry+"") || !strings.Contains(string(got), e.toolsBin) {
				t.Errorf("after sync:\n%s", got)
			}
			if bak, _ := os.ReadFile(p + ".bak"); string(bak) != tt.content {
				t.Errorf("backup:\n%s", bak)
			}
			if code, _, stderr := e.run(t, "--client", tt.client, "--remove"); code != exitOK {
				t.Fatalf("--remove: exit %d: %s", code, stderr)
			}
			if got, _ := os.ReadFile(p); string(got) != tt.content {
				t.Errorf("--remove did not restore the file:\n%s", got)
			}
		})
	}
}
