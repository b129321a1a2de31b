package clientsync

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlStore edits a YAML config (Goose's config.yaml) as text: the entry's
// lines are found through yaml.v3's node positions and replaced, so every
// other byte, comments included, stays. Only a block-style servers
// mapping is edited; anything else is refused with a way out.
type yamlStore struct {
	d   *dialect
	src []byte
	nl  string
}

// yamlDoc is where things are in the current text.
type yamlDoc struct {
	root *yaml.Node // the top-level mapping, nil for an empty document
	// key and val are the servers mapping's key and value, nil when the
	// file has none.
	key, val *yaml.Node
}

func openYAML(d *dialect, existing []byte) (store, error) {
	s := &yamlStore{d: d, src: existing, nl: detectNewline(existing)}
	if bareCR(existing) {
		return nil, fmt.Errorf("cannot edit the existing %s config (nothing was changed): %w", d.display, errBareCR)
	}
	if _, err := s.parse(); err != nil {
		return nil, fmt.Errorf("cannot edit the existing %s config (nothing was changed): %w", d.display, err)
	}
	return s, nil
}

func (s *yamlStore) parse() (yamlDoc, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(s.src, &doc); err != nil {
		return yamlDoc{}, fmt.Errorf("not valid YAML: %w; fix it or move the file aside", err)
	}
	if len(doc.Content) == 0 {
		return yamlDoc{}, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return yamlDoc{}, nil
	}
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 {
		return yamlDoc{}, fmt.Errorf("the file's top level at line %d is not a block mapping (key: value lines); fix the file or move it aside", root.Line)
	}
	y := yamlDoc{root: root}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != s.d.rootKey {
			continue
		}
		if y.key != nil {
			return yamlDoc{}, fmt.Errorf("%q appears twice at the top level (lines %d and %d); delete one and retry", s.d.rootKey, y.key.Line, root.Content[i].Line)
		}
		y.key, y.val = root.Content[i], root.Content[i+1]
	}
	if y.val == nil {
		return y, nil
	}
	switch {
	case y.val.Kind == yaml.ScalarNode && y.val.Tag == "!!null":
	case y.val.Kind != yaml.MappingNode:
		return yamlDoc{}, fmt.Errorf("%q at line %d is not a mapping; make it one or remove it", s.d.rootKey, y.val.Line)
	case y.val.Style&yaml.FlowStyle != 0 && len(y.val.Content) > 0:
		return yamlDoc{}, fmt.Errorf("%q at line %d is written in flow style ({...}); hermes-migrate edits block style only, one entry per line: rewrite it that way or move the file aside", s.d.rootKey, y.val.Line)
	case y.val.Line == y.key.Line && len(y.val.Content) > 0:
		return yamlDoc{}, fmt.Errorf("%q at line %d starts on its key's line; put its entries on lines of their own", s.d.rootKey, y.val.Line)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(y.val.Content); i += 2 {
		k := y.val.Content[i]
		if l, dup := seen[k.Value]; dup {
			return yamlDoc{}, fmt.Errorf("server %q appears twice in %q (lines %d and %d), so it is unclear which one the client uses; delete one and retry", k.Value, s.d.rootKey, l, k.Line)
		}
		seen[k.Value] = k.Line
	}
	return y, nil
}

// span is entry i's lines [from, to), trailing blank and comment lines
// left out.
func (s *yamlStore) span(y yamlDoc, l lines, i int) (from, to int) {
	k := y.val.Content[2*i]
	from = k.Line - 1
	if 2*i+2 < len(y.val.Content) {
		return from, l.trimSpan(from, y.val.Content[2*i+2].Line-1)
	}
	to = from + 1
	ind := k.Column - 1
	for j := to; j < l.n(); j++ {
		if l.blankOrComment(j) {
			continue
		}
		if l.indent(j) <= ind {
			break
		}
		to = j + 1
	}
	return from, to
}

func (s *yamlStore) find(name string) (yamlDoc, int, error) {
	y, err := s.parse()
	if err != nil || y.val == nil {
		return y, -1, err
	}
	for i := 0; i+1 < len(y.val.Content); i += 2 {
		if y.val.Content[i].Value == name {
			return y, i / 2, nil
		}
	}
	return y, -1, nil
}

func (s *yamlStore) lookup(name string) ([]byte, bool, error) {
	y, i, err := s.find(name)
	if err != nil || i < 0 {
		return nil, false, err
	}
	var v any
	if err := y.val.Content[2*i+1].Decode(&v); err != nil {
		return []byte("null"), true, nil
	}
	return plainJSON(v), true, nil
}

func (s *yamlStore) names() ([]string, error) {
	y, err := s.parse()
	if err != nil || y.val == nil {
		return nil, err
	}
	var out []string
	for i := 0; i < len(y.val.Content); i += 2 {
		out = append(out, y.val.Content[i].Value)
	}
	return out, nil
}

// unit is one level of indentation: what the file's first indented line
// uses, else two spaces.
func (s *yamlStore) unit(l lines) string {
	for j := 0; j < l.n(); j++ {
		if !l.blankOrComment(j) && l.indent(j) > 0 {
			return strings.Repeat(" ", l.indent(j))
		}
	}
	return "  "
}

func (s *yamlStore) put(name string, val object) error {
	orig := s.src
	if err := s.edit(name, val); err != nil {
		s.src = orig
		return err
	}
	return nil
}

func (s *yamlStore) edit(name string, val object) error {
	y, i, err := s.find(name)
	if err != nil {
		return err
	}
	l := indexLines(s.src)
	unit := s.unit(l)
	entry := func(indent string) string {
		var b strings.Builder
		b.WriteString(indent + yamlScalar(name) + ":" + s.nl)
		renderYAML(&b, val, indent+unit, unit, s.nl)
		return b.String()
	}
	var out []byte
	switch {
	case i >= 0:
		from, to := s.span(y, l, i)
		k := y.val.Content[2*i]
		text := entry(strings.Repeat(" ", k.Column-1))
		end := l.end(to - 1)
		if end == len(s.src) && !bytes.HasSuffix(s.src, []byte("\n")) {
			text = strings.TrimSuffix(text, s.nl)
		}
		out = splice(s.src, l.start[from], end, text)
	case y.val != nil && len(y.val.Content) > 0:
		_, to := s.span(y, l, len(y.val.Content)/2-1)
		k := y.val.Content[0]
		out = s.appendAt(l.end(to-1), entry(strings.Repeat(" ", k.Column-1)))
	case y.val != nil:
		// "extensions:" or "extensions: {}": the entries go on the lines
		// after the key; a "{}" goes.
		line := y.key.Line - 1
		at := l.end(line)
		if y.val.Tag != "!!null" {
			vs := l.start[y.val.Line-1] + y.val.Column - 1
			cut := vs
			for cut > 0 && (s.src[cut-1] == ' ' || s.src[cut-1] == '\t') {
				cut--
			}
			close := vs + bytes.IndexByte(s.src[vs:], '}') + 1
			s.src = splice(s.src, cut, close, "")
			at -= close - cut
		}
		out = s.appendAt(at, entry(strings.Repeat(" ", y.key.Column-1)+unit))
	default:
		out = s.appendAt(len(s.src), yamlScalar(s.d.rootKey)+":"+s.nl+entry(unit))
	}
	return s.commit(out, name, val)
}

// appendAt inserts text (whole lines) at offset at, which is a line start
// or the end of a file that may lack its final newline.
func (s *yamlStore) appendAt(at int, text string) []byte {
	if at == len(s.src) && len(s.src) > 0 && !bytes.HasSuffix(s.src, []byte("\n")) {
		text = s.nl + strings.TrimSuffix(text, s.nl)
	}
	return splice(s.src, at, at, text)
}

func splice(src []byte, start, end int, text string) []byte {
	out := append([]byte{}, src[:start]...)
	out = append(out, text...)
	return append(out, src[end:]...)
}

func (s *yamlStore) del(name string) error {
	y, i, err := s.find(name)
	if err != nil || i < 0 {
		return err
	}
	l := indexLines(s.src)
	from, to := s.span(y, l, i)
	out := l.removeLines(from, to, false)
	if len(y.val.Content) == 2 {
		// The last entry: "extensions:" would be null, which a client
		// may not take for "none"; {} is.
		kl := indexLines(out)
		line := y.key.Line - 1
		t := kl.text(line)
		if ci := strings.Index(t, "#"); ci < 0 && strings.HasSuffix(strings.TrimRight(t, " \t"), ":") {
			at := kl.start[line] + len(strings.TrimRight(t, " \t"))
			out = splice(out, at, at, " {}")
		}
	}
	return s.commit(out, name, nil)
}

// commit re-parses the edited text and checks the entry reads back as
// written, so a mistake here is an error, never a broken file.
func (s *yamlStore) commit(out []byte, name string, val object) error {
	old := s.src
	s.src = out
	back, found, err := s.lookup(name)
	if err != nil {
		err = fmt.Errorf("the edited file would not parse, so nothing was produced (a bug in clientsync; please report it): %w", err)
	} else {
		err = readBack(name, val, back, found)
	}
	if err != nil {
		s.src = old
	}
	return err
}

func (s *yamlStore) bytes() []byte   { return s.src }
func (s *yamlStore) notes() []string { return nil }
