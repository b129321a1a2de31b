package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/safefile"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// sniffLen is how much of a file decides whether it is text.
const sniffLen = 8 << 10

const (
	lookupHint = "Use a skill name or relative path within the skills directory."
	fileHint   = "Use a relative path within the skill directory"
	usageHint  = "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'"
)

// Readiness statuses, as the original names them.
const (
	statusAvailable   = "available"
	statusSetupNeeded = "setup_needed"
	statusUnsupported = "unsupported"
)

type viewArgs struct {
	Name     string `json:"name"`
	FilePath string `json:"file_path"`
}

// viewResult is the skill_view result for a skill; field order is the
// original's key order.
type viewResult struct {
	Success       bool         `json:"success"`
	Name          string       `json:"name"`
	Description   string       `json:"description"`
	Tags          []string     `json:"tags"`
	RelatedSkills []string     `json:"related_skills"`
	Content       string       `json:"content"`
	Path          string       `json:"path"`
	SkillDir      string       `json:"skill_dir"`
	LinkedFiles   *linkedFiles `json:"linked_files"`
	UsageHint     *string      `json:"usage_hint"`
	readiness
	Compatibility any `json:"compatibility,omitempty"`
	Metadata      any `json:"metadata,omitempty"`
}

// linkedFiles groups a skill's support files; empty groups are left out.
type linkedFiles struct {
	References []string `json:"references,omitempty"`
	Templates  []string `json:"templates,omitempty"`
	Assets     []string `json:"assets,omitempty"`
	Scripts    []string `json:"scripts,omitempty"`
}

// availableFiles is linkedFiles plus "other": every readable file, offered
// when a requested file does not exist.
type availableFiles struct {
	linkedFiles
	Other []string `json:"other,omitempty"`
}

// fileResult is the skill_view result for one file of a skill.
type fileResult struct {
	Success  bool   `json:"success"`
	Name     string `json:"name"`
	File     string `json:"file"`
	Content  string `json:"content"`
	FileType string `json:"file_type"`
	IsBinary bool   `json:"is_binary,omitempty"`
}

func failure(msg string, extra ...any) tooldef.Result {
	v := map[string]any{"success": false, "error": msg}
	for i := 0; i+1 < len(extra); i += 2 {
		v[extra[i].(string)] = extra[i+1]
	}
	return tooldef.Failure(v)
}

func (l *Library) handleView(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[viewArgs](raw)
	if err != nil {
		return tooldef.Errorf("Invalid arguments: %v", err), nil
	}
	name := strings.TrimSpace(args.Name)
	s, err := l.Lookup(ctx, name)
	switch {
	case errors.Is(err, ErrInvalidName):
		return failure(err.Error(), "hint", lookupHint), nil
	case errors.Is(err, ErrNotFound):
		return l.notFound(ctx, name)
	case err != nil:
		return tooldef.Result{}, fmt.Errorf("skill_view %q: %w", name, err)
	}

	data, err := l.ReadSkillFile(s)
	switch {
	case errors.Is(err, ErrNotServed), errors.Is(err, ErrTooLarge):
		return failure(fmt.Sprintf("Skill '%s' cannot be served: %v", name, err)), nil
	case err != nil:
		return failure(fmt.Sprintf("Failed to read skill '%s': %v", name, err)), nil
	}
	content := decodeText(data)
	doc := parseDocument(content)
	if !matchesPlatform(doc.fields, l.platform) {
		return failure(fmt.Sprintf("Skill '%s' is not supported on this platform.", name),
			"readiness_status", statusUnsupported), nil
	}
	if s.Disabled {
		return failure(fmt.Sprintf("Skill '%s' is disabled. Enable it with `hermes skills` or inspect the files directly on disk.",
			skillName(doc.fields, filepath.Base(s.Dir)))), nil
	}
	if args.FilePath != "" {
		return l.viewFile(s, name, args.FilePath), nil
	}

	resolved := skillName(doc.fields, filepath.Base(s.Dir))
	files, _ := l.Files(s) // a listing failure only costs the linked_files hint
	res := viewResult{
		Success:       true,
		Name:          resolved,
		Description:   str(doc.fields["description"]),
		Tags:          listField(doc.fields, "tags"),
		RelatedSkills: listField(doc.fields, "related_skills"),
		Content:       content,
		Path:          l.resultPath(s),
		SkillDir:      s.Dir,
		LinkedFiles:   groupLinked(files),
		readiness:     l.readiness(doc.fields),
	}
	if res.LinkedFiles != nil {
		h := usageHint
		res.UsageHint = &h
	}
	if v := doc.fields["compatibility"]; pystr.Truthy(v) {
		res.Compatibility = v
	}
	if md, ok := doc.fields["metadata"].(map[string]any); ok {
		res.Metadata = md
	}
	return tooldef.OK(res), nil
}

// notFound suggests names, as the original does, and explains the plugin
// form: this server has no plugin registry.
func (l *Library) notFound(ctx context.Context, name string) (tooldef.Result, error) {
	snap, err := l.snapshot(ctx)
	if err != nil {
		return tooldef.Result{}, fmt.Errorf("skill_view %q: %w", name, err)
	}
	// A skill the rule refused is not found, but saying why beats a list
	// of other names.
	if rel, err := normalizeName(name); err == nil {
		for _, p := range snap.problems {
			if p.RelDir == rel || path.Base(p.RelDir) == rel {
				return failure(fmt.Sprintf("Skill '%s' is not served: %s", name, p.Reason)), nil
			}
		}
	}
	all := snap.visible
	available := []string{}
	for _, s := range all[:min(len(all), 20)] {
		available = append(available, s.Name)
	}
	hint := "Use skills_list to see all available skills"
	if strings.Contains(name, ":") {
		hint = "Plugin-provided skills ('plugin:skill') are not served here; only skills on disk are. " + hint
	}
	return failure(fmt.Sprintf("Skill '%s' not found.", name), "available_skills", available, "hint", hint), nil
}

