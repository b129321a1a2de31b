package configmigrate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/toolsbin"
)

// CodexJob writes Hermes' managed block into codex's config.toml: the
// hermes-tools callback, the user's Hermes MCP servers, the installed codex
// plugins and the default permission profile. hermes-migrate and
// /codex-runtime both run it, so codex ends up with the same block whichever
// the user ran.
type CodexJob struct {
	// CodexHome holds config.toml; empty means $CODEX_HOME, else ~/.codex.
	CodexHome string
	// HermesHome is the resolved Hermes home whose config.yaml lists the
	// user's MCP servers.
	HermesHome string
	// Pin is what the hermes-tools entry passes to point the server at the
	// home the user chose (HERMES_HOME, --profile); the zero Pin passes
	// nothing, so the server keeps following its own lookup.
	Pin hermeshome.Pin
	// HermesToolsCommand is the hermes-tools-mcp the user named; empty looks
	// beside the running program, then on PATH.
	HermesToolsCommand string
	// ToolsCommandByName writes hermes-tools-mcp by name, found on PATH,
	// instead of this machine's absolute path: for a project's file,
	// committed and read on other machines.
	ToolsCommandByName bool
	// LockPath, when set, is config.toml's lock file instead of one beside
	// it (atomicfile.EditOptions.LockPath): a project's .codex must not
	// collect lock files that get committed.
	LockPath string
	// EnvVars are the variables hermes-tools' toolsets read (callers pass
	// catalog.EnvVarNames()); codex passes only these to the server.
	EnvVars []string
	// ApproveTools lets codex run hermes-tools' tools without asking.
	ApproveTools bool
	// HermesToolsOptional turns a hermes-tools-mcp that cannot be found into
	// CodexResult.HermesToolsError instead of a failed job.
	HermesToolsOptional bool
	// DefaultPermissions is the default_permissions profile; empty sets none.
	DefaultPermissions string
	// CodexBinary is the codex asked for plugins; empty means $CODEX_BIN,
	// else codex on PATH.
	CodexBinary string
	// NoPluginDiscovery keeps the plugins the current block lists instead
	// of asking codex (which starts a process and may touch the network).
	NoPluginDiscovery bool
	// Remove takes the managed block out instead of writing it.
	Remove bool
	// DryRun writes nothing; the result carries the diff.
	DryRun bool
	// AllowLiteralSecrets copies values that look like secrets into
	// config.toml as they are, instead of passing them by variable name
	// (ProtectSecrets).
	AllowLiteralSecrets bool
	// Force writes config.toml (and its backup) even when it is read-only
	// or not writable by this user; the file keeps its mode. Without it
	// such a file is left alone with an error matching
	// atomicfile.ErrNotWritable.
	Force bool
	// OnLockWait is called when another run (hermes-migrate, or hermes
	// switching runtimes) holds config.toml's lock for more than a moment;
	// nil logs it to Logger.
	OnLockWait func(lockPath string)

	// Getenv, Environ, Executable and LookPath are the job's view of the
	// process; nil means the real one.
	Getenv     func(string) string
	Environ    func() []string
	Executable func() (string, error)
	LookPath   func(string) (string, error)
	// DiscoverPlugins asks codex (binary, empty for the default lookup),
	// run with env, for the plugins installed in codexHome; nil means
	// DiscoverPlugins.
	DiscoverPlugins func(ctx context.Context, codexHome, binary string, env []string) ([]Plugin, error)
	// Logger receives codex's diagnostics during discovery; nil discards.
	Logger *slog.Logger
}

// CodexResult is what a CodexJob did to config.toml.
type CodexResult struct {
	FileChange
	// Removed says Remove found a block to take out.
	Removed bool
	// Report is nil for Remove.
	Report *CodexReport
	// HermesTools is the callback entry written, nil when left out.
	HermesTools *Server
	// HermesToolsError is why an optional entry was left out.
	HermesToolsError error
	// PluginSource says where the plugins came from: "codex", "previous
	// block" or "" (none).
	PluginSource string
	// PluginError is why discovery failed; the job went on without it.
	PluginError string
	// CodexNotInstalled says discovery did not run because no codex is
	// installed (PluginError then matches ErrCodexNotInstalled): a note,
	// not a failure.
	CodexNotInstalled bool
	// Problems are Hermes servers that could not be translated.
	Problems []string
}

