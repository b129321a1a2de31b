package clientsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/filelock"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// Job registers Hermes' MCP servers in one client's user-level config file,
// or takes them out again, and remembers which entries it wrote. It is to
// the JSON clients what configmigrate.CodexJob is to codex: hermes-migrate
// only builds it from its flags and prints the result.
type Job struct {
	// Client is the client whose config file is edited.
	Client Client
	// HermesHome holds config.yaml (the user's servers) and the ownership
	// state file; empty means $HERMES_HOME, else the platform default.
	HermesHome string
	// HermesTools describes the hermes-tools callback entry. Callers pass
	// configmigrate.CodexJob.HermesToolsEntry, so every client gets the
	// entry codex gets. It is called only when registering, after the files
	// were read: Remove needs no hermes-tools-mcp, and a damaged config or
	// state file is reported before a missing binary.
	HermesTools func() (configmigrate.Server, error)
	// UserServers also registers the MCP servers in the Hermes home's
	// config.yaml; without it the client gets hermes-tools alone.
	UserServers bool
	// Remove takes out hermes-tools and every entry an earlier run wrote.
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
	// OnLockWait is called when another run holds the lock of the config
	// or state file for more than a moment; nil waits silently.
	OnLockWait func(lockPath string)

	// GOOS and Getenv are the job's view of the machine, which decides
	// where the config file and the Hermes home are. Empty GOOS means
	// runtime.GOOS, nil Getenv means os.Getenv.
	GOOS   string
	Getenv func(string) string
}

// JobResult is what a Job did to the client's config file.
type JobResult struct {
	configmigrate.FileChange
	// Removed says Remove found entries to take out.
	Removed bool
	// Skipped names servers left unregistered, mostly because the user has
	// an entry of the same name; Notes say why.
	Skipped []string
	// Notes are Result.Notes of the edit.
	Notes []string
	// Problems are Hermes servers that could not be translated.
	Problems []string
}

// Run edits the config file atomically under its lock, through symlinks,
// keeping the user's last own version as a backup (atomicfile.Edit), then
// records the entries it now owns. Nothing is written when a file cannot
// be read or parsed.
func (j Job) Run(ctx context.Context) (JobResult, error) {
	var res JobResult
	getenv := j.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	goos := j.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	var err error
	res.Path, err = j.configPath(goos, getenv)
	if err != nil {
		return res, err
	}
	home, err := hermeshome.Resolve(j.HermesHome, getenv)
	if err != nil {
		return res, err
	}
	// The config file's lock is held from reading it to recording what
	// was written, so concurrent runs for this client take turns; other
	// clients' runs only meet at the state file, which record merges
	// under its own lock.
	opts := atomicfile.EditOptions{
		Options: atomicfile.Options{Backup: configmigrate.BackupSuffix, Mode: 0o600, Force: j.Force},
		Lock:    filelock.Options{Waiting: j.OnLockWait},
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
	existing := ed.Before
	state := stateFile{home: root, force: j.Force, wait: j.OnLockWait}
	owned, err := state.read()
	if err != nil {
		return res, err
	}

	var edit Result
	if j.Remove {
		if existing == nil {
			return res, nil
		}
		names := owned[res.Path]
		var own bool
		if own, err = ownHermesTools(j.Client, existing); err != nil {
			return res, err
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
		if servers, res.Problems, err = j.servers(home); err != nil {
			return res, err
		}
		edit, err = Apply(j.Client, existing, servers, Options{Owned: owned[res.Path], Overwrite: j.Force, File: res.Path, Project: j.Project != ""})
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", res.Path, err)
	}
	res.Notes, res.Skipped = edit.Notes, edit.Skipped
	out := existing
	if edit.Changed {
		out = edit.Output
	}
	if j.DryRun || !edit.Changed {
		res.FileChange = configmigrate.PlanChange(res.Path, existing, out)
	} else {
		res.FileChange = configmigrate.FileChange{Path: res.Path, Changed: true}
		res.Backup, err = ed.Commit(out)
		res.Written = err == nil
	}
	if err != nil || j.DryRun {
		return res, err
	}
	if err := state.record(ctx, res.Path, j.Remove, edit); err != nil {
		return res, err
	}
	if j.Remove {
		// The file is the user's alone again; a lock file left behind is
		// harmless, so failing to delete it is no error.
		_ = ed.Forget()
	}
	return res, nil
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
// when asked for, with the ones that did not translate as problems.
func (j Job) servers(home string) ([]configmigrate.Server, []string, error) {
	if j.HermesTools == nil {
		return nil, nil, errors.New("clientsync.Job.HermesTools is not set; pass configmigrate.CodexJob.HermesToolsEntry")
	}
	tools, err := j.HermesTools()
	if err != nil {
		return nil, nil, err
	}
	servers := []configmigrate.Server{tools}
	if !j.UserServers {
		return servers, nil, nil
	}
	yamlText, err := configmigrate.ReadConfigFile(filepath.Join(home, hermeshome.ConfigFile))
	if err != nil {
		return nil, nil, err
	}
	user, problems, err := configmigrate.HermesServers(yamlText)
	if err != nil {
		return nil, nil, err
	}
	var texts []string
	for _, p := range problems {
		texts = append(texts, p.Error())
	}
	user, secretProblems := configmigrate.ProtectSecrets(user, j.AllowLiteralSecrets)
	return append(servers, user...), append(texts, secretProblems...), nil
}

// stateFileName records, per client config file, which entries
// hermes-migrate wrote. JSON client configs carry no marker of their own,
// so this is how a later run tells its own entries (replace them) from the
// user's (keep them).
const stateFileName = "hermes-migrate-state.json"

// ownership maps a client config file to the servers hermes-migrate wrote
// there, hermes-tools left out.
type ownership map[string][]string

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
	data, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return ownership{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", stateFileName, err)
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
// file), until the edit takes it out or --remove forgets the file.
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
	var names []string
	if !remove {
		// hermes-tools is Hermes' by name; only the other entries need
		// remembering.
		for _, n := range append(slices.Clone(o[configPath]), edit.Written...) {
			if n != configmigrate.HermesToolsName && !slices.Contains(names, n) &&
				(slices.Contains(edit.Written, n) || !slices.Contains(edit.Removed, n)) {
				names = append(names, n)
			}
		}
	}
	if slices.Equal(o[configPath], names) {
		return nil
	}
	if len(names) == 0 {
		delete(o, configPath)
	} else {
		o[configPath] = names
	}
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	_, err = ed.Commit(append(data, '\n'))
	return err
}

// configPath is the file the job edits: the project file under Project,
// else the first of the client's user-level files that exists, else its
// usual one.
func (j Job) configPath(goos string, getenv func(string) string) (string, error) {
	if j.Project != "" {
		if !filepath.IsAbs(j.Project) {
			return "", fmt.Errorf("project directory %q is not an absolute path", j.Project)
		}
		return ProjectPath(j.Client, j.Project)
	}
	return Locate(j.Client, Env{
		GOOS:          goos,
		Home:          getenv("HOME"),
		AppData:       getenv("APPDATA"),
		XDGConfigHome: getenv("XDG_CONFIG_HOME"),
		Getenv:        getenv,
	})
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
