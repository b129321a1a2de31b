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
//
// This file reads the flags; configmigrate/migrate does the work.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/migrate"
	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/buildinfo"
	"github.com/hermes-go/hermes/internal/cliflag"
	"github.com/hermes-go/hermes/internal/hermeshome"

	"github.com/hermes-go/hermes/internal/termtext"
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
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr, migrate.System{})
	stop()
	os.Exit(code)
}

// run is hermes-migrate with its arguments, output and world.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, sys migrate.System) int {
	// Errors name paths and servers from files others wrote: shown
	// escaped, never obeyed as terminal controls.
	errText := termtext.NewWriter(stderr)
	defer errText.Flush()
	stderr = errText
	std := migrate.IO{Stdout: stdout, Stderr: stderr}
	if len(args) > 0 && args[0] == "list" {
		o, err := parseList(args[1:], stderr)
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		if err != nil {
			return exitUsage
		}
		o.Sys = sys
		return exitCode(stderr, "hermes-migrate list", migrate.List(ctx, o, std))
	}
	o, showVersion, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "hermes-migrate: %v\n", err)
		return exitUsage
	}
	if showVersion {
		fmt.Fprintf(stdout, "hermes-migrate %s\n", buildinfo.Version(version))
		return exitOK
	}
	o.Sys = sys
	return exitCode(stderr, "hermes-migrate", migrate.Run(ctx, o, std))
}

// exitCode reports err on stderr in one line and returns the exit code
// that says what kind of error it is.
func exitCode(stderr io.Writer, prefix string, err error) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
	var usage *migrate.UsageError
	switch {
	case errors.As(err, &usage):
		return exitUsage
	case errors.Is(err, atomicfile.ErrNotWritable):
		return exitNotWritable
	case errors.Is(err, configmigrate.ErrUnknownPermissions):
		return exitUsage
	}
	if _, ok := errors.AsType[*configmigrate.MarkerError](err); ok {
		return exitMarkers
	}
	return exitFailure
}

