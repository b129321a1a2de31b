//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// A FIFO at any file hermes-migrate reads (a client's config, codex's
// config.toml, config.yaml, the ownership state) is reported by name and
// never waited on. The real binary runs under a deadline, so a hang is a
// failure, not a stuck test.
func TestFIFOsNeverHang(t *testing.T) {
	bin, err := toolsbuild.Binary("hermes-migrate")
	if err != nil {
		t.Fatal(err)
	}
	tools := toolsbuild.ServerBinary(t)
	tests := []struct {
		name string
		fifo string // relative to the test's directory
		args []string
	}{
		{"client config", "home/.cursor/mcp.json", []string{"--client", "cursor"}},
		{"client config, dry run", "home/.cursor/mcp.json", []string{"--client", "cursor", "--dry-run"}},
		{"client config, list", "home/.cursor/mcp.json", []string{"list"}},
		{"client config, remove", "home/.cursor/mcp.json", []string{"--client", "cursor", "--remove"}},
		{"codex config.toml", "codex/config.toml", []string{"--client", "codex", "--no-plugins"}},
		{"config.yaml", "hermes/config.yaml", []string{"--client", "cursor", "--user-servers"}},
		{"ownership state", "hermes/hermes-migrate-state.json", []string{"--client", "cursor"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, d := range []string{"home/.cursor", "codex", "hermes"} {
				os.MkdirAll(filepath.Join(dir, d), 0o755)
			}
			fifo := filepath.Join(dir, tt.fifo)
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			args := append(tt.args, "--hermes-home", filepath.Join(dir, "hermes"))
			if tt.args[0] != "list" {
				args = append(args, "--codex-home", filepath.Join(dir, "codex"), "--hermes-tools-command", tools)
			}
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Env = []string{"HOME=" + filepath.Join(dir, "home"), "PATH=/usr/bin:/bin"}
			cmd.WaitDelay = 2 * time.Second
			out, _ := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("hermes-migrate %v hung on a FIFO at %s (killed after 20s); output %q", tt.args, tt.fifo, out)
			}
			if !strings.Contains(string(out), fifo) || !strings.Contains(string(out), "FIFO") {
				t.Errorf("output %q; want it to name %s as a FIFO", out, fifo)
			}
			if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v %v", fi, err)
			}
		})
	}
}
