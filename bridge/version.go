package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/hermes-go/hermes/internal/redact"
)

// MinVersion is the oldest codex CLI this package is known to work with: the
// wire protocol was verified against 0.169.0 (codex-app-server.md), and the
// tests still run a turn on it.
const MinVersion = "0.169.0"

// TestedVersion is the codex CLI the tests pin (.ci/npm) and run
// everything against.
const TestedVersion = "0.171.0"

// InstallHint is how users get (or update) the codex CLI.
const InstallHint = "npm i -g @openai/codex"

// BinaryEnv names the environment variable that points FindBinary at a codex
// executable.
const BinaryEnv = "CODEX_BIN"

// versionTimeout bounds `codex --version`, which should take milliseconds; a
// binary that hangs there is not one we can drive.
const versionTimeout = 10 * time.Second

// Version is a codex CLI version.
type Version struct {
	Major, Minor, Patch int
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Patch) }

// Compare returns -1, 0 or +1 as v is older than, equal to, or newer than o.
func (v Version) Compare(o Version) int {
	for _, d := range [...]int{v.Major - o.Major, v.Minor - o.Minor, v.Patch - o.Patch} {
		switch {
		case d < 0:
			return -1
		case d > 0:
			return 1
		}
	}
	return 0
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)\.(\d+)`)

// ParseVersion extracts the first x.y.z in s, so it accepts both "0.169.0"
// and `codex --version` output ("codex-cli 0.169.0").
func ParseVersion(s string) (Version, error) {
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		return Version{}, fmt.Errorf("no x.y.z version in %q", redact.String(s))
	}
	var parts [3]int
	for i := range parts {
		n, err := strconv.Atoi(m[i+1])
		if err != nil {
			return Version{}, fmt.Errorf("version %q: %w", m[0], err)
		}
		parts[i] = n
	}
	return Version{parts[0], parts[1], parts[2]}, nil
}

// CheckVersion runs `<binary> --version` and checks the result against
// MinVersion. It returns the version it found even when that is too old.
// Errors say how to install or update codex.
func CheckVersion(ctx context.Context, binary string) (Version, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "--version")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			return Version{}, fmt.Errorf("codex CLI not found at %q. Install with: %s: %w", binary, InstallHint, err)
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		msg := redact.String(string(bytes.TrimSpace(stderr.Bytes())))
		if msg != "" {
			return Version{}, fmt.Errorf("%s --version failed: %w: %s", binary, err, msg)
		}
		return Version{}, fmt.Errorf("%s --version failed: %w", binary, err)
	}
	v, err := ParseVersion(string(out))
	if err != nil {
		return Version{}, fmt.Errorf("%s --version: %w", binary, err)
	}
	minV, err := ParseVersion(MinVersion)
	if err != nil {
		return Version{}, err
	}
	if v.Compare(minV) < 0 {
		return v, fmt.Errorf("codex %s is older than required %s. Run: %s", v, minV, InstallHint)
	}
	return v, nil
}

// FindBinary locates the codex executable: override when non-empty, else
// $CODEX_BIN, else "codex" on PATH. A name with a path separator is used as
// a path; the result is absolute.
func FindBinary(override string) (string, error) {
	name, source := override, "override"
	if name == "" {
		name, source = os.Getenv(BinaryEnv), "$"+BinaryEnv
	}
	if name == "" {
		name, source = "codex", "PATH"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("codex CLI not found (%s: %q). Install with: %s, or set %s: %w",
			source, name, InstallHint, BinaryEnv, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("codex CLI at %q: %w", p, err)
	}
	return abs, nil
}
