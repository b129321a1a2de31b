package toolsets

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Registry holds every toolset this build knows, in presentation order.
type Registry struct {
	toolsets []tooldef.Toolset
}

// validToolName is the name rule every MCP client accepts (Gemini CLI is
// the strictest: [A-Za-z0-9_.-], at most 63 characters).
func validToolName(name string) bool {
	if len(name) == 0 || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// Reserved toolset names for --toolsets.
const (
	SelectAll     = catalog.SelectAll
	SelectDefault = catalog.SelectDefault
)

// NewRegistry checks the declarations and returns a registry. A bad
// declaration is a programming error, reported with the tool's name.
func NewRegistry(toolsets ...tooldef.Toolset) (*Registry, error) {
	seenSets := map[string]bool{}
	seenTools := map[string]string{}
	var errs []error
	out := make([]tooldef.Toolset, 0, len(toolsets))
	for _, ts := range toolsets {
		switch {
		case ts.Name == "" || ts.Name == SelectAll || ts.Name == SelectDefault || strings.ContainsAny(ts.Name, ", "):
			errs = append(errs, fmt.Errorf("toolset name %q is empty or reserved", ts.Name))
		case seenSets[ts.Name]:
			errs = append(errs, fmt.Errorf("toolset %q declared twice", ts.Name))
		}
		seenSets[ts.Name] = true
		ts.Tools = slices.Clone(ts.Tools)
		for i, t := range ts.Tools {
			if prev, dup := seenTools[t.Name]; dup {
				errs = append(errs, fmt.Errorf("tool %q declared in toolsets %q and %q", t.Name, prev, ts.Name))
			}
			seenTools[t.Name] = ts.Name
			checked, err := checkTool(t)
			if err != nil {
				errs = append(errs, fmt.Errorf("toolset %q: tool %q: %w", ts.Name, t.Name, err))
			}
			ts.Tools[i] = checked
		}
		out = append(out, ts)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Registry{toolsets: out}, nil
}

// checkTool checks a declaration.
func checkTool(t tooldef.Tool) (tooldef.Tool, error) {
	if !validToolName(t.Name) {
		return t, errors.New("name must be 1-63 characters of [A-Za-z0-9_.-]")
	}
	if strings.TrimSpace(t.Description) == "" {
		return t, errors.New("description is empty")
	}
	if t.Handler == nil {
		return t, errors.New("handler is nil")
	}
	if t.Hints.ReadOnly && t.Hints.Destructive {
		return t, errors.New("hints say both read-only and destructive")
	}
	var err error
	if t.InputSchema, err = objectSchema(t.InputSchema); err != nil {
		return t, fmt.Errorf("input schema: %w", err)
	}
	if len(t.OutputSchema) > 0 {
		if t.OutputSchema, err = objectSchema(t.OutputSchema); err != nil {
			return t, fmt.Errorf("output schema: %w", err)
		}
	}
	return t, nil
}

// objectSchema enforces what MCP requires of tool schemas: a JSON object
// whose type is "object". It reads only the top level, without decoding
// or validating the whole schema: start-up would pay that for every tool
// before the first response. The full check happens off that path, where
// tools/list encodes the schemas (an invalid one fails the listing with
// the tool's name), and for every shipped tool in TestToolSchemaSnapshots.
func objectSchema(raw json.RawMessage) (json.RawMessage, error) {
	typ, ok := topLevelMember(raw, "type")
	if !ok {
		if i := skipSpace(raw, 0); i >= len(raw) || raw[i] != '{' {
			return nil, errors.New("not a JSON object")
		}
		typ = []byte("missing")
	}
	if string(typ) != `"object"` {
		return nil, fmt.Errorf(`type is %s, MCP requires "object"`, typ)
	}
	return raw, nil
}

// topLevelMember returns the raw value of a top-level member of a JSON
// object, walking only its top level; false when obj is not an object or
// has no such member.
func topLevelMember(obj []byte, name string) ([]byte, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i = skipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		keyEnd := skipString(obj, i)
		key := obj[i+1 : max(keyEnd-1, i+1)]
		i = skipSpace(obj, keyEnd)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		valueStart := skipSpace(obj, i+1)
		valueEnd := skipValue(obj, valueStart)
		if string(key) == name {
			return bytes.TrimSpace(obj[valueStart:valueEnd]), true
		}
		i = skipSpace(obj, valueEnd)
		if i >= len(obj) || obj[i] != ',' {
			break
		}
		i = skipSpace(obj, i+1)
	}
	return nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// skipValue returns the index just past the value starting at b[i] (for a
// scalar, the index of the ',' or '}' after it).
func skipValue(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = skipString(b, j) - 1
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return j // the enclosing object ends: a scalar value ended here
			}
			if depth--; depth == 0 {
				return j + 1
			}
		case ',':
			if depth == 0 {
				return j
			}
		}
	}
	return len(b)
}

