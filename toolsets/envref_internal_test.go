package toolsets

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestLiteralRefsUnset(t *testing.T) {
	env := map[string]string{
		"BROWSER_CDP_URL": "${BROWSER_CDP_URL}",
		"FAL_KEY":         "$FAL_KEY",
		"WITH_DEFAULT":    "${WITH_DEFAULT:-}",
		"REAL":            "ws://127.0.0.1:9222",
		"PRICE":           "$5",
		"EMBEDDED":        "x-${Y}",
	}
	var logs bytes.Buffer
	getenv := literalRefsUnset(func(k string) string { return env[k] }, slog.New(slog.NewTextHandler(&logs, nil)))
	tests := []struct{ name, want string }{
		{"BROWSER_CDP_URL", ""},
		{"BROWSER_CDP_URL", ""}, // read twice, warned once
		{"FAL_KEY", ""},
		{"WITH_DEFAULT", ""},
		{"REAL", "ws://127.0.0.1:9222"},
		{"PRICE", "$5"},
		{"EMBEDDED", "x-${Y}"},
		{"MISSING", ""},
	}
	for _, tt := range tests {
		if got := getenv(tt.name); got != tt.want {
			t.Errorf("getenv(%s) = %q, want %q", tt.name, got, tt.want)
		}
	}
	out := logs.String()
	if n := strings.Count(out, "variable=BROWSER_CDP_URL"); n != 1 {
		t.Errorf("BROWSER_CDP_URL warned %d times, want once:\n%s", n, out)
	}
	for _, name := range []string{"FAL_KEY", "WITH_DEFAULT"} {
		if !strings.Contains(out, "variable="+name) {
			t.Errorf("no warning names %s:\n%s", name, out)
		}
	}
	if strings.Contains(out, "REAL") || strings.Contains(out, "PRICE") {
		t.Errorf("warned about a real value:\n%s", out)
	}
}
