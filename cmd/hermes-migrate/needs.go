package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// toolNeed is a group of hermes-tools' tools that stay hidden until one of
// vars is set.
type toolNeed struct {
	tools, vars []string
}

// needsFor is toolNeeds for the Hermes home this run uses, with getenv
// the environment hermes-tools-mcp will see there (the home's .env
// included).
func needsFor(home string, getenv func(string) string) ([]toolNeed, error) {
	return toolNeeds(home, getenv)
}

// toolNeeds asks hermes-tools' own availability checks, the ones its
// doctor shows, which tools of the enabled toolsets wait for a variable
// that is unset here: the variables an enabled toolset needs. The tools
// are built as a client's hermes-tools-mcp builds them (this Hermes home's
// config.yaml picks the toolsets); building starts nothing, no browser and
// no network. The kanban dispatcher's worker variables do not count: the
// dispatcher sets them, never the user.
func toolNeeds(home string, getenv func(string) string) ([]toolNeed, error) {
	cfg, err := hermeshome.LoadConfig(home)
	if err != nil {
		return nil, err
	}
	box, err := toolsets.Builtin(toolsets.Env{Home: home, Config: cfg, Getenv: getenv})
	if err != nil {
		return nil, err
	}
	defer box.Close()
	reg, err := toolsets.NewRegistry(box.Toolsets...)
	if err != nil {
		return nil, err
	}
	plan, err := reg.Resolve(toolsets.Selection{Toolsets: cfg.HermesTools.Toolsets, ExcludeTools: cfg.HermesTools.ExcludeTools})
	if err != nil {
		return nil, fmt.Errorf("hermes_tools in %s/%s: %w", home, hermeshome.ConfigFile, err)
	}
	var names []string
	for _, v := range catalog.EnvVarNames() {
		if !strings.HasPrefix(v, "HERMES_KANBAN_") && getenv(v) == "" {
			names = append(names, regexp.QuoteMeta(v))
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	mentioned := regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
	var out []toolNeed
	for _, e := range plan.Entries {
		if e.Enabled || !slices.Contains(plan.Toolsets, e.Toolset) {
			continue
		}
		var vars []string
		for _, v := range mentioned.FindAllString(e.Reason, -1) {
			if !slices.Contains(vars, v) {
				vars = append(vars, v)
			}
		}
		if len(vars) == 0 {
			continue
		}
		i := slices.IndexFunc(out, func(n toolNeed) bool { return slices.Equal(n.vars, vars) })
		if i < 0 {
			out = append(out, toolNeed{vars: vars})
			i = len(out) - 1
		}
		out[i].tools = append(out[i].tools, e.Tool.Name)
	}
	return out, nil
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
