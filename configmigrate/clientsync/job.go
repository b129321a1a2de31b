package clientsync

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/toolsbin"

	"github.com/hermes-go/hermes/internal/safefile"
)

// Job registers Hermes' MCP servers with one client, any row of the client
// table, or takes them out again: it finds the client's file (user-level,
// or a project's), reads it and rewrites it atomically under its lock. For
// most clients it edits Hermes' entries one by one beside the user's and
// remembers which it wrote; for codex it rewrites Hermes' managed block
// (dialect.section). hermes-migrate builds one per client from its flags,
// /codex-runtime one for codex, and both print the JobResult.
type Job struct {
	// Client is the client whose config file is edited.
	Client Client
	// HermesHome holds config.yaml (the user's servers) and, at the root
	// above a profile, the ownership state file; empty means
	// $HERMES_HOME, else the platform default.
	HermesHome string
	// UserServers also registers the MCP servers in the Hermes home's
	// config.yaml; without it the client gets hermes-tools alone. Codex
	// always gets them: its runtime stands in for Hermes' own.
	UserServers bool
	// Remove takes out hermes-tools and every entry an earlier run wrote
	// (codex: the managed block).
	Remove bool
	// Project, when set, is the root of a project: the client's
	// project-level file there is edited instead of the user-level one.
	Project string
	// AllowLiteralSecrets copies values that look like secrets as they
	// are (configmigrate.ProtectSecrets).
	AllowLiteralSecrets bool
	// DryRun writes neither the config file nor the ownership state; the
	// result carries the diff.
	DryRun bool
	// Force writes the config file, its backup and the state file even
	// when one is read-only or not writable by this user; modes are kept.
	// Without it such a file is left alone with an error matching
	// atomicfile.ErrNotWritable.
	Force bool
	// OnLockWait is called when another run (hermes-migrate, or hermes
	// switching runtimes) holds the lock of the config or state file for
	// more than a moment; nil logs it to Logger, if any.
	OnLockWait func(lockPath string)
	// Logger receives codex's diagnostics during plugin discovery; nil
	// discards them.
	Logger *slog.Logger

	// The hermes-tools entry every client gets (configmigrate.
	// HermesToolsServer of these): HermesToolsCommand is the
	// hermes-tools-mcp the user named, empty for the one beside the
	// running program, else on PATH; ToolsCommandByName writes it by
	// name instead of this machine's path (a project's file, committed
	// and read on other machines); Pin points it at the home the user
	// chose (HERMES_HOME, --profile); EnvVars are the variables its
	// toolsets read (catalog.EnvVarNames()); ApproveTools lets codex run
	// its tools without asking. The entry is made only when registering,
	// after the files were read: Remove needs no hermes-tools-mcp, and a
	// damaged config or state file is reported before a missing binary.
	HermesToolsCommand string
	ToolsCommandByName bool
	Pin                hermeshome.Pin
	EnvVars            []string
	ApproveTools       bool
	// HermesToolsOptional turns a hermes-tools-mcp that cannot be found
	// into JobResult.HermesToolsError instead of a failed job (codex,
	// for /codex-runtime: the user's servers are still worth writing).
	HermesToolsOptional bool

	// Codex's row: CodexHome is codex's home (--codex-home), over
	// $CODEX_HOME; DefaultPermissions the default_permissions profile,
	// empty for none; CodexBinary the codex asked for its plugins, empty
	// for $CODEX_BIN, else codex on PATH; NoPluginDiscovery keeps the
	// plugins the block lists instead of asking codex (which starts a
	// process and may touch the network); DiscoverPlugins, nil for
	// configmigrate.DiscoverPlugins, asks codex (binary) run with env
	// for the plugins installed in codexHome.
	CodexHome          string
	DefaultPermissions string
	CodexBinary        string
	NoPluginDiscovery  bool
	DiscoverPlugins    func(ctx context.Context, codexHome, binary string, env []string) ([]configmigrate.Plugin, error)

	// GOOS, Getenv, Environ, Executable and LookPath are the job's view
	// of the machine and the process: where the files and the Hermes home
	// are, what codex is started with, where hermes-tools-mcp is. Empty
	// or nil means the real one.
	GOOS       string
	Getenv     func(string) string
	Environ    func() []string
	Executable func() (string, error)
	LookPath   func(string) (string, error)
}

