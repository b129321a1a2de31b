package runtimecfg

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// Usage is the command's argument hint.
const Usage = "/codex-runtime [auto|codex_app_server|on|off]"

// ParseArg reads the argument of /codex-runtime: "" means show the current
// state (show is true); on|codex|enable mean codex_app_server;
// off|default|disable|hermes mean auto (the aliases of the Python Hermes).
func ParseArg(raw string) (value string, show bool, err error) {
	v := strings.ToLower(strings.TrimSpace(raw))
	switch v {
	case "":
		return "", true, nil
	case Auto, CodexAppServer:
		return v, false, nil
	case "on", "codex", "enable":
		return CodexAppServer, false, nil
	case "off", "default", "disable", "hermes":
		return Auto, false, nil
	}
	return "", false, fmt.Errorf("Unknown runtime '%s'. Use one of: auto, codex_app_server, on, off", strings.TrimSpace(raw))
}

// Switch implements /codex-runtime for one Hermes home.
type Switch struct {
	// HermesHome is the resolved Hermes home; its config.yaml is edited.
	HermesHome string
	// Pin points codex's hermes-tools entry at the home the user chose
	// (hermeshome.Selection.Pin); the zero Pin lets the server find it.
	Pin hermeshome.Pin
	// CodexHome is where config.toml is migrated; empty means $CODEX_HOME,
	// else ~/.codex.
	CodexHome string
	// CodexBinary overrides the codex lookup (bridge.FindBinary).
	CodexBinary string
	// HermesToolsCommand is the hermes-tools-mcp binary; empty looks next
	// to this executable, then on PATH.
	HermesToolsCommand string
	// Getenv and Environ read the environment; nil means the process's.
	Getenv  func(string) string
	Environ func() []string

	// CheckCodex finds and version-checks codex; nil uses bridge.
	CheckCodex func(ctx context.Context, override string) (path, version string, err error)
	// DiscoverPlugins asks codex for its installed plugins; nil uses
	// configmigrate.DiscoverPlugins. Failure is not fatal: the plugins
	// already in the managed block are kept.
	DiscoverPlugins func(ctx context.Context, codexHome, binary string, env []string) ([]configmigrate.Plugin, error)
	// AllowLiteralSecrets copies values that look like secrets into
	// config.toml as they are, instead of environment references.
	AllowLiteralSecrets bool
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
}

// Status is what /codex-runtime did.
type Status struct {
	// Success is false when the command was refused (codex missing) or
	// the config could not be written.
	Success  bool
	Old, New string
	// Changed says config.yaml now selects a different runtime.
	Changed bool
	// RequiresNewSession: the change applies from the next session on.
	RequiresNewSession bool
	CodexBinaryOK      bool
	CodexVersion       string
	// Migration is set when the codex migration ran.
	Migration *Migration
	// Message is the text to show the user, one line per fact.
	Message string
}

// Migration is the outcome of migrating Hermes' MCP setup into codex's
// config.toml.
type Migration struct {
	Path    string
	Backup  string
	Written bool
	Report  configmigrate.CodexReport
	// PluginError is why plugin discovery failed (non-fatal).
	PluginError string
	// Problems are servers that could not be translated.
	Problems []string
	// Warning is set when hermes-tools-mcp was not found: the block then
	// lacks the callback server.
	Warning string
}

// ConfigPath is the config.yaml the switch edits.
func (s *Switch) ConfigPath() string { return filepath.Join(s.HermesHome, hermeshome.ConfigFile) }

