package clientsync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// projectMarkers are what make a directory a project's root: a version
// control checkout (a worktree's .git is a file, so any entry counts).
var projectMarkers = []string{".git", ".hg", ".jj", ".svn"}

// ErrNoProject is returned by ProjectRoot outside any project.
var ErrNoProject = errors.New("not inside a project")

// ProjectRoot finds the project dir belongs to: the nearest directory at
// or above it holding a version-control checkout. Project-level files are
// written only there, so a stray run in ~ or /tmp does not scatter
// .mcp.json files; a caller that means a directory names it instead.
func ProjectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	for d := abs; ; {
		for _, m := range projectMarkers {
			if _, err := os.Lstat(filepath.Join(d, m)); err == nil {
				return d, nil
			} else if !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("look for a project above %s: %w", abs, err)
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is %w (no .git, .hg, .jj or .svn in it or above it); run in a project or name the directory: --project DIR", abs, ErrNoProject)
		}
		d = parent
	}
}
