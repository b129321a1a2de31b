// Package configcheck checks a Hermes config.yaml against the keys the
// original Hermes knows, so a misspelt key is reported instead of being
// silently ignored: `mcp_server:` (no s) names mcp_servers, `modle:` names
// model, `provider: openruoter` names openrouter, and a YAML error names
// the top-level section it is in.
//
// Check takes the file's bytes and never fails: a file that does not parse
// gives a Result whose Syntax field says where. Warnings are advice; the
// original ignores what it does not know, and so may the caller.
//
// The key tree (keys.txt) was read from the original's DEFAULT_CONFIG and
// the readers of the keys outside it; its header names the commit. Where
// the list is exhaustive (custom_providers entries, which the original
// validates against the same list, and our hermes_tools) every unknown key
// is reported; elsewhere only a near miss of a known key is, because the
// original also reads keys DEFAULT_CONFIG does not list (its MCP client
// alone reads mcp_servers keys from several modules) and bridges unknown
// top-level scalars into the environment.
package configcheck

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/didyoumean"
)

// Warning is one finding in config.yaml.
type Warning struct {
	// Path is the key's place in the file, dotted: "mcp_server",
	// "model.provider", "mcp_servers.github.comand",
	// "custom_providers[1].base_ur".
	Path string
	// Line is the 1-based line of the key (of the value, for a value
	// check). For a key reached through an alias it is the line in the
	// anchored original.
	Line int
	// Message says what is wrong, without the path or the suggestion.
	Message string
	// Suggestion is the nearest known key at that level (a key name, not
	// a path) or the nearest known value, "" when nothing is close.
	Suggestion string
}

// String is the warning as one line: `line 3: mcp_server: unknown key,
// Hermes ignores it; did you mean mcp_servers?`.
func (w Warning) String() string {
	var b strings.Builder
	if w.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", w.Line)
	}
	b.WriteString(w.Path)
	b.WriteString(": ")
	b.WriteString(w.Message)
	if w.Suggestion != "" {
		b.WriteString("; did you mean ")
		b.WriteString(w.Suggestion)
		b.WriteString("?")
	}
	return b.String()
}

// SyntaxError is config.yaml failing to parse as YAML (or not being a
// mapping at the top), with the top-level section the failure is in.
type SyntaxError struct {
	// Line is the 1-based line the parser names, 0 when it names none.
	Line int
	// Section is the top-level key whose block holds Line, "" when the
	// line is before the first key or the parser named no line.
	Section string
	// Err is the parser's own error.
	Err error
}

