//go:build unix

package main

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// TestEmptyVariableCountsAsUnset: Gemini CLI's entry names every variable
// hermes-tools reads, and Claude Code's spells each ${VAR:-}, so a variable
// unset where the client runs reaches hermes-tools as "". The real
// hermes-tools-mcp must then offer exactly what it offers with the
// variable absent, and something else once one is set (else the
// comparison could not fail).
func TestEmptyVariableCountsAsUnset(t *testing.T) {
	bin := toolsbuild.ServerBinary(t)
	home := t.TempDir()
	doctor := func(extra ...string) []byte {
		t.Helper()
		cmd := exec.Command(bin, "doctor", "--json", "--hermes-home", home)
		cmd.Env = append([]string{"PATH=/usr/bin:/bin", "HOME=" + home}, extra...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("doctor %q: %v\n%s", extra, err, out)
		}
		return out
	}
	absent := doctor()
	var empty []string
	for _, v := range catalog.EnvVarNames() {
		empty = append(empty, v+"=")
	}
	if got := doctor(empty...); !bytes.Equal(got, absent) {
		t.Errorf("with every variable empty hermes-tools differs from every variable absent:\nempty:\n%s\nabsent:\n%s", got, absent)
	}
	if set := doctor("TAVILY_API_KEY=tvly-test"); bytes.Equal(set, absent) {
		t.Errorf("setting TAVILY_API_KEY changed nothing in doctor's report, so this comparison proves nothing:\n%s", set)
	}
}
