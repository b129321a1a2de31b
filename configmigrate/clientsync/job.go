package clientsync

import (
	"context"
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
	// DryRun writes neither the config file nor the ownership state; the
	// result carries the diff.
	DryRun bool

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

// Run edits the config file atomically, keeping the previous content as a
// backup (configmigrate.WriteChange), then records the entries it now owns.
// Nothing is written when a file cannot be read or parsed.
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
	res.Path, err = ConfigPath(j.Client, Env{
		GOOS:          goos,
		Home:          getenv("HOME"),
		AppData:       getenv("APPDATA"),
		XDGConfigHome: getenv("XDG_CONFIG_HOME"),
	})
	if err != nil {
		return res, err
	}
	existing, err := configmigrate.ReadConfigFile(res.Path)
	if err != nil {
		return res, err
	}
	home, err := hermeshome.Resolve(j.HermesHome, getenv)
	if err != nil {
		return res, err
	}
	state := stateFile{home: home}
	owned, err := state.read()
	if err != nil {
		return res, err
	}

	var edit Result
	if j.Remove {
		if existing == nil {
			return res, nil
		}
		names := append([]string{configmigrate.HermesToolsName}, owned[res.Path]...)
		edit, err = Remove(j.Client, existing, names)
		res.Removed = len(edit.Removed) > 0
	} else {
		var servers []configmigrate.Server
		if servers, res.Problems, err = j.servers(home); err != nil {
			return res, err
		}
		edit, err = Apply(j.Client, existing, servers, Options{Owned: owned[res.Path]})
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", res.Path, err)
	}
	res.Notes, res.Skipped = edit.Notes, edit.Skipped
	out := existing
	if edit.Changed {
		out = edit.Output
	}
	res.FileChange, err = configmigrate.WriteChange(res.Path, existing, out, j.DryRun)
	if err != nil || j.DryRun {
		return res, err
	}
	// hermes-tools is Hermes' by name; only the other entries need
	// remembering.
	written := slices.DeleteFunc(slices.Clone(edit.Written), func(n string) bool { return n == configmigrate.HermesToolsName })
	if j.Remove {
		written = nil
	}
	return res, state.record(owned, res.Path, written)
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
	return append(servers, user...), texts, nil
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
// that locking it, or merging with another run's changes, has one home.
type stateFile struct{ home string }

func (s stateFile) path() string { return filepath.Join(s.home, stateFileName) }

func (s stateFile) read() (ownership, error) {
	data, err := os.ReadFile(s.path())
	if errors.Is(err, fs.ErrNotExist) {
		return ownership{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", stateFileName, err)
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

// record sets the names owned in configPath and writes the state when that
// changes it; an empty list forgets the file.
func (s stateFile) record(o ownership, configPath string, written []string) error {
	if slices.Equal(o[configPath], written) {
		return nil
	}
	if len(written) == 0 {
		delete(o, configPath)
	} else {
		o[configPath] = written
	}
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(s.path(), append(data, '\n'), atomicfile.Options{Mode: 0o600})
}
