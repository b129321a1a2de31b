package clientsync

import (
	"encoding/json"
	"slices"

	"github.com/hermes-go/hermes/configmigrate"
)

// Entry is one server registered in a client's config file, as read back.
type Entry struct {
	Name string `json:"name"`
	// Command is the executable a stdio entry starts; empty for remote.
	Command string `json:"command,omitempty"`
	// URL is a remote entry's address.
	URL string `json:"url,omitempty"`
}

// Inspect lists the servers registered in a client's config file, in file
// order; a missing or empty file has none.
func Inspect(c Client, content []byte) ([]Entry, error) {
	d, err := dialectFor(c)
	if err != nil {
		return nil, err
	}
	if d.section != nil {
		return d.section.entries(content)
	}
	ed, err := open(d, content)
	if err != nil {
		return nil, err
	}
	names, err := ed.names()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, name := range names {
		e := Entry{Name: name}
		raw, _, err := ed.lookup(name)
		if err != nil {
			return nil, err
		}
		var have map[string]json.RawMessage
		if json.Unmarshal(raw, &have) == nil {
			e.Command, _, _ = entryCommand(have)
			for _, k := range []string{d.urlKey, "url", "httpUrl", "serverUrl"} {
				if json.Unmarshal(have[k], &e.URL) == nil && e.URL != "" {
					break
				}
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// SyncState says how a Hermes server stands in a client's file.
type SyncState string

const (
	// Synced: the entry is what hermes-migrate would write now.
	Synced SyncState = "synced"
	// Outdated: an entry of that name exists but differs.
	Outdated SyncState = "differs"
	// Missing: no entry of that name.
	Missing SyncState = "missing"
	// Inexpressible: the client cannot hold the server at all.
	Inexpressible SyncState = "not expressible"
)

// SyncStates reports, for each server, whether c's config file content
// already holds the entry hermes-migrate would write for it.
func SyncStates(c Client, content []byte, servers []configmigrate.Server) (map[string]SyncState, error) {
	entries, err := Inspect(c, content)
	if err != nil {
		return nil, err
	}
	out := map[string]SyncState{}
	if d, _ := dialectFor(c); d.section != nil {
		// The section is rewritten whole on every run: a server is there
		// or not.
		for _, s := range servers {
			out[s.Name] = Missing
			if slices.ContainsFunc(entries, func(e Entry) bool { return e.Name == s.Name }) {
				out[s.Name] = Synced
			}
		}
		return out, nil
	}
	for _, s := range servers {
		res, err := Apply(c, content, []configmigrate.Server{s}, Options{Owned: []string{s.Name}})
		if err != nil {
			return nil, err
		}
		present := slices.ContainsFunc(entries, func(e Entry) bool { return e.Name == s.Name })
		switch {
		case slices.Contains(res.Skipped, s.Name):
			out[s.Name] = Inexpressible
		case !present:
			out[s.Name] = Missing
		case res.Changed:
			out[s.Name] = Outdated
		default:
			out[s.Name] = Synced
		}
	}
	return out, nil
}
