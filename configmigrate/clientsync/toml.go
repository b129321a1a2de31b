package clientsync

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// tomlStore edits a TOML config whose servers are [<root>.<name>] tables
// (Grok Build's config.toml, in codex's shape) as text: an entry is its
// header line through the last line before the next table that is not one
// of its own subtables. go-toml only parses, to validate and to read
// entries back; every byte outside the entry stays.
type tomlStore struct {
	d   *dialect
	src []byte
	nl  string
}

func openTOML(d *dialect, existing []byte) (store, error) {
	s := &tomlStore{d: d, src: existing, nl: detectNewline(existing)}
	if bareCR(existing) {
		return nil, fmt.Errorf("cannot edit the existing %s config (nothing was changed): %w", d.display, errBareCR)
	}
	if _, err := s.parse(); err != nil {
		return nil, fmt.Errorf("cannot edit the existing %s config (nothing was changed): %w", d.display, err)
	}
	return s, nil
}

func (s *tomlStore) parse() (map[string]any, error) {
	var doc map[string]any
	if err := toml.Unmarshal(s.src, &doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("not valid TOML at line %d, column %d: %v; fix it or move the file aside", row, col, err)
		}
		return nil, fmt.Errorf("not valid TOML: %w; fix it or move the file aside", err)
	}
	servers, ok := doc[s.d.rootKey]
	if !ok {
		return nil, nil
	}
	m, ok := servers.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%q is not a table; make it one or remove it", s.d.rootKey)
	}
	return m, nil
}

var tomlHeaderRE = regexp.MustCompile(`^[ \t]*(\[\[?)[ \t]*([^\[\]#]+?)[ \t]*\]\]?[ \t]*(#.*)?$`)

// tomlPath splits a dotted key (a."b.c".d) into its parts.
func tomlPath(key string) []string {
	var parts []string
	for key = strings.TrimSpace(key); key != ""; {
		var p string
		switch key[0] {
		case '"', '\'':
			end := strings.IndexByte(key[1:], key[0])
			if end < 0 {
				return nil
			}
			p, key = key[1:1+end], key[2+end:]
		default:
			end := strings.IndexByte(key, '.')
			if end < 0 {
				end = len(key)
			}
			p, key = strings.TrimSpace(key[:end]), key[end:]
		}
		parts = append(parts, p)
		key = strings.TrimSpace(key)
		if key != "" {
			if key[0] != '.' {
				return nil
			}
			key = strings.TrimSpace(key[1:])
		}
	}
	return parts
}

// headers lists every table header line with its key path.
func (s *tomlStore) headers(l lines) (idx []int, paths [][]string) {
	for i := 0; i < l.n(); i++ {
		if m := tomlHeaderRE.FindStringSubmatch(l.text(i)); m != nil {
			idx, paths = append(idx, i), append(paths, tomlPath(m[2]))
		}
	}
	return idx, paths
}

// span finds name's table: lines [from, to), or from < 0 when the file
// has no [<root>.<name>] header for it.
func (s *tomlStore) span(l lines, name string) (from, to int) {
	idx, paths := s.headers(l)
	from = -1
	for h, p := range paths {
		own := len(p) >= 2 && p[0] == s.d.rootKey && p[1] == name
		switch {
		case from < 0 && own && len(p) == 2:
			from = idx[h]
		case from >= 0 && !own:
			return from, l.trimSpan(from, idx[h])
		}
	}
	if from < 0 {
		return -1, -1
	}
	to = l.n()
	return from, l.trimSpan(from, to)
}

func (s *tomlStore) lookup(name string) ([]byte, bool, error) {
	servers, err := s.parse()
	if err != nil {
		return nil, false, err
	}
	v, ok := servers[name]
	if !ok {
		return nil, false, nil
	}
	return plainJSON(v), true, nil
}

func (s *tomlStore) names() ([]string, error) {
	servers, err := s.parse()
	if err != nil {
		return nil, err
	}
	// In file order, by header.
	l := indexLines(s.src)
	_, paths := s.headers(l)
	var out []string
	for _, p := range paths {
		if len(p) == 2 && p[0] == s.d.rootKey {
			if _, ok := servers[p[1]]; ok {
				out = append(out, p[1])
			}
		}
	}
	var rest []string
	for n := range servers {
		if !slices.Contains(out, n) {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	return append(out, rest...), nil
}

func (s *tomlStore) render(name string, val object) string {
	var b strings.Builder
	b.WriteString("[" + tomlKey(s.d.rootKey) + "." + tomlKey(name) + "]" + s.nl)
	for _, f := range val {
		b.WriteString(tomlKey(f.key) + " = " + tomlValue(f.val) + s.nl)
	}
	return b.String()
}

func (s *tomlStore) put(name string, val object) error {
	_, found, err := s.lookup(name)
	if err != nil {
		return err
	}
	l := indexLines(s.src)
	text := s.render(name, val)
	var out []byte
	if found {
		from, to := s.span(l, name)
		if from < 0 {
			return fmt.Errorf("server %q is defined inline or with dotted keys, not as a [%s.%s] table; hermes-migrate edits only such tables: rewrite it as one, or rerun without it", name, s.d.rootKey, name)
		}
		end := l.end(to - 1)
		if end == len(s.src) && !bytes.HasSuffix(s.src, []byte("\n")) {
			text = strings.TrimSuffix(text, s.nl)
		}
		out = splice(s.src, l.start[from], end, text)
	} else {
		switch {
		case len(s.src) == 0:
			out = []byte(text)
		case bytes.HasSuffix(s.src, []byte("\n")):
			out = append(append([]byte{}, s.src...), s.nl+text...)
		default:
			out = append(append([]byte{}, s.src...), s.nl+s.nl+strings.TrimSuffix(text, s.nl)...)
		}
	}
	return s.commit(out, name, val)
}

func (s *tomlStore) del(name string) error {
	l := indexLines(s.src)
	from, to := s.span(l, name)
	if from < 0 {
		if _, found, _ := s.lookup(name); found {
			return fmt.Errorf("server %q is defined inline or with dotted keys, not as a [%s.%s] table; remove it by hand", name, s.d.rootKey, name)
		}
		return nil
	}
	return s.commit(l.removeLines(from, to, true), name, nil)
}

func (s *tomlStore) commit(out []byte, name string, val object) error {
	old := s.src
	s.src = out
	back, found, err := s.lookup(name)
	if err != nil {
		err = fmt.Errorf("the edited file would not parse, so nothing was produced (%s's servers must be [%s.<name>] tables): %w", s.d.display, s.d.rootKey, err)
	} else {
		err = readBack(name, val, back, found)
	}
	if err != nil {
		s.src = old
	}
	return err
}

func (s *tomlStore) bytes() []byte   { return s.src }
func (s *tomlStore) notes() []string { return nil }