// JobResult is what a Job did to the client's config file.
type JobResult struct {
	configmigrate.FileChange
	// Removed says Remove found entries (the block) to take out.
	Removed bool
	// Skipped names servers left unregistered, mostly because the user has
	// an entry of the same name; Notes say why.
	Skipped []string
	// Dropped names the entries an earlier run wrote that this one took
	// out because they left config.yaml's mcp_servers (not --remove).
	Dropped []string
	// Notes are Result.Notes of the edit.
	Notes []string
	// Problems are Hermes servers that could not be translated.
	Problems []string
	// HermesTools is the hermes-tools entry registered, nil when none
	// was; HermesToolsError is why an optional one was left out.
	HermesTools      *configmigrate.Server
	HermesToolsError error

	// Codex's managed block: Report says what it holds (nil for Remove);
	// PluginSource where the plugins came from ("codex", "previous
	// block" or "" for none); PluginError why discovery failed, the job
	// going on without it; CodexNotInstalled that it did not run because
	// no codex is installed (PluginError then matches
	// configmigrate.ErrCodexNotInstalled), a note rather than a failure.
	Report            *configmigrate.CodexReport
	PluginSource      string
	PluginError       string
	CodexNotInstalled bool
}

// Run edits the config file atomically under its lock, through symlinks,
// keeping the user's last own version as a backup (atomicfile.Edit), then
// records the entries it now owns. Nothing is written when a file cannot
// be read or parsed, or the result would not parse. The whole
// read-modify-write holds the file's lock, so a concurrent run starts
// from this run's output instead of overwriting it.
func (j Job) Run(ctx context.Context) (JobResult, error) {
	var res JobResult
	d, err := dialectFor(j.Client)
	if err != nil {
		return res, err
	}
	getenv := j.getenv()
	if res.Path, err = j.configPath(getenv); err != nil {
		return res, err
	}
	home, err := hermeshome.Resolve(j.HermesHome, getenv)
	if err != nil {
		return res, err
	}
	opts := atomicfile.EditOptions{
		Options: atomicfile.Options{Backup: configmigrate.BackupSuffix, Mode: 0o600, Force: j.Force},
		Lock:    filelock.Options{Waiting: j.lockWait()},
		NoLock:  j.DryRun,
		// --remove on a machine without this file creates nothing.
		ExistingOnly: j.Remove,
	}
	// Client files are one per user, not one per profile: what spans
	// profiles (the record of owned entries, a project file's lock) lives
	// at the root above the home.
	root := hermeshome.RootOf(home)
	if j.Project != "" {
		opts.LockPath = ProjectLockPath(root, res.Path)
	}
	ed, err := atomicfile.Begin(ctx, res.Path, opts)
	if err != nil {
		return res, err
	}
	defer ed.Close()
	if d.section != nil {
		err = j.runSection(ctx, d.section, ed, home, &res)
	} else {
		err = j.runEntries(ctx, d, ed, home, stateFile{home: root, force: j.Force, wait: j.lockWait()}, &res)
	}
	return res, err
}

// runSection rewrites (or removes) the client's section as a whole.
func (j Job) runSection(ctx context.Context, sec *section, ed *atomicfile.Edit, home string, res *JobResult) error {
	var out []byte
	var err error
	if j.Remove {
		out, res.Removed, err = sec.remove(ed.Before)
		if err != nil {
			return fmt.Errorf("%s: %w", res.Path, err)
		}
	} else if out, err = sec.write(ctx, j, home, ed.Before, res); err != nil {
		return err
	}
	if res.FileChange, err = commit(ed, out, j.DryRun, j.Remove); err != nil {
		return err
	}
	if j.Remove && !j.DryRun {
		// The file is the user's alone again; a lock file left behind is
		// harmless, so failing to delete it is no error.
		_ = ed.Forget()
	}
	return nil
}