// Toolsets returns the registered toolsets.
func (r *Registry) Toolsets() []tooldef.Toolset { return r.toolsets }

// Selection says which tools the user wants.
type Selection struct {
	// Toolsets names toolsets, or "all", or "default". Empty means default.
	Toolsets []string
	// ExcludeTools removes single tools from the enabled toolsets.
	ExcludeTools []string
}

// Entry is one tool and whether it is exposed.
type Entry struct {
	Toolset string
	// ToolsetInstructions is the toolset's advice for the instructions.
	ToolsetInstructions string
	Tool                tooldef.Tool
	Enabled             bool
	// Reason says why a tool is hidden; empty when enabled.
	Reason string
}

// Plan is the outcome of a selection: every registered tool, enabled or
// hidden with a reason.
type Plan struct {
	Entries []Entry
	// Toolsets lists the toolsets that were asked for, after expanding
	// "all" and "default".
	Toolsets []string
}

// Enabled returns the exposed tools in registry order.
func (p Plan) Enabled() []Entry {
	var out []Entry
	for _, e := range p.Entries {
		if e.Enabled {
			out = append(out, e)
		}
	}
	return out
}

// Resolve applies a selection. Unknown toolset or tool names are errors that
// list the valid names, so a typo never silently disables a tool.
func (r *Registry) Resolve(sel Selection) (Plan, error) {
	wanted, excluded, err := catalog.Select(r.asCatalog(), sel.Toolsets, sel.ExcludeTools)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{Toolsets: wanted}
	for _, ts := range r.toolsets {
		on := slices.Contains(wanted, ts.Name)
		for _, t := range ts.Tools {
			e := Entry{Toolset: ts.Name, ToolsetInstructions: ts.Instructions, Tool: t}
			switch {
			case !on:
				e.Reason = fmt.Sprintf("toolset %q is not enabled: add it to hermes_tools.toolsets in config.yaml (e.g. toolsets: [default, %s]) or pass --toolsets default,%s", ts.Name, ts.Name, ts.Name)
			case excluded[t.Name]:
				e.Reason = "excluded by --exclude-tools"
			default:
				if t.Check != nil {
					if err := t.Check(); err != nil {
						e.Reason = err.Error()
						break
					}
				}
				e.Enabled = true
			}
			plan.Entries = append(plan.Entries, e)
		}
	}
	return plan, nil
}

// asCatalog is what a selection reads of the registered toolsets.
func (r *Registry) asCatalog() []catalog.Toolset {
	out := make([]catalog.Toolset, len(r.toolsets))
	for i, ts := range r.toolsets {
		out[i] = catalog.Toolset{Name: ts.Name, Default: ts.Default, Tools: make([]catalog.Tool, len(ts.Tools))}
		for j, t := range ts.Tools {
			out[i].Tools[j].Name = t.Name
		}
	}
	return out
}

// EveryTool is the plan that exposes every declared tool, whatever its
// availability check says, for tests of what tools advertise and do.
func EveryTool(toolsets ...tooldef.Toolset) Plan {
	var p Plan
	for _, ts := range toolsets {
		p.Toolsets = append(p.Toolsets, ts.Name)
		for _, t := range ts.Tools {
			p.Entries = append(p.Entries, Entry{Toolset: ts.Name, ToolsetInstructions: ts.Instructions, Tool: t, Enabled: true})
		}
	}
	return p
}
