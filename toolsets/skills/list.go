package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// listEntry is one skill in a skills_list result.
type listEntry struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Category    *string `json:"category"`
}

type listResult struct {
	Success    bool        `json:"success"`
	Skills     []listEntry `json:"skills"`
	Categories []string    `json:"categories"`
	Count      int         `json:"count"`
	Hint       string      `json:"hint"`
}

const listHint = "Use skill_view(name) to see full content, tags, and linked files"

func newListResult(skills []Skill, category string) listResult {
	r := listResult{Success: true, Skills: []listEntry{}, Categories: []string{}, Hint: listHint}
	for _, s := range skills {
		if category != "" && s.Category != category {
			continue
		}
		e := listEntry{Name: s.Name}
		if !s.NullDescription {
			d := s.Description
			e.Description = &d
		}
		if s.Category != "" {
			c := s.Category
			e.Category = &c
			// The listing is sorted by category, so duplicates are adjacent.
			if n := len(r.Categories); n == 0 || r.Categories[n-1] != c {
				r.Categories = append(r.Categories, c)
			}
		}
		r.Skills = append(r.Skills, e)
	}
	r.Count = len(r.Skills)
	return r
}

type listArgs struct {
	Category string `json:"category"`
}

func (l *Library) handleList(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[listArgs](raw)
	if err != nil {
		return tooldef.Errorf("Invalid arguments: %v", err), nil
	}
	snap, err := l.snapshot(ctx)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("skills_list: %w", err)
	}
	if len(snap.visible) == 0 {
		return tooldef.OK(l.emptyList(snap)), nil
	}
	if args.Category != "" {
		return tooldef.OK(newListResult(snap.visible, args.Category)), nil
	}
	// The unfiltered list is the call every session makes; it is built once
	// per index. It stays a struct: encoding/json encodes a struct several
	// times faster than it re-validates pre-encoded JSON.
	snap.listOnce.Do(func() { snap.listJSON, snap.listErr = tooldef.EncodeJSON(newListResult(snap.visible, "")) })
	if snap.listErr != nil {
		return tooldef.Result{}, fmt.Errorf("encode skills list: %w", snap.listErr)
	}
	return tooldef.OK(snap.listJSON), nil
}

// emptyList explains where skills go. Unlike the original, the directory is
// never created: the tool is declared read-only.
func (l *Library) emptyList(snap *snapshot) map[string]any {
	dir := l.SkillsDir()
	example := filepath.Join(dir, "<name>", "SKILL.md")
	msg := fmt.Sprintf("No skills found in %s. Create one at %s", dir, example)
	if snap.localMissing {
		msg = fmt.Sprintf("No skills found: %s does not exist yet. Create one at %s", dir, example)
	}
	return map[string]any{"success": true, "skills": []any{}, "categories": []any{}, "message": msg}
}
