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

// A skill folder's name is anyone's text: doctor's "Skills not served"
// shows its control characters escaped, in the path and in the reason.
func TestDoctorEscapesSkillNames(t *testing.T) {
	bin := toolsbuild.ServerBinary(t)
	home := t.TempDir()
	dir := filepath.Join(home, "skills", "evil\x1b]0;pwned\a\r")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A FIFO for SKILL.md: a skill doctor reports, by its folder's name.
	if err := syscall.Mkfifo(filepath.Join(dir, "SKILL.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "doctor", "--hermes-home", home)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.Output()
	if ctx.Err() != nil || err != nil {
		t.Fatalf("doctor: %v (deadline: %v)", err, ctx.Err())
	}
	for _, raw := range []string{"\x1b", "\a", "\r"} {
		if strings.Contains(string(out), raw) {
			t.Errorf("doctor printed %q raw:\n%q", raw, out)
		}
	}
	if !strings.Contains(string(out), `evil\x1b]0;pwned\a\r`) {
		t.Errorf("doctor does not show the skill's name escaped:\n%s", out)
	}
}