func (e *SyntaxError) Error() string {
	where := ""
	switch {
	case e.Line > 0 && e.Section != "":
		where = fmt.Sprintf(" at line %d, in the %s section", e.Line, e.Section)
	case e.Line > 0:
		where = fmt.Sprintf(" at line %d", e.Line)
	}
	return fmt.Sprintf("config.yaml is not valid YAML%s: %s", where, parserMessage(e.Err))
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Result is what Check found.
type Result struct {
	// Warnings are in file order (by line).
	Warnings []Warning
	// Syntax is set when the file did not parse; then there are no
	// Warnings and no key is Present.
	Syntax *SyntaxError
	// top maps each top-level key written in the file to its line.
	top map[string]int
}

// Err is Syntax as an error, nil when the file parsed.
func (r Result) Err() error {
	if r.Syntax == nil {
		return nil
	}
	return r.Syntax
}

// Present reports whether key is written at the top level of the file
// (with any value, null included).
func (r Result) Present(key string) bool {
	_, ok := r.top[key]
	return ok
}

// MissingButSimilar reports the warning for a top-level key that looks
// like a misspelling of key when key itself is absent: for
// MissingButSimilar("mcp_servers") on a file with `mcp_server:`, the
// warning for mcp_server. A program that would act on key being absent
// (hermes-migrate removing servers no longer listed) must say so first.
func (r Result) MissingButSimilar(key string) (Warning, bool) {
	if r.Present(key) {
		return Warning{}, false
	}
	for _, w := range r.Warnings {
		if w.Suggestion == key && !strings.ContainsAny(w.Path, ".[") {
			return w, true
		}
	}
	return Warning{}, false
}

// Limits on what a hostile file can make Check do: how deep it descends
// and how many nodes it visits. Past them the rest is not checked.
const (
	maxDepth = 64
	maxNodes = 200_000
)

// Check checks config.yaml's bytes. It never panics and never fails; see
// Result.
func Check(data []byte) Result {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // Hermes reads utf-8-sig
	root, err := parse(data)
	if err != nil {
		return Result{Syntax: syntaxError(data, err)}
	}
	res := Result{top: map[string]int{}}
	if root == nil {
		return res // empty file: Hermes' first-run state
	}
	c := newChecker()
	c.userProviders = userProviders(root)
	for _, p := range c.pairs(root, 0) {
		if p.key.Value != "" {
			if _, seen := res.top[p.key.Value]; !seen {
				res.top[p.key.Value] = p.key.Line
			}
		}
	}
	c.mapping(root, rootKeys, "", 0)
	res.Warnings = dedupe(c.warnings)
	sortWarnings(res.Warnings)
	return res
}

// parse reads the single document of data; nil means an empty file.
func parse(data []byte) (root *yaml.Node, err error) {
	defer func() {
		// yaml.v3 has panicked on malformed input before; a config check
		// must turn that into a finding, not a crash.
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml: the parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, err
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		// PyYAML's safe_load refuses a second document, so Hermes would.
		return nil, fmt.Errorf("yaml: line %d: a second YAML document (after ---); Hermes reads a single document", docLine(&extra))
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	top := doc.Content[0]
	if top.Kind == yaml.AliasNode && top.Alias != nil {
		top = top.Alias
	}
	switch {
	case top.Kind == yaml.MappingNode:
		return top, nil
	case top.Kind == yaml.ScalarNode && top.Tag == "!!null":
		return nil, nil
	default:
		return nil, fmt.Errorf("yaml: line %d: the top level must be a mapping of keys (key: value), not %s", top.Line, kindName(top))
	}
}

// docLine is the line a document starts on (its --- marker).
func docLine(n *yaml.Node) int { return n.Line }

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a single value"
	default:
		return "this"
	}
}

var lineRE = regexp.MustCompile(`line (\d+)`)

// syntaxError finds the line the parser names and the top-level key whose
// block holds it.
func syntaxError(data []byte, err error) *SyntaxError {
	se := &SyntaxError{Err: err}
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			se.Line = n
		}
	}
	if se.Line > 0 {
		se.Section = sectionAt(data, se.Line)
	}
	return se
}

// parserMessage is the parser's error without its "yaml: line N:" prefix,
// which SyntaxError says in its own words.
func parserMessage(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	if loc := lineRE.FindStringIndex(msg); loc != nil && loc[0] == 0 {
		msg = strings.TrimLeft(msg[loc[1]:], ": ")
	}
	return msg
}

// sectionAt is the last top-level block key at or before line (1-based).
// It reads the text, not the parse tree: the file did not parse.
func sectionAt(data []byte, line int) string {
	section := ""
	for i, raw := range bytes.Split(data, []byte("\n")) {
		if i >= line {
			break
		}
		text := strings.TrimRight(string(raw), "\r")
		if text == "" || text[0] == ' ' || text[0] == '\t' || text[0] == '#' {
			continue
		}
		if text == "---" || text == "..." || strings.HasPrefix(text, "--- ") {
			section = ""
			continue
		}
		if strings.ContainsRune("-[{", rune(text[0])) {
			continue
		}
		if key, ok := topKey(text); ok {
			section = key
		}
	}
	return section
}

// topKey is the key of a `key: value` line, unquoted.
func topKey(text string) (string, bool) {
	if text[0] == '"' || text[0] == '\'' {
		q := text[0]
		end := strings.IndexByte(text[1:], q)
		if end < 0 {
			return "", false
		}
		return text[1 : 1+end], true
	}
	i := strings.Index(text, ":")
	if i <= 0 {
		return "", false
	}
	return strings.TrimSpace(text[:i]), true
}

type pair struct {
	key, value *yaml.Node
	// merged: the pair came from a merge key, not written in the mapping.
	merged bool
}

