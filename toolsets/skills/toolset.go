// Package skills serves a Hermes skills directory to MCP clients as the
// `skills` toolset: skills_list, skill_view and skill_manage, compatible
// with the files and result shapes of the Python Hermes
// (tools/skills_tool.py, tools/skill_manager_tool.py).
//
// A skill is a directory holding SKILL.md (YAML frontmatter plus
// instructions) and optional references/, templates/, assets/ and scripts/.
// Skills live in <HERMES_HOME>/skills, as <name>/SKILL.md or
// <category>/<name>/SKILL.md, and in configured external directories; the
// local directory wins a name clash. Library is the single definition of
// what a skill is; the tools, and anything else serving skills, read
// through it.
package skills

import (
	"encoding/json"
	"log/slog"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the skills toolset.
type Options struct {
	// Home is HERMES_HOME, absolute; skills live in Home/skills.
	Home string
	// ExternalDirs are skills.external_dirs, already expanded and absolute.
	// Home/skills wins a name clash.
	ExternalDirs []string
	// Platform is "linux", "macos" or "windows", matched against a skill's
	// `platforms`; empty means the platform this binary runs on.
	Platform string
	// LookupEnv reports required environment variables (nil: the process
	// environment with the home's .env over it, as the original sees it).
	LookupEnv func(string) (string, bool)
	// LookPath finds required commands (nil: exec.LookPath).
	LookPath func(string) (string, error)
	// SystemRoot is where the docker and s6 markers that `environments:`
	// tags are judged by are looked up ("" means "/"; tests set it).
	SystemRoot string
	// Logger receives warnings: skills refused by the confinement rule
	// (once each), and a watch bound reached; nil discards them.
	Logger *slog.Logger
}

// ToolsetName is the name of the skills toolset, for callers that serve
// more of the Library when the toolset is enabled.
const ToolsetName = catalog.Skills

// EnvVars returns the environment variables the toolset reads: the
// messaging platform, which selects skills.platform_disabled, and the
// kanban worker's variables, which decide whether kanban-tagged skills are
// offered.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// Toolset returns the skills toolset over a new Library.
func Toolset(opts Options) tooldef.Toolset {
	return NewLibrary(opts).Toolset()
}

// Toolset returns the skills toolset served from l, so other surfaces that
// use the same Library share its index.
func (l *Library) Toolset() tooldef.Toolset {
	hints := tooldef.Hints{ReadOnly: true, Destructive: false, Idempotent: true, OpenWorld: false}
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "Skills are reusable procedures and references. Call skills_list when a task may match one, then skill_view to load it before starting; save what worked with skill_manage.",
		EnvVars:      meta.EnvVars,
		Tools: []tooldef.Tool{
			{
				Name:         catalog.SkillsList,
				Title:        "List skills",
				Description:  listDescription,
				InputSchema:  json.RawMessage(listInputSchema),
				OutputSchema: json.RawMessage(listOutputSchema),
				Hints:        hints,
				Handler:      l.handleList,
			},
			{
				Name:         catalog.SkillView,
				Title:        "View a skill",
				Description:  viewDescription,
				InputSchema:  json.RawMessage(viewInputSchema),
				OutputSchema: json.RawMessage(viewOutputSchema),
				Hints:        hints,
				Handler:      l.handleView,
			},
			{
				Name:         catalog.SkillManage,
				Title:        "Create or change a skill",
				Description:  manageDescription,
				InputSchema:  json.RawMessage(manageInputSchema),
				OutputSchema: json.RawMessage(manageOutputSchema),
				// edit, patch, write_file and delete overwrite or remove
				// what is there.
				Hints:   tooldef.Hints{ReadOnly: false, Destructive: true, Idempotent: false, OpenWorld: false},
				Handler: l.handleManage,
			},
		},
	}
}
