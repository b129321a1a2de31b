// Package toolsbuild gives tests the binaries of cmd/ (hermes-tools-mcp,
// hermes-migrate, hermes) to run as real subprocesses. `make test` builds
// them once, before any package's tests, and names the directory in
// $HERMES_TEST_BIN_DIR; a plain `go test` without it builds each one it
// needs once per test process into the user's cache directory, one
// directory per checkout (go build is incremental, so later runs are
// quick), all of them in the same directory, so that hermes-migrate finds
// the hermes-tools-mcp beside it.
package toolsbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvDir names the directory of prebuilt binaries.
const EnvDir = "HERMES_TEST_BIN_DIR"

// Server is the command tests run.
const Server = "hermes-tools-mcp"

var built sync.Map // command name -> func() (string, error)

// Binary returns the path of a command's binary: $HERMES_TEST_BIN_DIR/name
// when the variable is set (it must then exist: a stale setup should fail,
// not silently test something else), else a build made once per process,
// with -race when this test binary has it.
func Binary(name string) (string, error) {
	if dir := os.Getenv(EnvDir); dir != "" {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", fmt.Errorf("%s=%s has no %s: run `make test-bins` (make test does) or unset %s", EnvDir, dir, name, EnvDir)
		}
		return p, nil
	}
	once, _ := built.LoadOrStore(name, sync.OnceValues(func() (string, error) { return build(name) }))
	return once.(func() (string, error))()
}

// ServerBinary is Binary(Server), failing t when there is none.
func ServerBinary(t testing.TB) string {
	t.Helper()
	p, err := Binary(Server)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Main is a TestMain body for packages whose tests run a binary
// throughout: it points *path at Binary(name), or exits 2 with the reason,
// then runs the tests and returns their exit code.
func Main(m *testing.M, name string, path *string) int {
	var err error
	if *path, err = Binary(name); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return m.Run()
}

// build compiles cmd/name into a directory per user and flavour, staged and
// renamed into place so a concurrent test process never runs a
// half-written file. The plain flavour is built as `make build` builds
// releases, so benchmarks measure what users run.
func build(name string) (string, error) {
	flavour, flags, env := "plain", []string{"-trimpath", "-ldflags", "-s -w"}, []string{"CGO_ENABLED=0"}
	if raceEnabled() {
		flavour, flags, env = "race", []string{"-race"}, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "hermes-test-bin", flavour, checkout())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	stage, err := os.MkdirTemp(dir, ".build-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(stage)
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	args := append(append([]string{"build"}, flags...), "-o", stage+string(os.PathSeparator), "github.com/hermes-go/hermes/cmd/"+name)
	cmd := exec.CommandContext(ctx, goTool, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	p := filepath.Join(dir, name)
	if err := os.Rename(filepath.Join(stage, name), p); err != nil {
		return "", err
	}
	return p, nil
}

// checkout names the source tree the binaries are built from, so that
// tests of two checkouts (git worktrees) running at once do not replace
// each other's binaries: this file's directory, as compiled, hashed.
func checkout() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "unknown"
	}
	sum := sha256.Sum256([]byte(filepath.Dir(file)))
	return hex.EncodeToString(sum[:6])
}

// raceEnabled reports whether this test binary was built with -race.
func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