// Apply runs `/codex-runtime <arg>`. A returned error means the command
// could not run at all (unreadable config, unknown argument); a refusal
// (codex missing) is a Status with Success false and the reason in Message.
func (s *Switch) Apply(ctx context.Context, arg string) (Status, error) {
	value, show, err := ParseArg(arg)
	if err != nil {
		return Status{}, err
	}
	path := s.ConfigPath()
	doc, err := configmigrate.ReadConfigFile(path)
	if err != nil {
		return Status{}, err
	}
	cur, err := Current(doc)
	if err != nil {
		return Status{}, fmt.Errorf("%s: %w", path, err)
	}
	st := Status{Old: cur, New: cur}
	if show {
		st.Success = true
		var b strings.Builder
		fmt.Fprintf(&b, "openai_runtime: %s\n", cur)
		if why := notInEffect(doc, cur); why != "" {
			fmt.Fprintf(&b, "⚠ not in effect: %s\n", why)
		}
		if ver, err := s.checkCodex(ctx); err != nil {
			fmt.Fprintf(&b, "codex CLI: %s", codexProblem(err))
		} else {
			st.CodexBinaryOK, st.CodexVersion = true, ver
			fmt.Fprintf(&b, "codex CLI: OK %s", ver)
		}
		st.Message = b.String()
		return st, nil
	}
	st.New = value
	st.Changed = value != cur

	var lines []string
	if value == CodexAppServer {
		// Enabling checks codex first: persisting a runtime that cannot
		// start would break the user's next session.
		ver, err := s.checkCodex(ctx)
		if err != nil {
			st.New = cur
			st.Changed = false
			st.Message = "Cannot enable codex_app_server runtime: codex CLI " + codexProblem(err)
			return st, nil
		}
		st.CodexBinaryOK, st.CodexVersion = true, ver
	}
	if st.Changed {
		if err := s.save(ctx, path, value); err != nil {
			var saveErr *saveError
			if !errors.As(err, &saveErr) {
				return st, err
			}
			st.New, st.Changed = cur, false
			st.Message = fmt.Sprintf("could not save %s: %v (check the file's permissions; nothing was changed)", path, saveErr.err)
			return st, nil
		}
		line := fmt.Sprintf("openai_runtime: %s → %s", cur, value)
		if value == Auto {
			line += " (the codex runtime is off)"
		}
		lines = append(lines, line)
	} else {
		lines = append(lines, "openai_runtime already set to "+cur)
	}
	if value == CodexAppServer {
		if why := notInEffect(doc, value); why != "" {
			lines = append(lines, "⚠ not in effect: "+why)
		}
	}
	st.Success = true

	if value == CodexAppServer {
		lines = append(lines, "codex CLI: "+st.CodexVersion)
		// The migration runs even when the runtime was already on: it is
		// how the user refreshes codex's view of their MCP servers and
		// plugins after changing them.
		mig, err := s.migrate(ctx)
		if err != nil {
			lines = append(lines, "⚠ MCP migration skipped: "+err.Error())
		} else {
			st.Migration = mig
			lines = append(lines, migrationLines(mig)...)
		}
		st.RequiresNewSession = st.Changed || (mig != nil && mig.Written)
		if st.RequiresNewSession {
			lines = append(lines, "Effective from the next session (start one with /new); the current session keeps its runtime.")
		}
	} else if st.Changed {
		st.RequiresNewSession = true
		lines = append(lines, "OpenAI/Codex turns will use the default Hermes runtime.",
			"Effective from the next session (start one with /new); the current session keeps its runtime.")
	}
	st.Message = strings.Join(lines, "\n")
	return st, nil
}

// Migrate regenerates the Hermes-managed section of codex's config.toml
// from config.yaml without touching model.openai_runtime: what `hermes
// codex-runtime migrate`, named in that section's first line, does. The
// message lists what was migrated, one fact per line.
func (s *Switch) Migrate(ctx context.Context) (string, error) {
	mig, err := s.migrate(ctx)
	if err != nil {
		return "", err
	}
	return strings.Join(migrationLines(mig), "\n"), nil
}

// CodexProvider reports whether the codex runtime can run a provider's
// models: OpenAI's only (openai, openai-codex), as in the Python Hermes;
// every other provider stays on the native runtime whatever
// openai_runtime says.
func CodexProvider(provider string) bool {
	switch strings.ToLower(strings.TrimSpace(provider)) {
	case "openai", "openai-codex":
		return true
	}
	return false
}

// notInEffect says why a codex_app_server setting will not be used by the
// next chat: the provider is not OpenAI's. "" when it will be (or the
// runtime is auto).
func notInEffect(doc []byte, runtime string) string {
	if runtime != CodexAppServer {
		return ""
	}
	m, err := LoadModel(doc)
	if err != nil || CodexProvider(m.Provider) {
		return ""
	}
	provider := m.Provider
	if provider == "" {
		provider = "not set"
	}
	return fmt.Sprintf("model.provider is %s, and the codex runtime runs OpenAI models only: chats stay on the native runtime until model.provider is openai (or openai-codex)", provider)
}

// codexProblem says why codex cannot be used; a binary that is not there
// is one fact with its fix, not the lookup's error chain.
func codexProblem(err error) string {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("not installed (install with: %s, or set %s to its path)", bridge.InstallHint, bridge.BinaryEnv)
	}
	return "not usable: " + err.Error()
}

func (s *Switch) checkCodex(ctx context.Context) (string, error) {
	if s.CheckCodex != nil {
		_, v, err := s.CheckCodex(ctx, s.CodexBinary)
		return v, err
	}
	bin, err := bridge.FindBinary(s.CodexBinary)
	if err != nil {
		return "", err
	}
	v, err := bridge.CheckVersion(ctx, bin)
	if err != nil {
		return "", err
	}
	return v.String(), nil
}

