package clientsync

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/configmigrate"
)

// dialect is what differs between the JSON clients.
type dialect struct {
	client  Client
	display string
	// rootKey holds the servers object at the top level of the file.
	rootKey string
	// comments and trailingCommas say what the client's own parser
	// accepts; a file that has more still gets edited, with a note.
	comments, trailingCommas bool
	// ref spells a reference to an environment variable; nil when the
	// client cannot expand variables at all.
	ref func(name string) string
	// expands reports whether literal text would be read as a variable
	// reference by the client, which cannot be escaped in any of them.
	expands func(lit string) bool
	// typeField writes "type": "stdio"/"http"/"sse".
	typeField bool
	cwd       bool
	remote    bool
	// geminiURLs picks the transport by key (httpUrl or url) and has a
	// timeout in milliseconds.
	gemini bool
}

var (
	dollarBrace = func(lit string) bool { return strings.Contains(lit, "${") }
	geminiVarRE = regexp.MustCompile(`\$(\{|[A-Za-z_])`)
)

// dialects is read-only after initialisation.
var dialects = map[Client]*dialect{
	ClaudeDesktop: {
		client: ClaudeDesktop, display: "Claude Desktop", rootKey: "mcpServers",
		expands: func(string) bool { return false },
	},
	ClaudeCode: {
		client: ClaudeCode, display: "Claude Code", rootKey: "mcpServers",
		ref:     func(n string) string { return "${" + n + "}" },
		expands: dollarBrace, typeField: true, remote: true,
	},
	Cursor: {
		client: Cursor, display: "Cursor", rootKey: "mcpServers",
		ref:     func(n string) string { return "${env:" + n + "}" },
		expands: dollarBrace, remote: true,
	},
	VSCode: {
		client: VSCode, display: "VS Code", rootKey: "servers",
		comments: true, trailingCommas: true,
		ref:     func(n string) string { return "${env:" + n + "}" },
		expands: dollarBrace, typeField: true, cwd: true, remote: true,
	},
	Gemini: {
		client: Gemini, display: "Gemini CLI", rootKey: "mcpServers",
		comments: true,
		ref:      func(n string) string { return "${" + n + "}" },
		expands:  geminiVarRE.MatchString, cwd: true, remote: true, gemini: true,
	},
}

// part is a piece of a string: literal text or a variable reference.
type part struct{ lit, ref string }

var embeddedRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// valueParts splits a value into literal text and references. Hermes
// expands ${VAR} anywhere in a string, so an embedded reference is kept
// as a reference too wherever the client can spell one.
func valueParts(v configmigrate.Value) []part {
	if v.IsRef() {
		return []part{{lit: v.Prefix}, {ref: v.Ref}}
	}
	var parts []part
	s := v.Literal
	for _, loc := range embeddedRefRE.FindAllStringSubmatchIndex(s, -1) {
		parts = append(parts, part{lit: s[:loc[0]]}, part{ref: s[loc[2]:loc[3]]})
		s = s[loc[1]:]
	}
	return append(parts, part{lit: s})
}

func stringParts(s string) []part { return valueParts(configmigrate.ParseValue(s)) }

// translation collects an entry and what the user should know about it.
type translation struct {
	d     *dialect
	notes []string
	refs  []string
	// literalVars names fields whose literal text the client would
	// expand.
	literalVars []string
	// noRef names fields left out because they need a reference the
	// client cannot spell.
	noRef []string
}

func (t *translation) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

// spell renders parts in the client's syntax; ok is false when they hold
// a reference the client cannot express. Values are never named in
// notes: a literal may be a secret.
func (t *translation) spell(field string, parts []part) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		if p.ref == "" {
			if t.d.expands(p.lit) && !slices.Contains(t.literalVars, field) {
				t.literalVars = append(t.literalVars, field)
			}
			b.WriteString(p.lit)
			continue
		}
		if t.d.ref == nil {
			return "", false
		}
		if !slices.Contains(t.refs, p.ref) {
			t.refs = append(t.refs, p.ref)
		}
		b.WriteString(t.d.ref(p.ref))
	}
	return b.String(), true
}

// firstRef names the first reference in parts, for a skip message.
func firstRef(parts []part) string {
	for _, p := range parts {
		if p.ref != "" {
			return p.ref
		}
	}
	return ""
}

// pairs translates env or headers; keys whose value the client cannot
// express are left out and listed in t.noRef.
func (t *translation) pairs(what string, kvs []configmigrate.KeyValue) object {
	var out object
	seen := map[string]bool{}
	for _, kv := range kvs {
		switch {
		case kv.Key == "":
			t.note("an %s entry without a name was dropped", what)
			continue
		case seen[kv.Key]:
			t.note("%s %s is set twice; the first value was written", what, kv.Key)
			continue
		}
		seen[kv.Key] = true
		s, ok := t.spell(what+" "+kv.Key, valueParts(kv.Value))
		if !ok {
			t.noRef = append(t.noRef, kv.Key)
			continue
		}
		out.set(kv.Key, s)
	}
	return out
}

var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// translate renders s in the client's dialect. skip is non-empty when the
// server cannot be registered at all, and says why.
func translate(d *dialect, s configmigrate.Server) (entry object, notes []string, skip string) {
	t := &translation{d: d}
	if s.Disabled {
		return nil, nil, fmt.Sprintf("disabled in Hermes; %s has no per-server switch, so it is not registered", d.display)
	}
	switch {
	case s.IsStdio():
		entry, skip = t.stdio(s)
	case s.URL != "":
		entry, skip = t.remote(s)
	default:
		return nil, nil, "has neither a command nor a url"
	}
	if skip != "" {
		return nil, nil, skip
	}
	t.common(s, &entry)
	return entry, t.notes, ""
}