// runEntries edits Hermes' entries one by one and records which it owns.
func (j Job) runEntries(ctx context.Context, d *dialect, ed *atomicfile.Edit, home string, state stateFile, res *JobResult) error {
	existing := ed.Before
	owned, err := state.read()
	if err != nil {
		return err
	}
	var edit Result
	if j.Remove {
		if existing == nil {
			return nil
		}
		names := owned[res.Path].Servers
		var own bool
		if own, err = ownHermesTools(j.Client, existing); err != nil {
			return err
		}
		if !own || j.Force {
			names = append([]string{configmigrate.HermesToolsName}, names...)
		}
		edit, err = Remove(j.Client, existing, names)
		if own && !j.Force {
			edit.Skipped = append(edit.Skipped, configmigrate.HermesToolsName)
			edit.Notes = append(edit.Notes, configmigrate.HermesToolsName+": left your own hermes-tools entry (it does not start hermes-tools-mcp); rerun with --force to remove it")
		}
		res.Removed = len(edit.Removed) > 0
	} else {
		var servers []configmigrate.Server
		var refused []string
		if servers, refused, res.Problems, err = j.servers(home); err != nil {
			return err
		}
		res.HermesTools = &servers[0]
		edit, err = Apply(j.Client, existing, servers, Options{
			Owned: owned[res.Path].Servers, Overwrite: j.Force, File: res.Path, Project: j.Project != "",
			Copied: owned[res.Path].copied, Refused: refused,
		})
	}
	if err != nil {
		return fmt.Errorf("%s: %w", res.Path, err)
	}
	res.Notes, res.Skipped = edit.Notes, edit.Skipped
	if !j.Remove {
		res.Dropped = edit.Removed
	}
	out := existing
	if edit.Changed {
		out = edit.Output
	}
	if res.FileChange, err = commit(ed, out, j.DryRun || !edit.Changed, j.Remove); err != nil || j.DryRun {
		return err
	}
	if err := state.record(ctx, res.Path, j.Remove, edit); err != nil {
		return err
	}
	if j.Remove {
		// As in runSection.
		_ = ed.Forget()
	}
	return nil
}

// commit writes out under the edit's lock, with its backup rule; plan
// (a dry run, or nothing to change) only says what would change.
func commit(ed *atomicfile.Edit, out []byte, plan, remove bool) (configmigrate.FileChange, error) {
	if plan || bytes.Equal(ed.Before, out) {
		after := "migrated"
		if remove {
			after = "after --remove"
		}
		return configmigrate.PlanChange(ed.Path, after, ed.Before, out), nil
	}
	ch := configmigrate.FileChange{Path: ed.Path, Changed: true}
	var err error
	if ch.Backup, err = ed.Commit(out); err != nil {
		return ch, err
	}
	ch.Written = true
	return ch, nil
}

func (j Job) getenv() func(string) string {
	getenv := j.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if j.CodexHome == "" {
		return getenv
	}
	return WithCodexHome(getenv, j.CodexHome)
}

// WithCodexHome is getenv with $CODEX_HOME set to dir, made absolute
// against the working directory: a directory named on the command line
// (--codex-home), where a relative one means the directory it was typed
// in.
func WithCodexHome(getenv func(string) string, dir string) func(string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return func(k string) string {
		if k == codexHomeVar {
			return dir
		}
		return getenv(k)
	}
}

func (j Job) lockWait() func(string) {
	if j.OnLockWait != nil || j.Logger == nil {
		return j.OnLockWait
	}
	return func(lock string) {
		j.Logger.Info("waiting for another hermes-migrate or hermes run to finish editing "+j.Client.DisplayName()+"'s config file", "lock", lock)
	}
}

// hermesTools is the hermes-tools entry: configmigrate.HermesToolsServer
// of the job's inputs, with the binary found as the user named it. The
// command is absolute (clients start servers with a minimal environment)
// unless ToolsCommandByName.
func (j Job) hermesTools() (configmigrate.Server, error) {
	bin, err := toolsbin.Locator{Executable: j.Executable, LookPath: j.LookPath}.Find(j.HermesToolsCommand)
	if err != nil && j.HermesToolsCommand != "" {
		return configmigrate.Server{}, fmt.Errorf("--hermes-tools-command %w", err)
	}
	if err != nil {
		return configmigrate.Server{}, fmt.Errorf("%w (--hermes-tools-command)", err)
	}
	if j.ToolsCommandByName && j.HermesToolsCommand == "" {
		bin = toolsbin.Name
	}
	return configmigrate.HermesToolsServer(configmigrate.HermesToolsOptions{
		Command: bin, Args: j.Pin.Args(), HermesHome: j.Pin.Home, EnvVars: j.EnvVars, Approve: j.ApproveTools,
	}), nil
}

