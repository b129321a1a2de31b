package clientsync

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/envref"
)

// part is a piece of a string: literal text or a variable reference,
// with the default of ${VAR:-default} when it has one.
type part struct {
	lit, ref string
	def      string
	hasDef   bool
}

// valueParts splits a value into literal text and references. Hermes
// expands ${VAR} anywhere in a string, so an embedded reference is kept
// as a reference too wherever the client can spell one.
func valueParts(v configmigrate.Value) []part {
	if v.IsRef() {
		return []part{{lit: v.Prefix}, {ref: v.Ref, def: v.Default, hasDef: v.HasDefault}}
	}
	var parts []part
	s, last := v.Literal, 0
	for _, f := range envref.FindBraced(s) {
		parts = append(parts, part{lit: s[last:f.Start]}, part{ref: f.Name, def: f.Default, hasDef: f.HasDefault})
		last = f.End
	}
	return append(parts, part{lit: s[last:]})
}

func stringParts(s string) []part { return valueParts(configmigrate.ParseValue(s)) }

// translation collects an entry and what the user should know about it.
type translation struct {
	d     *dialect
	notes []string
	refs  []string
	// passed are the pass-through variables written.
	passed []string
	// literalVars names fields whose literal text the client would
	// expand.
	literalVars []string
	// byName are env variables passed by name (dialect.nameKeys).
	byName []string
	// inherited are env variables left out because the client hands
	// the server its own environment, which holds them by that name.
	inherited []string
	// noRef names fields left out because they need a reference the
	// client cannot spell.
	noRef []string
	// noDefault names variables whose ${VAR:-default} default the
	// client cannot spell.
	noDefault []string
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
			if t.d.expands(p.lit) && t.d.refsIn(field) && !slices.Contains(t.literalVars, field) {
				t.literalVars = append(t.literalVars, field)
			}
			b.WriteString(p.lit)
			continue
		}
		if t.d.ref == nil || !t.d.refsIn(field) || t.d.envWholeRef && strings.HasPrefix(field, "env ") && !wholeRef(parts) {
			return "", false
		}
		if !slices.Contains(t.refs, p.ref) {
			t.refs = append(t.refs, p.ref)
		}
		switch {
		case p.hasDef && t.d.refDefault != nil:
			b.WriteString(t.d.refDefault(p.ref, p.def))
			continue
		case p.hasDef && !slices.Contains(t.noDefault, p.ref):
			t.noDefault = append(t.noDefault, p.ref)
		}
		b.WriteString(t.d.ref(p.ref))
	}
	return b.String(), true
}

// wholeRef reports whether parts are one reference and nothing else.
func wholeRef(parts []part) bool {
	refs := 0
	for _, p := range parts {
		switch {
		case p.ref != "":
			refs++
		case p.lit != "":
			return false
		}
	}
	return refs == 1
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
		// HTTP header names are case-insensitive: Authorization and
		// authorization are one header, and a client would send either.
		id := kv.Key
		if what == "header" {
			id = strings.ToLower(id)
		}
		switch {
		case kv.Key == "":
			t.note("%s entry without a name was dropped", what)
			continue
		case seen[id]:
			t.note("%s %s is set twice; the first value was written", what, kv.Key)
			continue
		}
		seen[id] = true
		s, ok := t.spell(what+" "+kv.Key, valueParts(kv.Value))
		switch {
		case !ok && what == "env" && t.d.nameKeys != "" && kv.Value.Ref == kv.Key && kv.Value.Prefix == "":
			t.byName = append(t.byName, kv.Key)
			if kv.Value.HasDefault {
				t.noDefault = append(t.noDefault, kv.Key)
			}
			continue
		case !ok && what == "env" && t.d.inheritsEnv && kv.Value.Ref == kv.Key && kv.Value.Prefix == "":
			// The server gets the variable from the client's own
			// environment as it is; only a default would be lost.
			t.inherited = append(t.inherited, kv.Key)
			if kv.Value.HasDefault {
				t.noDefault = append(t.noDefault, kv.Key)
			}
			continue
		case !ok:
			t.noRef = append(t.noRef, kv.Key)
			continue
		case t.d.bangCommand && strings.HasPrefix(s, "!"):
			// Escaped, or the client would run it as a command.
			s = "!" + s
		}
		out.set(kv.Key, s)
	}
	return out
}

