package pystr

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errNotLiteral: the text is not a list literal Python's ast.literal_eval
// would accept (as far as this reader goes).
var errNotLiteral = errors.New("not a Python list literal")

// ParseList reads a Python list literal such as "['kanban', \"web\"]",
// the form `hermes config set` stores lists in, and returns str() of each
// element: strings as they are, True/False/None and numbers as Python
// prints them, nested lists and tuples as an opaque placeholder (no
// toolset is named like one).
func ParseList(s string) ([]string, error) {
	p := &pyParser{s: s}
	p.space()
	if !p.eat('[') {
		return nil, errNotLiteral
	}
	items, _, err := p.items(']')
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, errNotLiteral
	}
	return items, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\n\r\f\v", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// items reads comma-separated values up to the closing bracket, and
// whether a comma was seen.
func (p *pyParser) items(closing byte) (out []string, comma bool, err error) {
	for {
		p.space()
		if p.eat(closing) {
			return out, comma, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, false, err
		}
		out = append(out, v)
		p.space()
		if p.eat(',') {
			comma = true
			continue
		}
		if p.eat(closing) {
			return out, comma, nil
		}
		return nil, false, errNotLiteral
	}
}

func (p *pyParser) value() (string, error) {
	if p.i >= len(p.s) {
		return "", errNotLiteral
	}
	switch c := p.s[p.i]; {
	case c == '[':
		p.i++
		if _, _, err := p.items(']'); err != nil {
			return "", err
		}
		return "\x00nested", nil
	case c == '(':
		// A tuple, or one parenthesised value when there is no comma.
		p.i++
		items, comma, err := p.items(')')
		if err != nil {
			return "", err
		}
		if len(items) == 1 && !comma {
			return items[0], nil
		}
		return "\x00nested", nil
	case c == '\'' || c == '"':
		return p.str("")
	case (c == 'u' || c == 'U' || c == 'r' || c == 'R') && p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"'):
		p.i++
		return p.str(strings.ToLower(string(c)))
	}
	start := p.i
	for p.i < len(p.s) && strings.IndexByte(",])} \t\n\r\f\v", p.s[p.i]) < 0 {
		p.i++
	}
	word := p.s[start:p.i]
	switch word {
	case "True", "False", "None":
		return word, nil
	}
	if n, err := strconv.ParseInt(strings.ReplaceAll(word, "_", ""), 0, 64); err == nil {
		return strconv.FormatInt(n, 10), nil
	}
	if f, err := strconv.ParseFloat(word, 64); err == nil {
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return "", errNotLiteral
}

// str reads one quoted string literal (prefix "r" for raw).
func (p *pyParser) str(prefix string) (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\n':
			return "", errNotLiteral
		case c == '\\' && prefix != "r" && p.i+1 < len(p.s):
			p.i++
			p.escape(&b)
			continue
		}
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		b.WriteRune(r)
		p.i += n
	}
	return "", errNotLiteral
}

// escape decodes the escape after a backslash; an unknown one stays as
// written, as in Python.
func (p *pyParser) escape(b *strings.Builder) {
	c := p.s[p.i]
	p.i++
	simple := map[byte]string{'\\': `\`, '\'': `'`, '"': `"`, 'n': "\n", 't': "\t", 'r': "\r", 'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '0': "\x00"}
	if s, ok := simple[c]; ok {
		b.WriteString(s)
		return
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width > 0 && p.i+width <= len(p.s) {
		if n, err := strconv.ParseUint(p.s[p.i:p.i+width], 16, 32); err == nil {
			b.WriteRune(rune(n))
			p.i += width
			return
		}
	}
	b.WriteByte('\\')
	b.WriteByte(c)
}
