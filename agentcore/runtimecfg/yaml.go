// Package runtimecfg reads and writes the runtime switch of Hermes'
// config.yaml (model.openai_runtime) and implements `/codex-runtime`.
//
// config.yaml belongs to the user: an edit changes the one value and keeps
// every other byte (comments, blank lines, key order, quoting). yaml.v3's
// node tree locates what to change; the change itself is spliced into the
// original text, because re-encoding the tree would drop blank lines and
// re-indent. Only when the shape defeats splicing (a flow mapping, say) is
// the edited node tree encoded, which still keeps comments and order.
package runtimecfg

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/configcheck"
)

// The values of model.openai_runtime.
const (
	Auto           = "auto"
	CodexAppServer = "codex_app_server"
)

// Model is the part of config.yaml's model section the runtime choice
// depends on.
type Model struct {
	// Default is the model name (model.default, or model itself when it is
	// a plain string).
	Default string
	// Provider is model.provider (openai, openai-codex, openrouter, ...).
	Provider string
	// OpenAIRuntime is model.openai_runtime as written.
	OpenAIRuntime string
	// Endpoint: model.base_url or model.api_key is set, for the provider
	// named beside them.
	Endpoint bool
}

// Normalize returns the runtime a written value means: codex_app_server
// (any case) or auto for anything else, as the Python Hermes reads it.
func Normalize(v string) string {
	if strings.ToLower(strings.TrimSpace(v)) == CodexAppServer {
		return CodexAppServer
	}
	return Auto
}

// LoadModel reads the model section of a config.yaml document. An empty
// document is an empty Model.
func LoadModel(doc []byte) (Model, error) {
	var raw struct {
		Model yaml.Node `yaml:"model"`
	}
	if err := yaml.Unmarshal(doc, &raw); err != nil {
		return Model{}, fmt.Errorf("%w (fix the YAML, or move the file aside to start from defaults)", syntaxError(doc, err))
	}
	var m Model
	model := Resolve(&raw.Model)
	switch model.Kind {
	case yaml.ScalarNode:
		if model.Tag != "!!null" {
			m.Default = model.Value
		}
	case yaml.MappingNode:
		var fields struct {
			Default       string `yaml:"default"`
			Model         string `yaml:"model"`
			Provider      string `yaml:"provider"`
			OpenAIRuntime string `yaml:"openai_runtime"`
			BaseURL       string `yaml:"base_url"`
			APIKey        string `yaml:"api_key"`
		}
		if err := model.Decode(&fields); err != nil {
			return Model{}, fmt.Errorf("config.yaml: model: %w (model.default, provider and openai_runtime must be strings)", err)
		}
		m = Model{Default: fields.Default, Provider: fields.Provider, OpenAIRuntime: fields.OpenAIRuntime,
			Endpoint: fields.BaseURL != "" || fields.APIKey != ""}
		if m.Default == "" {
			m.Default = fields.Model // Hermes' alias
		}
	}
	return m, nil
}

// Resolve follows aliases to the node they name: PyYAML, and so the
// Python Hermes, reads `model: *openai` as the mapping anchored as
// &openai, and so must we.
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// Current is the runtime a config.yaml document selects.
func Current(doc []byte) (string, error) {
	m, err := LoadModel(doc)
	if err != nil {
		return "", err
	}
	return Normalize(m.OpenAIRuntime), nil
}

// SetRuntime returns doc with model.openai_runtime set to value, every
// other byte kept. A missing model section is added at the end; a model
// given as a plain string becomes a mapping with that string as default.
func SetRuntime(doc []byte, value string) ([]byte, error) {
	return SetModelKey(doc, "openai_runtime", value, "/codex-runtime")
}

// SetModelKey returns doc with model.<key> set to value, every other byte
// kept, as SetRuntime does; again names the command the user reruns once
// a broken file is fixed. Setting default on a model given as a plain
// string replaces the string.
func SetModelKey(doc []byte, key, value, again string) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("%w (fix the YAML, then run %s again)", syntaxError(doc, err), again)
	}
	if documents(doc) > 1 {
		// Hermes reads one document; an edit must not drop the others.
		return nil, fmt.Errorf("config.yaml holds more than one YAML document (a --- line); keep one, then run %s again", again)
	}
	e := modelEdit{key: key, value: value, again: again}
	want, err := e.expected(doc)
	if err != nil {
		return nil, err
	}
	out, ok := e.splice(doc, &root)
	if ok && sameAs(out, want) {
		return out, nil
	}
	out, err = e.reencode(&root)
	if err != nil {
		return nil, err
	}
	if !sameAs(out, want) {
		return nil, fmt.Errorf("config.yaml: could not set model.%s without changing anything else; edit the file by hand (model:\\n  %s: %s)", key, key, plainScalar(value))
	}
	return out, nil
}