// translated is a server in a client's dialect.
type translated struct {
	entry object
	notes []string
	// skip is non-empty when the server cannot be registered at all,
	// and says why.
	skip string
	// hand lists env variables the client cannot be given by
	// reference: the user fills them in by hand, and keepHand carries
	// those values over when Hermes rewrites the entry.
	hand []string
	// handHeaders are a remote server's headers the client cannot be
	// given by reference, kept the same way.
	handHeaders []string
	// reads are the variables the entry hands on: by reference, or by
	// name (Goose's env_keys).
	reads []string
}

// readsRefRE finds a note's claim that the entry reads a variable by
// reference ("the entry reads $FETCH_API_KEY instead").
var readsRefRE = regexp.MustCompile(`reads \$(` + envref.Name + `)`)

// claimed keeps the server's own notes that hold for this client's entry.
// A note from configmigrate (a secret turned into a reference) says the
// entry reads $X; for a client that cannot spell references the entry
// does not, and its own note asks for the value by hand instead, so
// keeping both would contradict each other.
func (tr translated) claimed(notes []string) []string {
	var out []string
	for _, n := range notes {
		ok := true
		for _, m := range readsRefRE.FindAllStringSubmatch(n, -1) {
			ok = ok && slices.Contains(tr.reads, m[1])
		}
		if ok {
			out = append(out, n)
		}
	}
	return out
}

// translate renders s in the client's dialect.
func translate(d *dialect, s configmigrate.Server) translated {
	t := &translation{d: d}
	if s.Disabled && d.offSwitch == "" {
		return translated{skip: fmt.Sprintf("disabled in Hermes, and %s has no switch to register a server turned off", d.display)}
	}
	var entry object
	var skip string
	switch {
	case s.IsStdio():
		entry, skip = t.stdio(s)
	case s.URL != "":
		entry, skip = t.remote(s)
	default:
		return translated{skip: "has neither a command nor a url"}
	}
	if skip != "" {
		return translated{skip: skip}
	}
	t.common(s, &entry)
	for _, f := range d.last {
		if f.key == d.offSwitch && s.Disabled {
			// enabled: true becomes false, disabled: false true.
			f.val = !f.val.(bool)
			t.notes = append(t.notes, fmt.Sprintf("disabled in Hermes, so registered turned off (%s)", render(object{f}, layout{inline: true})))
		}
		entry = append(entry, f)
	}
	tr := translated{entry: entry, notes: t.notes, reads: append(slices.Clone(t.refs), t.byName...)}
	if s.IsStdio() {
		tr.hand = t.noRef
	} else {
		tr.handHeaders = t.noRef
	}
	return tr
}

