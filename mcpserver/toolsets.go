package mcpserver

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/mcpserver/skills"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Env is what toolsets need to know about the process they run in.
type Env struct {
	// Home is the resolved, absolute Hermes home.
	Home string
	// Config is the Hermes home's config.yaml.
	Config hermeshome.Config
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// Builtin returns every toolset this build ships, in presentation order.
func Builtin(env Env) ([]tooldef.Toolset, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var external []string
	for _, d := range env.Config.Skills.ExternalDirs {
		p, err := hermeshome.ExpandPath(d, getenv)
		if err != nil {
			return nil, fmt.Errorf("skills.external_dirs: %w", err)
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.Home, p)
		}
		external = append(external, p)
	}
	return []tooldef.Toolset{
		skills.Toolset(skills.Options{
			Home:         env.Home,
			ExternalDirs: external,
		}),
	}, nil
}

// EnvVarNames returns, sorted and without duplicates, every environment
// variable the toolsets read.
func EnvVarNames(toolsets []tooldef.Toolset) []string {
	var out []string
	for _, ts := range toolsets {
		out = append(out, ts.EnvVars...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
