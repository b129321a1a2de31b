package migrate

import (
	"os/exec"
	"testing"
)

// BenchmarkToolNeeds is what finding the tools that wait for a variable
// adds to every run, on the Hermes home of hermes-migrate's realistic
// fixture.
func BenchmarkToolNeeds(b *testing.B) {
	home := "../../cmd/hermes-migrate/testdata/realistic-home/.hermes"
	env := map[string]string{"HOME": b.TempDir(), "OPENROUTER_API_KEY": "sk-or-test"}
	getenv := func(k string) string { return env[k] }
	for b.Loop() {
		if _, err := toolNeeds(home, getenv, exec.LookPath); err != nil {
			b.Fatal(err)
		}
	}
}