type checker struct {
	warnings []Warning
	// followed holds alias targets already descended into, so an anchor
	// used many times (or a "billion laughs" file) is checked once.
	followed      map[*yaml.Node]bool
	merges        map[*yaml.Node][]pair
	visited       int
	userProviders map[string]bool
}

func newChecker() *checker {
	return &checker{followed: map[*yaml.Node]bool{}, merges: map[*yaml.Node][]pair{}}
}

func (c *checker) warn(path string, line int, msg, suggestion string) {
	c.warnings = append(c.warnings, Warning{Path: path, Line: line, Message: msg, Suggestion: suggestion})
}

// deref follows an alias to its anchored node; ok is false when there is
// nothing (more) to check there.
func (c *checker) deref(n *yaml.Node) (*yaml.Node, bool) {
	if n == nil {
		return nil, false
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || c.followed[n.Alias] {
			return nil, false
		}
		c.followed[n.Alias] = true
		n = n.Alias
	}
	c.visited++
	return n, c.visited <= maxNodes
}

// pairs lists a mapping's key/value pairs with merge keys (<<: *anchor)
// expanded as PyYAML reads them: a key written in the mapping wins over a
// merged one, and an earlier merge source over a later one.
func (c *checker) pairs(m *yaml.Node, depth int) []pair {
	c.visited++
	if m == nil || m.Kind != yaml.MappingNode || depth > maxDepth || c.visited > maxNodes {
		return nil
	}
	var out []pair
	var sources []*yaml.Node
	written := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || (k.Value == "<<" && k.Style == 0)) {
			if v.Kind == yaml.SequenceNode {
				sources = append(sources, v.Content...)
			} else {
				sources = append(sources, v)
			}
			continue
		}
		written[k.Value] = true
		out = append(out, pair{key: k, value: v})
	}
	for _, src := range sources {
		if src.Kind == yaml.AliasNode && src.Alias != nil {
			src = src.Alias
		}
		for _, p := range c.mergedPairs(src, depth+1) {
			if written[p.key.Value] {
				continue
			}
			written[p.key.Value] = true
			p.merged = true
			out = append(out, p)
		}
	}
	return out
}

// mergedPairs is pairs of a merge source, computed once per source: a
// chain of anchors each merging the one before twice would otherwise
// expand exponentially.
func (c *checker) mergedPairs(src *yaml.Node, depth int) []pair {
	if ps, ok := c.merges[src]; ok {
		return ps
	}
	c.merges[src] = nil // a source merging itself sees nothing more
	ps := c.pairs(src, depth)
	c.merges[src] = ps
	return ps
}

// rootMisplaced are model keys users write at the top level by mistake;
// the original warns about the same ones (config.py's
// _CUSTOM_PROVIDER_LIKE_FIELDS) and reads none of them there.
var rootMisplaced = map[string]bool{"provider": true, "base_url": true, "api_key": true, "api_mode": true, "default": true}

// mapping checks the pairs of a mapping node against schema s.
func (c *checker) mapping(m *yaml.Node, s *node, path string, depth int) {
	if depth > maxDepth || s.mode == open {
		return
	}
	atRoot := path == ""
	seen := map[string]int{}
	for _, p := range c.pairs(m, depth) {
		if p.key.Kind != yaml.ScalarNode {
			continue // a complex key: nothing Hermes reads
		}
		key := p.key.Value
		kpath := join(path, key)
		if first, dup := seen[key]; dup && !p.merged {
			c.warn(kpath, p.key.Line, fmt.Sprintf("written twice (also line %d); Hermes reads only the last one", first), "")
		}
		seen[key] = p.key.Line
		if s.names {
			c.value(p.value, s.entry, kpath, depth+1)
			continue
		}
		child, ok := s.children[key]
		if ok {
			c.value(p.value, child, kpath, depth+1)
			continue
		}
		if atRoot && (isEnvStyle(key) || strings.HasPrefix(key, "_")) {
			// Hermes bridges top-level scalars into the environment, and
			// skips _-prefixed keys; neither is a typo of a section.
			continue
		}
		if atRoot && rootMisplaced[key] {
			c.warn(kpath, p.key.Line, "Hermes does not read this at the top level; it belongs under model: (or in a custom_providers entry)", "model."+key)
			continue
		}
		suggestion := didyoumean.Closest(key, s.known())
		switch {
		case suggestion != "":
			c.warn(kpath, p.key.Line, "unknown key, Hermes ignores it", suggestion)
		case s.mode == closed:
			c.warn(kpath, p.key.Line, fmt.Sprintf("unknown key, Hermes ignores it (known here: %s)", strings.Join(s.known(), ", ")), "")
		}
	}
}