// migrate runs the job hermes-migrate runs for codex, so /codex-runtime on
// gives codex the same block. Missing hermes-tools is a warning, not a
// failure: the user's own servers and plugins are still worth migrating.
func (s *Switch) migrate(ctx context.Context) (*Migration, error) {
	job := clientsync.Job{
		Client:              clientsync.Codex,
		CodexHome:           s.CodexHome,
		HermesHome:          s.HermesHome,
		Pin:                 s.Pin,
		HermesToolsCommand:  s.HermesToolsCommand,
		HermesToolsOptional: true,
		DefaultPermissions:  configmigrate.DefaultPermissions,
		CodexBinary:         s.CodexBinary,
		AllowLiteralSecrets: s.AllowLiteralSecrets,
		Getenv:              s.Getenv,
		Environ:             s.Environ,
		DiscoverPlugins:     s.DiscoverPlugins,
		Logger:              s.Logger,
	}
	job.EnvVars = catalog.EnvVarNames()
	res, err := job.Run(ctx)
	if err != nil {
		return nil, err
	}
	m := &Migration{Path: res.Path, Backup: res.Backup, Written: res.Written, Report: *res.Report, PluginError: res.PluginError, Problems: res.Problems}
	if res.HermesToolsError != nil {
		m.Warning = res.HermesToolsError.Error() + "; codex will not get Hermes' tools until it is installed and /codex-runtime on runs again"
	}
	return m, nil
}

func migrationLines(m *Migration) []string {
	var out []string
	var (
		user    []string
		servers int
	)
	for _, sv := range m.Report.Servers {
		if sv.Name == configmigrate.HermesToolsName {
			continue
		}
		servers++
		if !sv.Written {
			user = append(user, "  - "+sv.Name+" (kept your own definition)")
			continue
		}
		// A written server's notes say what was adapted (a secret
		// turned into a reference): it was migrated, not skipped.
		user = append(user, "  - "+sv.Name)
		for _, n := range sv.Notes {
			user = append(user, "      note: "+n)
		}
	}
	if servers > 0 {
		out = append(out, fmt.Sprintf("Migrated %d MCP server(s):", servers))
		out = append(out, user...)
	} else {
		out = append(out, "No MCP servers found in Hermes config.")
	}
	if len(m.Report.Plugins) > 0 {
		out = append(out, fmt.Sprintf("Migrated %d native Codex plugin(s):", len(m.Report.Plugins)))
		for _, p := range m.Report.Plugins {
			out = append(out, "  - "+p)
		}
	}
	if m.PluginError != "" {
		out = append(out, "Codex plugin discovery skipped: "+m.PluginError)
	}
	if m.Report.DefaultPermissions != "" {
		out = append(out, "Default sandbox: "+m.Report.DefaultPermissions+" (no approval prompt on every write)")
	}
	if m.Warning == "" {
		out = append(out, "Hermes tools (web, browser, skills, memory, …) are available to codex through the hermes-tools MCP server.")
	} else {
		out = append(out, "⚠ MCP migration: "+m.Warning)
	}
	for _, p := range m.Problems {
		out = append(out, "⚠ MCP migration: "+p)
	}
	switch {
	case m.Written && m.Backup != "":
		out = append(out, fmt.Sprintf("(config: %s; previous version in %s)", m.Path, m.Backup))
	case m.Written:
		out = append(out, fmt.Sprintf("(config: %s)", m.Path))
	default:
		out = append(out, fmt.Sprintf("(config: %s, already up to date)", m.Path))
	}
	return out
}

// saveError is a write of config.yaml that failed; the command reports it
// to the user instead of failing.
type saveError struct{ err error }

func (e *saveError) Error() string { return e.err.Error() }

// save sets the runtime in config.yaml under the Hermes home's lock for
// it, applied to the file as it is once locked: a concurrent switch, or
// an edit that landed since Apply read the file, is kept, not overwritten
// with the older content.
func (s *Switch) save(ctx context.Context, path, value string) error {
	edit, err := atomicfile.Begin(ctx, path, atomicfile.EditOptions{
		Options:  atomicfile.Options{Mode: 0o600},
		LockPath: filepath.Join(s.HermesHome, "locks", hermeshome.ConfigFile+".lock"),
	})
	if err != nil {
		return &saveError{err}
	}
	defer edit.Close()
	out, err := SetRuntime(edit.Before, value)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := edit.Commit(out); err != nil {
		return &saveError{err}
	}
	return nil
}
