package configmigrate

import (
	"bytes"
	"fmt"
)

// lexMode is where a TOML line scanner stands at the end of a line.
type lexMode uint8

const (
	lexNormal    lexMode = iota
	lexMLBasic           // inside """ ... """
	lexMLLiteral         // inside ''' ... '''
)

// tomlLine is one physical line of a config.toml as the scanner saw it.
type tomlLine struct {
	start, end int // byte range, line terminator included
	// top is true when the line begins at the top level of the document:
	// not inside a multi-line string and not inside a multi-line array.
	top bool
}

// scanLines splits text into lines and records for each whether it starts
// at the top level. It is a lexer, not a parser: it never fails, so text
// that is not valid TOML still gets an answer (the parser reports the
// error afterwards, with its own line number).
func scanLines(text []byte) []tomlLine {
	var lines []tomlLine
	mode, depth := lexNormal, 0
	for start := 0; start < len(text); {
		end := len(text)
		if i := bytes.IndexByte(text[start:], '\n'); i >= 0 {
			end = start + i + 1
		}
		lines = append(lines, tomlLine{start: start, end: end, top: mode == lexNormal && depth == 0})
		mode, depth = lexLine(text[start:end], mode, depth)
		start = end
	}
	return lines
}

// lexLine advances the scanner over one line. Single-line strings and
// comments end at the line's end whatever they contain; only multi-line
// strings and bracket depth carry over to the next line.
func lexLine(line []byte, mode lexMode, depth int) (lexMode, int) {
	i := 0
	for i < len(line) {
		switch mode {
		case lexMLBasic:
			switch line[i] {
			case '\\':
				// An escape, including a line-ending backslash: the
				// escaped byte never closes the string.
				i += 2
			case '"':
				n := quoteRun(line[i:], '"')
				if n >= 3 {
					// TOML lets up to two quotes stand right before the
					// closing three ("""" is a quote, then the end).
					mode = lexNormal
				}
				i += n
			default:
				i++
			}
		case lexMLLiteral:
			if line[i] == '\'' {
				n := quoteRun(line[i:], '\'')
				if n >= 3 {
					mode = lexNormal
				}
				i += n
			} else {
				i++
			}
		default:
			switch c := line[i]; c {
			case '#':
				return mode, depth
			case '"', '\'':
				if quoteRun(line[i:], c) >= 3 {
					mode = lexMLBasic
					if c == '\'' {
						mode = lexMLLiteral
					}
					i += 3
					continue
				}
				i = skipString(line, i, c)
			case '[', '{':
				depth++
				i++
			case ']', '}':
				if depth > 0 {
					depth--
				}
				i++
			default:
				i++
			}
		}
	}
	return mode, depth
}

// quoteRun counts the quote bytes q at the start of b.
func quoteRun(b []byte, q byte) int {
	n := 0
	for n < len(b) && b[n] == q {
		n++
	}
	return n
}

// skipString returns the offset after the single-line string opened at
// line[i]; an unterminated one runs to the end of the line, as TOML ends
// it there too (with an error the parser reports).
func skipString(line []byte, i int, q byte) int {
	for j := i + 1; j < len(line); j++ {
		switch line[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case '\n':
			return j
		case q:
			return j + 1
		}
	}
	return len(line)
}

// markerKind tells a begin marker line from an end marker line.
type markerKind uint8

const (
	notMarker markerKind = iota
	beginMarker
	endMarker
)

// markerOf reports whether a line is a marker: the marker text alone at
// the top level, optionally followed by spaces, tabs and a CR. Editors
// add trailing blanks; nobody indents a marker on purpose.
func markerOf(text []byte, l tomlLine) markerKind {
	if !l.top {
		return notMarker
	}
	s := string(bytes.TrimRight(text[l.start:l.end], " \t\r\n"))
	switch s {
	case BeginMarker:
		return beginMarker
	case EndMarker:
		return endMarker
	}
	return notMarker
}

// MarkerError is a config.toml whose marker lines do not enclose exactly
// one managed block. Hermes cannot tell which text is its own, so it
// changes nothing; the message says which lines to fix.
type MarkerError struct {
	// Lines are the 1-based numbers of the marker lines at fault.
	Lines []int
	msg   string
}

