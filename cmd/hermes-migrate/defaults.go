package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// errListed says the run printed what it found and wrote nothing: the
// outcome of a plain hermes-migrate on a machine without codex.
var errListed = errors.New("listed the clients found; nothing written")

// checkFlags refuses settings that cannot work, before any file is
// written, naming where the value came from (the flag or the variable)
// and what would work. A user's own permission profile is checked against
// config.toml by the job.
func checkFlags(o options, d deps) error {
	if p := o.defaultPermissions; p != "none" && strings.HasPrefix(p, ":") {
		if err := configmigrate.CheckPermissions(p, nil); err != nil {
			return fmt.Errorf("--default-permissions: %w", err)
		}
	}
	if err := checkHomes(o, d); err != nil {
		return err
	}
	if o.codexBin != "" {
		// Named on the command line, so a typo is a flag error here
		// rather than a plugin-discovery warning that blames $CODEX_BIN.
		if _, err := d.lookPath(o.codexBin); err != nil {
			return fmt.Errorf("--codex-bin %q: not an executable file (%w); give the path of the codex binary, or leave the flag out to use $%s or codex on PATH", o.codexBin, err, bridge.BinaryEnv)
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
func checkHomes(o options, d deps) error {
	source := func(flag, value, env string) (string, string) {
		if value != "" {
			return "--" + flag, value
		}
		return "$" + env, d.getenv(env)
	}
	if src, dir := source("codex-home", o.codexHome, "CODEX_HOME"); dir != "" {
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return fmt.Errorf("%s %q is a file; it must name codex's home directory, the one holding config.toml", src, dir)
		}
	}
	if o.remove {
		return nil
	}
	src, dir := source("hermes-home", o.hermesHome, hermeshome.EnvVar)
	if dir == "" {
		return nil
	}
	home, err := hermeshome.Resolve(o.hermesHome, d.getenv)
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
func chooseClients(o options, d deps, listing io.Writer) ([]string, error) {
	if o.clients != "" {
		return parseClients(o.clients)
	}
	if codexPresent(o, d) {
		return []string{"codex"}, nil
	}
	writeDetected(listing, detectClients(d), d.getenv("HOME"), o)
	return nil, errListed
}

// codexPresent says whether codex counts as installed: a codex binary (--codex-bin, $CODEX_BIN, PATH), a codex home the user
// named (--codex-home, $CODEX_HOME), or an existing ~/.codex (the codex IDE
// extensions bring their own binary, off PATH, and use it too).
func codexPresent(o options, d deps) bool {
	if o.codexBin != "" || o.codexHome != "" || d.getenv("CODEX_HOME") != "" || d.getenv(bridge.BinaryEnv) != "" {
		return true
	}
	if _, err := d.lookPath("codex"); err == nil {
		return true
	}
	home := d.getenv("HOME")
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

// detected is a client whose config file, or the directory it goes in,
// exists.
type detected struct {
	client clientsync.Client
	path   string
}

// detectClients finds the MCP clients used here. A client counts when its
// config file exists, or the directory it goes in does (the client is
// installed but has no MCP servers yet) unless that directory is the home
// itself, which every user has.
func detectClients(d deps) []detected {
	home := d.getenv("HOME")
	env := clientsync.Env{GOOS: runtime.GOOS, Home: home, AppData: d.getenv("APPDATA"), XDGConfigHome: d.getenv("XDG_CONFIG_HOME")}
	var out []detected
	for _, c := range clientsync.Clients() {
		p, err := clientsync.ConfigPath(c, env)
		if err != nil {
			continue
		}
		found := false
		if _, err := os.Stat(p); err == nil {
			found = true
		} else if dir := filepath.Dir(p); filepath.Clean(dir) != filepath.Clean(home) {
			fi, err := os.Stat(dir)
			found = err == nil && fi.IsDir()
		}
		if found {
			out = append(out, detected{c, p})
		}
	}
	return out
}

// writeDetected lists the clients found, each with the command that
// configures it; the commands keep --remove and --dry-run when given.
func writeDetected(w io.Writer, found []detected, home string, o options) {
	mode, purpose := "", "to give one Hermes' tools"
	if o.remove {
		mode, purpose = " --remove", "to take Hermes' entries out of one"
	}
	if o.dryRun {
		mode += " --dry-run"
	}
	fmt.Fprintf(w, "codex is not installed here (no codex on PATH, no ~/.codex), so nothing was written.\n")
	if len(found) == 0 {
		fmt.Fprintf(w, "No other MCP client's config was found either. Name a client: hermes-migrate --client <name>%s (%s).\n", mode, strings.Join(knownClients(), ", "))
		return
	}
	fmt.Fprintf(w, "MCP clients found here; %s, run:\n", purpose)
	width := 0
	for _, f := range found {
		width = max(width, len(string(f.client)+mode))
	}
	for _, f := range found {
		fmt.Fprintf(w, "  hermes-migrate --client %-*s  # %s, %s\n", width, string(f.client)+mode, f.client.DisplayName(), tilde(f.path, home))
	}
	if !o.remove {
		fmt.Fprintf(w, "For codex, install it (%s) and run hermes-migrate again.\n", bridge.InstallHint)
	}
}

func knownClients() []string {
	known := []string{"codex"}
	for _, c := range clientsync.Clients() {
		known = append(known, string(c))
	}
	return known
}
