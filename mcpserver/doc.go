package mcpserver

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// MarkdownToolTable renders the toolsets as the README's tool table, so the
// documentation is generated from the declarations and cannot drift.
func MarkdownToolTable(toolsets []tooldef.Toolset) string {
	var b strings.Builder
	b.WriteString("| Tool | Toolset | On by default | Behaviour | What it does |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, ts := range toolsets {
		def := "no"
		if ts.Default {
			def = "yes"
		}
		for _, t := range ts.Tools {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", t.Name, ts.Name, def, hintWords(t.Hints), firstSentence(t.Description))
		}
	}
	return b.String()
}

func hintWords(h tooldef.Hints) string {
	var w []string
	switch {
	case h.ReadOnly:
		w = append(w, "read-only")
	case h.Destructive:
		w = append(w, "destructive")
	default:
		w = append(w, "writes")
	}
	if h.Idempotent {
		w = append(w, "idempotent")
	}
	if h.OpenWorld {
		w = append(w, "open-world")
	}
	return strings.Join(w, ", ")
}

// firstSentence keeps the table to one line per tool.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return strings.ReplaceAll(s, "|", `\|`)
}
