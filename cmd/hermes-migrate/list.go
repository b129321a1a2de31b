package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// listedClient is one client found on the machine, as `hermes-migrate
// list` reports it.
type listedClient struct {
	Client string `json:"client"`
	// Path is the config file; Exists says whether it is there yet (the
	// client's directory is, or it would not be listed).
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
	// HermesTools is the hermes-tools entry, nil when none is registered.
	HermesTools *toolsEntry `json:"hermes_tools,omitempty"`
	// Servers maps each of the user's Hermes servers to its state there
	// (synced, differs, missing, not expressible; codex: synced or
	// missing).
	Servers map[string]clientsync.SyncState `json:"servers,omitempty"`
	// Error says why the file could not be read.
	Error string `json:"error,omitempty"`
}

type toolsEntry struct {
	Command string `json:"command"`
	// Version is what the binary says with --version.
	Version string `json:"version,omitempty"`
	// Stale says why the entry no longer starts a hermes-tools-mcp:
	// the path does not exist, or is another program.
	Stale string `json:"stale,omitempty"`
}

// runList is `hermes-migrate list [--json]`: every client whose config
// file or directory exists, and what it registers.
func runList(ctx context.Context, args []string, stdout, stderr io.Writer, d deps) int {
	fs := flag.NewFlagSet("hermes-migrate list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jsonOut := fs.Bool("json", false, "print the list as JSON")
	hermesHome := fs.String("hermes-home", "", "Hermes home (default: $HERMES_HOME, else ~/.hermes)")
	codexHome := fs.String("codex-home", "", "codex home (default: $CODEX_HOME, else ~/.codex)")
	var project projectFlag
	fs.Var(&project, "project", "list the project-level files of the project in `DIR` (default: the one the working directory is in) instead")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "hermes-migrate list shows every MCP client found on this machine, whether hermes-tools is registered there\n(its binary, version, and whether that path is stale) and which of your Hermes servers are synced.\n\nUsage:\n  hermes-migrate list [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	profile, args, err := hermeshome.TakeProfileFlag(args, hermeshome.FlagTakesValue(fs))
	if err != nil {
		fmt.Fprintf(stderr, "hermes-migrate list: %v\n", err)
		return exitUsage
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return exitOK
	} else if err != nil {
		return exitUsage
	}
	if project.set && project.dir == "" && fs.NArg() > 0 {
		project.dir = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return exitUsage
		}
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hermes-migrate list: unexpected argument %q (run with -h for help)\n", fs.Arg(0))
		return exitUsage
	}
	root, err := projectRoot(project, d.getwd)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-migrate list: %v\n", err)
		return exitUsage
	}
	sel, err := hermeshome.Select(*hermesHome, profile, d.getenv)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-migrate list: %v\n", err)
		return exitUsage
	}
	list, err := listClients(ctx, d, sel.Home, *codexHome, root)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-migrate list: %v\n", err)
		return exitFailure
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			fmt.Fprintf(stderr, "hermes-migrate list: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	writeList(stdout, list)
	return exitOK
}

func listClients(ctx context.Context, d deps, hermesHomeFlag, codexHomeFlag, project string) ([]listedClient, error) {
	servers, err := userServers(hermesHomeFlag, d.getenv)
	if err != nil {
		return nil, err
	}
	versions := map[string]string{}
	list := []listedClient{}
	if c, ok := listCodex(ctx, d, codexHomeFlag, project, servers, versions); ok {
		list = append(list, c)
	}
	found, err := findClients(d, project)
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		lc := listedClient{Client: string(f.client), Path: f.path, Exists: f.exists}
		if f.err != nil {
			lc.Error = f.err.Error()
		} else if err := inspectJSON(ctx, f.client, f.content, servers, versions, &lc); err != nil {
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

func inspectJSON(ctx context.Context, c clientsync.Client, content []byte, servers []configmigrate.Server, versions map[string]string, lc *listedClient) error {
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

// listCodex reads codex's config.toml (or the project's .codex/config.toml).
func listCodex(ctx context.Context, d deps, codexHomeFlag, project string, servers []configmigrate.Server, versions map[string]string) (listedClient, bool) {
	dir := codexHomeFlag
	switch {
	case project != "":
		dir = filepath.Join(project, ".codex")
	case dir == "":
		dir = d.getenv("CODEX_HOME")
	}
	if dir == "" {
		dir = filepath.Join(d.getenv("HOME"), ".codex")
	}
	path := filepath.Join(dir, "config.toml")
	root := d.getenv("HOME")
	if project != "" {
		root = project
	}
	content, exists, found := readClientFile(path, root, project != "")
	if !found {
		return listedClient{}, false
	}
	lc := listedClient{Client: "codex", Path: path, Exists: exists}
	var doc struct {
		Servers map[string]struct {
			Command string `toml:"command"`
			URL     string `toml:"url"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(content, &doc); err != nil {
		lc.Error = fmt.Sprintf("config.toml is not valid TOML: %v", err)
		return lc, true
	}
	if e, ok := doc.Servers[configmigrate.HermesToolsName]; ok {
		lc.HermesTools = describeTools(ctx, e.Command, e.URL, versions)
	}
	if len(servers) > 0 {
		lc.Servers = map[string]clientsync.SyncState{}
		for _, s := range servers {
			lc.Servers[s.Name] = clientsync.Missing
			if _, ok := doc.Servers[s.Name]; ok {
				lc.Servers[s.Name] = clientsync.Synced
			}
		}
	}
	return lc, true
}

// describeTools checks the command a hermes-tools entry starts. Only a
// file named hermes-tools-mcp is ever run (with --version, briefly): the
// entry may point anywhere.
func describeTools(ctx context.Context, command, url string, versions map[string]string) *toolsEntry {
	t := &toolsEntry{Command: command}
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

func writeList(w io.Writer, list []listedClient) {
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