// ProjectLockPath is where a project file's lock lives: in the Hermes
// home, named for the file's path, not beside the file, where it would
// show up in the project's checkout and get committed. The lock file
// cannot simply be deleted after each edit instead: it also records what
// the last edit wrote (atomicfile's backup rule), and deleting it while
// another run waits on it would let a third run lock a new file at the
// same time (filelock.Suffix).
func ProjectLockPath(home, file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(home, "locks", filepath.Base(file)+"-"+hex.EncodeToString(sum[:8])+filelock.Suffix)
}

// servers are what the client gets: hermes-tools, then the user's servers
// when asked for, with the ones that did not translate as problems;
// refused are those left out for a credential no reference can stand for
// (configmigrate.ProtectSecrets).
func (j Job) servers(home string) (servers []configmigrate.Server, refused, problems []string, err error) {
	tools, err := j.hermesTools()
	if err != nil {
		return nil, nil, nil, err
	}
	servers = []configmigrate.Server{tools}
	if !j.UserServers {
		return servers, nil, nil, nil
	}
	yamlText, err := configmigrate.ReadConfigFile(filepath.Join(home, hermeshome.ConfigFile))
	if err != nil {
		return nil, nil, nil, err
	}
	user, bad, err := configmigrate.HermesServers(yamlText)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, p := range bad {
		problems = append(problems, p.Error())
	}
	kept, secretProblems := configmigrate.ProtectSecrets(user, j.AllowLiteralSecrets)
	for _, s := range user {
		if !slices.ContainsFunc(kept, func(k configmigrate.Server) bool { return k.Name == s.Name }) {
			refused = append(refused, s.Name)
		}
	}
	return append(servers, kept...), refused, append(problems, secretProblems...), nil
}

// stateFileName records, per client config file, which entries
// hermes-migrate wrote. JSON client configs carry no marker of their own,
// so this is how a later run tells its own entries (replace them) from the
// user's (keep them).
const stateFileName = "hermes-migrate-state.json"

// ownership maps a client config file to what hermes-migrate wrote there.
type ownership map[string]fileRecord

// fileRecord is what hermes-migrate wrote into one client config file:
// the servers, hermes-tools left out, and for a value it copied as is
// (--allow-literal-secrets), a digest of it (hashCopied) by server and
// field ("env KEY", "header KEY"). It is stored as the bare list of names
// while nothing was copied, the shape every earlier version wrote and
// reads.
type fileRecord struct {
	Servers []string                     `json:"servers"`
	Copied  map[string]map[string]string `json:"copied_secrets,omitempty"`
}

func (r fileRecord) MarshalJSON() ([]byte, error) {
	if len(r.Copied) == 0 {
		return json.Marshal(r.Servers)
	}
	type plain fileRecord
	return json.Marshal(plain(r))
}

func (r *fileRecord) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		*r = fileRecord{}
		return json.Unmarshal(t, &r.Servers)
	}
	type plain fileRecord
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*r = fileRecord(p)
	return nil
}

// copied reports whether value is the one hermes-migrate copied into
// field of server's entry (Options.Copied).
func (r fileRecord) copied(server, field, value string) bool {
	h, ok := r.Copied[server][field]
	return ok && copiedMatches(h, value)
}

func (r fileRecord) equal(o fileRecord) bool {
	if !slices.Equal(r.Servers, o.Servers) || len(r.Copied) != len(o.Copied) {
		return false
	}
	for n, fields := range r.Copied {
		if !maps.Equal(fields, o.Copied[n]) {
			return false
		}
	}
	return true
}

// stateFile is the one place ownership is read, merged and written, so
// that locking it, and merging with other runs' changes, has one home.
type stateFile struct {
	home  string
	force bool
	wait  func(lockPath string)
}

func (s stateFile) path() string { return filepath.Join(s.home, stateFileName) }

// read is a snapshot for deciding what to edit. The entry of the config
// file being edited cannot change meanwhile: only runs holding that
// file's lock write it.
func (s stateFile) read() (ownership, error) {
	data, err := safefile.ReadUserFile(s.path(), safefile.MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return ownership{}, nil
	}
	if err != nil {
		return nil, err
	}
	return s.parse(data)
}

