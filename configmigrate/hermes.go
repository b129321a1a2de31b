package configmigrate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// HermesServers reads the mcp_servers section of a Hermes config.yaml, in
// the order the user wrote them, translated to the client-neutral model.
// Per-server problems (a server with neither command nor url) are returned
// as errors alongside the servers that did translate; a section that is not
// a mapping, or YAML that does not parse, is a single fatal error.
func HermesServers(configYAML []byte) (servers []Server, problems []error, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(configYAML, &doc); err != nil {
		return nil, nil, fmt.Errorf("config.yaml does not parse: %w", err)
	}
	root := documentRoot(&doc)
	if root == nil {
		return nil, nil, nil
	}
	section := mappingValue(root, "mcp_servers")
	if section == nil || section.Tag == "!!null" {
		return nil, nil, nil
	}
	if section.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("mcp_servers in config.yaml is not a mapping (line %d); cannot migrate", section.Line)
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

// mappingValue returns the value node of key in a mapping node.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// translateServer applies the Hermes → neutral translation. Keys a client
// cannot use are dropped with a note; nothing is silently lost.
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
			for _, a := range sequence(v) {
				s.Args = append(s.Args, scalar(a))
			}
		case "env":
			s.Env = keyValues(v)
		case "cwd":
			s.Cwd = scalar(v)
		case "url":
			url = scalar(v)
		case "headers":
			s.Headers = keyValues(v)
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
			if b, err := strconv.ParseBool(scalar(v)); err == nil && !b {
				s.Disabled = true
			}
		case "description":
			// Descriptive only; no client has a field for it.
		case "tools":
			s.EnabledTools = sequenceScalars(mappingValue(v, "include"))
			s.DisabledTools = sequenceScalars(mappingValue(v, "exclude"))
		case "supports_parallel_tool_calls":
			if b, err := strconv.ParseBool(scalar(v)); err == nil {
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

func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return n.Value
}

func number(n *yaml.Node) (float64, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") {
		return 0, false
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	return f, err == nil
}

func sequence(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode {
		return n.Content
	}
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
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

// keyValues reads a mapping of strings in order, classifying each value as
// a literal or a ${VAR} reference.
func keyValues(n *yaml.Node) []KeyValue {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []KeyValue
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, KeyValue{Key: n.Content[i].Value, Value: ParseValue(scalar(n.Content[i+1]))})
	}
	return out
}
