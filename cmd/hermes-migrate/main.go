// Command hermes-migrate registers Hermes' tools with MCP clients. For codex
// it writes Hermes' managed block into config.toml: the user's Hermes MCP
// servers, installed codex plugins, the hermes-tools callback and a default
// permission profile. Nothing outside the block is touched.
//
// Exit codes: 0 success (including "already up to date"); 1 the migration
// failed (stderr says why in one line); 2 bad flags; 3 a file was left
// alone because it is read-only or not writable (rerun with --force).
//
// Symlinked config files are edited in their final target and stay links.
// Each file is edited under an advisory lock beside it (<file>.hermes-
// migrate.lock, next to the link for a symlinked file), so concurrent runs
// take turns.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/buildinfo"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

var version = ""

const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitNotWritable: a config, backup or state file is read-only (no
	// write bit for its owner) or not writable by this user, and was left
	// alone; --force writes it anyway.
	exitNotWritable = 3
	// exitMarkers: config.toml's managed-section markers are broken (an
	// unended section, two sections); nothing was written, stderr names
	// the lines to fix.
	exitMarkers = 4
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, defaultDeps())
	stop()
	os.Exit(code)
}

// deps are the parts of the outside world a test replaces.
type deps struct {
	getenv     func(string) string
	environ    func() []string
	executable func() (string, error)
	lookPath   func(string) (string, error)
	// getwd finds the project --project means; nil is os.Getwd.
	getwd func() (string, error)
	// discoverPlugins asks codex (binary, empty for the default lookup)
	// for its installed plugins, running it with env; nil asks the real
	// codex.
	discoverPlugins func(ctx context.Context, codexHome, binary string, env []string) ([]configmigrate.Plugin, error)
	// stderr is where run reports; set by run.
	stderr io.Writer
}

// lockWait tells the user why nothing happens while another run holds a
// file's lock.
func (d deps) lockWait(lock string) {
	fmt.Fprintf(d.stderr, "hermes-migrate: waiting for another hermes-migrate or hermes run to finish with %s (lock %s); Ctrl-C to stop\n",
		strings.TrimSuffix(lock, filelock.Suffix), lock)
}

func defaultDeps() deps {
	return deps{
		getenv:     os.Getenv,
		environ:    os.Environ,
		executable: os.Executable,
		lookPath:   exec.LookPath,
		getwd:      os.Getwd,
	}
}