func (s stateFile) parse(data []byte) (ownership, error) {
	if len(data) == 0 {
		return ownership{}, nil
	}
	var o ownership
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); delete it and run again (entries hermes-migrate wrote before will then count as yours)", s.path(), err)
	}
	if o == nil {
		o = ownership{}
	}
	return o, nil
}

// record re-reads the state under its lock and changes only configPath's
// entry, so runs for other clients meanwhile are not forgotten. A name
// stays owned once written, even when a later run does not write it
// (--user-servers, then a run without it, leaves those entries in the
// file), until the edit takes it out or --remove forgets the file. What
// was copied into a server's entry is recorded anew each time the server
// is written (a digest already recorded for the same value is kept, so a
// run that changes nothing leaves the state file alone) and forgotten
// with the server.
func (s stateFile) record(ctx context.Context, configPath string, remove bool, edit Result) error {
	ed, err := atomicfile.Begin(ctx, s.path(), atomicfile.EditOptions{
		Options: atomicfile.Options{Mode: 0o600, Force: s.force},
		Lock:    filelock.Options{Waiting: s.wait},
	})
	if err != nil {
		return err
	}
	defer ed.Close()
	o, err := s.parse(ed.Before)
	if err != nil {
		return err
	}
	old := o[configPath]
	var rec fileRecord
	if !remove {
		// hermes-tools is Hermes' by name; only the other entries need
		// remembering.
		for _, n := range append(slices.Clone(old.Servers), edit.Written...) {
			if n != configmigrate.HermesToolsName && !slices.Contains(rec.Servers, n) &&
				(slices.Contains(edit.Written, n) || !slices.Contains(edit.Removed, n)) {
				rec.Servers = append(rec.Servers, n)
			}
		}
		if rec.Copied, err = copiedRecords(old, rec.Servers, edit); err != nil {
			return err
		}
	}
	if old.equal(rec) {
		if len(o) == 0 && ed.Before == nil {
			// Nothing to remember and no state file: leave no lock
			// file in the Hermes home either.
			return ed.Forget()
		}
		return nil
	}
	if len(rec.Servers) == 0 {
		delete(o, configPath)
	} else {
		o[configPath] = rec
	}
	if len(o) == 0 {
		// The last client forgotten (--remove): the state file and its
		// lock go, so nothing of hermes-migrate is left in the home.
		if err := os.Remove(s.path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", s.path(), err)
		}
		return ed.Forget()
	}
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	_, err = ed.Commit(append(data, '\n'))
	return err
}

// copiedRecords are the digests of what is copied into the entries of
// owned servers after edit: those of the servers edit wrote are made from
// its values, the others' kept from old.
func copiedRecords(old fileRecord, owned []string, edit Result) (map[string]map[string]string, error) {
	var out map[string]map[string]string
	for _, n := range owned {
		fields := old.Copied[n]
		if slices.Contains(edit.Written, n) {
			fields = nil
			for f, v := range edit.copied[n] {
				h := old.Copied[n][f]
				if !copiedMatches(h, v) {
					var err error
					if h, err = hashCopied(v); err != nil {
						return nil, err
					}
				}
				if fields == nil {
					fields = map[string]string{}
				}
				fields[f] = h
			}
		}
		if len(fields) > 0 {
			if out == nil {
				out = map[string]map[string]string{}
			}
			out[n] = fields
		}
	}
	return out, nil
}

// configPath is the file the job edits: the project file under Project,
// else the first of the client's user-level files that exists, else its
// usual one.
func (j Job) configPath(getenv func(string) string) (string, error) {
	if j.Project != "" {
		if !filepath.IsAbs(j.Project) {
			return "", fmt.Errorf("project directory %q is not an absolute path", j.Project)
		}
		return ProjectPath(j.Client, j.Project)
	}
	goos := j.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	return Locate(j.Client, MachineEnv(goos, getenv))
}

// Locate returns the user-level file of c that is edited: the first of
// ConfigPaths that exists, else ConfigPath.
func Locate(c Client, env Env) (string, error) {
	paths, err := ConfigPaths(c, env)
	if err != nil {
		return "", err
	}
	for _, p := range paths[:len(paths)-1] {
		if _, err := os.Lstat(p); err == nil {
			return p, nil
		}
	}
	return paths[len(paths)-1], nil
}
