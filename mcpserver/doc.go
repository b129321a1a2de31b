package mcpserver

import (
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/toolsets/tooldef"
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

// firstSentence keeps the table to one line per tool. A sentence ends at
// a full stop (or ! or ?) followed by a space, outside brackets and quotes,
// that does not close an abbreviation: "(e.g. a link)" must not end it.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if end := sentenceEnd(s); end > 0 {
		s = s[:end]
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// abbreviations are the dotted words tool descriptions use mid-sentence.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx."}

// sentenceEnd returns the length of the first sentence of s, or 0 when s
// is one sentence.
func sentenceEnd(s string) int {
	depth := 0
	inCode, inQuote := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '`':
			inCode = !inCode
		case '"':
			if !inCode {
				inQuote = !inQuote
			}
		case '(', '[', '{':
			if !inCode && !inQuote {
				depth++
			}
		case ')', ']', '}':
			if !inCode && !inQuote && depth > 0 {
				depth--
			}
		case '.', '!', '?':
			if inCode || inQuote || depth > 0 || i+1 >= len(s) || s[i+1] != ' ' {
				continue
			}
			if c == '.' && endsAbbreviation(s[:i+1]) {
				continue
			}
			return i + 1
		}
	}
	return 0
}

func endsAbbreviation(s string) bool {
	word := s[strings.LastIndexByte(s, ' ')+1:]
	word = strings.TrimLeft(word, "([{\"'")
	for _, a := range abbreviations {
		if strings.EqualFold(word, a) {
			return true
		}
	}
	return false
}
