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

// A FIFO in place of config.yaml: doctor says so, naming the file, and
// does not wait on it. The real binary runs under a deadline, so a hang
// is a failure, not a stuck test.
func TestDoctorRefusesAFIFOConfig(t *testing.T) {
	bin := toolsbuild.ServerBinary(t)
	home := t.TempDir()
	cfg := filepath.Join(home, "config.yaml")
	if err := syscall.Mkfifo(cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"doctor", "--hermes-home", home}, {"doctor", "--json", "--hermes-home", home}} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}
		cmd.WaitDelay = 2 * time.Second
		var errb strings.Builder
		cmd.Stderr = &errb
		err := cmd.Run()
		hung := ctx.Err() != nil
		cancel()
		if hung {
			t.Fatalf("%v hung on a FIFO config.yaml (killed after 20s)", args)
		}
		var exit *exec.ExitError
		if !errors.As(err, &exit) || !strings.Contains(errb.String(), cfg) || !strings.Contains(errb.String(), "FIFO") {
			t.Errorf("%v: %v, stderr %q; want a failure naming %s as a FIFO", args, err, errb.String(), cfg)
		}
	}
	if fi, err := os.Lstat(cfg); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
}