type options struct {
	clients            string
	dryRun             bool
	jsonOut            bool
	remove             bool
	codexHome          string
	hermesHome         string
	profile            hermeshome.ProfileFlag
	noPlugins          bool
	hermesToolsCommand string
	toolsApproval      string
	defaultPermissions string
	userServers        bool
	codexBin           string
	showVersion        bool
	force              bool
	verbose            bool
	// allowLiteralSecrets and project: see project.go and
	// configmigrate.ProtectSecrets; projectRoot is --project resolved.
	allowLiteralSecrets bool
	project             projectFlag
	projectRoot         string
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("hermes-migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.clients, "client", "", "clients to configure, comma-separated: "+strings.Join(knownClients(), ", ")+
		"; or all: every client found here (its config file or directory exists) and codex when it is installed, or with --project the clients the project already uses (their project file or dot-directory exists). A client named explicitly is written even if it was not found. Default: codex when it is installed, else the clients found here are listed and nothing is written")
	fs.BoolVar(&o.dryRun, "dry-run", false, "print a unified diff of what would change; write nothing")
	fs.BoolVar(&o.jsonOut, "json", false, "print the report as JSON")
	fs.BoolVar(&o.remove, "remove", false, "take Hermes' entries out again")
	fs.StringVar(&o.codexHome, "codex-home", "", "codex home (default: $CODEX_HOME, else ~/.codex)")
	fs.StringVar(&o.hermesHome, "hermes-home", "", "Hermes home (default: $HERMES_HOME, else ~/.hermes)")
	fs.BoolVar(&o.noPlugins, "no-plugins", false, "do not ask codex for installed plugins (keep those the block already lists)")
	fs.StringVar(&o.hermesToolsCommand, "hermes-tools-command", "", "path of the hermes-tools-mcp binary (default: next to hermes-migrate, else on PATH)")
	fs.StringVar(&o.toolsApproval, "tools-approval", "auto", `codex approval for hermes-tools calls: "auto" (codex decides from each tool's annotations) or "approve" (never ask)`)
	fs.StringVar(&o.defaultPermissions, "default-permissions", configmigrate.DefaultPermissions, `codex permission profile to set as default_permissions: :read-only, :workspace, :danger-full-access, a profile config.toml defines as [permissions.<id>], or "none"`)
	fs.BoolVar(&o.userServers, "user-servers", false, "other clients: also register the user's Hermes MCP servers (codex always gets them)")
	fs.StringVar(&o.codexBin, "codex-bin", "", "codex binary for plugin discovery (default: $CODEX_BIN, else codex on PATH)")
	fs.BoolVar(&o.force, "force", false, "write config files even when they are read-only or not writable by you (their mode is kept), and replace entries of Hermes' names that you wrote yourself (hermes-tools included)")
	fs.BoolVar(&o.showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&o.verbose, "verbose", false, "also print how each entry was translated (dropped timeouts, every variable name passed on)")
	fs.BoolVar(&o.allowLiteralSecrets, "allow-literal-secrets", false, "copy values that look like secrets into client files as they are (by default they become environment references, with a note naming the variable to set)")
	fs.Var(&o.project, "project", "write the project-level files (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...) of the project in `DIR`, default the project the working directory is in")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `hermes-migrate registers Hermes' tools with MCP clients, editing only Hermes' own entries.

Usage:
  hermes-migrate [flags]
  hermes-migrate list [--json] [--project [DIR]]   clients found here and what they register

Flags:
`)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), `
Files:
  A symlinked config file is edited in the file the link finally points to;
  the link stays. The previous version is kept as <file>.bak, which always
  holds your own last version, never hermes-migrate's output. Read-only
  files are left alone unless --force. Each file is edited under an
  advisory lock, <file>.hermes-migrate.lock (beside the link, for a
  symlinked file), so concurrent runs (another hermes-migrate, hermes
  switching runtimes) wait for each other; a wait longer than a moment is
  reported on stderr, and Ctrl-C ends it. --remove deletes the lock files.
  With --project, the locks live in the Hermes home (locks/), not in the
  project, and the files start hermes-tools-mcp by name with no
  HERMES_HOME (unless --hermes-home), so they can be committed.

Exit codes:
  0  success (including "already up to date")
  1  the migration failed (reason on stderr)
  2  bad flags
  3  a file was left alone because it is read-only or not writable;
     rerun with --force to write it anyway
  4  config.toml's Hermes section markers are broken (a section with no
     end, two sections); nothing was written, the message names the lines
`)
	}
	var err error
	if o.profile, args, err = hermeshome.TakeProfileFlag(args, hermeshome.FlagTakesValue(fs)); err != nil {
		return o, err
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	// --project DIR: flag parsing stops at DIR, so take it and go on.
	if o.project.set && o.project.dir == "" && fs.NArg() > 0 {
		o.project.dir = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return o, err
		}
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (run with -h for help)", fs.Arg(0))
	}
	switch o.toolsApproval {
	case "auto", "approve":
	default:
		return o, fmt.Errorf(`--tools-approval %q: want "auto" or "approve"`, o.toolsApproval)
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, d deps) int {
	if len(args) > 0 && args[0] == "list" {
		return runList(ctx, args[1:], stdout, stderr, d)
	}
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes-migrate: %v\n", err)
		return exitUsage
	}
	if o.showVersion {
		fmt.Fprintf(stdout, "hermes-migrate %s\n", buildVersion())
		return exitOK
	}
	d.stderr = stderr
	if err := checkFlags(o, d); err != nil {
		fmt.Fprintf(stderr, "hermes-migrate: %v\n", err)
		return exitUsage
	}
	// A profile that does not exist is a mistake on the command line (or
	// in active_profile), said once before any client is touched.
	if sel, err := hermeshome.Select(o.hermesHome, o.profile, d.getenv); err != nil && (o.profile.Set || !o.remove) {
		fmt.Fprintf(stderr, "hermes-migrate: %v\n", err)
		return exitUsage
	} else {
		for _, n := range sel.Notes {
			fmt.Fprintf(stderr, "hermes-migrate: warning: %s\n", n)
		}
	}
	listing := stdout
	if o.jsonOut {
		listing = stderr
	}
	clients, err := chooseClients(o, d, listing)
	if errors.Is(err, errListed) {
		if o.jsonOut {
			fmt.Fprintln(stdout, "[]")
		}
		return exitOK
	}
	if err == nil {
		clients, o.projectRoot, err = projectScope(o, clients, d)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes-migrate: %v\n", err)
		return exitUsage
	}
	var reports []clientReport
	for _, c := range clients {
		var rep clientReport
		if c == "codex" {
			rep, err = migrateCodex(ctx, o, d)
		} else {
			rep, err = migrateJSONClient(ctx, c, o, d)
		}
		if err != nil {
			if !o.jsonOut {
				// The clients before this one were written: say so.
				writeReports(stdout, reports, humanReport{verbose: o.verbose, home: d.getenv("HOME")})
			}
			return failure(stderr, c, err)
		}
		reports = append(reports, rep)
	}
	if o.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			fmt.Fprintf(stderr, "hermes-migrate: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	h := humanReport{verbose: o.verbose, home: d.getenv("HOME"), toolsEntry: !o.remove}
	if h.toolsEntry && o.projectRoot != "" {
		h.project = projectNote(o)
	}
	if h.toolsEntry {
		home, _, err := hermesHome(o, d)
		if err != nil {
			fmt.Fprintf(stderr, "hermes-migrate: %v\n", err)
			return exitUsage
		}
		// The home's .env as hermes-tools-mcp will load it: its keys need
		// nothing from the clients, but a user server's reference to one
		// of them does (a client reads its own environment, not the file).
		env := hermesenv.Load(home, d.environ())
		h.vars, h.dotenvVars, h.dotenvFile = setVariables(env), dotenvVariables(env), env.File
		h.needs, h.needsErr = needsFor(home, env.Getenv)
		if slices.Contains(clients, "codex") || o.userServers {
			h.dotenvRefs = dotenvReferences(home, env, d.getenv)
		}
	}
	writeReports(stdout, reports, h)
	return exitOK
}

