package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"

	"github.com/hermes-go/hermes/internal/termtext"
)

// keysLine names the set variables by where they came from, values never
// shown: "OPENROUTER_API_KEY (~/.hermes/.env), TAVILY_API_KEY (environment)".
func keysLine(keys []doctorKey) string {
	if len(keys) == 0 {
		return "none set (put API keys in the Hermes home's .env, or in the environment)"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.Name + " (" + k.Source + ")"
	}
	return strings.Join(parts, ", ")
}

// doctorReport is the machine-readable form of `doctor --json`.
type doctorReport struct {
	Version    string `json:"version"`
	HermesHome string `json:"hermes_home"`
	Profile    string `json:"profile"`
	HomeSource string `json:"hermes_home_source"`
	Config     string `json:"config"`
	// Keys are the variables the tools read that are set, and where each
	// came from: the home's .env or the environment. Never their values.
	Keys []doctorKey `json:"keys"`
	// EnvNotes are problems with the home's .env (lines skipped, a file
	// that could not be read).
	EnvNotes []string `json:"env_notes,omitempty"`
	// ConfigWarnings are config.yaml keys the original does not know.
	ConfigWarnings []string     `json:"config_warnings,omitempty"`
	Toolsets       []string     `json:"toolsets"`
	Source         string       `json:"toolsets_source"`
	Tools          []doctorTool `json:"tools"`
	// SkillsNotServed are skills the library refuses (links out of the
	// skills directory, files that are not regular, SKILL.md too large).
	SkillsNotServed []doctorSkill `json:"skills_not_served,omitempty"`
}

type doctorSkill struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type doctorKey struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

type doctorTool struct {
	Name    string `json:"name"`
	Toolset string `json:"toolset"`
	Enabled bool   `json:"enabled"`
	Reason  string `json:"reason,omitempty"`
}

func writeDoctor(ctx context.Context, w io.Writer, s setup, asJSON bool) error {
	rep := doctorReport{
		Version:        buildVersion(),
		HermesHome:     s.home,
		Profile:        s.selection.Profile,
		HomeSource:     s.selection.Source,
		Config:         s.configPath,
		Keys:           []doctorKey{},
		EnvNotes:       s.env.Notes,
		ConfigWarnings: s.configWarnings,
		Toolsets:       s.plan.Toolsets,
		Source:         s.source,
	}
	for _, name := range catalog.EnvVarNames() {
		if src := s.env.Source(name); src != "" && name != hermeshome.EnvVar {
			rep.Keys = append(rep.Keys, doctorKey{Name: name, Source: src})
		}
	}
	for _, e := range s.plan.Entries {
		rep.Tools = append(rep.Tools, doctorTool{Name: e.Tool.Name, Toolset: e.Toolset, Enabled: e.Enabled, Reason: e.Reason})
	}
	if s.skills != nil {
		problems, err := s.skills.Problems(ctx)
		if err != nil {
			return fmt.Errorf("check the skills: %w", err)
		}
		for _, p := range problems {
			rep.SkillsNotServed = append(rep.SkillsNotServed, doctorSkill{Path: p.Path, Reason: p.Reason})
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	enabled := 0
	for _, t := range rep.Tools {
		if t.Enabled {
			enabled++
		}
	}
	fmt.Fprintf(w, "hermes-tools-mcp %s\n", rep.Version)
	// Names, paths and reasons come from files anyone may have written
	// (skill folders, config.yaml, .env): shown escaped, never obeyed as
	// terminal controls.
	fmt.Fprintf(w, "Hermes home: %s (profile %s, from %s)\n", termtext.Line(rep.HermesHome), termtext.Line(rep.Profile), rep.HomeSource)
	fmt.Fprintf(w, "Keys:        %s\n", keysLine(rep.Keys))
	for _, n := range rep.EnvNotes {
		fmt.Fprintf(w, "             warning: %s\n", termtext.Text(n))
	}
	for _, n := range rep.ConfigWarnings {
		fmt.Fprintf(w, "Config:      warning: %s\n", termtext.Text(n))
	}
	fmt.Fprintf(w, "Toolsets:    %s (from %s)\n", termtext.Line(strings.Join(rep.Toolsets, ", ")), termtext.Line(rep.Source))
	fmt.Fprintf(w, "Tools:       %d of %d exposed\n\n", enabled, len(rep.Tools))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tTOOLSET\tSTATUS\tWHY HIDDEN")
	for _, t := range rep.Tools {
		status := "exposed"
		if !t.Enabled {
			status = "hidden"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Line(t.Name), termtext.Line(t.Toolset), status, termtext.Line(t.Reason))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.SkillsNotServed) > 0 {
		fmt.Fprintf(w, "\nSkills not served (%d):\n", len(rep.SkillsNotServed))
		for _, p := range rep.SkillsNotServed {
			fmt.Fprintf(w, "  %s\n    %s\n", termtext.Line(p.Path), termtext.Line(p.Reason))
		}
	}
	return nil
}