// documents counts the YAML documents in doc.
func documents(doc []byte) int {
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	n := 0
	for {
		var v yaml.Node
		if err := dec.Decode(&v); err != nil {
			return n
		}
		n++
	}
}

// modelEdit is one model.<key> = value edit of config.yaml.
type modelEdit struct{ key, value, again string }

// yaml11Words are plain scalars PyYAML (YAML 1.1, as the Python Hermes
// reads config.yaml) takes for something other than a string.
var yaml11Words = regexp.MustCompile(`^(?i:y|yes|n|no|true|false|on|off|null|~)$`)

// safePlain is what may be written unquoted and read back as the same
// string by both YAML readers.
var safePlain = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9._/@+-]*$`)

// scalarStyle is the encoder's style for value: quoted where plainScalar
// would quote it, since yaml.v3 writes `yes` or `1:30` plain, which
// PyYAML reads as a boolean or a number.
func scalarStyle(value string) yaml.Style {
	if plainScalar(value) != value {
		return yaml.DoubleQuotedStyle
	}
	return 0
}

// plainScalar writes value as a YAML scalar both readers take for that
// string: plain when it is unambiguous, double-quoted otherwise.
func plainScalar(value string) string {
	if safePlain.MatchString(value) && !yaml11Words.MatchString(value) {
		return value
	}
	return strconv.Quote(value)
}

// expected is the decoded document SetRuntime must produce: the check
// that a splice changed exactly the one value.
func (e modelEdit) expected(doc []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, syntaxError(doc, err)
	}
	if v == nil {
		v = map[string]any{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("config.yaml is not a mapping of settings; fix it (or move it aside) and run %s again", e.again)
	}
	switch mv := m["model"].(type) {
	case map[string]any:
		mv[e.key] = e.value
	case nil:
		m["model"] = map[string]any{e.key: e.value}
	case string:
		if e.key == "default" {
			m["model"] = e.value
		} else {
			m["model"] = map[string]any{"default": mv, e.key: e.value}
		}
	default:
		return nil, fmt.Errorf("config.yaml: model is a %T, not a mapping or a model name; fix it and run %s again", mv, e.again)
	}
	return m, nil
}

func sameAs(doc []byte, want any) bool {
	var got any
	if err := yaml.Unmarshal(doc, &got); err != nil {
		return false
	}
	return reflect.DeepEqual(got, want)
}

// mappingRoot is the document's top mapping, nil for an empty document.
func mappingRoot(root *yaml.Node) (*yaml.Node, bool) {
	if root.Kind == 0 {
		return nil, true
	}
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		return root.Content[0], true
	}
	return nil, false
}

func lookup(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// lines splits doc keeping each line's terminator.
func lines(doc []byte) []string {
	return strings.SplitAfter(string(doc), "\n")
}

// offset is the byte offset of a node's 1-based line and column (yaml.v3
// counts columns in characters).
func offset(ls []string, line, col int) int {
	off := 0
	for i := 0; i < line-1 && i < len(ls); i++ {
		off += len(ls[i])
	}
	l := ls[line-1]
	for c := 1; c < col && len(l) > 0; c++ {
		_, n := utf8.DecodeRuneInString(l)
		off += n
		l = l[n:]
	}
	return off
}

// scalarEnd is the end offset of a one-line scalar starting at off.
func scalarEnd(doc []byte, off int, n *yaml.Node) (int, bool) {
	eol := bytes.IndexByte(doc[off:], '\n')
	if eol < 0 {
		eol = len(doc) - off
	}
	line := string(doc[off : off+eol])
	switch n.Style {
	case yaml.DoubleQuotedStyle:
		for i := 1; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '"':
				return off + i + 1, true
			}
		}
		return 0, false
	case yaml.SingleQuotedStyle:
		for i := 1; i < len(line); i++ {
			if line[i] == '\'' {
				if i+1 < len(line) && line[i+1] == '\'' {
					i++
					continue
				}
				return off + i + 1, true
			}
		}
		return 0, false
	case 0, yaml.TaggedStyle:
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		return off + len(strings.TrimRight(line, " \t\r")), true
	}
	return 0, false
}

// quoteLike writes value in the quoting style of the scalar it replaces.
func quoteLike(n *yaml.Node, value string) string {
	switch {
	case n != nil && n.Style == yaml.DoubleQuotedStyle:
		return strconv.Quote(value)
	case n != nil && n.Style == yaml.SingleQuotedStyle:
		return "'" + strings.ReplaceAll(value, "'", "''") + "'"
	}
	return plainScalar(value)
}

// splice edits the text; ok is false when the shape is not one it handles.
func (e modelEdit) splice(doc []byte, root *yaml.Node) ([]byte, bool) {
	key, value := e.key, e.value
	top, ok := mappingRoot(root)
	if !ok {
		return nil, false
	}
	ls := lines(doc)
	var mk, mv *yaml.Node
	if top != nil {
		mk, mv = lookup(top, "model")
	}
	if mk == nil {
		// No model section: append one.
		out := bytes.Clone(doc)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, "model:\n  "+key+": "+plainScalar(value)+"\n"...), true
	}
	if mk.Column != 1 {
		return nil, false
	}
	switch {
	case mv.Kind == yaml.MappingNode && mv.Style&yaml.FlowStyle != 0:
		return e.spliceFlow(doc, ls, mk, mv)
	case mv.Kind == yaml.MappingNode && mv.Style&yaml.FlowStyle == 0 && len(mv.Content) > 0:
		if k, v := lookup(mv, key); k != nil {
			if v.Kind != yaml.ScalarNode || v.Line != k.Line {
				return nil, false
			}
			start := offset(ls, v.Line, v.Column)
			end, ok := scalarEnd(doc, start, v)
			if !ok {
				return nil, false
			}
			return slicesConcat(doc[:start], []byte(quoteLike(v, value)), doc[end:]), true
		}
		first := mv.Content[0]
		indent := strings.Repeat(" ", first.Column-1)
		at := mappingEnd(ls, first.Line, first.Column-1)
		off := 0
		for _, l := range ls[:at+1] {
			off += len(l)
		}
		prefix := doc[:off]
		var nl []byte
		if len(prefix) > 0 && prefix[len(prefix)-1] != '\n' {
			nl = []byte("\n")
		}
		return slicesConcat(prefix, nl, []byte(indent+key+": "+plainScalar(value)+"\n"), doc[off:]), true
	case mv.Kind == yaml.ScalarNode && mv.Tag == "!!null" && mv.Value == "":
		// `model:` with nothing after it (maybe a comment).
		end := offset(ls, mk.Line, 1) + len(strings.TrimRight(ls[mk.Line-1], "\n"))
		return slicesConcat(doc[:end], []byte("\n  "+key+": "+plainScalar(value)), doc[end:]), true
	case mv.Kind == yaml.ScalarNode && mv.Line == mk.Line && mv.Tag == "!!str":
		// `model: gpt-5  # comment` → a mapping with the name as default;
		// the comment stays on the model: line.
		start := offset(ls, mv.Line, mv.Column)
		end, ok := scalarEnd(doc, start, mv)
		if !ok {
			return nil, false
		}
		if key == "default" {
			// The string is the default: replace it.
			return slicesConcat(doc[:start], []byte(quoteLike(mv, value)), doc[end:]), true
		}
		keyEnd := offset(ls, mk.Line, mk.Column) + len("model:")
		rest := doc[end:]
		eol := bytes.IndexByte(rest, '\n')
		if eol < 0 {
			eol = len(rest)
		}
		comment := strings.TrimRight(string(rest[:eol]), "\r")
		return slicesConcat(doc[:keyEnd], []byte(comment+"\n  default: "+string(doc[start:end])+"\n  "+key+": "+plainScalar(value)), rest[eol:]), true
	}
	return nil, false
}

