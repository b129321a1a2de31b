//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// runGuarded runs the real binary with a deadline: a command blocked on a
// FIFO is killed at the deadline, and the test says it hung instead of
// hanging itself.
func runGuarded(t *testing.T, bin, home string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "HERMES_HOME=" + filepath.Join(home, ".hermes")}
	cmd.WaitDelay = 2 * time.Second
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v hung on a special file (killed after 20s); stderr so far %q", filepath.Base(bin), args, errb.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), errb.String()
}

// A FIFO in place of config.yaml is refused at once, by name, by every
// command that reads it; none waits for a writer that never comes.
func TestFIFOConfigNeverHangs(t *testing.T) {
	bin, err := toolsbuild.Binary("hermes")
	if err != nil {
		t.Fatal(err)
	}
	tools := toolsbuild.ServerBinary(t)
	cmds := [][]string{
		{"codex-runtime", "status"},
		{"codex-runtime", "on", "--codex-bin", "/nonexistent/codex"},
		{"codex-runtime", "off"},
		{"chat", "-q", "hi", "--hermes-tools-command", tools},
		{"tools", "--hermes-tools-command", tools},
	}
	for _, args := range cmds {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			home := t.TempDir()
			hermesHome := filepath.Join(home, ".hermes")
			os.MkdirAll(hermesHome, 0o700)
			cfg := filepath.Join(hermesHome, "config.yaml")
			if err := syscall.Mkfifo(cfg, 0o600); err != nil {
				t.Fatal(err)
			}
			_, stderr := runGuarded(t, bin, home, args...)
			if !strings.Contains(stderr, cfg) || !strings.Contains(stderr, "FIFO") {
				t.Errorf("stderr %q; want the refusal naming %s as a FIFO", stderr, cfg)
			}
			if fi, err := os.Lstat(cfg); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
				t.Errorf("the FIFO was replaced: %v %v", fi, err)
			}
		})
	}
}
