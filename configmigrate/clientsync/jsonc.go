package clientsync

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// SyntaxError reports where an existing config file stops being valid
// JSON(C). Line and Column are 1-based; Column counts characters, not
// bytes, so it matches what an editor shows.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

type kind uint8

const (
	kindObject kind = iota + 1
	kindArray
	kindString
	kindNumber
	kindLiteral // true, false, null
)

func (k kind) String() string {
	switch k {
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	default:
		return "a literal"
	}
}

// node is one parsed value and its byte range [start, end) in the source.
type node struct {
	kind       kind
	start, end int
	// members is filled only for objects near the root (see
	// membersDepth): the editor never looks deeper, and a large
	// ~/.claude.json should not cost a tree of its whole history.
	members []member
}

type member struct {
	key      string
	keyStart int // offset of the key's opening quote
	value    node
	// comma is the offset of the ',' that follows the value, or -1.
	comma int
}

// membersDepth is the deepest object whose members are recorded: the
// root (0) and the servers object inside it (1).
const membersDepth = 1

// maxDepth bounds nesting so a hostile file cannot exhaust the stack.
const maxDepth = 1000

// document is a parsed JSON(C) file. Comments and trailing commas are
// remembered so the file can be checked against a strict client and
// compared semantically.
type document struct {
	src  []byte
	bom  int   // length of a leading UTF-8 BOM (0 or 3)
	root *node // nil when the file holds no value (empty, or comments only)
	// comments are the byte ranges of every comment, in order.
	comments [][2]int
	// trailingCommas are offsets of commas followed by '}' or ']'.
	trailingCommas []int
}

type parser struct {
	doc *document
	src []byte
	pos int
}

// parse reads src as JSON with comments (// and /* */) and trailing
// commas allowed: the superset every target client's file fits in.
func parse(src []byte) (*document, error) {
	doc := &document{src: src}
	p := &parser{doc: doc, src: src}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		doc.bom = 3
		p.pos = 3
	}
	if err := p.skipTrivia(); err != nil {
		return nil, err
	}
	if p.pos == len(src) {
		return doc, nil
	}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.skipTrivia(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf(p.pos, "unexpected %s after the end of the top-level value", p.describe(p.pos))
	}
	doc.root = &root
	return doc, nil
}

func (p *parser) errorf(off int, format string, args ...any) error {
	line, col := lineCol(p.src, p.doc.bom, off)
	return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// lineCol converts a byte offset into an editor position. A BOM is
// invisible in editors, so it does not count as a column.
func lineCol(src []byte, bom, off int) (line, col int) {
	line, lineStart := 1, bom
	for i := bom; i < off && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	end := min(off, len(src))
	return line, utf8.RuneCount(src[lineStart:end]) + 1
}

// describe names the token at off for an error message.
func (p *parser) describe(off int) string {
	if off >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[off:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", p.src[off])
	}
	return fmt.Sprintf("%q", r)
}

func (p *parser) skipTrivia() error {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; c {
		case ' ', '\t', '\n', '\r':
			p.pos++
		case '/':
			start := p.pos
			if p.pos+1 >= len(p.src) {
				return p.errorf(start, "unexpected '/' (a comment starts with // or /*)")
			}
			switch p.src[p.pos+1] {
			case '/':
				p.pos += 2
				for p.pos < len(p.src) && p.src[p.pos] != '\n' {
					p.pos++
				}
			case '*':
				p.pos += 2
				for {
					if p.pos+1 >= len(p.src) {
						return p.errorf(start, "block comment is never closed with */")
					}
					if p.src[p.pos] == '*' && p.src[p.pos+1] == '/' {
						p.pos += 2
						break
					}
					p.pos++
				}
			default:
				return p.errorf(start, "unexpected '/' (a comment starts with // or /*)")
			}
			p.doc.comments = append(p.doc.comments, [2]int{start, p.pos})
		default:
			return nil
		}
	}
	return nil
}

