package configmigrate

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/configcheck"
)

// HermesServers reads the mcp_servers section of a Hermes config.yaml, in
// the order the user wrote them, translated to the client-neutral model.
// The YAML is read as the Python Hermes reads it with PyYAML: anchors,
// aliases and << merge keys are resolved, and plain scalars are typed by
// YAML 1.1's rules (yes/no/on/off are booleans). Per-server problems (a
// server with neither command nor url) are returned as errors alongside the
// servers that did translate; a section that is not a mapping, a duplicated
// key, or YAML that does not parse, is a single fatal error.
func HermesServers(configYAML []byte) (servers []Server, problems []error, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(configYAML, &doc); err != nil {
		if syn := configcheck.Check(configYAML).Syntax; syn != nil {
			return nil, nil, syn // names the line and the section it is in
		}
		return nil, nil, fmt.Errorf("config.yaml does not parse: %w", err)
	}
	root := documentRoot(&doc)
	if root == nil {
		return nil, nil, nil
	}
	if err := checkDuplicates(root, "mcp_servers", "the top level of config.yaml"); err != nil {
		return nil, nil, err
	}
	raw := mappingValue(root, "mcp_servers")
	if raw == nil {
		// A misspelt section would read as "no servers" and take every
		// server registered from it before out of the clients.
		if w, ok := configcheck.Check(configYAML).MissingButSimilar("mcp_servers"); ok {
			return nil, nil, fmt.Errorf("config.yaml has no mcp_servers section: %s. Fix the key; until then your MCP servers are not read, and hermes-migrate changes nothing, so the servers it registered before stay", w)
		}
		return nil, nil, nil
	}
	r := resolver{budget: maxResolvedNodes}
	section, err := r.resolve(raw, "mcp_servers", 0)
	if err != nil {
		return nil, nil, err
	}
	if section.Kind == yaml.ScalarNode && pyScalar(section).kind == pyNull {
		return nil, nil, nil
	}
	if section.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("mcp_servers in config.yaml is not a mapping (line %d); cannot migrate", raw.Line)
	}
	for i := 0; i+1 < len(section.Content); i += 2 {
		name := section.Content[i].Value
		srv, err := translateServer(name, section.Content[i+1])
		if err != nil {
			problems = append(problems, err)
			continue
		}
		servers = append(servers, srv)
	}
	return servers, problems, nil
}

func documentRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return nil
	}
	return doc
}

// mappingValue returns the value node of key in a mapping node; the last
// one wins, as in a Python dict.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var v *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			v = m.Content[i+1]
		}
	}
	return v
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && (k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0)
}

// checkDuplicates refuses a key written twice in one mapping. PyYAML
// silently keeps the last one, so the user's intent is unknowable; a
// migration guessing would hide the mistake in a second file. With only
// set, just that key is checked.
func checkDuplicates(m *yaml.Node, only, where string) error {
	first := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if isMergeKey(k) || only != "" && k.Value != only {
			continue
		}
		if line, dup := first[k.Value]; dup {
			return fmt.Errorf("config.yaml: key %q appears twice in %s (lines %d and %d); PyYAML would silently use the second one, so delete or rename one of them and run again", k.Value, where, line, k.Line)
		}
		first[k.Value] = k.Line
	}
	return nil
}

// maxAliasDepth and maxResolvedNodes bound alias expansion: an anchor
// that contains itself, or aliases of aliases that multiply ("billion
// laughs"), must end in an error, not in a hang.
const (
	maxAliasDepth    = 100
	maxResolvedNodes = 100_000
)

// resolver expands aliases within a budget of nodes.
type resolver struct{ budget int }

