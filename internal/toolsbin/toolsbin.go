// Package toolsbin finds the hermes-tools-mcp binary for the programs that
// start it (the agent) or write its path into client configs (migrations),
// and the hermes-tools-worker binary for hermes-tools-mcp.
package toolsbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Name is the server binary's file name.
const Name = "hermes-tools-mcp"

// WorkerName is the file name of the binary that runs the heavy toolsets
// (web, browser, media, kanban, session_search, todo) for hermes-tools-mcp.
const WorkerName = "hermes-tools-worker"

// ErrNotFound says the binary is neither beside the running program nor on
// PATH, and how to fix that.
var ErrNotFound = errors.New(Name + " not found next to this program or on PATH; install it (go install github.com/hermes-go/hermes/cmd/hermes-tools-mcp@latest) or pass its path")

// ErrWorkerNotFound is ErrNotFound for the worker binary.
var ErrWorkerNotFound = errors.New(WorkerName + " not found next to hermes-tools-mcp or on PATH; install it beside hermes-tools-mcp (go install github.com/hermes-go/hermes/cmd/hermes-tools-worker@latest, or make build) or set $HERMES_TOOLS_WORKER to its path")

// Find returns an absolute path to hermes-tools-mcp: override when set
// (a path, or a name looked up on PATH), else the copy installed beside the
// running program (they ship together, and a path found this way does not
// depend on the PATH a client starts servers with), else PATH.
func Find(override string) (string, error) { return Locator{}.Find(override) }

// FindWorker finds hermes-tools-worker the way Find finds hermes-tools-mcp.
func FindWorker(override string) (string, error) { return Locator{}.FindWorker(override) }

// Locator is Find with its view of the process replaceable, for tests.
type Locator struct {
	// Executable is the running program's path; nil means os.Executable.
	Executable func() (string, error)
	// LookPath searches PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

// Find is the package-level Find through l's view of the process.
func (l Locator) Find(override string) (string, error) { return l.find(Name, override, ErrNotFound) }

// FindWorker is the package-level FindWorker through l's view of the process.
func (l Locator) FindWorker(override string) (string, error) {
	return l.find(WorkerName, override, ErrWorkerNotFound)
}

func (l Locator) find(name, override string, notFound error) (string, error) {
	executable, lookPath := l.Executable, l.LookPath
	if executable == nil {
		executable = os.Executable
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if override != "" {
		p, err := lookPath(override)
		if err != nil {
			return "", fmt.Errorf("%s: not an executable file: %w", override, err)
		}
		return filepath.Abs(p)
	}
	if self, err := executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := lookPath(name); err == nil {
		return filepath.Abs(p)
	}
	return "", notFound
}
