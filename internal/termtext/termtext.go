// Package termtext makes text that came from a file, a database, a page or
// a model safe to print to a terminal. Such text is data: an ESC starts a
// control sequence that can retitle the window, move the cursor or clear
// the screen; BEL rings; CR rewrites the line; the bidi overrides make
// what is shown differ from what is there. Each of them is shown escaped,
// the way Go writes it in a string literal, so the user sees that it is
// there and what it is, and nothing reaches the terminal as a control.
package termtext

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Line is s for a single line of output (a table cell, a name): every
// control character is escaped, newline and tab included.
func Line(s string) string { return escape(s, false) }

// Text is s for output that may span lines (a reason, a report): newline
// and tab stay as they are, every other control character is escaped.
func Text(s string) string { return escape(s, true) }

// Unsafe reports whether r is shown escaped: C0 controls, DEL, C1
// controls, the bidi embeddings and overrides (U+202A–U+202E) and isolates
// (U+2066–U+2069).
func Unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func escape(s string, keepLines bool) string {
	clean := true
	for i, r := range s {
		if Unsafe(r) && !(keepLines && (r == '\n' || r == '\t')) || r == utf8.RuneError && invalidAt(s, i) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && invalidAt(s, i):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\a':
			b.WriteString(`\a`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\v':
			b.WriteString(`\v`)
		case r < 0x80 && Unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// invalidAt reports whether the RuneError at s[i:] stands for a byte that
// is not UTF-8 (shown as \xNN) rather than a real U+FFFD in the text.
func invalidAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 1
}

// Writer passes text to a terminal as Text does, for output written in
// pieces (a streamed answer): a character split between two writes is
// held back until it is whole, so it is not shown as escaped bytes.
type Writer struct {
	w    io.Writer
	tail []byte // the start of a character the next write completes
}

// NewWriter returns a Writer onto w. It is not safe for concurrent use;
// serialise writes above it.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it, reporting len(p) on success: every byte
// given was taken, whether shown as itself or escaped.
func (t *Writer) Write(p []byte) (int, error) {
	buf := append(t.tail, p...)
	cut := len(buf)
	// Hold back a trailing, possibly incomplete character (at most
	// UTFMax-1 bytes) that a later write may complete.
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	t.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, Text(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held-back incomplete character, escaped.
func (t *Writer) Flush() error {
	if len(t.tail) == 0 {
		return nil
	}
	s := Text(string(t.tail))
	t.tail = nil
	_, err := io.WriteString(t.w, s)
	return err
}
