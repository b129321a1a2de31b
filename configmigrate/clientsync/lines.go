package clientsync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// lines indexes a text file by line, for the YAML and TOML editors, which
// work on whole lines: an entry is the run of lines from its key or
// header to the last line that belongs to it.
type lines struct {
	src   []byte
	start []int // start[i] is the offset of line i (0-based)
}

func indexLines(src []byte) lines {
	l := lines{src: src, start: []int{0}}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			l.start = append(l.start, i+1)
		}
	}
	if len(src) == 0 {
		l.start = nil
	}
	return l
}

func (l lines) n() int { return len(l.start) }

// end is the offset just past line i, its newline included.
func (l lines) end(i int) int {
	if i+1 < len(l.start) {
		return l.start[i+1]
	}
	return len(l.src)
}

func (l lines) text(i int) string {
	return strings.TrimRight(string(l.src[l.start[i]:l.end(i)]), "\r\n")
}

// blankOrComment reports whether line i holds nothing but blanks and a
// comment starting with '#' (both YAML and TOML comments).
func (l lines) blankOrComment(i int) bool {
	t := strings.TrimLeft(l.text(i), " \t")
	return t == "" || t[0] == '#'
}

func (l lines) blank(i int) bool { return strings.TrimSpace(l.text(i)) == "" }

func (l lines) indent(i int) int {
	t := l.text(i)
	return len(t) - len(strings.TrimLeft(t, " "))
}

// trimSpan drops the blank and comment lines ending [from, to): they
// belong to what follows the entry.
func (l lines) trimSpan(from, to int) int {
	for to > from+1 && l.blankOrComment(to-1) {
		to--
	}
	return to
}

// removeLines deletes lines [from, to) and, when separated, the blank
// line before them if there is one (the separator the insertion added). At the end of a
// file without a final newline, the newline before the span goes too, so
// the file keeps ending the way it did.
func (l lines) removeLines(from, to int, separated bool) []byte {
	start, end := l.start[from], l.end(to-1)
	atEOFNoNL := end == len(l.src) && !bytes.HasSuffix(l.src, []byte("\n"))
	if separated && from > 0 && l.blank(from-1) {
		start = l.start[from-1]
	}
	if atEOFNoNL && start > 0 {
		start--
		if start > 0 && l.src[start-1] == '\r' {
			start--
		}
	}
	out := append([]byte{}, l.src[:start]...)
	return append(out, l.src[end:]...)
}

// plainScalarRE is text that YAML and TOML-ish readers take as the string
// it is when written unquoted.
var plainScalarRE = regexp.MustCompile(`^[A-Za-z_/.][A-Za-z0-9_./@+-]*$`)

// yamlReserved are plain words YAML 1.1 (PyYAML, Goose's serde_yaml 1.2
// less so) would read as something else.
func yamlReserved(s string) bool {
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~":
		return true
	}
	return false
}

func yamlScalar(s string) string {
	if plainScalarRE.MatchString(s) && !yamlReserved(s) {
		return s
	}
	// A JSON string is a valid YAML double-quoted scalar.
	return quote(s)
}

// renderYAML writes val as block YAML lines at indent, unit more per
// level, each line ended by nl.
func renderYAML(b *strings.Builder, val object, indent, unit, nl string) {
	for _, f := range val {
		b.WriteString(indent + yamlScalar(f.key) + ":")
		switch v := f.val.(type) {
		case object:
			if len(v) == 0 {
				b.WriteString(" {}" + nl)
				continue
			}
			b.WriteString(nl)
			renderYAML(b, v, indent+unit, unit, nl)
		case []string:
			if len(v) == 0 {
				b.WriteString(" []" + nl)
				continue
			}
			b.WriteString(nl)
			for _, s := range v {
				b.WriteString(indent + unit + "- " + yamlScalar(s) + nl)
			}
		case string:
			b.WriteString(" " + yamlScalar(v) + nl)
		case bool:
			b.WriteString(" " + strconv.FormatBool(v) + nl)
		case int64:
			b.WriteString(" " + strconv.FormatInt(v, 10) + nl)
		default:
			panic(fmt.Sprintf("clientsync: cannot render %T as YAML", v))
		}
	}
}

var tomlBareRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func tomlKey(k string) string {
	if tomlBareRE.MatchString(k) {
		return k
	}
	return quote(k)
}

// tomlValue writes v inline; a JSON string is a valid TOML basic string.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case object:
		if len(v) == 0 {
			return "{}"
		}
		parts := make([]string, len(v))
		for i, f := range v {
			parts[i] = tomlKey(f.key) + " = " + tomlValue(f.val)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	panic(fmt.Sprintf("clientsync: cannot render %T as TOML", v))
}

// plainJSON turns a decoded YAML or TOML value into the plain JSON the
// format-neutral code compares and reads.
func plainJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null") // non-string keys: not an entry Hermes wrote
	}
	return b
}

// bareCR reports a carriage return not followed by a line feed: YAML
// reads one as a line break, which the line index would miss.
func bareCR(src []byte) bool {
	for i, b := range src {
		if b == '\r' && (i+1 == len(src) || src[i+1] != '\n') {
			return true
		}
	}
	return false
}

var errBareCR = errors.New("the file has a carriage return that does not end a CRLF line; hermes-migrate edits files with LF or CRLF line endings only: convert it or move it aside")

// readBack checks an edited text-format file against what the edit meant:
// a removed entry is gone, a written one reads back equal to val (nil
// val means removal). back and found are the entry as re-parsed.
func readBack(name string, val object, back []byte, found bool) error {
	switch {
	case val == nil && found:
		return errors.New("the entry is still there after removing it (a bug in clientsync; please report it)")
	case val != nil && (!found || !sameAs(back, val)):
		return fmt.Errorf("the edited entry %q does not read back as written (a bug in clientsync; please report it)", name)
	}
	return nil
}
