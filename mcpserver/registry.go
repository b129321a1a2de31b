package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Registry holds every toolset this build knows, in presentation order.
type Registry struct {
	toolsets []tooldef.Toolset
}

// toolNameRE is the name rule every MCP client accepts (Gemini CLI is the
// strictest: [A-Za-z0-9_.-], at most 63 characters).
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,63}$`)

// Reserved toolset names for --toolsets.
const (
	SelectAll     = "all"
	SelectDefault = "default"
)

// NewRegistry checks the declarations and returns a registry. A bad
// declaration is a programming error, reported with the tool's name.
func NewRegistry(toolsets ...tooldef.Toolset) (*Registry, error) {
	seenSets := map[string]bool{}
	seenTools := map[string]string{}
	var errs []error
	for _, ts := range toolsets {
		switch {
		case ts.Name == "" || ts.Name == SelectAll || ts.Name == SelectDefault || strings.ContainsAny(ts.Name, ", "):
			errs = append(errs, fmt.Errorf("toolset name %q is empty or reserved", ts.Name))
		case seenSets[ts.Name]:
			errs = append(errs, fmt.Errorf("toolset %q declared twice", ts.Name))
		}
		seenSets[ts.Name] = true
		for _, t := range ts.Tools {
			if prev, dup := seenTools[t.Name]; dup {
				errs = append(errs, fmt.Errorf("tool %q declared in toolsets %q and %q", t.Name, prev, ts.Name))
			}
			seenTools[t.Name] = ts.Name
			if err := checkTool(t); err != nil {
				errs = append(errs, fmt.Errorf("toolset %q: tool %q: %w", ts.Name, t.Name, err))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Registry{toolsets: toolsets}, nil
}

func checkTool(t tooldef.Tool) error {
	if !toolNameRE.MatchString(t.Name) {
		return errors.New("name must be 1-63 characters of [A-Za-z0-9_.-]")
	}
	if strings.TrimSpace(t.Description) == "" {
		return errors.New("description is empty")
	}
	if t.Handler == nil {
		return errors.New("handler is nil")
	}
	if t.Hints.ReadOnly && t.Hints.Destructive {
		return errors.New("hints say both read-only and destructive")
	}
	if err := checkObjectSchema(t.InputSchema); err != nil {
		return fmt.Errorf("input schema: %w", err)
	}
	if len(t.OutputSchema) > 0 {
		if err := checkObjectSchema(t.OutputSchema); err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
	}
	return nil
}

// checkObjectSchema enforces what MCP requires of tool schemas: a JSON
// object whose type is "object".
func checkObjectSchema(raw json.RawMessage) error {
	var s struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if s.Type != "object" {
		return fmt.Errorf(`type is %q, MCP requires "object"`, s.Type)
	}
	return nil
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
	Tool    tooldef.Tool
	Enabled bool
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
	wanted, err := r.expandToolsets(sel.Toolsets)
	if err != nil {
		return Plan{}, err
	}
	excluded := map[string]bool{}
	for _, name := range sel.ExcludeTools {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !r.hasTool(name) {
			return Plan{}, fmt.Errorf("unknown tool %q (known tools: %s)", name, strings.Join(r.toolNames(), ", "))
		}
		excluded[name] = true
	}
	plan := Plan{Toolsets: wanted}
	for _, ts := range r.toolsets {
		on := slices.Contains(wanted, ts.Name)
		for _, t := range ts.Tools {
			e := Entry{Toolset: ts.Name, Tool: t}
			switch {
			case !on:
				e.Reason = fmt.Sprintf("toolset %q is not enabled (add it to --toolsets)", ts.Name)
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

func (r *Registry) expandToolsets(names []string) ([]string, error) {
	var out []string
	add := func(n string) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	addDefault := func() {
		for _, ts := range r.toolsets {
			if ts.Default {
				add(ts.Name)
			}
		}
	}
	if len(names) == 0 {
		addDefault()
		return out, nil
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
		case n == SelectAll:
			for _, ts := range r.toolsets {
				add(ts.Name)
			}
		case n == SelectDefault:
			addDefault()
		case r.hasToolset(n):
			add(n)
		default:
			return nil, fmt.Errorf("unknown toolset %q (known: %s, or %q, %q)",
				n, strings.Join(r.toolsetNames(), ", "), SelectAll, SelectDefault)
		}
	}
	return out, nil
}

func (r *Registry) hasToolset(name string) bool {
	return slices.ContainsFunc(r.toolsets, func(ts tooldef.Toolset) bool { return ts.Name == name })
}

func (r *Registry) hasTool(name string) bool { return slices.Contains(r.toolNames(), name) }

func (r *Registry) toolsetNames() []string {
	var out []string
	for _, ts := range r.toolsets {
		out = append(out, ts.Name)
	}
	return out
}

func (r *Registry) toolNames() []string {
	var out []string
	for _, ts := range r.toolsets {
		for _, t := range ts.Tools {
			out = append(out, t.Name)
		}
	}
	return out
}