func (p *parser) value(depth int) (node, error) {
	if depth > maxDepth {
		return node{}, p.errorf(p.pos, "values are nested more than %d deep", maxDepth)
	}
	if p.pos >= len(p.src) {
		return node{}, p.errorf(p.pos, "unexpected end of file, expected a value")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		start := p.pos
		if err := p.str(); err != nil {
			return node{}, err
		}
		return node{kind: kindString, start: start, end: p.pos}, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		return p.literal()
	default:
		return node{}, p.errorf(p.pos, "unexpected %s, expected a value", p.describe(p.pos))
	}
}

func (p *parser) object(depth int) (node, error) {
	n := node{kind: kindObject, start: p.pos}
	p.pos++ // {
	if err := p.skipTrivia(); err != nil {
		return node{}, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		if p.pos >= len(p.src) {
			return node{}, p.unclosed(n.start, "object")
		}
		if p.src[p.pos] != '"' {
			return node{}, p.errorf(p.pos, "unexpected %s, expected a member name in double quotes", p.describe(p.pos))
		}
		keyStart := p.pos
		if err := p.str(); err != nil {
			return node{}, err
		}
		keyEnd := p.pos
		if err := p.skipTrivia(); err != nil {
			return node{}, err
		}
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return node{}, p.errorf(p.pos, "unexpected %s, expected ':' after the member name", p.describe(p.pos))
		}
		p.pos++
		if err := p.skipTrivia(); err != nil {
			return node{}, err
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return node{}, err
		}
		m := member{keyStart: keyStart, value: v, comma: -1}
		if depth <= membersDepth {
			m.key = decodeKey(p.src[keyStart:keyEnd])
		}
		if err := p.skipTrivia(); err != nil {
			return node{}, err
		}
		if p.pos >= len(p.src) {
			return node{}, p.unclosed(n.start, "object")
		}
		switch p.src[p.pos] {
		case '}':
			p.pos++
			n.end = p.pos
			if depth <= membersDepth {
				n.members = append(n.members, m)
			}
			return n, nil
		case ',':
			m.comma = p.pos
			p.pos++
			if depth <= membersDepth {
				n.members = append(n.members, m)
			}
			if err := p.skipTrivia(); err != nil {
				return node{}, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.doc.trailingCommas = append(p.doc.trailingCommas, m.comma)
				p.pos++
				n.end = p.pos
				return n, nil
			}
		default:
			return node{}, p.errorf(p.pos, "unexpected %s, expected ',' or '}' after an object member", p.describe(p.pos))
		}
	}
}

func (p *parser) array(depth int) (node, error) {
	n := node{kind: kindArray, start: p.pos}
	p.pos++ // [
	if err := p.skipTrivia(); err != nil {
		return node{}, err
	}
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		if p.pos >= len(p.src) {
			return node{}, p.unclosed(n.start, "array")
		}
		if _, err := p.value(depth + 1); err != nil {
			return node{}, err
		}
		if err := p.skipTrivia(); err != nil {
			return node{}, err
		}
		if p.pos >= len(p.src) {
			return node{}, p.unclosed(n.start, "array")
		}
		switch p.src[p.pos] {
		case ']':
			p.pos++
			n.end = p.pos
			return n, nil
		case ',':
			comma := p.pos
			p.pos++
			if err := p.skipTrivia(); err != nil {
				return node{}, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.doc.trailingCommas = append(p.doc.trailingCommas, comma)
				p.pos++
				n.end = p.pos
				return n, nil
			}
		default:
			return node{}, p.errorf(p.pos, "unexpected %s, expected ',' or ']' after an array element", p.describe(p.pos))
		}
	}
}

// unclosed points at the opening bracket: that is where the user has to
// look, not at the end of the file.
func (p *parser) unclosed(start int, what string) error {
	return p.errorf(start, "%s opened here is never closed", what)
}

