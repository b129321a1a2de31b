package clientsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
)

// editor changes one member at a time in a parsed file and re-parses
// after every change. Re-parsing costs a scan of the file per server,
// which is cheap next to the risk of keeping offsets of a half-edited
// file in sync by hand.
type editor struct {
	src     []byte
	doc     *document
	rootKey string // the member of the root holding the servers
	nl      string
	unit    string
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

func newEditor(src []byte, rootKey string) (*editor, error) {
	e := &editor{src: src, rootKey: rootKey}
	if err := e.reparse(); err != nil {
		return nil, err
	}
	if _, err := e.container(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *editor) reparse() error {
	doc, err := parse(e.src)
	if err != nil {
		return err
	}
	e.doc = doc
	e.nl = detectNewline(e.src)
	e.unit = e.detectUnit()
	return nil
}

// detectNewline follows the line ending most of the file uses.
func detectNewline(src []byte) string {
	crlf := bytes.Count(src, []byte("\r\n"))
	if crlf > 0 && crlf >= bytes.Count(src, []byte("\n"))-crlf {
		return "\r\n"
	}
	return "\n"
}

// detectUnit finds one level of indentation from the root's first member
// written on a line of its own; two spaces when there is none to copy.
func (e *editor) detectUnit() string {
	root := e.doc.root
	if root == nil || root.kind != kindObject {
		return "  "
	}
	base := e.lineIndent(root.start)
	for _, m := range root.members {
		if !e.lineStarted(m.keyStart) {
			continue
		}
		ind := e.lineIndent(m.keyStart)
		if len(ind) > len(base) && ind[:len(base)] == base {
			return ind[len(base):]
		}
		break
	}
	return "  "
}

// container returns the servers object, nil when the file has none yet.
func (e *editor) container() (*node, error) {
	root := e.doc.root
	if root == nil {
		return nil, nil
	}
	if root.kind != kindObject {
		line, col := lineCol(e.src, e.doc.bom, root.start)
		return nil, fmt.Errorf("the file holds %s at line %d, column %d where an object ({...}) is expected; fix the file or move it aside", root.kind, line, col)
	}
	idx, dup := root.find(e.rootKey)
	if idx < 0 {
		return nil, nil
	}
	if dup >= 0 {
		return nil, e.duplicateError(root, idx, dup, fmt.Sprintf("%q", e.rootKey), "the top level")
	}
	v := &root.members[idx].value
	if v.kind != kindObject {
		line, col := lineCol(e.src, e.doc.bom, v.start)
		return nil, fmt.Errorf("%q at line %d, column %d is %s, not an object; make it an object ({}) or remove it", e.rootKey, line, col, kindName(e.src, v))
	}
	return v, nil
}

func kindName(src []byte, n *node) string {
	if n.kind == kindLiteral {
		return string(src[n.start:n.end])
	}
	return n.kind.String()
}

func (e *editor) duplicateError(obj *node, a, b int, what, where string) error {
	l1, _ := lineCol(e.src, e.doc.bom, obj.members[a].keyStart)
	l2, _ := lineCol(e.src, e.doc.bom, obj.members[b].keyStart)
	return fmt.Errorf("%s appears twice in %s (lines %d and %d), so it is unclear which one the client uses; delete one and retry", what, where, l1, l2)
}

// lookup finds the member named name in the servers object.
func (e *editor) lookup(name string) (cont *node, idx int, err error) {
	cont, err = e.container()
	if err != nil || cont == nil {
		return cont, -1, err
	}
	idx, dup := cont.find(name)
	if dup >= 0 {
		return nil, -1, e.duplicateError(cont, idx, dup, fmt.Sprintf("server %q", name), fmt.Sprintf("%q", e.rootKey))
	}
	return cont, idx, nil
}

func (e *editor) apply(edits []edit) error {
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := e.src
	for _, ed := range edits {
		out = slices.Concat(out[:ed.start], []byte(ed.text), out[ed.end:])
	}
	e.src = out
	// Every edit is checked by parsing the result, so a bug here shows
	// up as an error instead of a broken config file.
	if err := e.reparse(); err != nil {
		return fmt.Errorf("the edited file would not parse, so nothing was produced (a bug in clientsync; please report it): %w", err)
	}
	return nil
}

// ensureContainer creates the root object and the servers object when
// the file lacks them.
func (e *editor) ensureContainer() (*node, error) {
	if e.doc.root == nil {
		if err := e.ensureRoot(); err != nil {
			return nil, err
		}
	}
	cont, err := e.container()
	if err != nil || cont != nil {
		return cont, err
	}
	if err := e.apply(e.insert(e.doc.root, e.rootKey, object{})); err != nil {
		return nil, err
	}
	return e.container()
}

// ensureRoot gives a file without a value (empty, whitespace, or only
// comments) an empty object, keeping whatever comments it had.
func (e *editor) ensureRoot() error {
	body := e.src[e.doc.bom:]
	if len(bytes.TrimSpace(body)) == 0 {
		e.src = slices.Concat(e.src[:e.doc.bom], []byte("{}"+e.nl))
		return e.reparse()
	}
	out := slices.Clone(e.src)
	if out[len(out)-1] != '\n' {
		out = append(out, e.nl...)
	}
	e.src = append(out, "{}"+e.nl...)
	return e.reparse()
}

func (e *editor) lineStart(off int) int {
	i := bytes.LastIndexByte(e.src[:off], '\n') + 1
	return max(i, e.doc.bom)
}

// lineIndent is the leading blank space of the line holding off.
func (e *editor) lineIndent(off int) string {
	ls := e.lineStart(off)
	i := ls
	for i < len(e.src) && (e.src[i] == ' ' || e.src[i] == '\t') {
		i++
	}
	return string(e.src[ls:i])
}

// lineStarted reports whether only blanks precede off on its line.
func (e *editor) lineStarted(off int) bool {
	for i := e.lineStart(off); i < off; i++ {
		if e.src[i] != ' ' && e.src[i] != '\t' {
			return false
		}
	}
	return true
}

func (e *editor) skipBlanks(off int) int {
	for off < len(e.src) && (e.src[off] == ' ' || e.src[off] == '\t') {
		off++
	}
	return off
}

// newlineAt returns the offset just past a line break at off, or -1.
func (e *editor) newlineAt(off int) int {
	switch {
	case off < len(e.src) && e.src[off] == '\n':
		return off + 1
	case off+1 < len(e.src) && e.src[off] == '\r' && e.src[off+1] == '\n':
		return off + 2
	}
	return -1
}

// nextLine skips blanks and comments that end on the current line. It
// returns the start of the next line, or -1 when something else follows
// on this line.
func (e *editor) nextLine(off int) int {
	for {
		off = e.skipBlanks(off)
		if nl := e.newlineAt(off); nl >= 0 {
			return nl
		}
		if off+1 >= len(e.src) || e.src[off] != '/' {
			return -1
		}
		switch e.src[off+1] {
		case '/':
			for off < len(e.src) && e.src[off] != '\n' && !(e.src[off] == '\r' && off+1 < len(e.src) && e.src[off+1] == '\n') {
				off++
			}
		case '*':
			end := bytes.Index(e.src[off+2:], []byte("*/"))
			if end < 0 || bytes.IndexByte(e.src[off:off+2+end], '\n') >= 0 {
				return -1
			}
			off += 2 + end + 2
		default:
			return -1
		}
	}
}

func (e *editor) multiline(n *node) bool {
	return bytes.IndexByte(e.src[n.start:n.end], '\n') >= 0
}

func isBlank(b []byte) bool { return len(bytes.TrimSpace(b)) == 0 }

// pretty decides between one member per line and a single-line object.
// An empty object follows the root, so "mcpServers": {} in a pretty file
// grows pretty entries; a whole file written on one line stays on one.
func (e *editor) pretty(obj *node) bool {
	if e.multiline(obj) {
		return true
	}
	if len(obj.members) > 0 || !isBlank(e.src[obj.start+1:obj.end-1]) {
		return false
	}
	root := e.doc.root
	return obj == root || len(root.members) == 0 || e.multiline(root)
}

func (e *editor) layout(indent string, pretty bool) layout {
	return layout{nl: e.nl, unit: e.unit, indent: indent, inline: !pretty}
}

// inlineLayout is the single-line style of obj: minified files
// ({"a":1,"b":2}) get no blanks after ':' and ','.
func (e *editor) inlineLayout(obj *node) layout {
	ms := obj.members
	if len(ms) == 0 && e.doc.root != nil {
		ms = e.doc.root.members
	}
	tight := len(ms) > 0 && e.src[ms[0].value.start-1] == ':'
	return layout{nl: e.nl, unit: e.unit, inline: true, tight: tight}
}

func memberText(key string, val any, l layout) string {
	return quote(key) + l.colon() + render(val, l)
}

// insert appends key: val as the last member of obj, in the object's
// layout. It is the exact inverse of remove for the layouts a person or
// a formatter produces, which is what keeps a later removal from
// leaving traces.
func (e *editor) insert(obj *node, key string, val any) []edit {
	pretty := e.pretty(obj)
	base := e.lineIndent(obj.start)
	if len(obj.members) == 0 {
		open, closing := obj.start+1, obj.end-1
		ind := base + e.unit
		if isBlank(e.src[open:closing]) {
			if pretty {
				return []edit{{open, closing, e.nl + ind + memberText(key, val, e.layout(ind, true)) + e.nl + base}}
			}
			return []edit{{open, closing, memberText(key, val, e.inlineLayout(obj))}}
		}
		// Only comments inside: keep them before the new member.
		if e.lineStarted(closing) && e.lineStart(closing) > obj.start {
			ls := e.lineStart(closing)
			return []edit{{ls, ls, ind + memberText(key, val, e.layout(ind, true)) + e.nl}}
		}
		// A comment shares the line with '}': go on that line too,
		// after the last non-blank, so removal finds it as it was.
		p := closing
		for p > open && (e.src[p-1] == ' ' || e.src[p-1] == '\t') {
			p--
		}
		return []edit{{p, p, " " + memberText(key, val, e.inlineLayout(obj))}}
	}

	last := obj.members[len(obj.members)-1]
	trailing := last.comma >= 0
	after := last.value.end
	if trailing {
		after = last.comma + 1
	}
	comma := ""
	if trailing {
		comma = ","
	}
	if next := e.nextLine(after); next >= 0 {
		ind := base + e.unit
		if e.lineStarted(last.keyStart) {
			ind = e.lineIndent(last.keyStart)
		}
		edits := []edit{{next, next, ind + memberText(key, val, e.layout(ind, true)) + comma + e.nl}}
		if !trailing {
			edits = append(edits, edit{last.value.end, last.value.end, ","})
		}
		return edits
	}
	l := e.inlineLayout(obj)
	text := memberText(key, val, l) + comma
	if !l.tight {
		text = " " + text
	}
	if !trailing {
		text = "," + text
	}
	return []edit{{after, after, text}}
}

// replace swaps the value of member idx, keeping its key and everything
// around it.
func (e *editor) replace(obj *node, idx int, val any) []edit {
	m := obj.members[idx]
	l := e.inlineLayout(obj)
	if e.pretty(obj) {
		l = e.layout(e.lineIndent(m.keyStart), true)
	}
	return []edit{{m.value.start, m.value.end, render(val, l)}}
}

// remove deletes member idx with the separator that belongs to it: its
// whole line when it has one to itself, otherwise just its text and one
// comma. Comments around it are the user's and stay.
func (e *editor) remove(obj *node, idx int) []edit {
	m := obj.members[idx]
	end := m.value.end
	commaDone := false
	if m.comma >= 0 && e.skipBlanks(end) == m.comma {
		end = m.comma + 1
		commaDone = true
	}
	start := -1
	if e.lineStarted(m.keyStart) {
		if nl := e.newlineAt(e.skipBlanks(end)); nl >= 0 {
			start, end = e.lineStart(m.keyStart), nl
		}
	}
	if start < 0 {
		// Something else shares the line. A member starting the line
		// keeps the indentation for what follows; one after another
		// member takes the blanks before it.
		start = m.keyStart
		if e.lineStarted(m.keyStart) {
			end = e.skipBlanks(end)
		} else {
			ls := e.lineStart(m.keyStart)
			for start > ls && (e.src[start-1] == ' ' || e.src[start-1] == '\t') {
				start--
			}
			// {"x": 1, "b": 2} loses "x": 1 and the blank after
			// its comma, so "b" is not left behind a blank.
			if start == m.keyStart && commaDone && idx < len(obj.members)-1 &&
				e.skipBlanks(end) == obj.members[idx+1].keyStart {
				end = e.skipBlanks(end)
			}
		}
	}
	edits := []edit{{start, end, ""}}
	switch {
	case m.comma >= 0 && !commaDone:
		edits = append(edits, edit{m.comma, m.comma + 1, ""})
	case m.comma < 0 && idx > 0:
		prev := obj.members[idx-1]
		edits = append(edits, edit{prev.comma, prev.comma + 1, ""})
	}
	return edits
}

// collapse turns an object left with nothing but blank space into {}, so
// removing the last server gives back the "mcpServers": {} it came from.
func (e *editor) collapse(obj *node) []edit {
	inner := e.src[obj.start+1 : obj.end-1]
	if len(obj.members) > 0 || len(inner) == 0 || !isBlank(inner) {
		return nil
	}
	return []edit{{obj.start + 1, obj.end - 1, ""}}
}

// sameAs reports whether the existing value (plain JSON) already means
// val, whatever its formatting: such an entry is left byte for byte as
// the user has it.
func sameAs(existing []byte, val any) bool {
	var have, want any
	if err := json.Unmarshal(existing, &have); err != nil {
		return false
	}
	if err := json.Unmarshal([]byte(render(val, layout{inline: true})), &want); err != nil {
		return false
	}
	return reflect.DeepEqual(have, want)
}