// value checks the value of a known key against its schema node.
func (c *checker) value(v *yaml.Node, s *node, path string, depth int) {
	if s.mode == open && !s.names && !s.list {
		return
	}
	v, ok := c.deref(v)
	if !ok || depth > maxDepth {
		return
	}
	if s.value == "provider" {
		c.provider(v, path)
	}
	switch {
	case s.list && v.Kind == yaml.SequenceNode:
		for i, item := range v.Content {
			item, ok := c.deref(item)
			if ok && item.Kind == yaml.MappingNode {
				c.mapping(item, s.entry, fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		}
	case s.list && v.Kind == yaml.MappingNode:
		c.mapping(v, s.entry, path, depth+1)
	case v.Kind == yaml.MappingNode && (s.names || len(s.children) > 0 || s.mode == closed):
		c.mapping(v, s, path, depth+1)
	}
}

// provider checks a provider id value.
func (c *checker) provider(v *yaml.Node, path string) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return
	}
	id := strings.ToLower(strings.TrimSpace(v.Value))
	if id == "" || knownProvider(id) || c.userProviders[id] || strings.HasPrefix(id, "custom:") {
		return
	}
	suggestion := didyoumean.Closest(id, canonicalProviders)
	if suggestion == "" {
		suggestion = didyoumean.Closest(id, providerAliases)
	}
	if suggestion == "" {
		// Plugins add providers the list cannot know; only a near miss
		// is surely a mistake.
		return
	}
	c.warn(path, v.Line, fmt.Sprintf("%q is not a provider Hermes knows", v.Value), suggestion)
}

func knownProvider(id string) bool {
	for _, list := range [][]string{canonicalProviders, providerAliases} {
		for _, p := range list {
			if p == id {
				return true
			}
		}
	}
	return false
}

// userProviders are the provider names the file itself defines (under
// providers: and custom_providers:), which model.provider may name.
func userProviders(root *yaml.Node) map[string]bool {
	names := map[string]bool{}
	c := newChecker()
	for _, p := range c.pairs(root, 0) {
		v := p.value
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		switch p.key.Value {
		case "providers":
			for _, q := range c.pairs(v, 1) {
				names[strings.ToLower(q.key.Value)] = true
			}
		case "custom_providers":
			if v.Kind != yaml.SequenceNode {
				continue
			}
			for _, item := range v.Content {
				for _, q := range c.pairs(item, 1) {
					if q.key.Value == "name" && q.value.Kind == yaml.ScalarNode {
						names[strings.ToLower(strings.TrimSpace(q.value.Value))] = true
					}
				}
			}
		}
	}
	return names
}

// isEnvStyle reports an ENV_VAR-like key: Hermes bridges those into the
// environment for skills and tools.
func isEnvStyle(key string) bool {
	hasLetter := false
	for _, r := range key {
		switch {
		case unicode.IsUpper(r):
			hasLetter = true
		case unicode.IsDigit(r) || r == '_':
		default:
			return false
		}
	}
	return hasLetter
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// dedupe drops a warning that repeats an earlier one about the same line:
// an anchored mapping used in several places is one mistake, reported at
// the first path it was reached by.
func dedupe(ws []Warning) []Warning {
	type key struct {
		line         int
		leaf         string
		msg, suggest string
	}
	seen := map[key]bool{}
	out := ws[:0]
	for _, w := range ws {
		leaf := w.Path
		if i := strings.LastIndexAny(leaf, ".]"); i >= 0 {
			leaf = leaf[i+1:]
		}
		k := key{w.Line, leaf, w.Message, w.Suggestion}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, w)
	}
	return out
}

func sortWarnings(ws []Warning) {
	// Walk order is file order except where aliases and merges point
	// back; a stable sort by line keeps ties in walk order.
	slices.SortStableFunc(ws, func(a, b Warning) int { return cmp.Compare(a.Line, b.Line) })
}
