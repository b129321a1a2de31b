package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/configmigrate/clientsync"
)

// projectFlag is --project [DIR]: a boolean flag that may take a value
// (--project=DIR, or the one argument after the flags), so that plain
// --project means "the project I am in".
type projectFlag struct {
	set bool
	dir string
}

func (p *projectFlag) String() string { return p.dir }

func (p *projectFlag) Set(v string) error {
	p.set = true
	if v != "true" {
		p.dir = v
	}
	if v == "false" {
		*p = projectFlag{}
	}
	return nil
}

// IsBoolFlag lets --project stand alone.
func (p *projectFlag) IsBoolFlag() bool { return true }

// projectRoot resolves --project: a named directory is taken as asked
// (it must exist); without one, the project the working directory belongs
// to, and an error outside any project.
func projectRoot(p projectFlag, getwd func() (string, error)) (string, error) {
	if !p.set {
		return "", nil
	}
	if p.dir != "" {
		abs, err := filepath.Abs(p.dir)
		if err != nil {
			return "", fmt.Errorf("--project %s: %w", p.dir, err)
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return "", fmt.Errorf("--project %s: %w", p.dir, err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("--project %s is not a directory; name the project's root directory", p.dir)
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
func projectClients(spec string, clients []string) ([]string, error) {
	var out []string
	all := false
	for _, c := range splitClients(spec) {
		all = all || c == "all"
	}
	for _, c := range clients {
		if c == "codex" {
			out = append(out, c)
			continue
		}
		cl, err := clientsync.ParseClient(c)
		if err != nil {
			return nil, err
		}
		if _, err := clientsync.ProjectPath(cl, "/"); err != nil {
			if all {
				continue
			}
			return nil, fmt.Errorf("--client %s: %w", c, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func splitClients(spec string) []string {
	var out []string
	for _, c := range strings.Split(spec, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// projectScope applies --project: the project root and the clients that
// have a file there.
func projectScope(o options, clients []string, d deps) ([]string, string, error) {
	root, err := projectRoot(o.project, d.getwd)
	if err != nil || root == "" {
		return clients, root, err
	}
	clients, err = projectClients(o.clients, clients)
	if err == nil && len(clients) == 0 {
		err = errors.New("--project: none of the chosen clients reads a project-level config")
	}
	return clients, root, err
}

// aliasOf is the client an alias (gemini-cli, kiro) names, "" for none.
func aliasOf(name string) string {
	c, err := clientsync.ParseClient(name)
	if err != nil {
		return ""
	}
	return string(c)
}

// projectNote is the report's one line on what makes the project files fit
// to commit, or what the flags put in them that does not.
func projectNote(o options) string {
	cmd := "start hermes-tools-mcp by name (each client finds it on PATH)"
	if o.hermesToolsCommand != "" {
		cmd = "start " + o.hermesToolsCommand + " (--hermes-tools-command)"
	}
	home := "carry no HERMES_HOME"
	if o.hermesHome != "" {
		home = "set HERMES_HOME to " + o.hermesHome + " (--hermes-home)"
	}
	return "Project files " + cmd + " and " + home + ", for everyone who uses the project."
}
