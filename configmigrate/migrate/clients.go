package migrate

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/didyoumean"
	"github.com/hermes-go/hermes/internal/hermeshome"

	"github.com/hermes-go/hermes/internal/safefile"

	"github.com/hermes-go/hermes/internal/termtext"
)

// errListed says the run printed what it found and wrote nothing: the
// outcome of a plain hermes-migrate on a machine without codex.
var errListed = errors.New("listed the clients found; nothing written")

// checkFlags refuses settings that cannot work, before any file is
// written, naming where the value came from (the flag or the variable)
// and what would work. A user's own permission profile is checked against
// config.toml by the job.
func (r *runner) checkFlags() error {
	o := r.o
	if p := o.DefaultPermissions; strings.HasPrefix(p, ":") {
		if err := configmigrate.CheckPermissions(p, nil); err != nil {
			return fmt.Errorf("--default-permissions: %w", err)
		}
	}
	if err := r.checkHomes(); err != nil {
		return err
	}
	if o.CodexBin != "" {
		// Named on the command line, so a typo is a flag error here
		// rather than a plugin-discovery warning that blames $CODEX_BIN.
		if _, err := r.sys.LookPath(o.CodexBin); err != nil {
			return fmt.Errorf("--codex-bin %q: not an executable file (%w); give the path of the codex binary, or leave the flag out to use $%s or codex on PATH", o.CodexBin, err, bridge.BinaryEnv)
		}
	}
	return nil
}

// checkHomes refuses a codex or Hermes home the user named that cannot be
// one: a file rather than a directory, or (for the Hermes home, whose
// config.yaml and whose path go into every client's entry) a directory
// that does not exist, which is a typo far more often than a plan.
// Otherwise the run would fail on a path that names neither the flag nor
// the variable, or silently register no servers.
func (r *runner) checkHomes() error {
	o := r.o
	source := func(flag, value, env string) (string, string) {
		if value != "" {
			return "--" + flag, value
		}
		return "$" + env, r.sys.Getenv(env)
	}
	if src, dir := source("codex-home", o.CodexHome, "CODEX_HOME"); dir != "" {
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return fmt.Errorf("%s %q is a file; it must name codex's home directory, the one holding config.toml", src, dir)
		}
	}
	if o.Remove {
		return nil
	}
	src, dir := source("hermes-home", o.HermesHome, hermeshome.EnvVar)
	if dir == "" {
		return nil
	}
	home, err := hermeshome.Resolve(o.HermesHome, r.sys.Getenv)
	if err != nil {
		return fmt.Errorf("%s %q: %w", src, dir, err)
	}
	fi, err := os.Stat(home)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %q: %s does not exist; name the directory holding Hermes' config.yaml (or leave %s out for ~/.hermes)", src, dir, home, src)
	case err != nil:
		return fmt.Errorf("%s %q: %w", src, dir, err)
	case !fi.IsDir():
		return fmt.Errorf("%s %q is a file; it must name the directory holding Hermes' config.yaml", src, dir)
	}
	return nil
}

// chooseClients returns the clients to configure. --client names them;
// without it codex is configured when it is installed. When it is not,
// nothing is written: the clients found here are listed with the command
// for each on listing, so the user picks rather than getting a
// config.toml for a program they do not have.
func (r *runner) chooseClients(listing io.Writer) ([]clientsync.Client, error) {
	if r.o.Clients != "" {
		return parseClients(r.o.Clients, r.allClients)
	}
	if r.codexPresent() {
		return []clientsync.Client{clientsync.Codex}, nil
	}
	found, err := findClients(r.getenv(), "")
	if err != nil {
		return nil, err
	}
	// Codex is chosen by whether it is installed, not by its files.
	found = slices.DeleteFunc(found, func(f foundClient) bool { return f.client == clientsync.Codex })
	writeDetected(listing, found, r.sys.Getenv("HOME"), r.o)
	return nil, errListed
}

