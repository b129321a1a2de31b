package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// doctorReport is the machine-readable form of `doctor --json`.
type doctorReport struct {
	Version    string       `json:"version"`
	HermesHome string       `json:"hermes_home"`
	Config     string       `json:"config"`
	Toolsets   []string     `json:"toolsets"`
	Source     string       `json:"toolsets_source"`
	Tools      []doctorTool `json:"tools"`
	// SkillsNotServed are skills the library refuses (links out of the
	// skills directory, files that are not regular, SKILL.md too large).
	SkillsNotServed []doctorSkill `json:"skills_not_served,omitempty"`
}

type doctorSkill struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type doctorTool struct {
	Name    string `json:"name"`
	Toolset string `json:"toolset"`
	Enabled bool   `json:"enabled"`
	Reason  string `json:"reason,omitempty"`
}

func writeDoctor(ctx context.Context, w io.Writer, s setup, asJSON bool) error {
	rep := doctorReport{
		Version:    buildVersion(),
		HermesHome: s.home,
		Config:     s.configPath,
		Toolsets:   s.plan.Toolsets,
		Source:     s.source,
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
	fmt.Fprintf(w, "Hermes home: %s\n", rep.HermesHome)
	fmt.Fprintf(w, "Toolsets:    %s (from %s)\n", strings.Join(rep.Toolsets, ", "), rep.Source)
	fmt.Fprintf(w, "Tools:       %d of %d exposed\n\n", enabled, len(rep.Tools))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tTOOLSET\tSTATUS\tWHY HIDDEN")
	for _, t := range rep.Tools {
		status := "exposed"
		if !t.Enabled {
			status = "hidden"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Toolset, status, t.Reason)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(rep.SkillsNotServed) > 0 {
		fmt.Fprintf(w, "\nSkills not served (%d):\n", len(rep.SkillsNotServed))
		for _, p := range rep.SkillsNotServed {
			fmt.Fprintf(w, "  %s\n    %s\n", p.Path, p.Reason)
		}
	}
	return nil
}
