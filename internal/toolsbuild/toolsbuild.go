// Package toolsbuild builds hermes-tools-mcp together with its
// hermes-tools-worker, for tests that run the server as a real subprocess.
// The two always go into one directory: the server finds its worker beside
// itself, and a server built alone would hide the tools the worker runs
// (web, browser, kanban, ...) for want of one.
package toolsbuild

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/toolsbin"
)

// Build compiles both binaries into dir (created if needed) and returns the
// path of hermes-tools-mcp. extra are go build flags such as -race. The
// binaries are built elsewhere and renamed into place, worker first, so a
// concurrent reader of dir never sees a half-written file or a server
// without its worker.
func Build(ctx context.Context, dir string, extra ...string) (string, error) {
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
	args := append([]string{"build"}, extra...)
	args = append(args, "-o", stage+string(os.PathSeparator),
		"github.com/hermes-go/hermes/cmd/"+toolsbin.Name, "github.com/hermes-go/hermes/cmd/"+toolsbin.WorkerName)
	cmd := exec.CommandContext(ctx, goTool, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, name := range []string{toolsbin.WorkerName, toolsbin.Name} {
		if err := os.Rename(filepath.Join(stage, name), filepath.Join(dir, name)); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, toolsbin.Name), nil
}

// RunWithServer is a TestMain body for packages whose tests start the real
// server: it builds both binaries into a temporary directory, points *bin
// at hermes-tools-mcp, runs the tests and removes the directory. It returns
// the exit code for os.Exit.
func RunWithServer(m *testing.M, bin *string) int {
	dir, err := os.MkdirTemp("", "hermes-tools-build")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	if *bin, err = Build(context.Background(), dir); err != nil {
		fmt.Fprintln(os.Stderr, "building hermes-tools-mcp:", err)
		return 2
	}
	return m.Run()
}
