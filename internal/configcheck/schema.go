package configcheck

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"
)

// keysText is the key tree of config.yaml as the original knows it; its
// header says where each part was read and how the syntax reads.
//
//go:embed keys.txt
var keysText string

// mode says how strictly a section's unknown keys are reported.
type mode int

const (
	// partial sections report an unknown key only when it is a near miss
	// of a known one: DEFAULT_CONFIG is not every key the original reads,
	// so a name far from all known keys may be real.
	partial mode = iota
	// closed sections report every unknown key: their known keys are the
	// full list their reader accepts.
	closed
	// open sections are user content the original passes on unread by
	// itself (env, headers, extra_body, ...); nothing in them is checked.
	open
)

// node is one key of the tree and what may be under it.
type node struct {
	mode     mode
	children map[string]*node
	// order lists children as keys.txt does, so suggestions prefer the
	// key written first on a tie.
	order []string
	// names: the mapping's keys are names the user chooses (one MCP server
	// each, say); every value is described by entry.
	names bool
	// list: a sequence of items (or one mapping) described by entry.
	list  bool
	entry *node
	// value names the check a scalar value gets ("provider"), if any.
	value string
}

func newNode() *node { return &node{children: map[string]*node{}} }

// known reports the node's child keys in keys.txt order.
func (n *node) known() []string { return n.order }

func (n *node) add(key string, child *node) {
	if _, dup := n.children[key]; !dup {
		n.order = append(n.order, key)
	}
	n.children[key] = child
}

// parseKeys reads keys.txt into the tree's root. The text is ours and
// fixed at build time, so a mistake in it is a programming error the
// package test reports.
func parseKeys(text string) (*node, error) {
	root := newNode()
	templates := map[string]*node{}
	type frame struct {
		indent int
		n      *node
	}
	// stack[i] is the node whose children lines at indent stack[i].indent+2
	// describe; the root sits at indent -2.
	stack := []frame{{indent: -2, n: root}}
	var pendingTemplate []struct {
		into *node
		name string
		line int
	}
	for i, raw := range strings.Split(text, "\n") {
		lineNo := i + 1
		line := strings.TrimRight(raw, " \t\r")
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		indent := len(line) - len(trimmed)
		if indent%2 != 0 {
			return nil, fmt.Errorf("keys.txt line %d: indent %d is not a multiple of two", lineNo, indent)
		}
		for len(stack) > 1 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		if indent != parent.indent+2 {
			return nil, fmt.Errorf("keys.txt line %d: indented %d, want %d", lineNo, indent, parent.indent+2)
		}
		fields := strings.Fields(trimmed)
		if strings.HasPrefix(fields[0], "@") {
			if indent != 0 || len(fields) != 1 {
				return nil, fmt.Errorf("keys.txt line %d: a template is one name at the top level", lineNo)
			}
			t := newNode()
			templates[fields[0]] = t
			stack = append(stack, frame{indent: indent, n: t})
			continue
		}
		target := parent.n
		if target.names || target.list {
			target = target.entry
		}
		if len(fields) > 1 && !isModifier(fields[1]) {
			for _, f := range fields {
				if isModifier(f) {
					return nil, fmt.Errorf("keys.txt line %d: modifier %q on a line of several keys", lineNo, f)
				}
				target.add(f, newNode())
			}
			continue
		}
		key, child := fields[0], newNode()
		for _, m := range fields[1:] {
			switch {
			case m == "!":
				child.mode = closed
			case m == "...":
				child.mode = open
			case m == "*":
				child.names, child.entry = true, newNode()
			case m == "[]":
				child.list, child.entry = true, newNode()
			case strings.HasPrefix(m, "="):
				child.value = m[1:]
			case strings.HasPrefix(m, "@"):
				pendingTemplate = append(pendingTemplate, struct {
					into *node
					name string
					line int
				}{child, m, lineNo})
			default:
				return nil, fmt.Errorf("keys.txt line %d: unknown modifier %q", lineNo, m)
			}
		}
		// "!" after "*" or "[]" closes the entries, not the name level.
		if (child.names || child.list) && child.mode == closed {
			child.mode, child.entry.mode = partial, closed
		}
		target.add(key, child)
		stack = append(stack, frame{indent: indent, n: child})
	}
	for _, p := range pendingTemplate {
		t, ok := templates[p.name]
		if !ok {
			return nil, fmt.Errorf("keys.txt line %d: no template %s", p.line, p.name)
		}
		into := p.into
		if into.names || into.list {
			into = into.entry
		}
		for _, k := range t.order {
			into.add(k, t.children[k])
		}
	}
	return root, nil
}

func isModifier(s string) bool {
	return s == "!" || s == "..." || s == "*" || s == "[]" ||
		strings.HasPrefix(s, "=") || strings.HasPrefix(s, "@")
}

// rootKeys is the parsed tree. Parsing a fixed embedded text cannot fail
// at run time once the package test passes; a failure here means
// keys.txt was edited badly, and nothing can be checked without it.
var rootKeys = func() *node {
	n, err := parseKeys(keysText)
	if err != nil {
		panic(err)
	}
	return n
}()

// TopLevelKeys lists the top-level keys the original knows (and ours,
// hermes_tools), for callers that offer completions or suggestions.
func TopLevelKeys() []string { return slices.Clone(rootKeys.order) }
