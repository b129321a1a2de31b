package migrate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/configmigrate/clientsync"
)

// projectRoot resolves --project: a named directory is taken as asked
// (it must exist); without one, the project the working directory belongs
// to, and an error outside any project.
func projectRoot(p Project, getwd func() (string, error)) (string, error) {
	if !p.Set {
		return "", nil
	}
	if p.Dir != "" {
		abs, err := filepath.Abs(p.Dir)
		if err != nil {
			return "", fmt.Errorf("--project %s: %w", p.Dir, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("--project %s: %w", p.Dir, err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("--project %s is not a directory; name the project's root directory", p.Dir)
		}
		return abs, nil
	}
	if getwd == nil {
		getwd = os.Getwd
	}
	wd, err := getwd()
	if err != nil {
		return "", fmt.Errorf("--project: find the working directory: %w", err)
	}
	root, err := clientsync.ProjectRoot(wd)
	if errors.Is(err, clientsync.ErrNoProject) {
		return "", fmt.Errorf("--project: %w", err)
	}
	return root, err
}

// projectClients narrows the chosen clients to those with a project-level
// file: "all" quietly means the ones that have one, a client named
// explicitly without one is an error.
func projectClients(spec string, clients []clientsync.Client) ([]clientsync.Client, error) {
	var out []clientsync.Client
	all := false
	for _, c := range strings.Split(spec, ",") {
		all = all || strings.TrimSpace(c) == "all"
	}
	for _, c := range clients {
		if _, err := clientsync.ProjectPath(c, "/"); err != nil {
			if all {
				continue
			}
			return nil, fmt.Errorf("--client %s: %w", c, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// projectScope applies --project: the project root and the clients that
// have a file there.
func (r *runner) projectScope(clients []clientsync.Client) ([]clientsync.Client, string, error) {
	root, err := projectRoot(r.o.Project, r.sys.Getwd)
	if err != nil || root == "" {
		return clients, root, err
	}
	clients, err = projectClients(r.o.Clients, clients)
	if err == nil && len(clients) == 0 {
		err = errors.New("--project: none of the chosen clients reads a project-level config")
	}
	return clients, root, err
}

// projectNote is the report's one line on what makes the project files fit
// to commit, or what the flags put in them that does not.
func projectNote(o Options) string {
	cmd := "start hermes-tools-mcp by name (each client finds it on PATH)"
	if o.HermesToolsCommand != "" {
		cmd = "start " + o.HermesToolsCommand + " (--hermes-tools-command)"
	}
	home := "carry no HERMES_HOME"
	if o.HermesHome != "" {
		home = "set HERMES_HOME to " + o.HermesHome + " (--hermes-home)"
	}
	return "Project files " + cmd + " and " + home + ", for everyone who uses the project."
}