// resultPath is SKILL.md's path relative to <home>/skills for local skills
// and relative to the parent of the skill directory for external ones, as
// the original reports it.
func (l *Library) resultPath(s Skill) string {
	if s.Local {
		return path.Join(s.RelDir, skillFile)
	}
	return path.Join(filepath.Base(s.Dir), skillFile)
}

func (l *Library) viewFile(s Skill, label, rel string) tooldef.Result {
	_, err := l.ResolveFile(s, rel)
	switch {
	case errors.Is(err, ErrFileNotFound):
		files, _ := l.Files(s)
		return failure(fmt.Sprintf("File '%s' not found in skill '%s'.", rel, label),
			"available_files", groupAvailable(files), "hint", "Use one of the available file paths listed above")
	case errors.Is(err, ErrInvalidPath), errors.Is(err, ErrOutsideSkill), errors.Is(err, ErrNotServed), errors.Is(err, ErrTooLarge):
		return failure(err.Error(), "hint", fileHint)
	case err != nil:
		return failure(fmt.Sprintf("Failed to read '%s' in skill '%s': %v", rel, label, err))
	}
	data, size, binary, err := l.readFileSniffed(s, rel)
	switch {
	case errors.Is(err, ErrInvalidPath), errors.Is(err, ErrOutsideSkill), errors.Is(err, ErrNotServed), errors.Is(err, ErrTooLarge):
		return failure(err.Error(), "hint", fileHint)
	case err != nil:
		return failure(fmt.Sprintf("Failed to read '%s' in skill '%s': %v", rel, label, err))
	}
	res := fileResult{Success: true, Name: label, File: rel, FileType: path.Ext(filepath.ToSlash(rel))}
	if binary {
		res.IsBinary = true
		res.Content = fmt.Sprintf("[Binary file: %s, size: %d bytes]", path.Base(filepath.ToSlash(rel)), size)
	} else {
		res.Content = decodeText(data)
	}
	return tooldef.OK(res)
}

// readFileSniffed reads a file of the skill unless its first bytes say it
// is binary, in which case only its size is returned. Content sniffing
// rather than file extensions: skills ship text under every extension. The
// file is opened under the rule (OpenFile), so it is at most MaxFileBytes.
func (l *Library) readFileSniffed(s Skill, rel string) (data []byte, size int64, binary bool, err error) {
	f, fi, err := l.OpenFile(s, rel)
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, 0, false, err
	}
	head = head[:n]
	if looksBinary(head, n == sniffLen) {
		return nil, fi.Size(), true, nil
	}
	rest, err := safefile.ReadLimited(f, fi.Size()-int64(n), MaxFileBytes-int64(n))
	if errors.Is(err, safefile.ErrTooLarge) {
		return nil, 0, false, fileRefusal(rel, &safefile.TooLargeError{Path: rel, Size: -1, Limit: MaxFileBytes})
	}
	if err != nil {
		return nil, 0, false, err
	}
	return append(head, rest...), fi.Size(), false, nil
}

// looksBinary: a NUL byte or invalid UTF-8. When the sample was cut short,
// a character split by the cut is not held against it.
func looksBinary(b []byte, truncated bool) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if truncated {
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					b = b[:i]
				}
				break
			}
		}
	}
	return !utf8.Valid(b)
}

// Which support files linked_files announces: references/*.md; templates/
// recursively, text formats only; assets/ everything; scripts/*, runnable
// scripts only. The same sets as the original.
var (
	templateExts = []string{".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh"}
	scriptExts   = []string{".py", ".sh", ".bash", ".js", ".ts", ".rb"}
	// otherExts are the loose files worth offering when a lookup misses.
	otherExts = []string{".md", ".py", ".yaml", ".yml", ".json", ".tex", ".sh"}
)

func groupLinked(files []File) *linkedFiles {
	var g linkedFiles
	for _, f := range files {
		top, rest, nested := strings.Cut(f.Path, "/")
		if !nested {
			continue
		}
		ext := path.Ext(f.Path)
		switch top {
		case "references":
			if !strings.Contains(rest, "/") && ext == ".md" {
				g.References = append(g.References, f.Path)
			}
		case "templates":
			if slices.Contains(templateExts, ext) {
				g.Templates = append(g.Templates, f.Path)
			}
		case "assets":
			g.Assets = append(g.Assets, f.Path)
		case "scripts":
			if !strings.Contains(rest, "/") && slices.Contains(scriptExts, ext) {
				g.Scripts = append(g.Scripts, f.Path)
			}
		}
	}
	if g.References == nil && g.Templates == nil && g.Assets == nil && g.Scripts == nil {
		return nil
	}
	return &g
}

func groupAvailable(files []File) availableFiles {
	var g availableFiles
	for _, f := range files {
		if f.Path == skillFile {
			continue
		}
		top, _, nested := strings.Cut(f.Path, "/")
		if !nested {
			top = ""
		}
		switch top {
		case "references":
			g.References = append(g.References, f.Path)
		case "templates":
			g.Templates = append(g.Templates, f.Path)
		case "assets":
			g.Assets = append(g.Assets, f.Path)
		case "scripts":
			g.Scripts = append(g.Scripts, f.Path)
		default:
			if slices.Contains(otherExts, path.Ext(f.Path)) {
				g.Other = append(g.Other, f.Path)
			}
		}
	}
	return g
}
