package kanban

import (
	"fmt"
	"strings"
	"unicode"
)

// pyRepr is Python's repr() of a str, which Hermes' messages embed with
// {x!r}: single quotes unless the text holds a single quote and no double
// one, backslash escapes for the quote, backslash and control characters,
// and \x/\u/\U escapes for what Python does not print.
func pyRepr(s string) string {
	quote := '\''
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		quote = '"'
	}
	var b strings.Builder
	b.WriteRune(quote)
	for _, r := range s {
		switch {
		case r == quote || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x80 || pyPrintable(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteRune(quote)
	return b.String()
}

// pyPrintable is Python's str.isprintable for one character: letters,
// marks, numbers, punctuation, symbols and the ASCII space. Go's
// unicode.IsPrint is the same set.
func pyPrintable(r rune) bool { return unicode.IsPrint(r) }