// mappingEnd is the index (0-based, in ls) of the last line belonging to
// a block mapping whose keys are indented by indent and whose first key is
// on 1-based line first: lines after it that are blank, or indented at
// least as far, belong to it; trailing blank lines do not.
func mappingEnd(ls []string, first, indent int) int {
	last := first - 1
	for i := first; i < len(ls); i++ {
		l := strings.TrimRight(ls[i], "\r\n")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l)-len(strings.TrimLeft(l, " ")) < indent {
			break
		}
		last = i
	}
	return last
}

func slicesConcat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// reencode edits the node tree and encodes it: comments and key order
// survive, blank lines and original indentation may not.
func (e modelEdit) reencode(root *yaml.Node) ([]byte, error) {
	if root.Kind == 0 {
		root.Kind = yaml.DocumentNode
		root.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	top, ok := mappingRoot(root)
	if !ok || top == nil {
		return nil, fmt.Errorf("config.yaml is not a mapping of settings; fix it (or move it aside) and run %s again", e.again)
	}
	str := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: scalarStyle(s)}
	}
	mk, mv := lookup(top, "model")
	switch {
	case mk == nil:
		mv = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		top.Content = append(top.Content, str("model"), mv)
	case mv.Kind == yaml.ScalarNode && e.key == "default" && mv.Tag != "!!null":
		mv.Tag, mv.Value, mv.Style = "!!str", e.value, scalarStyle(e.value)
		mv = nil
	case mv.Kind == yaml.ScalarNode:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: mv.LineComment}
		if mv.Tag != "!!null" {
			mv.LineComment = ""
			m.Content = append(m.Content, str("default"), mv)
		}
		for i := range top.Content {
			if top.Content[i] == mv {
				top.Content[i] = m
			}
		}
		mv = m
	case mv.Kind != yaml.MappingNode:
		return nil, fmt.Errorf("config.yaml: model is neither a mapping nor a model name; fix it and run %s again", e.again)
	}
	if mv != nil { // nil: the model string itself was set
		if _, v := lookup(mv, e.key); v != nil {
			v.Kind, v.Tag, v.Value, v.Style = yaml.ScalarNode, "!!str", e.value, scalarStyle(e.value)
		} else {
			mv.Content = append(mv.Content, str(e.key), str(e.value))
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, fmt.Errorf("encode config.yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode config.yaml: %w", err)
	}
	return buf.Bytes(), nil
}