// allClients is what --client all means: the clients found here, and
// codex when it is installed, so that a client never installed gets no
// config directory; a client named explicitly is written found or not. In
// project scope the clients the project already uses (their project file
// or directory exists, codex's .codex included): a project gets no file
// for a client nobody on it uses.
func (r *runner) allClients() ([]clientsync.Client, error) {
	var out []clientsync.Client
	root := ""
	if r.o.Project.Set {
		var err error
		if root, err = projectRoot(r.o.Project, r.sys.Getwd); err != nil {
			return nil, err
		}
	} else if r.codexPresent() {
		out = append(out, clientsync.Codex)
	}
	found, err := findClients(r.getenv(), root)
	if err != nil {
		return nil, err
	}
	for _, f := range found {
		// Outside a project codex is chosen by whether it is installed,
		// not by its files.
		if f.client != clientsync.Codex || root != "" {
			out = append(out, f.client)
		}
	}
	switch {
	case len(out) == 0 && root != "":
		return nil, fmt.Errorf("--client all --project: no MCP client uses %s yet (none of .mcp.json, .cursor, .vscode, .gemini, .zed, .codex, ... is there); name the clients to write: --client <name>,... (%s)", root, strings.Join(projectCapable(), ", "))
	case len(out) == 0:
		return nil, fmt.Errorf("--client all: no MCP client was found here (no config file or config directory of any, and no codex); name the clients to configure: --client <name> (%s)", strings.Join(KnownClients(), ", "))
	}
	return out, nil
}

// parseClients reads --client; all says what "all" stands for.
func parseClients(s string, all func() ([]clientsync.Client, error)) ([]clientsync.Client, error) {
	var out []clientsync.Client
	add := func(c clientsync.Client) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if name == "all" {
			cs, err := all()
			if err != nil {
				return nil, err
			}
			for _, c := range cs {
				add(c)
			}
			continue
		}
		c, err := clientsync.ParseClient(name)
		if err != nil {
			if hint := didyoumean.Hint(name, append(KnownClients(), "all")); hint != "" {
				return nil, fmt.Errorf("--client %q: unknown client; %s (known: %s, all)", name, hint, strings.Join(KnownClients(), ", "))
			}
			return nil, fmt.Errorf("--client %q: unknown client (known: %s, all)", name, strings.Join(KnownClients(), ", "))
		}
		add(c)
	}
	if len(out) == 0 {
		return nil, errors.New("--client: name at least one client")
	}
	return out, nil
}

// projectCapable are the clients that read a project-level file.
func projectCapable() []string {
	var out []string
	for _, c := range clientsync.Clients() {
		if _, err := clientsync.ProjectPath(c, "/"); err == nil {
			out = append(out, string(c))
		}
	}
	return out
}

// codexPresent says whether codex counts as installed: a codex binary
// (--codex-bin, $CODEX_BIN, PATH), a codex home the user named
// (--codex-home, $CODEX_HOME), or an existing ~/.codex (the codex IDE
// extensions bring their own binary, off PATH, and use it too).
func (r *runner) codexPresent() bool {
	o, getenv := r.o, r.sys.Getenv
	if o.CodexBin != "" || o.CodexHome != "" || getenv("CODEX_HOME") != "" || getenv(bridge.BinaryEnv) != "" {
		return true
	}
	if _, err := r.sys.LookPath("codex"); err == nil {
		return true
	}
	home := getenv("HOME")
	if home == "" {
		// As the codex job finds ~/.codex (Windows has no $HOME).
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return false
		}
	}
	fi, err := os.Stat(filepath.Join(home, ".codex"))
	return err == nil && fi.IsDir()
}

// foundClient is a client found here, as the plain run, --client all and
// list all see it.
type foundClient struct {
	client clientsync.Client
	// path is the file a run edits; content its bytes when exists.
	path    string
	content []byte
	exists  bool
	// err says why the file could not be located (a client's own
	// variable set to a relative path, %APPDATA% unset): the client is
	// listed with it, and a run for it fails with it, while the other
	// clients go on.
	err error
}