// parseArgs reads hermes-migrate's flags into the options of a run.
func parseArgs(args []string, stderr io.Writer) (o migrate.Options, showVersion bool, err error) {
	fs := flag.NewFlagSet("hermes-migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var approval, permissions string
	var project projectFlag
	fs.StringVar(&o.Clients, "client", "", "clients to configure, comma-separated: "+strings.Join(migrate.KnownClients(), ", ")+
		"; or all: every client found here (its config file or directory exists) and codex when it is installed, or with --project the clients the project already uses (their project file or dot-directory exists). A client named explicitly is written even if it was not found. Default: codex when it is installed, else the clients found here are listed and nothing is written")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print a unified diff of what would change; write nothing")
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	fs.BoolVar(&o.Remove, "remove", false, "take Hermes' entries out again")
	fs.StringVar(&o.CodexHome, "codex-home", "", "codex home (default: $CODEX_HOME, else ~/.codex)")
	fs.StringVar(&o.HermesHome, "hermes-home", "", "Hermes home (default: $HERMES_HOME, else ~/.hermes)")
	fs.BoolVar(&o.NoPlugins, "no-plugins", false, "do not ask codex for installed plugins (keep those the block already lists)")
	fs.StringVar(&o.HermesToolsCommand, "hermes-tools-command", "", "path of the hermes-tools-mcp binary (default: next to hermes-migrate, else on PATH)")
	fs.StringVar(&approval, "tools-approval", "auto", `codex approval for hermes-tools calls: "auto" (codex decides from each tool's annotations) or "approve" (never ask)`)
	fs.StringVar(&permissions, "default-permissions", configmigrate.DefaultPermissions, `codex permission profile to set as default_permissions: :read-only, :workspace, :danger-full-access, a profile config.toml defines as [permissions.<id>], or "none"`)
	fs.BoolVar(&o.UserServers, "user-servers", false, "other clients: also register the user's Hermes MCP servers (codex always gets them)")
	fs.StringVar(&o.CodexBin, "codex-bin", "", "codex binary for plugin discovery (default: $CODEX_BIN, else codex on PATH)")
	fs.BoolVar(&o.Force, "force", false, "write config files even when they are read-only or not writable by you (their mode is kept), and replace entries of Hermes' names that you wrote yourself (hermes-tools included)")
	fs.BoolVar(&showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&o.Verbose, "verbose", false, "also print how each entry was translated (dropped timeouts, every variable name passed on)")
	fs.BoolVar(&o.AllowLiteralSecrets, "allow-literal-secrets", false, "copy values that look like secrets into client files as they are (by default they become environment references, with a note naming the variable to set)")
	fs.Var(&project, "project", "write the project-level files (.mcp.json, .cursor/mcp.json, .vscode/mcp.json, ...) of the project in `DIR`, default the project the working directory is in")
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
	if o.Profile, args, err = hermeshome.TakeProfileFlag(args, hermeshome.FlagTakesValue(fs)); err != nil {
		return o, false, err
	}
	if err := parseWithProject(fs, args, &project); err != nil {
		return o, false, err
	}
	if fs.NArg() > 0 {
		return o, false, fmt.Errorf("unexpected argument %q (run with -h for help)", fs.Arg(0))
	}
	switch approval {
	case "auto", "approve":
	default:
		return o, false, fmt.Errorf(`--tools-approval %q: want "auto" or "approve"`, approval)
	}
	o.ApproveTools = approval == "approve"
	if permissions != "none" {
		o.DefaultPermissions = permissions
	}
	o.Project = project.Project
	return o, showVersion, nil
}

// parseList reads `hermes-migrate list`'s flags; an error has been
// reported on stderr.
func parseList(args []string, stderr io.Writer) (o migrate.ListOptions, err error) {
	fs := flag.NewFlagSet("hermes-migrate list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.JSON, "json", false, "print the list as JSON")
	fs.StringVar(&o.HermesHome, "hermes-home", "", "Hermes home (default: $HERMES_HOME, else ~/.hermes)")
	fs.StringVar(&o.CodexHome, "codex-home", "", "codex home (default: $CODEX_HOME, else ~/.codex)")
	var project projectFlag
	fs.Var(&project, "project", "list the project-level files of the project in `DIR` (default: the one the working directory is in) instead")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "hermes-migrate list shows every MCP client found on this machine, whether hermes-tools is registered there\n(its binary, version, and whether that path is stale) and which of your Hermes servers are synced.\n\nUsage:\n  hermes-migrate list [flags]\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if o.Profile, args, err = hermeshome.TakeProfileFlag(args, hermeshome.FlagTakesValue(fs)); err != nil {
		fmt.Fprintf(stderr, "hermes-migrate list: %v\n", err)
		return o, err
	}
	if err := parseWithProject(fs, args, &project); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q (run with -h for help)", fs.Arg(0))
		fmt.Fprintf(stderr, "hermes-migrate list: %v\n", err)
		return o, err
	}
	o.Project = project.Project
	return o, nil
}

// parseWithProject parses fs; --project DIR stops flag parsing at DIR, so
// it is taken and parsing goes on.
func parseWithProject(fs *flag.FlagSet, args []string, project *projectFlag) error {
	if err := cliflag.Parse(fs, args); err != nil {
		return err
	}
	if project.Project.Set && project.Dir == "" && fs.NArg() > 0 {
		project.Dir = fs.Arg(0)
		return cliflag.Parse(fs, fs.Args()[1:])
	}
	return nil
}

// projectFlag is --project [DIR]: a boolean flag that may take a value
// (--project=DIR, or the one argument after the flags), so that plain
// --project means "the project I am in".
type projectFlag struct{ migrate.Project }

func (p *projectFlag) String() string { return p.Dir }

func (p *projectFlag) Set(v string) error {
	p.Project.Set = true
	if v != "true" {
		p.Dir = v
	}
	if v == "false" {
		*p = projectFlag{}
	}
	return nil
}

// IsBoolFlag lets --project stand alone.
func (p *projectFlag) IsBoolFlag() bool { return true }