// resolve returns n with aliases replaced by what they point to and merge
// keys applied as PyYAML applies them: the mapping's own keys win over
// merged ones, and in a list of merged maps an earlier map wins over a
// later one. Each mapping written in the file is checked for duplicate
// keys first; where names it in error messages.
func (r *resolver) resolve(n *yaml.Node, where string, depth int) (*yaml.Node, error) {
	r.budget--
	if depth > maxAliasDepth || r.budget < 0 {
		return nil, fmt.Errorf("config.yaml: %s expands its aliases too far (line %d); an anchor may contain itself, or aliases multiply: write the servers out", where, n.Line)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, fmt.Errorf("config.yaml: alias *%s at line %d has no anchor", n.Value, n.Line)
		}
		return r.resolve(n.Alias, where, depth+1)
	case yaml.SequenceNode:
		out := *n
		out.Content = make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			rc, err := r.resolve(c, where, depth+1)
			if err != nil {
				return nil, err
			}
			out.Content[i] = rc
		}
		return &out, nil
	case yaml.MappingNode:
		if err := checkDuplicates(n, "", where); err != nil {
			return nil, err
		}
		var merged, own []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if isMergeKey(k) {
				pairs, err := r.mergePairs(v, where, depth)
				if err != nil {
					return nil, err
				}
				merged = append(merged, pairs...)
				continue
			}
			rv, err := r.resolve(v, where+"."+k.Value, depth+1)
			if err != nil {
				return nil, err
			}
			own = append(own, k, rv)
		}
		out := *n
		out.Content = dictPairs(append(merged, own...))
		return &out, nil
	}
	return n, nil
}

// mergePairs are the key/value pairs a << merge contributes, ordered so
// that a later pair overrides an earlier one.
func (r *resolver) mergePairs(v *yaml.Node, where string, depth int) ([]*yaml.Node, error) {
	rv, err := r.resolve(v, where, depth+1)
	if err != nil {
		return nil, err
	}
	switch rv.Kind {
	case yaml.MappingNode:
		return rv.Content, nil
	case yaml.SequenceNode:
		var pairs []*yaml.Node
		for i := len(rv.Content) - 1; i >= 0; i-- {
			m := rv.Content[i]
			if m.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("config.yaml: the << merge at line %d lists something that is not a mapping (line %d); merge only mappings", v.Line, m.Line)
			}
			pairs = append(pairs, m.Content...)
		}
		return pairs, nil
	}
	return nil, fmt.Errorf("config.yaml: the << merge at line %d needs a mapping or a list of mappings; fix the merge or write the keys out", v.Line)
}

// dictPairs collapses repeated keys the way a Python dict does: the key
// keeps its first position and takes its last value.
func dictPairs(pairs []*yaml.Node) []*yaml.Node {
	var out []*yaml.Node
	at := map[string]int{}
	for i := 0; i+1 < len(pairs); i += 2 {
		k, v := pairs[i], pairs[i+1]
		if j, ok := at[k.Value]; ok {
			out[j+1] = v
			continue
		}
		at[k.Value] = len(out)
		out = append(out, k, v)
	}
	return out
}

// translateServer applies the Hermes → neutral translation to a resolved
// server mapping. Keys a client cannot use are dropped with a note; nothing
// is silently lost.
func translateServer(name string, n *yaml.Node) (Server, error) {
	s := Server{Name: name}
	if n.Kind != yaml.MappingNode {
		return s, fmt.Errorf("server %q skipped: its config is not a mapping (line %d)", name, n.Line)
	}
	note := func(format string, args ...any) { s.Notes = append(s.Notes, fmt.Sprintf(format, args...)) }
	var url string
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i].Value, n.Content[i+1]
		switch key {
		case "command":
			s.Command = scalar(v)
		case "args":
			for j, a := range sequence(v) {
				text, ok := pyStr(a)
				if !ok {
					note("args[%d] (a %s cannot be an argument; write it as a string)", j, kindText(a))
					continue
				}
				s.Args = append(s.Args, text)
			}
		case "env":
			s.Env = keyValues(v, "env", note)
		case "cwd":
			s.Cwd = scalar(v)
		case "url":
			url = scalar(v)
		case "headers":
			s.Headers = keyValues(v, "header", note)
		case "transport":
			if strings.EqualFold(scalar(v), "sse") {
				s.SSE = true
			} else if t := scalar(v); t != "" {
				note("transport=%s (not a transport Hermes knows; left to the client)", t)
			}
		case "timeout":
			if f, ok := number(v); ok {
				s.ToolTimeoutSec = f
			} else {
				note("timeout (not numeric)")
			}
		case "connect_timeout":
			if f, ok := number(v); ok {
				s.StartupTimeoutSec = f
			} else {
				note("connect_timeout (not numeric)")
			}
		case "enabled":
			if !truthy(v, true) {
				s.Disabled = true
			}
		case "description":
			// Descriptive only; no client has a field for it.
		case "tools":
			s.EnabledTools = sequenceScalars(mappingValue(v, "include"))
			s.DisabledTools = sequenceScalars(mappingValue(v, "exclude"))
		case "supports_parallel_tool_calls":
			if v.Kind == yaml.ScalarNode && pyScalar(v).kind != pyNull {
				b := truthy(v, true)
				s.ParallelToolCalls = &b
			}
		case "sampling":
			note("sampling (no client equivalent)")
		case "auth", "oauth":
			note("%s (log in from the client instead, e.g. `codex mcp login %s`)", key, name)
		default:
			note("%s (unknown Hermes key)", key)
		}
	}
	switch {
	case s.Command != "" && url != "":
		note("url (both command and url set; preferring stdio)")
	case s.Command == "" && url != "":
		s.URL = url
	case s.Command == "":
		return s, fmt.Errorf("server %q skipped: no command or url field", name)
	}
	if s.Command != "" && len(s.Headers) > 0 {
		note("headers (only HTTP servers send headers)")
		s.Headers = nil
	}
	return s, nil
}