// keepHand copies the values of tr.hand (env) and tr.handHeaders that the
// existing entry (plain JSON) already holds, which the user put there by
// hand, into the new entry: the next sync must not wipe what the last one
// asked for. A value copied reports whether a value is the one
// hermes-migrate itself copied there (--allow-literal-secrets; field is
// "env KEY" or "header KEY"): that one is Hermes' to take out, not the
// user's to keep. It returns the notes about the names involved.
func (tr *translated) keepHand(d *dialect, existing []byte, copied func(field, value string) bool) []string {
	if len(tr.hand) == 0 && len(tr.handHeaders) == 0 {
		return nil
	}
	var have map[string]json.RawMessage
	// Nothing to keep from an odd entry.
	_ = json.Unmarshal(existing, &have)
	var notes []string
	for _, g := range []struct {
		label, key, field string
		names             []string
		foldCase          bool     // HTTP header names
		after             []string // where a new object goes in the entry
	}{
		{"env", d.envKey, "env", tr.hand, false, []string{"command", "args"}},
		{"headers", "headers", "header", tr.handHeaders, true, []string{d.typeKey, d.urlKey, "httpUrl", "url", d.bearerKey}},
	} {
		if len(g.names) == 0 {
			continue
		}
		var old map[string]any
		_ = json.Unmarshal(have[g.key], &old)
		ours := func(name, v string) bool { return copied != nil && copied(g.field+" "+name, v) }
		extra, kept, missing, taken := handValues(g.names, old, g.foldCase, ours)
		if len(extra) > 0 {
			tr.entry = withPairs(tr.entry, g.key, extra, g.after...)
		}
		if len(kept) > 0 {
			notes = append(notes, fmt.Sprintf("%s %s kept as filled in by hand", g.label, strings.Join(kept, ", ")))
		}
		if len(taken) > 0 {
			what := "the value"
			if len(taken) > 1 {
				what = "the values"
			}
			notes = append(notes, fmt.Sprintf("%s %s: took out %s hermes-migrate had copied there with --allow-literal-secrets", g.label, strings.Join(taken, ", "), what))
		}
		if len(missing) > 0 {
			why := d.display + " cannot read environment variables"
			switch {
			case d.ref == nil:
			case g.label == "env" && d.envWholeRef:
				why = d.display + " expands a variable in env only as the whole value"
			default:
				why = d.display + " expands no variables in " + g.label
			}
			notes = append(notes, fmt.Sprintf("%s %s not written: %s, and Hermes never copies their values; add them to the entry by hand (later syncs keep them)", g.label, strings.Join(missing, ", "), why))
		}
	}
	return notes
}

// handValues picks the string values of names out of have, in the order of
// names; HTTP header names match whatever their case (foldCase), and keep
// the user's spelling. A value ours says Hermes wrote is taken, and
// counts as missing too: the entry goes on without it.
func handValues(names []string, have map[string]any, foldCase bool, ours func(name, v string) bool) (extra object, kept, missing, taken []string) {
	for _, name := range names {
		key, v, ok := name, "", false
		if foldCase {
			for k, val := range have {
				if s, isStr := val.(string); isStr && strings.EqualFold(k, name) && (!ok || k < key) {
					key, v, ok = k, s, true
				}
			}
		} else {
			v, ok = have[name].(string)
		}
		switch {
		case ok && ours(name, v):
			taken = append(taken, name)
			missing = append(missing, name)
		case ok:
			kept = append(kept, name)
			extra.set(key, v)
		default:
			missing = append(missing, name)
		}
	}
	return extra, kept, missing, taken
}

// withPairs appends extra to the entry's object under key, creating it
// after the last of the fields named in after (or at the end) when there
// is none.
func withPairs(e object, key string, extra object, after ...string) object {
	e = slices.Clone(e)
	for i, f := range e {
		if f.key == key {
			e[i].val = append(slices.Clone(f.val.(object)), extra...)
			return e
		}
	}
	at := len(e)
	for i, f := range e {
		if f.key != "" && slices.Contains(after, f.key) {
			at = i + 1
		}
	}
	return slices.Insert(e, at, field{key, extra})
}