// syntaxError is a parse error of config.yaml that names the line and the
// section it is in (a tab under mcp_servers is not the model's fault).
func syntaxError(doc []byte, err error) error {
	if syn := configcheck.Check(doc).Syntax; syn != nil {
		return syn
	}
	return fmt.Errorf("parse config.yaml: %w", err)
}

// spliceFlow sets the key in a one-line flow mapping
// (`model: {provider: openai, default: x}`): the value is replaced, or
// the key added before the closing brace; nothing else is touched.
func (e modelEdit) spliceFlow(doc []byte, ls []string, mk, mv *yaml.Node) ([]byte, bool) {
	key, value := e.key, e.value
	if mv.Line != mk.Line {
		return nil, false
	}
	for _, c := range mv.Content {
		if c.Line != mv.Line || c.Kind != yaml.ScalarNode {
			return nil, false
		}
	}
	if k, v := lookup(mv, key); k != nil {
		if v.Style != yaml.DoubleQuotedStyle && v.Style != yaml.SingleQuotedStyle {
			start := offset(ls, v.Line, v.Column)
			end := start + len(v.Value)
			if string(doc[start:end]) != v.Value {
				return nil, false
			}
			return slicesConcat(doc[:start], []byte(plainScalar(value)), doc[end:]), true
		}
		start := offset(ls, v.Line, v.Column)
		end, ok := scalarEnd(doc, start, v)
		if !ok {
			return nil, false
		}
		return slicesConcat(doc[:start], []byte(quoteLike(v, value)), doc[end:]), true
	}
	open := offset(ls, mv.Line, mv.Column)
	if open >= len(doc) || doc[open] != '{' {
		return nil, false
	}
	closing := -1
	var quote byte
scan:
	for i := open + 1; i < len(doc) && doc[i] != '\n'; i++ {
		switch c := doc[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{' || c == '[':
			return nil, false
		case c == '}':
			closing = i
			break scan
		}
	}
	if closing < 0 {
		return nil, false
	}
	// Keep the spacing the user wrote before the brace.
	at := closing
	for at > open+1 && (doc[at-1] == ' ' || doc[at-1] == '\t') {
		at--
	}
	ins := ", " + key + ": " + plainScalar(value)
	if len(mv.Content) == 0 {
		ins = key + ": " + plainScalar(value)
	}
	return slicesConcat(doc[:at], []byte(ins), doc[at:]), true
}