// scalar is a string field's text as Python's str() would give it; a null
// or a collection is "", i.e. not set.
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || pyScalar(n).kind == pyNull {
		return ""
	}
	s, _ := pyStr(n)
	return s
}

func number(n *yaml.Node) (float64, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch v := pyScalar(n); v.kind {
	case pyInt:
		f, _ := new(big.Float).SetInt(v.i).Float64()
		return f, true
	case pyFloat:
		return v.f, true
	}
	return 0, false
}

// truthy is how Hermes reads a boolean setting: a YAML boolean as is, and
// a string by its meaning ("no", "off", "false", "0" are false, in any
// case), since config.yaml is edited by hand and `enabled: "no"` means
// no. Anything else follows Python truthiness; null is def.
func truthy(n *yaml.Node, def bool) bool {
	if n == nil || n.Kind != yaml.ScalarNode {
		return n != nil && len(n.Content) > 0
	}
	v := pyScalar(n)
	switch v.kind {
	case pyNull:
		return def
	case pyBool:
		return v.b
	case pyInt:
		return v.i.Sign() != 0
	case pyFloat:
		return v.f != 0
	}
	switch strings.ToLower(strings.TrimSpace(v.s)) {
	case "false", "0", "no", "off", "":
		return false
	}
	return true
}

func sequence(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode {
		return n.Content
	}
	if n.Kind == yaml.ScalarNode && pyScalar(n).kind != pyNull {
		return []*yaml.Node{n}
	}
	return nil
}

func sequenceScalars(n *yaml.Node) []string {
	var out []string
	for _, e := range sequence(n) {
		if v := scalar(e); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// keyValues reads env or headers in order, classifying each value as a
// literal or a ${VAR} reference. Values that are not strings are turned
// into the text Python's str() gives, which is what the Python Hermes
// hands the server; a null, list or mapping has no such text a server
// could use, so it is left out with a note.
func keyValues(n *yaml.Node, what string, note func(string, ...any)) []KeyValue {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []KeyValue
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i].Value, n.Content[i+1]
		text, ok := pyStr(v)
		if !ok {
			note("%s %s left out: its value is a %s, not text; write it as a quoted string", what, key, kindText(v))
			continue
		}
		out = append(out, KeyValue{Key: key, Value: ParseValue(text)})
	}
	return out
}

// pyKind is the Python type PyYAML gives a scalar.
type pyKind int

const (
	pyStrKind pyKind = iota
	pyNull
	pyBool
	pyInt
	pyFloat
)

type pyValue struct {
	kind pyKind
	s    string
	b    bool
	i    *big.Int
	f    float64
}

// PyYAML's YAML 1.1 implicit resolvers (yaml/resolver.py). yaml.v3 follows
// YAML 1.2, where "yes" is a string and 010 is ten; Hermes reads the file
// with PyYAML, so its rules decide what the user meant.
var (
	pyBoolRE  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	pyNullRE  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	pyIntRE   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	pyFloatRE = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
)

