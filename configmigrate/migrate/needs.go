package migrate

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// toolNeed is a group of hermes-tools' tools that stay hidden until one of
// vars is set.
type toolNeed struct {
	tools, vars []string
}

// needsFor is toolNeeds for the Hermes home this run uses, with getenv
// the environment hermes-tools-mcp will see there (the home's .env
// included), and the programs of this machine.
func needsFor(home string, getenv func(string) string) ([]toolNeed, error) {
	return toolNeeds(home, getenv, exec.LookPath)
}

// toolNeeds says which tools of the toolsets this Hermes home enables
// (config.yaml's hermes_tools) wait for a variable that is unset here. It
// reads the catalog's needs, the data hermes-tools' own checks are held
// to, so nothing is built and no tool's code is linked. A need is judged
// only while config.yaml sets none of the settings that would choose the
// tool's backend another way (the tool's own check decides those, and
// doctor shows it); one that a variable or a program found by lookPath
// meets waits for nothing; one that no variable can meet (a program only,
// or the kanban dispatcher's variables, which the dispatcher sets, never
// the user) is not one to ask the user for, and nor is an opt-in (a
// browser to attach to for browser_cdp).
func toolNeeds(home string, getenv func(string) string, lookPath func(string) (string, error)) ([]toolNeed, error) {
	cfg, err := hermeshome.LoadConfig(home)
	if err != nil {
		return nil, err
	}
	var settings map[string]any
	if err := hermeshome.Decode(home, &settings); err != nil {
		return nil, err
	}
	configured := func(key string) bool { return settingSet(settings, key) }
	all := catalog.All()
	on, excluded, err := catalog.Select(all, cfg.HermesTools.Toolsets, cfg.HermesTools.ExcludeTools)
	if err != nil {
		return nil, fmt.Errorf("hermes_tools in %s/%s: %w", home, hermeshome.ConfigFile, err)
	}
	var out []toolNeed
	for _, ts := range all {
		if !slices.Contains(on, ts.Name) {
			continue
		}
		for _, tl := range ts.Tools {
			if excluded[tl.Name] {
				continue
			}
			vars := waitsFor(tl, getenv, lookPath, configured)
			if len(vars) == 0 {
				continue
			}
			i := slices.IndexFunc(out, func(n toolNeed) bool { return slices.Equal(n.vars, vars) })
			if i < 0 {
				out = append(out, toolNeed{vars: vars})
				i = len(out) - 1
			}
			out[i].tools = append(out[i].tools, tl.Name)
		}
	}
	return out, nil
}

// waitsFor returns the variables the first unmet need of tl asks the user
// for, one of which would meet it; nil when every need is met, left to
// config.yaml, or not the user's to meet.
func waitsFor(tl catalog.Tool, getenv func(string) string, lookPath func(string) (string, error), configured func(string) bool) []string {
	for _, n := range tl.Needs {
		if n.Configured(configured) || n.Met(getenv, lookPath) {
			continue
		}
		if n.Dispatcher || n.OptIn {
			return nil
		}
		return n.Env
	}
	return nil
}

// settingSet reports whether a decoded config.yaml sets the dotted key to
// something other than null, false or an empty string, list or mapping.
func settingSet(settings map[string]any, key string) bool {
	var cur any = settings
	for _, part := range strings.Split(key, ".") {
		switch m := cur.(type) {
		case map[string]any:
			cur = m[part]
		case map[any]any:
			cur = m[part]
		default:
			return false
		}
	}
	switch v := cur.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return strings.TrimSpace(v) != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	case map[any]any:
		return len(v) > 0
	}
	return true
}

// orList joins names as "A", "A or B", "A, B or C".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// andList joins names as "A", "A and B", "A, B and C".
func andList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
