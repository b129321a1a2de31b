// Package dotenv reads `.env` files the way the Python Hermes does: with
// python-dotenv 1.2.2 (the version hermes-agent pins), called with
// override=True and interpolation on, after its own decoding steps. The
// Hermes home's .env is shared with the original, so a key must mean the
// same to both programs byte for byte: the quirks are part of the format.
//
// What that means, in brief (testdata/*.txtar pin each rule against the
// real python-dotenv):
//   - one KEY=value per line, an optional `export `, spaces around `=`;
//     a key is any run of characters but `=`, `#` and whitespace, or a
//     single-quoted string;
//   - an unquoted value runs to the end of the line; ` #` (whitespace then
//     #) starts a comment, a # inside a word does not; trailing whitespace
//     goes;
//   - "double quotes" and 'single quotes' may span lines; in double quotes
//     \\ \' \" \a \b \f \n \r \t \v are escapes, in single quotes only \\
//     and \'; any other backslash stays;
//   - ${VAR} and ${VAR:-default} are expanded in every value, single-quoted
//     ones included, from the process environment overlaid with the file's
//     earlier keys (a set but empty variable is "", not the default); $VAR
//     is not a reference;
//   - a line without `=` names a key with no value: nothing is set, and a
//     later ${KEY} is "";
//   - a statement that does not parse is skipped and reported; an
//     unterminated quote runs on to the next quote of its kind.
//
// Whitespace is Python's (str.isspace), not Go's: see internal/pystr.
package dotenv

import (
	"regexp"
	"strings"

	"github.com/hermes-go/hermes/internal/pystr"
)

// Binding is one statement of a .env file.
type Binding struct {
	Key string
	// Value is the text after `=`, quotes and escapes decoded, references
	// not yet expanded (see Resolve).
	Value string
	// HasValue is false for a line that names a key without `=`:
	// python-dotenv's None, which sets nothing.
	HasValue bool
	// Line is the 1-based line the statement starts on.
	Line int
}

var (
	ws     = `[` + pystr.SpaceClass + `]`
	hspace = `[` + strings.NewReplacer(`\n`, "", `\r`, "").Replace(pystr.SpaceClass) + `]`

	reMultilineSpace   = anchored(ws + `*`)
	reExport           = anchored(`(?:export` + hspace + `+)?`)
	reSingleQuotedKey  = anchored(`'([^']+)'`)
	reUnquotedKey      = anchored(`([^=#` + pystr.SpaceClass + `]+)`)
	reSpace            = anchored(hspace + `*`)
	reEqualSign        = anchored(`(=` + hspace + `*)`)
	reSingleQuoted     = anchored(`'((?:\\'|[^'])*)'`)
	reDoubleQuoted     = anchored(`"((?:\\"|[^"])*)"`)
	reUnquoted         = anchored(`([^\r\n]*)`)
	reComment          = anchored(`(?:` + hspace + `*#[^\r\n]*)?`)
	reEndOfLine        = anchored(hspace + `*(?:\r\n|\n|\r|$)`)
	reRestOfLine       = anchored(`[^\r\n]*(?:\r|\n|\r\n)?`)
	reValueComment     = regexp.MustCompile(ws + `+#.*`)
	reDoubleQuoteEscap = regexp.MustCompile(`\\[\\'"abfnrtv]`)
	reSingleQuoteEscap = regexp.MustCompile(`\\[\\']`)
	reNewline          = regexp.MustCompile(`\r\n|\n|\r`)
)

// anchored compiles a pattern that must match where the reader stands.
func anchored(p string) *regexp.Regexp { return regexp.MustCompile(`^(?:` + p + `)`) }

// reader walks the text; a failed match is a statement that does not
// parse.
type reader struct {
	text string
	pos  int
	line int
}

type parseError struct{}

func (r *reader) peek() byte {
	if r.pos < len(r.text) {
		return r.text[r.pos]
	}
	return 0
}

func (r *reader) atEnd() bool { return r.pos >= len(r.text) }

// read matches re at the current position and moves past it, returning
// its first group (or "" when it has none).
func (r *reader) read(re *regexp.Regexp) (string, bool) {
	m := re.FindStringSubmatchIndex(r.text[r.pos:])
	if m == nil {
		return "", false
	}
	consumed := r.text[r.pos : r.pos+m[1]]
	r.line += len(reNewline.FindAllStringIndex(consumed, -1))
	group := ""
	if len(m) >= 4 && m[2] >= 0 {
		group = r.text[r.pos+m[2] : r.pos+m[3]]
	}
	r.pos += m[1]
	return group, true
}

func (r *reader) must(re *regexp.Regexp) string {
	g, ok := r.read(re)
	if !ok {
		panic(parseError{})
	}
	return g
}

// Parse splits text (already decoded: see Decode) into its statements, in
// file order, and returns the lines of statements it had to skip. It never
// fails: a .env file is read as far as it can be, as the original does.
func Parse(text string) (bindings []Binding, skipped []int) {
	r := &reader{text: text, line: 1}
	for !r.atEnd() {
		b, ok, bad := r.statement()
		switch {
		case bad > 0:
			skipped = append(skipped, bad)
		case ok:
			bindings = append(bindings, b)
		}
	}
	return bindings, skipped
}

// statement reads one statement: a binding (ok), nothing (a comment or
// the end), or a line that does not parse (bad is its line).
func (r *reader) statement() (b Binding, ok bool, bad int) {
	r.read(reMultilineSpace)
	if r.atEnd() {
		return Binding{}, false, 0
	}
	start := r.line
	defer func() {
		if v := recover(); v != nil {
			if _, isParse := v.(parseError); !isParse {
				panic(v)
			}
			r.read(reRestOfLine)
			b, ok, bad = Binding{}, false, start
		}
	}()
	r.read(reExport)
	key, hasKey := r.key()
	r.read(reSpace)
	b = Binding{Key: key, Line: start}
	if r.peek() == '=' {
		r.must(reEqualSign)
		b.Value, b.HasValue = r.value(), true
	}
	r.read(reComment)
	r.must(reEndOfLine)
	return b, hasKey, 0
}

// key reads a key; a # where a key would start makes the line a comment.
func (r *reader) key() (string, bool) {
	switch r.peek() {
	case '#':
		return "", false
	case '\'':
		return r.must(reSingleQuotedKey), true
	}
	return r.must(reUnquotedKey), true
}

func (r *reader) value() string {
	switch r.peek() {
	case '\'':
		return reSingleQuoteEscap.ReplaceAllStringFunc(r.must(reSingleQuoted), unescape)
	case '"':
		return reDoubleQuoteEscap.ReplaceAllStringFunc(r.must(reDoubleQuoted), unescape)
	case 0, '\n', '\r':
		if r.atEnd() || r.peek() != 0 {
			return ""
		}
	}
	v := r.must(reUnquoted)
	if loc := reValueComment.FindStringIndex(v); loc != nil {
		v = v[:loc[0]]
	}
	return pystr.RStrip(v)
}

// unescape decodes one two-character escape as Python's unicode-escape
// codec does.
func unescape(esc string) string {
	switch esc[1] {
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 'f':
		return "\f"
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case 'v':
		return "\v"
	}
	return esc[1:] // \\ \' \"
}
