package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/envref"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/pystr"
)

// readiness is the part of a skill_view result that says whether the skill
// can be used as is.
type readiness struct {
	RequiredEnvironmentVariables        []envRequirement `json:"required_environment_variables"`
	RequiredCommands                    []string         `json:"required_commands"`
	MissingRequiredEnvironmentVariables []string         `json:"missing_required_environment_variables"`
	MissingCredentialFiles              []string         `json:"missing_credential_files"`
	MissingRequiredCommands             []string         `json:"missing_required_commands"`
	SetupNeeded                         bool             `json:"setup_needed"`
	// SetupSkipped is always false: the original sets it when the user
	// declines an interactive secret prompt, and this server never prompts.
	SetupSkipped    bool   `json:"setup_skipped"`
	ReadinessStatus string `json:"readiness_status"`
	SetupHelp       string `json:"setup_help,omitempty"`
	SetupNote       string `json:"setup_note,omitempty"`
}

// envRequirement is one environment variable a skill needs.
type envRequirement struct {
	Name        string `json:"name"`
	Prompt      string `json:"prompt"`
	Help        string `json:"help,omitempty"`
	RequiredFor string `json:"required_for,omitempty"`
	Optional    bool   `json:"optional,omitempty"`
}

// readiness checks a skill's declared needs against this machine.
func (l *Library) readiness(fields map[string]any) readiness {
	r := readiness{
		RequiredEnvironmentVariables:        requiredEnv(fields),
		RequiredCommands:                    requiredCommands(fields),
		MissingRequiredEnvironmentVariables: []string{},
		MissingCredentialFiles:              []string{},
		MissingRequiredCommands:             []string{},
	}
	var missing []string
	if len(r.RequiredEnvironmentVariables) > 0 {
		for _, e := range r.RequiredEnvironmentVariables {
			if e.Optional || l.envSet(e.Name) {
				continue
			}
			r.MissingRequiredEnvironmentVariables = append(r.MissingRequiredEnvironmentVariables, e.Name)
			missing = append(missing, "env $"+e.Name)
		}
		for _, e := range r.RequiredEnvironmentVariables {
			if e.Help != "" {
				r.SetupHelp = e.Help
				break
			}
		}
	}
	for _, f := range credentialFiles(fields) {
		if !l.fileExists(f) {
			r.MissingCredentialFiles = append(r.MissingCredentialFiles, f)
			missing = append(missing, "file "+f)
		}
	}
	for _, c := range r.RequiredCommands {
		if _, err := l.lookPath(c); err != nil {
			r.MissingRequiredCommands = append(r.MissingRequiredCommands, c)
			missing = append(missing, "command "+c)
		}
	}
	r.SetupNeeded = len(missing) > 0
	r.ReadinessStatus = statusAvailable
	if r.SetupNeeded {
		r.ReadinessStatus = statusSetupNeeded
		r.SetupNote = "Setup needed before using this skill: missing " + strings.Join(missing, ", ") + "."
		if r.SetupHelp != "" {
			r.SetupNote += " " + r.SetupHelp
		}
	}
	return r
}

// envSet follows the original: a variable in <home>/.env counts by its value
// there (Hermes loads that file into the sessions that run skills), anything
// else by the process environment. Empty means unset.
func (l *Library) envSet(name string) bool {
	v, ok := l.lookupEnv(name)
	return ok && v != ""
}

// fileExists resolves a credential file the way Hermes does: ~ and $VAR
// expanded, relative paths taken from HERMES_HOME.
func (l *Library) fileExists(p string) bool {
	getenv := func(k string) string { v, _ := l.lookupEnv(k); return v }
	expanded, err := hermeshome.ExpandPath(p, getenv)
	if err != nil {
		return false
	}
	if !filepath.IsAbs(expanded) {
		expanded = filepath.Join(l.home, expanded)
	}
	_, err = os.Stat(expanded)
	return err == nil
}

// requiredEnv merges the three places skills declare environment
// variables: required_environment_variables, setup.collect_secrets and the
// legacy prerequisites.env_vars. The first declaration of a name wins;
// names that are not valid variable names are dropped.
func requiredEnv(fields map[string]any) []envRequirement {
	setup, _ := fields["setup"].(map[string]any)
	setupHelp := strings.TrimSpace(str(setup["help"]))

	type entry struct {
		name, prompt, help, requiredFor string
		optional                        bool
	}
	var entries []entry
	// A mapping is one declaration and a list holds several; a bare
	// string is ignored, as the original ignores it.
	for _, item := range dictList(fields["required_environment_variables"]) {
		switch x := item.(type) {
		case string:
			entries = append(entries, entry{name: x})
		case map[string]any:
			help := str(x["help"])
			if help == "" {
				help = str(x["provider_url"])
			}
			if help == "" {
				help = str(x["url"])
			}
			name := str(x["name"])
			if name == "" {
				name = str(x["env_var"])
			}
			entries = append(entries, entry{name: name, prompt: str(x["prompt"]), help: help,
				requiredFor: str(x["required_for"]), optional: pystr.Truthy(x["optional"])})
		}
	}
	for _, item := range dictList(setup["collect_secrets"]) {
		if x, ok := item.(map[string]any); ok {
			url := str(x["provider_url"])
			if url == "" {
				url = str(x["url"])
			}
			entries = append(entries, entry{name: str(x["env_var"]), prompt: str(x["prompt"]), help: strings.TrimSpace(url)})
		}
	}
	if prereq, ok := fields["prerequisites"].(map[string]any); ok {
		for _, v := range asList(prereq["env_vars"]) {
			entries = append(entries, entry{name: str(v)})
		}
	}

	out := []envRequirement{}
	seen := map[string]bool{}
	for _, e := range entries {
		name := strings.TrimSpace(e.name)
		if name == "" || seen[name] || !envref.IsName(name) {
			continue
		}
		seen[name] = true
		req := envRequirement{Name: name, Prompt: strings.TrimSpace(e.prompt), Optional: e.optional}
		if req.Prompt == "" {
			req.Prompt = "Enter value for " + name
		}
		if req.Help = strings.TrimSpace(e.help); req.Help == "" {
			req.Help = setupHelp
		}
		req.RequiredFor = strings.TrimSpace(e.requiredFor)
		out = append(out, req)
	}
	return out
}

// requiredCommands reads prerequisites.commands.
func requiredCommands(fields map[string]any) []string {
	out := []string{}
	prereq, _ := fields["prerequisites"].(map[string]any)
	for _, c := range stringList(prereq["commands"]) {
		if c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// credentialFiles reads required_credential_files: paths, or mappings with
// a path.
func credentialFiles(fields map[string]any) []string {
	var out []string
	list, _ := fields["required_credential_files"].([]any)
	for _, item := range list {
		var p string
		switch x := item.(type) {
		case string:
			p = x
		case map[string]any:
			p = str(x["path"])
		}
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// dictList treats a single mapping as a one-item list and anything but a
// mapping or a list as no items.
func dictList(v any) []any {
	switch x := v.(type) {
	case map[string]any:
		return []any{x}
	case []any:
		return x
	default:
		return nil
	}
}

// asList treats a single mapping or scalar as a one-item list.
func asList(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	default:
		return []any{x}
	}
}
