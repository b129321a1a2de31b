package clientsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// section is how a client whose Hermes entries are one section of its
// file, owned by Hermes whole, is edited (dialect.section).
type section struct {
	// write renders the section into existing from what j registers,
	// filling in what res says about it; home is the Hermes home.
	write func(ctx context.Context, j Job, home string, existing []byte, res *JobResult) ([]byte, error)
	// remove takes the section out; removed says there was one.
	remove func(existing []byte) (out []byte, removed bool, err error)
	// entries lists the servers the file registers, for Inspect.
	entries func(content []byte) ([]Entry, error)
}

func errSection(d *dialect) error {
	return fmt.Errorf("%s's Hermes entries are one section of its file that Hermes owns whole; register them with Job, not entry by entry", d.display)
}

// codexHomeVar names codex's home directory, the one holding config.toml.
const codexHomeVar = "CODEX_HOME"

// codexSection is codex's row's hooks: Hermes' managed block in
// config.toml (configmigrate.MigrateCodex), rendered from config.yaml's
// servers (always: codex is the runtime that stands in for Hermes'
// own), the hermes-tools callback, the plugins codex app-server reports
// installed and a default_permissions profile.
var codexSection = &section{write: writeCodexBlock, remove: configmigrate.RemoveCodexBlock, entries: codexEntries}

// codexConfig is codex's config.toml: under $CODEX_HOME, else ~/.codex.
func codexConfig(p pathEnv) (string, error) {
	dir, err := p.dir(codexHomeVar, ".codex")
	return p.join(dir, "config.toml"), err
}

// writeCodexBlock is the managed block the job writes. A hermes-tools-mcp
// that cannot be found fails the job unless HermesToolsOptional, then
// the rest is still worth writing; discovery failing keeps the plugins
// the block listed.
func writeCodexBlock(ctx context.Context, j Job, home string, existing []byte, res *JobResult) ([]byte, error) {
	in := configmigrate.CodexInput{DefaultPermissions: j.DefaultPermissions}
	tools, err := j.hermesTools()
	switch {
	case err == nil:
		in.HermesTools, res.HermesTools = &tools, &tools
	case j.HermesToolsOptional:
		res.HermesToolsError = err
	default:
		return nil, err
	}
	yamlPath := filepath.Join(home, hermeshome.ConfigFile)
	yamlText, err := configmigrate.ReadConfigFile(yamlPath)
	if err != nil {
		return nil, err
	}
	var problems []error
	in.Servers, problems, err = configmigrate.HermesServers(yamlText)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", yamlPath, err)
	}
	for _, p := range problems {
		res.Problems = append(res.Problems, p.Error())
	}
	var secretProblems []string
	in.Servers, secretProblems = configmigrate.ProtectSecrets(in.Servers, j.AllowLiteralSecrets)
	res.Problems = append(res.Problems, secretProblems...)
	var perr error
	in.Plugins, res.PluginSource, perr = j.codexPlugins(ctx, filepath.Dir(res.Path), existing)
	if perr != nil {
		res.PluginError, res.CodexNotInstalled = perr.Error(), errors.Is(perr, configmigrate.ErrCodexNotInstalled)
	}
	out, rep, err := configmigrate.MigrateCodex(existing, in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", res.Path, err)
	}
	res.Report = &rep
	return out, nil
}

// codexPlugins asks codex for its installed plugins. When that is not
// done or fails, the plugins the current block lists are kept, so a run
// never drops what an earlier run discovered. A project's file gets no
// discovery: plugins are codex's per user, not per project.
func (j Job) codexPlugins(ctx context.Context, codexHome string, existing []byte) (plugins []configmigrate.Plugin, source string, err error) {
	keep := func() ([]configmigrate.Plugin, string) {
		if previous := configmigrate.BlockPlugins(existing); len(previous) > 0 {
			return previous, "previous block"
		}
		return nil, ""
	}
	if j.NoPluginDiscovery || j.Project != "" {
		p, s := keep()
		return p, s, nil
	}
	discover, environ := j.DiscoverPlugins, j.Environ
	if discover == nil {
		discover = func(ctx context.Context, codexHome, binary string, env []string) ([]configmigrate.Plugin, error) {
			return configmigrate.DiscoverPlugins(ctx, binary, codexHome, env, j.Logger)
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

// codexEntries lists the servers config.toml defines, inside the managed
// block or out of it, by name.
func codexEntries(content []byte) ([]Entry, error) {
	var doc struct {
		Servers map[string]struct {
			Command string `toml:"command"`
			URL     string `toml:"url"`
		} `toml:"mcp_servers"`
	}
	if err := toml.Unmarshal(content, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", configmigrate.ErrInvalidTOML, err)
	}
	out := make([]Entry, 0, len(doc.Servers))
	for name, s := range doc.Servers {
		out = append(out, Entry{Name: name, Command: s.Command, URL: s.URL})
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}