func (t *translation) stdio(s configmigrate.Server) (object, string) {
	d := t.d
	var e object
	if d.typeField {
		e.set("type", "stdio")
	}
	cmdParts := stringParts(s.Command)
	cmd, ok := t.spell("command", cmdParts)
	if !ok {
		return nil, t.cannotExpand("command", firstRef(cmdParts))
	}
	e.set("command", cmd)
	if len(s.Args) > 0 {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			field := fmt.Sprintf("args[%d]", i)
			p := stringParts(a)
			if args[i], ok = t.spell(field, p); !ok {
				return nil, t.cannotExpand(field, firstRef(p))
			}
		}
		e.set("args", args)
	}
	env := t.pairs("env", s.Env)
	for _, name := range s.EnvVars {
		switch {
		case !envNameRE.MatchString(name):
			t.note("pass-through variable %q is not a valid name and was dropped", name)
		case slices.ContainsFunc(env, func(f field) bool { return f.key == name }) || slices.Contains(t.noRef, name):
			// An explicit env entry already decides this variable.
		case d.ref == nil:
			t.noRef = append(t.noRef, name)
		default:
			env.set(name, t.d.ref(name))
			if !slices.Contains(t.refs, name) {
				t.refs = append(t.refs, name)
			}
		}
	}
	if len(env) > 0 {
		e.set("env", env)
	}
	if len(t.noRef) > 0 {
		t.note("env %s not written: %s cannot read environment variables and Hermes never copies their values; add them to the entry by hand", strings.Join(t.noRef, ", "), d.display)
	}
	if s.Cwd != "" {
		if d.cwd {
			p := stringParts(s.Cwd)
			cwd, ok := t.spell("cwd", p)
			if !ok {
				return nil, t.cannotExpand("cwd", firstRef(p))
			}
			e.set("cwd", cwd)
		} else {
			t.note("cwd dropped: %s has no working-directory setting; use absolute paths in command and args", d.display)
		}
	}
	if d.client == ClaudeDesktop && !strings.ContainsAny(s.Command, `/\`) {
		t.note("command %q is looked up on PATH, and Claude Desktop starts servers with a minimal environment; use an absolute path if the server does not start", s.Command)
	}
	if s.URL != "" {
		t.note("url dropped: the server has a command, so it is started over stdio")
	}
	if len(s.Headers) > 0 {
		t.note("headers dropped: they apply to remote servers only")
	}
	return e, ""
}

func (t *translation) remote(s configmigrate.Server) (object, string) {
	d := t.d
	if !d.remote {
		return nil, "a remote server cannot be registered in claude_desktop_config.json; add its URL as a custom connector in Claude Desktop's settings instead"
	}
	urlParts := stringParts(s.URL)
	url, _ := t.spell("url", urlParts) // every remote-capable client spells references
	var e object
	transport := "http"
	if s.SSE {
		transport = "sse"
	}
	switch {
	case d.gemini && s.SSE:
		e.set("url", url)
	case d.gemini:
		e.set("httpUrl", url)
	case d.typeField:
		e.set("type", transport)
		e.set("url", url)
	default:
		// Cursor has no transport field; it tries Streamable HTTP and
		// falls back to SSE on its own.
		e.set("url", url)
	}
	if headers := t.pairs("header", s.Headers); len(headers) > 0 {
		e.set("headers", headers)
	}
	if len(t.noRef) > 0 {
		// Unreachable while every remote-capable client spells
		// references, but a dialect added later must not lose headers
		// silently.
		t.note("headers %s not written: %s cannot read environment variables", strings.Join(t.noRef, ", "), d.display)
	}
	if len(s.Env) > 0 || len(s.EnvVars) > 0 || len(s.Args) > 0 || s.Cwd != "" {
		t.note("command settings (args, env, cwd) dropped: the server is remote")
	}
	return e, ""
}

func (t *translation) cannotExpand(field, ref string) string {
	return fmt.Sprintf("%s refers to $%s, which %s cannot expand; register the server by hand with the value filled in", field, ref, t.d.display)
}

// common adds what applies to both transports: timeouts, approval, and
// the notes about references.
func (t *translation) common(s configmigrate.Server, e *object) {
	d := t.d
	if d.gemini {
		if s.ToolTimeoutSec > 0 {
			// Gemini's timeout covers each request to the server, in ms.
			e.set("timeout", int64(math.Round(s.ToolTimeoutSec*1000)))
		}
		if s.StartupTimeoutSec > 0 {
			t.note("startup timeout dropped: Gemini CLI has no setting for it")
		}
	} else if s.ToolTimeoutSec > 0 || s.StartupTimeoutSec > 0 {
		if d.client == ClaudeCode {
			t.note("timeouts dropped: Claude Code has no per-server timeout (the MCP_TIMEOUT and MCP_TOOL_TIMEOUT environment variables apply to every server)")
		} else {
			t.note("timeouts dropped: %s has no per-server timeout", d.display)
		}
	}
	if s.ApproveTools {
		if d.gemini {
			t.note(`tool approval not carried over: "trust": true would skip confirmation for every tool of this server; set it by hand if that is what you want`)
		} else {
			t.note("tool approval not carried over: %s asks before tool calls until you allow them there", d.display)
		}
	}
	if len(t.literalVars) > 0 {
		t.note("%s contain text that %s reads as a variable reference; written as is, check that it still works", strings.Join(t.literalVars, ", "), d.display)
	}
	if len(t.refs) > 0 {
		msg := fmt.Sprintf("reads %s from the environment %s is started from", strings.Join(t.refs, ", "), d.display)
		if d.client == ClaudeCode {
			msg += "; Claude Code refuses to load the server while one of them is unset"
		}
		t.note("%s", msg)
	}
}
