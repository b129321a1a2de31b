package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Server names and commands in config.yaml are the user's (or another
// program's) text: every report shows their control characters escaped,
// in the run's report, the dry run's diff, list and errors.
func TestReportsEscapeControlCharacters(t *testing.T) {
	e := newTestEnv(t)
	os.MkdirAll(filepath.Join(e.env["HOME"], ".cursor"), 0o755)
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"),
		"mcp_servers:\n  \"gh\\e]0;pwned\\a\":\n    command: \"npx\\r\\e[2J\"\n  ok:\n    command: ok-mcp\n")
	runs := [][]string{
		{"--client", "cursor", "--user-servers", "--dry-run"},
		{"--client", "cursor", "--user-servers"},
	}
	var all strings.Builder
	for _, args := range runs {
		code, out, errOut := e.run(t, args...)
		all.WriteString(out + errOut)
		if code != exitOK && errOut == "" {
			t.Fatalf("%v: exit %d with nothing said", args, code)
		}
	}
	_, out, errOut := e.list(t)
	all.WriteString(out + errOut)
	got := all.String()
	for _, raw := range []string{"\x1b", "\a", "\r"} {
		if strings.Contains(got, raw) {
			t.Errorf("output holds %q raw:\n%q", raw, got)
		}
	}
	if !strings.Contains(got, `gh\x1b]0;pwned\a`) {
		t.Errorf("output never shows the server's name escaped:\n%s", got)
	}
}
