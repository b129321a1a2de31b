// Package toolsbin finds the hermes-tools-mcp binary for the programs that
// start it (the agent) or write its path into client configs (migrations).
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

// ErrNotFound says the binary is neither beside the running program nor on
// PATH, and how to fix that.
var ErrNotFound = errors.New(Name + " not found next to this program or on PATH; install it (go install github.com/hermes-go/hermes/cmd/hermes-tools-mcp@latest) or pass its path")

// Find returns an absolute path to hermes-tools-mcp: override when set
// (a path, or a name looked up on PATH), else the copy installed beside the
// running program (they ship together, and a path found this way does not
// depend on the PATH a client starts servers with), else PATH.
func Find(override string) (string, error) { return Locator{}.Find(override) }

// Locator is Find with its view of the process replaceable, for tests.
type Locator struct {
	// Executable is the running program's path; nil means os.Executable.
	Executable func() (string, error)
	// LookPath searches PATH; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

// Find is the package-level Find through l's view of the process.
func (l Locator) Find(override string) (string, error) {
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
		p := filepath.Join(filepath.Dir(self), Name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := lookPath(Name); err == nil {
		return filepath.Abs(p)
	}
	return "", ErrNotFound
}
