// Package configmigrate turns Hermes' MCP configuration into the
// configuration files of MCP clients (codex's config.toml and the JSON
// dialects of the others), editing those files surgically: only the part
// Hermes manages changes, every other byte is the user's and stays as it
// was. The package renders and splices text; where files live and when they
// are written is the caller's decision.
package configmigrate

import (
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/envref"
)

// Value is a configuration string as the user wrote it: either a literal,
// or a reference to an environment variable (`${VAR}` in config.yaml). A
// reference stays a reference in every client that can express one, so a
// secret is never expanded into a file.
type Value struct {
	// Literal is the text when the value is not a pure reference.
	Literal string
	// Ref names the variable when the whole value was `${VAR}` (or `$VAR`).
	Ref string
	// Prefix is literal text before a reference, as in "Bearer ${TOKEN}";
	// only meaningful with Ref.
	Prefix string
	// Default is the text after ":-" in ${VAR:-default}, used when VAR is
	// unset or empty; HasDefault tells ${VAR:-} from ${VAR}.
	Default    string
	HasDefault bool
}

// IsRef reports whether the value is an environment variable reference.
func (v Value) IsRef() bool { return v.Ref != "" }

// HasEmbeddedRef reports whether a literal mentions a variable inside a
// longer string ("key-${K}-x"), which no client can reference as a whole.
func (v Value) HasEmbeddedRef() bool { return v.Ref == "" && envref.HasBraced(v.Literal) }

// prefixedRefRE is "Bearer ${VAR}": text, a space, and one braced
// reference at the end.
var prefixedRefRE = regexp.MustCompile(`^(.*?\S\s+)` + envref.Braced + `$`)

// ParseValue classifies s: "${VAR}", "${VAR:-default}" and "$VAR" are
// references; "Bearer ${VAR}" is a reference with a prefix; anything else
// is a literal.
func ParseValue(s string) Value {
	if r, ok := envref.Whole(s); ok {
		return Value{Ref: r.Name, Default: r.Default, HasDefault: r.HasDefault}
	}
	if m := prefixedRefRE.FindStringSubmatch(s); m != nil && !strings.Contains(m[1], "$") {
		return withDefault(Value{Prefix: m[1], Ref: m[2]}, m[3])
	}
	return Value{Literal: s}
}

// withDefault records the ":-default" part of a reference, if any.
func withDefault(v Value, colonDash string) Value {
	if d, ok := strings.CutPrefix(colonDash, ":-"); ok {
		v.Default, v.HasDefault = d, true
	}
	return v
}

// KeyValue is one named setting (an environment variable, a header), in
// the order the user wrote them.
type KeyValue struct {
	Key   string
	Value Value
}

// Server is one MCP server, in a client-neutral form.
type Server struct {
	Name string
	// stdio transport
	Command string
	Args    []string
	Env     []KeyValue
	// EnvVars are variable names to pass through from the client's own
	// environment without writing a value (codex `env_vars`).
	EnvVars []string
	Cwd     string
	// HTTP transport
	URL     string
	Headers []KeyValue
	// SSE is set when the user asked for the legacy SSE transport.
	SSE bool
	// Timeouts in seconds; zero means the client's default.
	ToolTimeoutSec    float64
	StartupTimeoutSec float64
	// Disabled servers are written with enabled = false.
	Disabled bool
	// EnabledTools / DisabledTools filter the server's tools (Hermes
	// tools.include / tools.exclude).
	EnabledTools  []string
	DisabledTools []string
	// ParallelToolCalls, when set, says whether the server tolerates
	// concurrent calls.
	ParallelToolCalls *bool
	// ApproveTools asks the client not to prompt before each tool call,
	// where the client supports that (codex default_tools_approval_mode).
	ApproveTools bool
	// Notes record what could not be carried over, for the report.
	Notes []string
	// CopiedSecrets names the values that look like credentials and were
	// copied as they are (ProtectSecrets with --allow-literal-secrets):
	// "env KEY", "header KEY", or a field no reference can stand in for
	// ("command", "args[1]", "url", "cwd"). They are what hermes-migrate
	// itself put into a client's file, which a later run without the flag
	// takes out again instead of keeping them as the user's.
	CopiedSecrets []string
}

// IsStdio reports whether the server is started as a subprocess.
func (s Server) IsStdio() bool { return s.Command != "" }

// ReferencedVars names the variables s refers to, anywhere a client
// could expand one (command, args, env, url, headers), in order.
func ReferencedVars(s Server) []string {
	var out []string
	add := func(name string) {
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	text := func(t string) {
		for _, f := range envref.FindBraced(t) {
			add(f.Ref.Name)
		}
		if r, ok := envref.Whole(t); ok {
			add(r.Name)
		}
	}
	value := func(v Value) {
		add(v.Ref)
		text(v.Literal)
	}
	text(s.Command)
	for _, a := range s.Args {
		text(a)
	}
	for _, kv := range s.Env {
		value(kv.Value)
	}
	text(s.URL)
	for _, kv := range s.Headers {
		value(kv.Value)
	}
	return out
}