// pyScalar types a scalar as PyYAML does. Quoted and block scalars are
// strings; an explicit tag decides for itself.
func pyScalar(n *yaml.Node) pyValue {
	str := pyValue{kind: pyStrKind, s: n.Value}
	if n.Kind != yaml.ScalarNode {
		return str
	}
	tag := ""
	if n.Style&yaml.TaggedStyle != 0 {
		tag = n.Tag
	} else if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return str
	}
	v := n.Value
	switch {
	case tag == "!!str" || tag != "" && tag != "!!bool" && tag != "!!int" && tag != "!!float" && tag != "!!null":
		return str
	case (tag == "" || tag == "!!null") && pyNullRE.MatchString(v):
		return pyValue{kind: pyNull}
	case (tag == "" || tag == "!!bool") && pyBoolRE.MatchString(v):
		switch strings.ToLower(v) {
		case "yes", "true", "on":
			return pyValue{kind: pyBool, b: true}
		}
		return pyValue{kind: pyBool, b: false}
	case (tag == "" || tag == "!!int") && pyIntRE.MatchString(v):
		if i, ok := pyParseInt(v); ok {
			return pyValue{kind: pyInt, i: i}
		}
	case (tag == "" || tag == "!!float") && pyFloatRE.MatchString(v):
		return pyValue{kind: pyFloat, f: pyParseFloat(v)}
	}
	return str
}

// pyParseInt follows PyYAML's construct_yaml_int.
func pyParseInt(v string) (*big.Int, bool) {
	v = strings.ReplaceAll(v, "_", "")
	sign := 1
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	var i *big.Int
	var ok bool
	switch {
	case v == "0":
		i, ok = big.NewInt(0), true
	case strings.HasPrefix(v, "0b"):
		i, ok = new(big.Int).SetString(v[2:], 2)
	case strings.HasPrefix(v, "0x"):
		i, ok = new(big.Int).SetString(v[2:], 16)
	case v[0] == '0':
		i, ok = new(big.Int).SetString(v[1:], 8)
	case strings.Contains(v, ":"):
		i = big.NewInt(0)
		for _, d := range strings.Split(v, ":") {
			x, err := strconv.ParseInt(d, 10, 64)
			if err != nil {
				return nil, false
			}
			i.Mul(i, big.NewInt(60)).Add(i, big.NewInt(x))
		}
		ok = true
	default:
		i, ok = new(big.Int).SetString(v, 10)
	}
	if !ok {
		return nil, false
	}
	if sign < 0 {
		i.Neg(i)
	}
	return i, true
}

// pyParseFloat follows PyYAML's construct_yaml_float.
func pyParseFloat(v string) float64 {
	v = strings.ToLower(strings.ReplaceAll(v, "_", ""))
	sign := 1.0
	if v != "" && (v[0] == '-' || v[0] == '+') {
		if v[0] == '-' {
			sign = -1
		}
		v = v[1:]
	}
	switch {
	case v == ".inf":
		return sign * math.Inf(1)
	case v == ".nan":
		return math.NaN()
	case strings.Contains(v, ":"):
		f := 0.0
		for _, d := range strings.Split(v, ":") {
			x, _ := strconv.ParseFloat(d, 64)
			f = f*60 + x
		}
		return sign * f
	}
	f, _ := strconv.ParseFloat(v, 64)
	return sign * f
}

// pyStr is the text Python's str() gives a scalar PyYAML constructed;
// ok is false for null and for collections, which have no useful text.
func pyStr(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	v := pyScalar(n)
	switch v.kind {
	case pyNull:
		return "", false
	case pyBool:
		if v.b {
			return "True", true
		}
		return "False", true
	case pyInt:
		return v.i.String(), true
	case pyFloat:
		return pyFloatRepr(v.f), true
	}
	return v.s, true
}

// pyFloatRepr formats like Python's repr(float): the shortest text that
// reads back, in exponent form below 1e-4 and from 1e16 on.
func pyFloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		if len(exp) < 2 {
			exp = strings.Repeat("0", 2-len(exp)) + exp
		}
		return mant + "e" + string(sign) + exp
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

func kindText(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "null"
}
