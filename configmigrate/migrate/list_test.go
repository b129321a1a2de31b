package migrate

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDescribeToolsStale(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "server.py")
	if err := os.WriteFile(other, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, command, url, want string
	}{
		{"missing, other name", filepath.Join(dir, "gone", "old-server"), "", "no such file"},
		{"missing hermes-tools-mcp", filepath.Join(dir, "gone", "hermes-tools-mcp"), "", "no such file"},
		{"a directory", dir, "", "no such file"},
		{"another program", other, "", "not hermes-tools-mcp"},
		{"not on PATH", "no-such-command-hermes-test", "", "not found on PATH"},
		{"no command", "", "", "no command"},
		{"remote", "", "http://127.0.0.1:1/mcp", "a remote URL, not the hermes-tools-mcp binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := describeTools(t.Context(), tt.command, tt.url, map[string]string{}); got.Stale != tt.want {
				t.Errorf("describeTools(%q) stale %q, want %q", tt.command, got.Stale, tt.want)
			}
		})
	}
}

func TestTilde(t *testing.T) {
	tests := []struct{ path, home, want string }{
		{"/home/u/.cursor/mcp.json", "/home/u", "~/.cursor/mcp.json"},
		{"/home/u/.cursor/mcp.json", "/home/u/", "~/.cursor/mcp.json"},
		{"/home/user2/x", "/home/u", "/home/user2/x"},
		{"/home/u", "/home/u", "/home/u"},
		{"/etc/x", "", "/etc/x"},
		{"/etc/x", "relative", "/etc/x"},
		{"/home/u/..x/y", "/home/u", "~/..x/y"},
	}
	for _, tt := range tests {
		if got := tilde(tt.path, tt.home); got != tt.want {
			t.Errorf("tilde(%q, %q) = %q, want %q", tt.path, tt.home, got, tt.want)
		}
	}
}