func (p *parser) str() error {
	start := p.pos
	p.pos++ // "
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return nil
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return p.errorf(start, "string is never closed")
			}
			switch p.src[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				for i := 2; i < 6; i++ {
					if p.pos+i >= len(p.src) || !isHex(p.src[p.pos+i]) {
						return p.errorf(p.pos, `invalid \u escape, expected four hex digits`)
					}
				}
				p.pos += 6
			default:
				return p.errorf(p.pos, "invalid escape \\%c in string", p.src[p.pos+1])
			}
		case c < 0x20:
			if c == '\n' {
				return p.errorf(start, "string is never closed on its line")
			}
			return p.errorf(p.pos, "control character 0x%02x in string; write it as an escape", c)
		default:
			p.pos++
		}
	}
	return p.errorf(start, "string is never closed")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (p *parser) number() (node, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.src) && p.src[p.pos] == '0':
		p.pos++
	case p.pos < len(p.src) && isDigit(p.src[p.pos]):
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	default:
		return node{}, p.errorf(start, "invalid number")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
			return node{}, p.errorf(start, "invalid number: expected a digit after '.'")
		}
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.src) || !isDigit(p.src[p.pos]) {
			return node{}, p.errorf(start, "invalid number: expected a digit in the exponent")
		}
		for p.pos < len(p.src) && isDigit(p.src[p.pos]) {
			p.pos++
		}
	}
	if p.pos < len(p.src) && isWordByte(p.src[p.pos]) {
		return node{}, p.errorf(start, "invalid number")
	}
	return node{kind: kindNumber, start: start, end: p.pos}, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
}

func (p *parser) literal() (node, error) {
	start := p.pos
	end := start
	for end < len(p.src) && isWordByte(p.src[end]) {
		end++
	}
	switch string(p.src[start:end]) {
	case "true", "false", "null":
		p.pos = end
		return node{kind: kindLiteral, start: start, end: end}, nil
	}
	return node{}, p.errorf(start, "unexpected %q, expected a value (strings need double quotes)", truncate(string(p.src[start:end]), 20))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// decodeKey turns a validated JSON string token into its text.
func decodeKey(tok []byte) string {
	inner := tok[1 : len(tok)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		// The scanner accepted the token, so this cannot fail; fall back
		// to the raw text rather than inventing a name.
		return string(inner)
	}
	return s
}

// standard returns src[start:end] with comments blanked and trailing
// commas removed: plain JSON that encoding/json accepts.
func (d *document) standard(start, end int) []byte {
	out := make([]byte, 0, end-start)
	ci, ti := 0, 0
	for i := start; i < end; {
		for ci < len(d.comments) && d.comments[ci][1] <= i {
			ci++
		}
		if ci < len(d.comments) && d.comments[ci][0] == i {
			out = append(out, ' ')
			i = d.comments[ci][1]
			continue
		}
		for ti < len(d.trailingCommas) && d.trailingCommas[ti] < i {
			ti++
		}
		if ti < len(d.trailingCommas) && d.trailingCommas[ti] == i {
			out = append(out, ' ')
			i++
			continue
		}
		out = append(out, d.src[i])
		i++
	}
	return out
}

// Standardize converts a JSONC document (comments, trailing commas, a
// BOM) into plain JSON with the same meaning, so a caller or a test can
// hand a client's file to encoding/json.
func Standardize(src []byte) ([]byte, error) {
	doc, err := parse(src)
	if err != nil {
		return nil, err
	}
	return doc.standard(doc.bom, len(src)), nil
}

// find returns the index of the member named key, or -1; dup is the index
// of a second member with the same name, or -1.
func (n *node) find(key string) (idx, dup int) {
	idx, dup = -1, -1
	for i, m := range n.members {
		if m.key != key {
			continue
		}
		if idx < 0 {
			idx = i
		} else if dup < 0 {
			dup = i
		}
	}
	return idx, dup
}