func (t *translation) stdio(s configmigrate.Server) (object, string) {
	d := t.d
	e := d.lead(s.Name)
	if d.stdioType != "" {
		e.set(d.typeKey, d.stdioType)
	}
	cmdParts := stringParts(s.Command)
	cmd, ok := t.spell("command", cmdParts)
	if !ok {
		return nil, t.cannotExpand("command", firstRef(cmdParts))
	}
	args := make([]string, len(s.Args))
	for i, a := range s.Args {
		field := fmt.Sprintf("args[%d]", i)
		p := stringParts(a)
		if args[i], ok = t.spell(field, p); !ok {
			return nil, t.cannotExpand(field, firstRef(p))
		}
	}
	switch {
	case d.commandArray:
		e.set("command", append([]string{cmd}, args...))
	case len(args) > 0 || d.alwaysArgs:
		e.set(d.commandKey, cmd)
		e.set("args", args)
	default:
		e.set(d.commandKey, cmd)
	}
	env := t.pairs("env", s.Env)
	for _, name := range s.EnvVars {
		switch {
		case !envref.IsName(name):
			t.note("pass-through variable %q is not a valid name and was dropped", name)
		case slices.ContainsFunc(env, func(f field) bool { return f.key == name }) || slices.Contains(t.noRef, name):
			// An explicit env entry already decides this variable.
		case d.ref == nil && d.nameKeys != "":
			if !slices.Contains(t.byName, name) {
				t.byName = append(t.byName, name)
			}
		case d.ref == nil && d.inheritsEnv:
			t.inherited = append(t.inherited, name)
		case d.ref == nil:
			t.noRef = append(t.noRef, name)
		default:
			env.set(name, d.ref(name))
			t.passed = append(t.passed, name)
		}
	}
	if len(env) > 0 {
		e.set(d.envKey, env)
	}
	if len(t.byName) > 0 {
		e.set(d.nameKeys, slices.Clone(t.byName))
		t.note("%s passes %s by name (%s): it reads them from its environment or its secret store", d.display, strings.Join(t.byName, ", "), d.nameKeys)
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
		t.note("the command is looked up on PATH, and Claude Desktop starts servers with a minimal environment; use an absolute path if the server does not start")
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
	url, ok := t.spell("url", urlParts)
	if !ok {
		return nil, t.cannotExpand("url", firstRef(urlParts))
	}
	e := d.lead(s.Name)
	transport := d.httpType
	if s.SSE {
		transport = d.sseType
	}
	switch {
	case d.gemini && s.SSE:
		e.set("url", url)
	case d.gemini:
		e.set("httpUrl", url)
	case transport != "":
		e.set(d.typeKey, transport)
		e.set(d.urlKey, url)
	default:
		// Cursor has no transport field; it tries Streamable HTTP and
		// falls back to SSE on its own.
		e.set(d.urlKey, url)
	}
	headers := s.Headers
	if d.bearerKey != "" && d.ref == nil {
		headers = t.bearer(&e, headers)
	}
	if h := t.pairs("header", headers); len(h) > 0 {
		e.set("headers", h)
	}
	if len(s.Env) > 0 || len(s.EnvVars) > 0 || len(s.Args) > 0 || s.Cwd != "" {
		t.note("command settings (args, env, cwd) dropped: the server is remote")
	}
	return e, ""
}

// bearer moves an "Authorization: Bearer ${VAR}" header into the
// dialect's bearerKey field as VAR and returns the other headers. Only the
// first Authorization header counts (header names are case-insensitive);
// one that is not of that form stays for pairs to judge.
func (t *translation) bearer(e *object, headers []configmigrate.KeyValue) []configmigrate.KeyValue {
	i := slices.IndexFunc(headers, func(kv configmigrate.KeyValue) bool { return strings.EqualFold(kv.Key, "Authorization") })
	if i < 0 {
		return headers
	}
	v := headers[i].Value
	if v.Ref == "" || !strings.EqualFold(strings.TrimSpace(v.Prefix), "Bearer") {
		return headers
	}
	e.set(t.d.bearerKey, v.Ref)
	if !slices.Contains(t.refs, v.Ref) {
		t.refs = append(t.refs, v.Ref)
	}
	if v.HasDefault && !slices.Contains(t.noDefault, v.Ref) {
		t.noDefault = append(t.noDefault, v.Ref)
	}
	rest := slices.DeleteFunc(slices.Clone(headers), func(kv configmigrate.KeyValue) bool { return strings.EqualFold(kv.Key, "Authorization") })
	if len(rest) < len(headers)-1 {
		t.note("header Authorization is set twice; the first value was written")
	}
	return rest
}

func (t *translation) cannotExpand(field, ref string) string {
	return fmt.Sprintf("%s refers to $%s, which %s cannot expand; register the server by hand with the value filled in", field, ref, t.d.display)
}

// common adds what applies to both transports: timeouts, approval, and
// the notes about references.
func (t *translation) common(s configmigrate.Server, e *object) {
	d := t.d
	if d.timeoutKey != "" {
		switch {
		case s.ToolTimeoutSec > 0:
			// The timeout covers each request to the server.
			e.set(d.timeoutKey, d.timeout(s.ToolTimeoutSec))
		case d.timeoutDefault > 0:
			e.set(d.timeoutKey, d.timeoutDefault)
		}
		switch {
		case s.StartupTimeoutSec > 0 && d.startupKey != "":
			e.set(d.startupKey, d.timeout(s.StartupTimeoutSec))
		case s.StartupTimeoutSec > 0:
			t.note("startup timeout dropped: %s has no setting for it", d.display)
		}
	} else if s.ToolTimeoutSec > 0 || s.StartupTimeoutSec > 0 {
		if d.client == ClaudeCode {
			t.note("timeouts dropped: Claude Code has no per-server timeout (the MCP_TIMEOUT and MCP_TOOL_TIMEOUT environment variables apply to every server)")
		} else {
			t.note("timeouts dropped: %s has no per-server timeout", d.display)
		}
	}
	if d.includeKey != "" {
		if len(s.EnabledTools) > 0 {
			e.set(d.includeKey, slices.Clone(s.EnabledTools))
		}
		if len(s.DisabledTools) > 0 {
			e.set(d.excludeKey, slices.Clone(s.DisabledTools))
		}
	} else if len(s.EnabledTools) > 0 || len(s.DisabledTools) > 0 {
		t.note("tool filters dropped: %s has no per-server tool list; every tool of the server is offered (turn tools off in %s itself)", d.display, d.display)
	}
	if s.ParallelToolCalls != nil && !*s.ParallelToolCalls {
		t.note("%s has no setting to keep it from calling this server's tools concurrently", d.display)
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
	if len(t.noDefault) > 0 {
		t.note("the default in ${%s:-...} was dropped: %s has no default values, so set %s where %s starts", strings.Join(t.noDefault, ":-...}, ${"), d.display, strings.Join(t.noDefault, ", "), d.display)
	}
	// A variable the server's own note already names ("the entry reads
	// $X instead; set X ...") is not named twice.
	var said []string
	for _, n := range s.Notes {
		for _, m := range readsRefRE.FindAllStringSubmatch(n, -1) {
			said = append(said, m[1])
		}
	}
	if refs := slices.DeleteFunc(slices.Clone(t.refs), func(r string) bool { return slices.Contains(said, r) }); len(refs) > 0 {
		t.note("reads %s from the environment %s is started from", strings.Join(refs, ", "), d.display)
	}
	if len(t.passed) > 0 {
		t.note("passes %s through from the environment %s is started from", strings.Join(t.passed, ", "), d.display)
	}
	if len(t.inherited) > 0 {
		t.note("gets %s from the environment %s is started from (it hands a server its own)", strings.Join(t.inherited, ", "), d.display)
	}
	var lost []string
	for _, name := range append(slices.Clone(t.refs), t.passed...) {
		if slices.Contains(d.scrubbed, name) && !slices.Contains(lost, name) {
			lost = append(lost, name)
		}
	}
	switch {
	case len(lost) == 1:
		t.note("%s removes %s from its own environment, so the server never gets it from there: reference a variable of another name in its entry, or write the value there by hand", d.display, lost[0])
	case len(lost) > 1:
		t.note("%s removes %s from its own environment, so the server never gets them from there: reference variables of other names in its entry, or write the values there by hand", d.display, strings.Join(lost, ", "))
	}
}

// timeout spells sec in the client's unit; whole seconds are rounded up,
// so a short timeout never becomes 0, which some clients read as "none".
func (d *dialect) timeout(sec float64) int64 {
	if d.timeoutSeconds {
		return max(1, int64(math.Ceil(sec)))
	}
	return int64(math.Round(sec * 1000))
}

// legacyHermesToolsEnv are variables the Python Hermes wrote into its
// hermes-tools entry.
func legacyHermesToolsEnv(name string) bool {
	switch name {
	case "HERMES_QUIET", "HERMES_REDACT_SECRETS", "PYTHONPATH":
		return true
	}
	return false
}

// hermesToolsBinary is the callback server's executable name, the mark of
// a hermes-tools entry Hermes wrote.
const hermesToolsBinary = "hermes-tools-mcp"

// hermesWrote reports whether an existing hermes-tools entry (plain JSON)
// has the shape Hermes writes: the hermes-tools-mcp binary (wherever it
// was installed then), Hermes' arguments, and only the variables Hermes
// writes, each spelled as Hermes spells it unless the client needs it
// filled in by hand. The ownership state does not record hermes-tools, so
// this is what tells Hermes' outdated entry (replace it) from one the
// user wrote (keep it): a different command, extra arguments, another
// variable, or a key Hermes never writes make it the user's.
// isHermesToolsBinary reports whether cmd starts hermes-tools-mcp, wherever
// it was installed (Windows paths compared without case).
func isHermesToolsBinary(cmd string) bool {
	base := cmd[strings.LastIndexAny(cmd, `/\`)+1:]
	return strings.TrimSuffix(strings.ToLower(base), ".exe") == hermesToolsBinary
}

func hermesWrote(d *dialect, s configmigrate.Server, existing []byte) bool {
	var have map[string]json.RawMessage
	if json.Unmarshal(existing, &have) != nil {
		return false
	}
	for k := range have {
		switch k {
		// trust is what Hermes' own note tells Gemini users to add.
		case "type", "command", "args", "timeout", "cwd", "trust", d.envKey, d.typeKey, d.timeoutKey, d.commandKey, d.nameKeys:
		case "name":
			if !d.nameField {
				return false
			}
		default:
			if !slices.ContainsFunc(d.first, func(f field) bool { return f.key == k }) &&
				!slices.ContainsFunc(d.last, func(f field) bool { return f.key == k }) {
				return false
			}
		}
	}
	cmd, args, ok := entryCommand(have)
	if !ok || cmd != s.Command && !isHermesToolsBinary(cmd) {
		return false
	}
	if !slices.Equal(args, s.Args) && !(len(args) == 0 && len(s.Args) == 0) {
		return false
	}
	var env map[string]string
	if raw, ok := have[d.envKey]; ok && json.Unmarshal(raw, &env) != nil {
		return false
	}
	for k, v := range env {
		switch {
		case slices.ContainsFunc(s.Env, func(kv configmigrate.KeyValue) bool { return kv.Key == k }):
			// HERMES_HOME: its value follows the user's Hermes home.
		case legacyHermesToolsEnv(k):
			// Written by earlier Hermes versions.
		case !slices.Contains(s.EnvVars, k):
			return false
		case d.ref == nil:
			// Filled in by hand, as Hermes asked.
		case v != d.ref(k):
			return false
		}
	}
	return true
}

// entryCommand reads the command and arguments of an entry (plain JSON
// members), whether written as command plus args or as one array.
func entryCommand(have map[string]json.RawMessage) (cmd string, args []string, ok bool) {
	raw, ok := have["command"]
	if !ok {
		raw = have["cmd"] // Goose
	}
	if json.Unmarshal(raw, &cmd) == nil {
		if a, has := have["args"]; has && json.Unmarshal(a, &args) != nil {
			return "", nil, false
		}
		return cmd, args, true
	}
	var all []string
	if json.Unmarshal(raw, &all) != nil || len(all) == 0 {
		return "", nil, false
	}
	return all[0], all[1:], true
}

// lead is what every entry of the dialect starts with: its name where the
// client repeats it (Goose), then the constant leading fields.
func (d *dialect) lead(name string) object {
	var e object
	if d.nameField {
		e.set("name", name)
	}
	return append(e, d.first...)
}
