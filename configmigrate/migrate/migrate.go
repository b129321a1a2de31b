// Package migrate is what hermes-migrate does once its flags are read:
// which clients to configure (the ones named, or the ones found here),
// one clientsync.Job per client, the report (text or JSON), and `list`.
// cmd/hermes-migrate parses the flags into Options and maps Run's error
// to an exit code; everything else is here.
//
// Every client is a row of clientsync's table, codex included, so every
// client goes through the same job, the same report and the same list.
package migrate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// Options are hermes-migrate's flags.
type Options struct {
	// Clients is --client as given: names and aliases, comma-separated,
	// or all; empty chooses (codex when it is installed, else the
	// clients found here are listed and nothing is written).
	Clients string
	DryRun  bool
	JSON    bool
	Remove  bool
	Force   bool
	Verbose bool
	// CodexHome and HermesHome are --codex-home and --hermes-home;
	// Profile is -p.
	CodexHome  string
	HermesHome string
	Profile    hermeshome.ProfileFlag
	// NoPlugins keeps the plugins codex's block lists instead of asking
	// codex; CodexBin is the codex to ask.
	NoPlugins bool
	CodexBin  string
	// HermesToolsCommand is the hermes-tools-mcp to register; empty for
	// the one beside the running program, else on PATH.
	HermesToolsCommand string
	// ApproveTools is --tools-approval approve.
	ApproveTools bool
	// DefaultPermissions is codex's default_permissions profile, empty
	// for none.
	DefaultPermissions string
	// UserServers also registers the user's Hermes servers with the
	// clients other than codex (which always gets them).
	UserServers         bool
	AllowLiteralSecrets bool
	// Project is --project [DIR].
	Project Project
	// Sys is the outside world the run sees.
	Sys System
}

// Project is --project [DIR]: Set with an empty Dir means the project
// the working directory is in.
type Project struct {
	Set bool
	Dir string
}

// System is the part of the outside world a test replaces; a nil field
// is the real one.
type System struct {
	Getenv     func(string) string
	Environ    func() []string
	Executable func() (string, error)
	LookPath   func(string) (string, error)
	// Getwd finds the project --project means.
	Getwd func() (string, error)
	// DiscoverPlugins asks codex (binary, empty for the default lookup)
	// for its installed plugins, running it with env.
	DiscoverPlugins func(ctx context.Context, codexHome, binary string, env []string) ([]configmigrate.Plugin, error)
}

func (s System) withDefaults() System {
	if s.Getenv == nil {
		s.Getenv = os.Getenv
	}
	if s.Environ == nil {
		s.Environ = os.Environ
	}
	if s.Executable == nil {
		s.Executable = os.Executable
	}
	if s.LookPath == nil {
		s.LookPath = exec.LookPath
	}
	if s.Getwd == nil {
		s.Getwd = os.Getwd
	}
	return s
}

// IO is where a run writes: the report on Stdout, warnings, waits and
// (with --json) the listing of found clients on Stderr.
type IO struct {
	Stdout, Stderr io.Writer
}

// UsageError is a run refused for what it was asked (a flag, a profile, a
// project, a client), before any file was written.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(err error) error {
	if err == nil {
		return nil
	}
	return &UsageError{err}
}

// ClientError is a client whose migration failed; the clients before it
// were written (and reported).
type ClientError struct {
	Client string
	Err    error
}

