package clientsync

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkApplyLargeClaudeJSON measures a sync into a ~/.claude.json
// grown large with project history, the worst file this package edits.
func BenchmarkApplyLargeClaudeJSON(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("{\n  \"numStartups\": 812,\n  \"projects\": {\n")
	for i := range 4000 {
		if i > 0 {
			sb.WriteString(",\n")
		}
		fmt.Fprintf(&sb, "    \"/home/u/src/p%d\": {\n      \"allowedTools\": [],\n      \"history\": [%s],\n      \"mcpServers\": {}\n    }", i,
			strings.TrimSuffix(strings.Repeat(`{"display": "fix the // build \"now\"", "pastedContents": {}}, `, 8), ", "))
	}
	sb.WriteString("\n  },\n  \"mcpServers\": {\n    \"sentry\": {\"type\": \"http\", \"url\": \"https://mcp.sentry.dev/mcp\"}\n  }\n}\n")
	in := []byte(sb.String())
	servers := []configServer{toolsServer, fixtureServers["github"], fixtureServers["linear"], fixtureServers["legacy"]}
	b.SetBytes(int64(len(in)))
	b.ReportMetric(float64(len(in))/1e6, "MB")
	for b.Loop() {
		if _, err := Apply(ClaudeCode, in, servers, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyLargeGooseYAML measures a sync into a Goose config.yaml
// with many settings and extensions: every edit re-parses the file and
// reads the entry back, which is what this measures.
func BenchmarkApplyLargeGooseYAML(b *testing.B) {
	var sb strings.Builder
	for i := range 500 {
		fmt.Fprintf(&sb, "SETTING_%d: value # note\n", i)
	}
	sb.WriteString("extensions:\n")
	for i := range 200 {
		fmt.Fprintf(&sb, "  ext-%d:\n    name: ext-%d\n    cmd: npx\n    args:\n    - -y\n    - pkg-%d\n    enabled: true\n    type: stdio\n", i, i, i)
	}
	benchApply(b, Goose, []byte(sb.String()))
}

// BenchmarkApplyLargeGrokTOML is the same for a config.toml with many
// tables.
func BenchmarkApplyLargeGrokTOML(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("model = \"grok-4\"\n")
	for i := range 200 {
		fmt.Fprintf(&sb, "\n[mcp_servers.ext-%d]\ncommand = \"npx\"\nargs = [\"-y\", \"pkg-%d\"]\n\n[mcp_servers.ext-%d.env]\nA = \"1\" # note\n", i, i, i)
	}
	benchApply(b, GrokBuild, []byte(sb.String()))
}

func benchApply(b *testing.B, c Client, in []byte) {
	servers := []configServer{toolsServer, fixtureServers["github"], fixtureServers["linear"], fixtureServers["legacy"]}
	b.SetBytes(int64(len(in)))
	b.ReportMetric(float64(len(in))/1e6, "MB")
	for b.Loop() {
		if _, err := Apply(c, in, servers, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