// findClients finds the MCP clients used here: those whose config file
// exists or, at user level, whose config directory does (the client is
// installed but has no MCP servers yet), by readClientFile's rule; in a
// project (project non-empty) the same for its project files.
func findClients(getenv func(string) string, project string) ([]foundClient, error) {
	env := clientsync.MachineEnv(runtime.GOOS, getenv)
	home := env.Home
	var out []foundClient
	for _, c := range clientsync.Clients() {
		var path string
		var err error
		if project != "" {
			if path, err = clientsync.ProjectPath(c, project); err != nil {
				continue // the client reads no project file
			}
		} else if path, err = clientsync.Locate(c, env); err != nil {
			out = append(out, foundClient{client: c, err: err})
			continue
		}
		root := home
		if project != "" {
			root = project
		}
		content, exists, found, rerr := readClientFile(path, root, project != "")
		if found {
			out = append(out, foundClient{client: c, path: path, content: content, exists: exists, err: rerr})
		}
	}
	return out, nil
}

// readClientFile reads a client's file under root (the home, or the
// project with project set). This is the one rule for "found", in both
// scopes: the file exists (or cannot be read for another reason than its
// absence), or the directory it would be in does (the client is
// installed, or the project uses it, with no MCP servers yet), unless
// that directory is root itself, which every home and project has
// (~/.claude.json, a project's .mcp.json). In a project the directory
// must also be a tool's own dot-directory (.cursor, .vscode, .zed):
// MCPorter's config/ is any project's. err is why a file that is there
// could not be read (a FIFO or directory in its place, no permission);
// the file is read without waiting on whatever is at the path.
func readClientFile(path, root string, project bool) (content []byte, exists, found bool, err error) {
	content, err = safefile.ReadUserFile(path, safefile.MaxConfigSize)
	if err == nil {
		return content, true, true, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, true, true, err
	}
	dir := filepath.Dir(path)
	if filepath.Clean(dir) == filepath.Clean(root) {
		return nil, false, false, nil
	}
	if project {
		rel, err := filepath.Rel(root, dir)
		if err != nil || !strings.HasPrefix(rel, ".") || strings.HasPrefix(rel, "..") {
			return nil, false, false, nil
		}
	}
	fi, err := os.Stat(dir)
	return nil, false, err == nil && fi.IsDir(), nil
}

// writeDetected lists the clients found, each with the command that
// configures it; the commands keep --remove and --dry-run when given.
func writeDetected(w io.Writer, found []foundClient, home string, o Options) {
	// Paths, server names, diffs and errors come from files the user or
	// other programs wrote: shown escaped, never obeyed as terminal
	// controls.
	tw := termtext.NewWriter(w)
	defer tw.Flush()
	w = tw
	mode, purpose := "", "to give one Hermes' tools"
	if o.Remove {
		mode, purpose = " --remove", "to take Hermes' entries out of one"
	}
	if o.DryRun {
		mode += " --dry-run"
	}
	fmt.Fprintf(w, "codex is not installed here (no codex on PATH, no ~/.codex), so nothing was written.\n")
	if len(found) == 0 {
		fmt.Fprintf(w, "No other MCP client's config was found either. Name a client: hermes-migrate --client <name>%s (%s).\n", mode, strings.Join(KnownClients(), ", "))
		return
	}
	fmt.Fprintf(w, "MCP clients found here; %s, run:\n", purpose)
	width := 0
	for _, f := range found {
		width = max(width, len(string(f.client)+mode))
	}
	for _, f := range found {
		where := tilde(f.path, home)
		switch {
		case f.err != nil && f.path != "":
			where = "file not readable: " + f.err.Error()
		case f.err != nil:
			where = "file not located: " + f.err.Error()
		}
		fmt.Fprintf(w, "  hermes-migrate --client %-*s  # %s, %s\n", width, string(f.client)+mode, f.client.DisplayName(), where)
	}
	if !o.Remove {
		fmt.Fprintf(w, "For codex, install it (%s) and run hermes-migrate again.\n", bridge.InstallHint)
	}
}

// KnownClients are the names --client takes, codex first.
func KnownClients() []string {
	var known []string
	for _, c := range clientsync.Clients() {
		known = append(known, string(c))
	}
	return known
}