// Error says what failed and, for what the user can fix, how.
func (e *ClientError) Error() string {
	switch {
	case errors.Is(e.Err, atomicfile.ErrNotWritable):
		return fmt.Sprintf("%s: %v; rerun with --force to write it anyway", e.Client, e.Err)
	case errors.Is(e.Err, configmigrate.ErrUnknownPermissions):
		return fmt.Sprintf("%s: --default-permissions: %v", e.Client, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.Client, e.Err)
}

func (e *ClientError) Unwrap() error { return e.Err }

// Report is what happened to one client's config file; --json prints a
// list of them.
type Report struct {
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
	// Dropped names servers an earlier run registered that left
	// config.yaml's mcp_servers, and so this run took out.
	Dropped []string `json:"dropped,omitempty"`
	// codexNotInstalled: PluginError only says no codex is installed.
	codexNotInstalled bool
}

// runner is one run: its options, its world and what it resolved.
type runner struct {
	o   Options
	sys System
	io  IO
	// projectRoot is --project resolved, "" without it.
	projectRoot string
}

// Run configures the clients Options choose and reports what it did. Its
// error is a *UsageError for a run refused before anything was written, a
// *ClientError for a client that failed (the error matching
// atomicfile.ErrNotWritable, configmigrate.ErrUnknownPermissions or
// *configmigrate.MarkerError when it is one of those), else another error.
func Run(ctx context.Context, o Options, io IO) error {
	r := &runner{o: o, sys: o.Sys.withDefaults(), io: io}
	if err := r.checkFlags(); err != nil {
		return usage(err)
	}
	// A profile that does not exist is a mistake on the command line (or
	// in active_profile), said once before any client is touched.
	if sel, err := hermeshome.Select(o.HermesHome, o.Profile, r.sys.Getenv); err != nil && (o.Profile.Set || !o.Remove) {
		return usage(err)
	} else {
		for _, n := range sel.Notes {
			fmt.Fprintf(io.Stderr, "hermes-migrate: warning: %s\n", n)
		}
		// Keys the original does not know, named with the key meant: a
		// misspelt one is otherwise ignored without a word.
		if chk, err := hermeshome.CheckConfig(sel.Home); err == nil && !o.Remove {
			for _, w := range chk.Warnings {
				fmt.Fprintf(io.Stderr, "hermes-migrate: warning: %s: %s\n", filepath.Join(sel.Home, hermeshome.ConfigFile), w)
			}
		}
	}
	listing := io.Stdout
	if o.JSON {
		listing = io.Stderr
	}
	clients, err := r.chooseClients(listing)
	if errors.Is(err, errListed) {
		if o.JSON {
			fmt.Fprintln(io.Stdout, "[]")
		}
		return nil
	}
	if err == nil {
		clients, r.projectRoot, err = r.projectScope(clients)
	}
	if err != nil {
		return usage(err)
	}
	var reports []Report
	for _, c := range clients {
		rep, err := r.migrate(ctx, c)
		if err != nil {
			if !o.JSON {
				// The clients before this one were written: say so.
				writeReports(io.Stdout, reports, humanReport{verbose: o.Verbose, home: r.sys.Getenv("HOME")})
			}
			return &ClientError{Client: string(c), Err: err}
		}
		reports = append(reports, rep)
	}
	if o.JSON {
		enc := json.NewEncoder(io.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(reports)
	}
	h := humanReport{verbose: o.Verbose, home: r.sys.Getenv("HOME"), toolsEntry: !o.Remove}
	if h.toolsEntry && r.projectRoot != "" {
		h.project = projectNote(o)
	}
	if h.toolsEntry {
		home, _, err := r.hermesHome()
		if err != nil {
			return usage(err)
		}
		// The home's .env as hermes-tools-mcp will load it: its keys need
		// nothing from the clients, but a user server's reference to one
		// of them does (a client reads its own environment, not the file).
		env := hermesenv.Load(home, r.sys.Environ())
		h.vars, h.dotenvVars, h.dotenvFile = setVariables(env), dotenvVariables(env), env.File
		h.dotenvPath = filepath.Join(home, ".env")
		h.needs, h.needsErr = needsFor(home, env.Getenv)
		if slices.Contains(clients, clientsync.Codex) || o.UserServers {
			h.dotenvRefs = dotenvReferences(home, env, r.sys.Getenv)
		}
	}
	writeReports(io.Stdout, reports, h)
	return nil
}

// lockWait tells the user why nothing happens while another run holds a
// file's lock.
func (r *runner) lockWait(lock string) {
	fmt.Fprintf(r.io.Stderr, "hermes-migrate: waiting for another hermes-migrate or hermes run to finish with %s (lock %s); Ctrl-C to stop\n",
		strings.TrimSuffix(lock, filelock.Suffix), lock)
}

// hermesHome resolves the Hermes home as the Python Hermes does (-p,
// HERMES_HOME, the sticky active_profile) and says how client configs
// point hermes-tools-mcp at it: what the user chose for this run is
// pinned (HERMES_HOME, --profile); a home the sticky profile picked is
// left for hermes-tools-mcp to pick the same way, so `hermes profile use`
// keeps working.
func (r *runner) hermesHome() (home string, pin hermeshome.Pin, err error) {
	sel, err := hermeshome.Select(r.o.HermesHome, r.o.Profile, r.sys.Getenv)
	return sel.Home, sel.Pin(), err
}

// getenv is the run's environment with --codex-home as $CODEX_HOME, so
// that codex's file is found where the job will write it.
func (r *runner) getenv() func(string) string {
	if r.o.CodexHome == "" {
		return r.sys.Getenv
	}
	return clientsync.WithCodexHome(r.sys.Getenv, r.o.CodexHome)
}

// job turns the flags into c's job. --remove needs no Hermes home, so an
// error resolving one is left for the job, which may not need it.
func (r *runner) job(c clientsync.Client) (clientsync.Job, error) {
	o := r.o
	job := clientsync.Job{
		Client:              c,
		UserServers:         o.UserServers,
		Remove:              o.Remove,
		DryRun:              o.DryRun,
		Force:               o.Force,
		OnLockWait:          r.lockWait,
		Project:             r.projectRoot,
		AllowLiteralSecrets: o.AllowLiteralSecrets,
		HermesToolsCommand:  o.HermesToolsCommand,
		ApproveTools:        o.ApproveTools,
		CodexHome:           o.CodexHome,
		DefaultPermissions:  o.DefaultPermissions,
		CodexBinary:         o.CodexBin,
		// A dry run must not start codex: it only shows what would change.
		NoPluginDiscovery: o.NoPlugins || o.DryRun,
		Getenv:            r.sys.Getenv,
		Environ:           r.sys.Environ,
		Executable:        r.sys.Executable,
		LookPath:          r.sys.LookPath,
		DiscoverPlugins:   r.sys.DiscoverPlugins,
	}
	home, pin, err := r.hermesHome()
	if err != nil && !o.Remove {
		return job, err
	}
	job.HermesHome = home
	if o.Remove {
		return job, nil
	}
	job.Pin, job.EnvVars = pin, catalog.EnvVarNames()
	if r.projectRoot != "" {
		// Project files are committed and read on other machines: no
		// absolute path of this one, and HERMES_HOME only when
		// --hermes-home asks ($HERMES_HOME is this user's); a profile -p
		// names travels as --profile.
		job.ToolsCommandByName = true
		if o.HermesHome == "" {
			job.Pin.Home = ""
		}
	}
	return job, nil
}

func (r *runner) migrate(ctx context.Context, c clientsync.Client) (Report, error) {
	rep := Report{Client: string(c), DryRun: r.o.DryRun}
	job, err := r.job(c)
	if err != nil {
		return rep, err
	}
	res, err := job.Run(ctx)
	if err != nil {
		return rep, err
	}
	ch := res.FileChange
	rep.Path, rep.Changed, rep.Written, rep.Backup, rep.Diff = ch.Path, ch.Changed, ch.Written, ch.Backup, ch.Diff
	rep.Removed, rep.Problems, rep.Notes, rep.Skipped = res.Removed, res.Problems, res.Notes, res.Skipped
	rep.Codex, rep.PluginSource, rep.PluginError, rep.codexNotInstalled = res.Report, res.PluginSource, res.PluginError, res.CodexNotInstalled
	rep.Dropped = res.Dropped
	if res.Report != nil {
		rep.Dropped = res.Report.Dropped
	}
	return rep, nil
}