// Run migrates (or removes) the block and writes config.toml atomically,
// keeping the user's last own version as config.toml.bak. Nothing is
// written when the file or config.yaml cannot be read, or the result would
// not parse. The whole read-modify-write holds config.toml's lock, so a
// concurrent run starts from this run's output instead of overwriting it.
// A symlinked config.toml is written through to the link's target.
func (j CodexJob) Run(ctx context.Context) (CodexResult, error) {
	var res CodexResult
	dir, err := j.codexHome()
	if err != nil {
		return res, err
	}
	res.Path = filepath.Join(dir, "config.toml")
	ed, err := atomicfile.Begin(ctx, res.Path, atomicfile.EditOptions{
		Options: atomicfile.Options{Backup: BackupSuffix, Mode: 0o600, Force: j.Force},
		Lock:    filelock.Options{Waiting: j.lockWait()},
		NoLock:  j.DryRun,
		// --remove on a machine without this file creates nothing.
		ExistingOnly: j.Remove,
		LockPath:     j.LockPath,
	})
	if err != nil {
		return res, err
	}
	defer ed.Close()
	existing := ed.Before

	var out []byte
	if j.Remove {
		out, res.Removed, err = RemoveCodexBlock(existing)
		if err != nil {
			return res, fmt.Errorf("%s: %w", res.Path, err)
		}
	} else {
		in := CodexInput{DefaultPermissions: j.DefaultPermissions}
		tools, err := j.HermesToolsEntry()
		switch {
		case err == nil:
			in.HermesTools, res.HermesTools = &tools, &tools
		case j.HermesToolsOptional:
			res.HermesToolsError = err
		default:
			return res, err
		}
		yamlPath := filepath.Join(j.HermesHome, hermeshome.ConfigFile)
		yamlText, err := ReadConfigFile(yamlPath)
		if err != nil {
			return res, err
		}
		var problems []error
		in.Servers, problems, err = HermesServers(yamlText)
		if err != nil {
			return res, fmt.Errorf("%s: %w", yamlPath, err)
		}
		for _, p := range problems {
			res.Problems = append(res.Problems, p.Error())
		}
		var secretProblems []string
		in.Servers, secretProblems = ProtectSecrets(in.Servers, j.AllowLiteralSecrets)
		res.Problems = append(res.Problems, secretProblems...)
		var perr error
		in.Plugins, res.PluginSource, perr = j.plugins(ctx, dir, existing)
		if perr != nil {
			res.PluginError, res.CodexNotInstalled = perr.Error(), errors.Is(perr, ErrCodexNotInstalled)
		}
		var rep CodexReport
		out, rep, err = MigrateCodex(existing, in)
		if err != nil {
			return res, fmt.Errorf("%s: %w", res.Path, err)
		}
		res.Report = &rep
	}
	res.FileChange, err = commit(ed, out, j.DryRun)
	if err == nil && j.Remove && !j.DryRun {
		// config.toml is the user's alone again; a lock file left
		// behind is harmless, so failing to delete it is no error.
		_ = ed.Forget()
	}
	return res, err
}

// commit writes out under the edit's lock, with its backup rule; a dry run
// or an unchanged file only plans (PlanChange).
func commit(ed *atomicfile.Edit, out []byte, dryRun bool) (FileChange, error) {
	if dryRun || bytes.Equal(ed.Before, out) {
		return PlanChange(ed.Path, ed.Before, out), nil
	}
	ch := FileChange{Path: ed.Path, Changed: true}
	var err error
	if ch.Backup, err = ed.Commit(out); err != nil {
		return ch, err
	}
	ch.Written = true
	return ch, nil
}

func (j CodexJob) lockWait() func(string) {
	if j.OnLockWait != nil {
		return j.OnLockWait
	}
	logger := j.Logger
	if logger == nil {
		return nil
	}
	return func(lock string) {
		logger.Info("waiting for another hermes-migrate or hermes run to finish editing codex's config.toml", "lock", lock)
	}
}

// HermesToolsEntry is the hermes-tools callback entry the job writes;
// hermes-migrate registers the same entry with the other MCP clients. The
// command is absolute: clients start servers with a minimal environment.
func (j CodexJob) HermesToolsEntry() (Server, error) {
	bin, err := toolsbin.Locator{Executable: j.Executable, LookPath: j.LookPath}.Find(j.HermesToolsCommand)
	if err != nil && j.HermesToolsCommand != "" {
		return Server{}, fmt.Errorf("--hermes-tools-command %w", err)
	}
	if err != nil {
		return Server{}, fmt.Errorf("%w (--hermes-tools-command)", err)
	}
	if j.ToolsCommandByName && j.HermesToolsCommand == "" {
		bin = toolsbin.Name
	}
	opts := HermesToolsOptions{Command: bin, Args: j.Pin.Args(), HermesHome: j.Pin.Home, EnvVars: j.EnvVars, Approve: j.ApproveTools}
	return HermesToolsServer(opts), nil
}

func (j CodexJob) codexHome() (string, error) {
	getenv := j.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := j.CodexHome
	if dir == "" {
		dir = getenv("CODEX_HOME")
	}
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("locate ~/.codex: %w (set CODEX_HOME or pass --codex-home)", err)
			}
		}
		dir = filepath.Join(home, ".codex")
	}
	return filepath.Abs(dir)
}

// plugins asks codex for its installed plugins. When that is not done or
// fails, the plugins the current block lists are kept, so a run never drops
// what an earlier run discovered.
func (j CodexJob) plugins(ctx context.Context, codexHome string, existing []byte) (plugins []Plugin, source string, err error) {
	keep := func() ([]Plugin, string) {
		if previous := BlockPlugins(existing); len(previous) > 0 {
			return previous, "previous block"
		}
		return nil, ""
	}
	if j.NoPluginDiscovery {
		p, s := keep()
		return p, s, nil
	}
	discover, environ := j.DiscoverPlugins, j.Environ
	if discover == nil {
		discover = func(ctx context.Context, codexHome, binary string, env []string) ([]Plugin, error) {
			return DiscoverPlugins(ctx, binary, codexHome, env, j.Logger)
		}
	}
	if environ == nil {
		environ = os.Environ
	}
	found, err := discover(ctx, codexHome, j.CodexBinary, environ())
	if err != nil {
		p, s := keep()
		return p, s, err
	}
	return found, "codex", nil
}
