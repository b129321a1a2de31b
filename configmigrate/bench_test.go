package configmigrate

import (
	"fmt"
	"strings"
	"testing"
)

// largeInputs builds a 2,000-line config.toml holding 50 user servers among
// other tables, and a Hermes config.yaml with 50 servers to migrate.
func largeInputs(tb testing.TB) ([]byte, []byte) {
	var toml strings.Builder
	toml.WriteString("# big config\nmodel = \"gpt-5.5\"\napproval_policy = \"on-request\"\n\n")
	lines := 4
	for i := 0; lines < 2000; i++ {
		if i < 50 {
			fmt.Fprintf(&toml, "[mcp_servers.user-%02d]\ncommand = \"server-%d\"\nargs = [\"--port\", \"%d\"]\nenv = { LEVEL = \"debug\" }\n\n", i, i, 8000+i)
			lines += 5
			continue
		}
		fmt.Fprintf(&toml, "[projects.\"/home/u/src/project-%04d\"]\ntrust_level = \"trusted\"\n# note %d\n\n", i, i)
		lines += 4
	}
	var yaml strings.Builder
	yaml.WriteString("mcp_servers:\n")
	for i := range 50 {
		fmt.Fprintf(&yaml, "  hermes-%02d:\n    command: npx\n    args: [-y, pkg-%d]\n    env: {TOKEN_%d: \"${TOKEN_%d}\", MODE: fast}\n    timeout: 120\n", i, i, i, i)
	}
	if n := strings.Count(toml.String(), "\n"); n < 2000 {
		tb.Fatalf("generated %d lines", n)
	}
	return []byte(toml.String()), []byte(yaml.String())
}

// BenchmarkMigrateCodexLarge: parse the Hermes servers, render and splice
// the block into a 2,000-line config.toml, and validate the result (target
// <= 20 ms a run without plugin discovery).
func BenchmarkMigrateCodexLarge(b *testing.B) {
	existing, yamlText := largeInputs(b)
	tools := HermesToolsServer(HermesToolsOptions{Command: "/usr/local/bin/hermes-tools-mcp", EnvVars: []string{"A"}})
	b.ResetTimer()
	for b.Loop() {
		servers, _, err := HermesServers(yamlText)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := MigrateCodex(existing, CodexInput{HermesTools: &tools, Servers: servers, DefaultPermissions: DefaultPermissions}); err != nil {
			b.Fatal(err)
		}
	}
}
