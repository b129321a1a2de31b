package migrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/hermeshome"

	"github.com/hermes-go/hermes/internal/termtext"
)

// ListedClient is one client found on the machine, as `hermes-migrate
// list` reports it.
type ListedClient struct {
	Client string `json:"client"`
	// Path is the config file; Exists says whether it is there yet (the
	// client's directory is, or it would not be listed).
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// HermesTools is the hermes-tools entry, nil when none is registered.
	HermesTools *ToolsEntry `json:"hermes_tools,omitempty"`
	// Servers maps each of the user's Hermes servers to its state there
	// (synced, differs, missing, not expressible; codex: synced or
	// missing).
	Servers map[string]clientsync.SyncState `json:"servers,omitempty"`
	// Error says why the file could not be read.
	Error string `json:"error,omitempty"`
}

// ToolsEntry is a client's hermes-tools entry as list reads it.
type ToolsEntry struct {
	Command string `json:"command"`
	// Version is what the binary says with --version.
	Version string `json:"version,omitempty"`
	// Stale says why the entry no longer starts a hermes-tools-mcp:
	// the path does not exist, or is another program.
	Stale string `json:"stale,omitempty"`
}

// ListOptions are `hermes-migrate list`'s flags.
type ListOptions struct {
	JSON       bool
	HermesHome string
	Profile    hermeshome.ProfileFlag
	CodexHome  string
	// Project lists the project's files instead of the user's.
	Project Project
	Sys     System
}

// List is `hermes-migrate list`: every client whose config file or
// directory exists, and what it registers. Its error is a *UsageError
// for a project or profile that cannot be used.
func List(ctx context.Context, o ListOptions, io IO) error {
	sys := o.Sys.withDefaults()
	root, err := projectRoot(o.Project, sys.Getwd)
	if err != nil {
		return usage(err)
	}
	sel, err := hermeshome.Select(o.HermesHome, o.Profile, sys.Getenv)
	if err != nil {
		return usage(err)
	}
	getenv := sys.Getenv
	if o.CodexHome != "" {
		getenv = clientsync.WithCodexHome(getenv, o.CodexHome)
	}
	list, err := listClients(ctx, getenv, sel.Home, root)
	if err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(io.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	writeList(io.Stdout, list)
	return nil
}

func listClients(ctx context.Context, getenv func(string) string, hermesHome, project string) ([]ListedClient, error) {
	servers, err := userServers(hermesHome, getenv)
	if err != nil {
		return nil, err
	}
	versions := map[string]string{}
	list := []ListedClient{}
	found, err := findClients(getenv, project)
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		lc := ListedClient{Client: string(f.client), Path: f.path, Exists: f.exists}
		if f.err != nil {
			lc.Error = f.err.Error()
		} else if err := inspect(ctx, f.client, f.content, servers, versions, &lc); err != nil {
			lc.Error = err.Error()
		}
		list = append(list, lc)
	}
	return list, nil
}

// userServers are the servers a sync would register from config.yaml,
// secrets protected the same way.
func userServers(hermesHomeFlag string, getenv func(string) string) ([]configmigrate.Server, error) {
	home, err := hermeshome.Resolve(hermesHomeFlag, getenv)
	if err != nil {
		return nil, err
	}
	yamlText, err := configmigrate.ReadConfigFile(filepath.Join(home, hermeshome.ConfigFile))
	if err != nil || yamlText == nil {
		return nil, err
	}
	servers, _, err := configmigrate.HermesServers(yamlText)
	if err != nil {
		return nil, err
	}
	servers, _ = configmigrate.ProtectSecrets(servers, false)
	return servers, nil
}

// inspect reads what a client's file registers: its hermes-tools entry
// and how each of the user's servers stands there.
func inspect(ctx context.Context, c clientsync.Client, content []byte, servers []configmigrate.Server, versions map[string]string, lc *ListedClient) error {
	entries, err := clientsync.Inspect(c, content)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name == configmigrate.HermesToolsName {
			lc.HermesTools = describeTools(ctx, e.Command, e.URL, versions)
		}
	}
	if len(servers) > 0 {
		lc.Servers, err = clientsync.SyncStates(c, content, servers)
	}
	return err
}

// describeTools checks the command a hermes-tools entry starts. Only a
// file named hermes-tools-mcp is ever run (with --version, briefly): the
// entry may point anywhere.
func describeTools(ctx context.Context, command, url string, versions map[string]string) *ToolsEntry {
	t := &ToolsEntry{Command: command}
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(command)), ".exe")
	switch {
	case command == "" && url != "":
		t.Command, t.Stale = url, "a remote URL, not the hermes-tools-mcp binary"
		return t
	case command == "":
		t.Stale = "no command"
		return t
	case !filepath.IsAbs(command):
		if p, err := exec.LookPath(command); err == nil {
			command = p
		} else {
			t.Stale = "not found on PATH"
			return t
		}
	}
	// A path that is gone says so first, whatever its name: "not
	// hermes-tools-mcp" would send the user looking for the wrong thing.
	fi, err := os.Stat(command)
	switch {
	case err != nil || !fi.Mode().IsRegular():
		t.Stale = "no such file"
		return t
	case base != "hermes-tools-mcp":
		t.Stale = "not hermes-tools-mcp"
		return t
	}
	if v, ok := versions[command]; ok {
		t.Version = v
		return t
	}
	t.Version = toolsVersion(ctx, command)
	versions[command] = t.Version
	return t
}

func toolsVersion(ctx context.Context, bin string) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := bytes.Cut(out, []byte("\n"))
	return strings.TrimSpace(strings.TrimPrefix(string(line), "hermes-tools-mcp "))
}

func writeList(w io.Writer, list []ListedClient) {
	// Paths, server names, diffs and errors come from files the user or
	// other programs wrote: shown escaped, never obeyed as terminal
	// controls.
	tw := termtext.NewWriter(w)
	defer tw.Flush()
	w = tw
	if len(list) == 0 {
		fmt.Fprintln(w, "no MCP client found")
		return
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	for _, c := range list {
		where := c.Path
		switch {
		case c.Path == "":
			where = "(config file not located)"
		case !c.Exists:
			where += " (no config file yet)"
		}
		fmt.Fprintf(bw, "%s: %s\n", c.Client, where)
		if c.Error != "" {
			fmt.Fprintf(bw, "  error: %s\n", c.Error)
			continue
		}
		switch t := c.HermesTools; {
		case t == nil:
			fmt.Fprintln(bw, "  hermes-tools: not registered")
		case t.Stale != "":
			fmt.Fprintf(bw, "  hermes-tools: %s (stale: %s; run hermes-migrate --client %s)\n", t.Command, t.Stale, c.Client)
		case t.Version != "":
			fmt.Fprintf(bw, "  hermes-tools: %s (version %s)\n", t.Command, t.Version)
		default:
			fmt.Fprintf(bw, "  hermes-tools: %s (version unknown)\n", t.Command)
		}
		names := make([]string, 0, len(c.Servers))
		for n := range c.Servers {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintf(bw, "  server %s: %s\n", n, c.Servers[n])
		}
	}
}