// clientReport is what happened to one client's config file.
type clientReport struct {
	Client  string                     `json:"client"`
	Path    string                     `json:"path"`
	Written bool                       `json:"written"`
	Changed bool                       `json:"changed"`
	DryRun  bool                       `json:"dry_run,omitempty"`
	Backup  string                     `json:"backup,omitempty"`
	Removed bool                       `json:"removed,omitempty"`
	Diff    string                     `json:"diff,omitempty"`
	Codex   *configmigrate.CodexReport `json:"codex,omitempty"`
	// PluginSource says where the plugin list came from: "codex",
	// "previous block" or "" (none).
	PluginSource string   `json:"plugin_source,omitempty"`
	PluginError  string   `json:"plugin_error,omitempty"`
	Problems     []string `json:"problems,omitempty"`
	Notes        []string `json:"notes,omitempty"`
	// Skipped names servers left unregistered because the user's own
	// entry of that name was kept; Notes say why.
	Skipped []string `json:"skipped,omitempty"`
	// codexNotInstalled: PluginError only says no codex is installed.
	codexNotInstalled bool
}

// parseClients reads --client; all says what "all" stands for.
func parseClients(s string, all func() ([]string, error)) ([]string, error) {
	known := knownClients()
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		switch {
		case c == "":
		case c == "all":
			names, err := all()
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if !contains(out, n) {
					out = append(out, n)
				}
			}
		case contains(known, c):
			if !contains(out, c) {
				out = append(out, c)
			}
		case aliasOf(c) != "":
			if !contains(out, aliasOf(c)) {
				out = append(out, aliasOf(c))
			}
		default:
			return nil, fmt.Errorf("--client %q: unknown client (known: %s, all)", c, strings.Join(known, ", "))
		}
	}
	if len(out) == 0 {
		return nil, errors.New("--client: name at least one client")
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hermesHome resolves the Hermes home as the Python Hermes does (-p,
// HERMES_HOME, the sticky active_profile) and says how client configs
// point hermes-tools-mcp at it: what the user chose for this run is
// pinned (HERMES_HOME, --profile); a home the sticky profile picked is
// left for hermes-tools-mcp to pick the same way, so `hermes profile use`
// keeps working.
func hermesHome(o options, d deps) (home string, pin hermeshome.Pin, err error) {
	sel, err := hermeshome.Select(o.hermesHome, o.profile, d.getenv)
	return sel.Home, sel.Pin(), err
}

// stateHome is where hermes-migrate keeps what spans profiles: the record
// of the client entries it owns and the locks of project files. Client
// files are one per user, not one per profile, so this is the root above
// the chosen profile.
func stateHome(o options, d deps) (string, error) {
	home, _, err := hermesHome(o, d)
	return hermeshome.RootOf(home), err
}

// codexJob turns the flags into the codex job; its hermes-tools entry is
// also what the other clients get. --remove needs no Hermes home, so none
// is resolved for it.
func codexJob(o options, d deps) (configmigrate.CodexJob, error) {
	job := configmigrate.CodexJob{
		CodexHome:          o.codexHome,
		HermesToolsCommand: o.hermesToolsCommand,
		ApproveTools:       o.toolsApproval == "approve",
		CodexBinary:        o.codexBin,
		// A dry run must not start codex: it only shows what would change.
		NoPluginDiscovery: o.noPlugins || o.dryRun,
		Remove:            o.remove,
		DryRun:            o.dryRun,
		Force:             o.force,
		OnLockWait:        d.lockWait,
		Getenv:            d.getenv,
		Environ:           d.environ,
		Executable:        d.executable,
		LookPath:          d.lookPath,
		DiscoverPlugins:   d.discoverPlugins,
	}
	job.AllowLiteralSecrets = o.allowLiteralSecrets
	if o.projectRoot != "" {
		// The project's own .codex/config.toml; plugins are codex's
		// per user, not per project.
		job.CodexHome, job.NoPluginDiscovery = filepath.Join(o.projectRoot, ".codex"), true
	}
	if o.defaultPermissions != "none" {
		job.DefaultPermissions = o.defaultPermissions
	}
	if o.projectRoot != "" {
		// The lock goes in the Hermes home, not the project (as
		// clientsync.Job does for the other clients' project files).
		root, err := stateHome(o, d)
		if err != nil {
			return job, err
		}
		job.LockPath = clientsync.ProjectLockPath(root, filepath.Join(job.CodexHome, "config.toml"))
	}
	if o.remove {
		return job, nil
	}
	var err error
	if job.HermesHome, job.Pin, err = hermesHome(o, d); err != nil {
		return job, err
	}
	job.EnvVars = catalog.EnvVarNames()
	if o.projectRoot != "" {
		// Project files are committed and read on other machines: no
		// absolute path of this one, and HERMES_HOME only when
		// --hermes-home asks ($HERMES_HOME is this user's); a profile -p
		// names travels as --profile.
		job.ToolsCommandByName = true
		if o.hermesHome == "" {
			job.Pin.Home = ""
		}
	}
	return job, nil
}

func migrateCodex(ctx context.Context, o options, d deps) (clientReport, error) {
	rep := clientReport{Client: "codex", DryRun: o.dryRun}
	job, err := codexJob(o, d)
	if err != nil {
		return rep, err
	}
	res, err := job.Run(ctx)
	if err != nil {
		return rep, err
	}
	rep.setChange(res.FileChange)
	rep.Removed, rep.Codex = res.Removed, res.Report
	rep.PluginSource, rep.PluginError, rep.Problems = res.PluginSource, res.PluginError, res.Problems
	rep.codexNotInstalled = res.CodexNotInstalled
	return rep, nil
}

func migrateJSONClient(ctx context.Context, client string, o options, d deps) (clientReport, error) {
	rep := clientReport{Client: client, DryRun: o.dryRun}
	c, err := clientsync.ParseClient(client)
	if err != nil {
		return rep, err
	}
	home, _, err := hermesHome(o, d)
	if err != nil && !o.remove {
		return rep, err
	}
	job := clientsync.Job{
		Client:      c,
		HermesHome:  home,
		UserServers: o.userServers,
		Remove:      o.remove,
		DryRun:      o.dryRun,
		Force:       o.force,
		OnLockWait:  d.lockWait,
		Getenv:      d.getenv,
		// The same entry codex gets, built only when the job needs it.
		HermesTools: func() (configmigrate.Server, error) {
			cj, err := codexJob(o, d)
			if err != nil {
				return configmigrate.Server{}, err
			}
			return cj.HermesToolsEntry()
		},
	}
	job.Project, job.AllowLiteralSecrets = o.projectRoot, o.allowLiteralSecrets
	res, err := job.Run(ctx)
	if err != nil {
		return rep, err
	}
	rep.setChange(res.FileChange)
	rep.Removed, rep.Problems, rep.Notes, rep.Skipped = res.Removed, res.Problems, res.Notes, res.Skipped
	return rep, nil
}

func (r *clientReport) setChange(ch configmigrate.FileChange) {
	r.Path, r.Changed, r.Written, r.Backup, r.Diff = ch.Path, ch.Changed, ch.Written, ch.Backup, ch.Diff
}

func buildVersion() string { return buildinfo.Version(version) }