func (e *MarkerError) Error() string { return e.msg }

// markerProblem builds the error for the first marker that breaks the
// begin, end pattern. marks holds every marker line in file order.
func markerProblem(marks []marker) *MarkerError {
	fail := func(lines []int, format string, args ...any) *MarkerError {
		return &MarkerError{Lines: lines, msg: fmt.Sprintf(format, args...) + ", then run again; nothing was written"}
	}
	var open *marker
	var closed *[2]marker
	for i := range marks {
		m := marks[i]
		switch {
		case m.kind == beginMarker && open != nil:
			return fail([]int{open.line, m.line},
				"config.toml line %d starts Hermes' managed block again before the block begun on line %d has ended; delete one of the two begin marker lines (%d or %d) or add the end marker line %q above line %d",
				m.line, open.line, open.line, m.line, EndMarker, m.line)
		case m.kind == beginMarker && closed != nil:
			return fail([]int{closed[0].line, closed[1].line, m.line},
				"config.toml holds two Hermes-managed blocks (one starts on line %d, another on line %d); delete the block you do not want, marker lines included",
				closed[0].line, m.line)
		case m.kind == beginMarker:
			open = &marks[i]
		case open != nil:
			closed, open = &[2]marker{*open, m}, nil
		case closed != nil:
			return fail([]int{closed[1].line, m.line},
				"config.toml line %d ends Hermes' managed block a second time (it already ended on line %d); delete line %d",
				m.line, closed[1].line, m.line)
		default:
			return fail([]int{m.line},
				"config.toml line %d ends Hermes' managed block but no begin marker comes before it; delete line %d or add the begin marker line %q where the block should start",
				m.line, m.line, BeginMarker)
		}
	}
	if open != nil {
		return fail([]int{open.line},
			"config.toml line %d starts Hermes' managed block but no end marker follows; delete line %d or add the end marker line %q where the block should end",
			open.line, open.line, EndMarker)
	}
	return nil
}

type marker struct {
	kind markerKind
	line int // 1-based
	l    tomlLine
}

// blockSpan is where the managed block sits in a file (BOM removed).
type blockSpan struct {
	begin, end int // the marker lines, end marker's terminator included
	// sep is the length of the blank line after the block that the
	// insertion added ("\n" or "\r\n"); it belongs to the block.
	sep int
	// pre is the length of the line terminator before the block that
	// insertion added to a file without a final newline; the block then
	// ends the file without one too.
	pre int
	// finalNL is false when the end marker is the last line and has no
	// terminator.
	finalNL bool
}

// findBlock locates the managed block. ok is false when there is none;
// err is a *MarkerError when the markers do not make exactly one block.
func findBlock(text []byte) (span blockSpan, ok bool, err error) {
	lines := scanLines(text)
	var marks []marker
	for i, l := range lines {
		if k := markerOf(text, l); k != notMarker {
			marks = append(marks, marker{kind: k, line: i + 1, l: l})
		}
	}
	if len(marks) == 0 {
		return span, false, nil
	}
	if e := markerProblem(marks); e != nil {
		return span, false, e
	}
	b, e := marks[0], marks[1]
	span = blockSpan{begin: b.l.start, end: e.l.end, finalNL: bytes.HasSuffix(text[:e.l.end], []byte("\n"))}
	if span.finalNL {
		if e.line < len(lines) {
			next := text[lines[e.line].start:lines[e.line].end]
			if string(next) == "\n" || string(next) == "\r\n" {
				span.sep = len(next)
			}
		}
	} else if span.begin > 0 {
		span.pre = 1
		if bytes.HasSuffix(text[:span.begin], []byte("\r\n")) {
			span.pre = 2
		}
	}
	return span, true, nil
}

// newlineOf is the file's line ending style, taken from its first line
// ending: the block is written in it so the file stays uniform.
func newlineOf(text []byte) string {
	i := bytes.IndexByte(text, '\n')
	if i > 0 && text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
