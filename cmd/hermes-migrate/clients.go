package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// jsonClientNames lists the JSON-configured clients.
func jsonClientNames() []string {
	var out []string
	for _, c := range clientsync.Clients() {
		out = append(out, string(c))
	}
	return out
}

// stateFile records, per client config file, which entries hermes-migrate
// wrote. JSON client configs carry no marker of their own, so this is how a
// later run tells its own entries (replace them) from the user's (keep
// them).
const stateFile = "hermes-migrate-state.json"

type ownership map[string][]string // config path -> server names written

func migrateJSONClient(client string, o options, d deps) (clientReport, error) {
	rep := clientReport{Client: client, DryRun: o.dryRun}
	c, err := clientsync.ParseClient(client)
	if err != nil {
		return rep, err
	}
	rep.Path, err = clientsync.ConfigPath(c, clientsync.Env{
		GOOS:          runtime.GOOS,
		Home:          d.getenv("HOME"),
		AppData:       d.getenv("APPDATA"),
		XDGConfigHome: d.getenv("XDG_CONFIG_HOME"),
	})
	if err != nil {
		return rep, err
	}
	existing, err := configmigrate.ReadConfigFile(rep.Path)
	if err != nil {
		return rep, err
	}
	home, _, err := hermesHome(o, d)
	if err != nil {
		return rep, err
	}
	owned, err := readOwnership(home)
	if err != nil {
		return rep, err
	}

	var res clientsync.Result
	if o.remove {
		if existing == nil {
			return rep, nil
		}
		names := append([]string{configmigrate.HermesToolsName}, owned[rep.Path]...)
		res, err = clientsync.Remove(c, existing, names)
		rep.Removed = len(res.Removed) > 0
	} else {
		job, jerr := codexJob(o, d)
		if jerr != nil {
			return rep, jerr
		}
		tools, terr := job.HermesToolsEntry()
		if terr != nil {
			return rep, terr
		}
		servers := []configmigrate.Server{tools}
		if o.userServers {
			yamlText, rerr := configmigrate.ReadConfigFile(filepath.Join(home, hermeshome.ConfigFile))
			if rerr != nil {
				return rep, rerr
			}
			user, problems, perr := configmigrate.HermesServers(yamlText)
			if perr != nil {
				return rep, perr
			}
			for _, p := range problems {
				rep.Problems = append(rep.Problems, p.Error())
			}
			servers = append(servers, user...)
		}
		res, err = clientsync.Apply(c, existing, servers, clientsync.Options{Owned: owned[rep.Path]})
	}
	if err != nil {
		return rep, fmt.Errorf("%s: %w", rep.Path, err)
	}
	rep.Notes = append(rep.Notes, res.Notes...)
	for _, s := range res.Skipped {
		rep.Notes = append(rep.Notes, "kept your own definition of "+s)
	}
	out := existing
	if res.Changed {
		out = res.Output
	}
	rep, err = finish(rep, existing, out, o)
	if err != nil || o.dryRun {
		return rep, err
	}
	// Remember what is ours now, for the next run.
	written := slices.DeleteFunc(slices.Clone(res.Written), func(n string) bool { return n == configmigrate.HermesToolsName })
	if o.remove {
		written = nil
	}
	if !slices.Equal(owned[rep.Path], written) {
		if len(written) == 0 {
			delete(owned, rep.Path)
		} else {
			owned[rep.Path] = written
		}
		if err := writeOwnership(home, owned); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func readOwnership(home string) (ownership, error) {
	data, err := os.ReadFile(filepath.Join(home, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return ownership{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", stateFile, err)
	}
	var o ownership
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); delete it and run again (entries hermes-migrate wrote before will then count as yours)", filepath.Join(home, stateFile), err)
	}
	if o == nil {
		o = ownership{}
	}
	return o, nil
}

func writeOwnership(home string, o ownership) error {
	data, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(home, stateFile), append(data, '\n'), atomicfile.Options{Mode: 0o600})
}
