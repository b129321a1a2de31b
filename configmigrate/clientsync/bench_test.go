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
