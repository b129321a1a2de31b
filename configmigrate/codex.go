package configmigrate

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// The managed block's marker lines, byte for byte those of the Python
// Hermes (the dash is U+2014), so either implementation recognises and
// replaces a block the other wrote.
const (
	BeginMarker = "# managed by hermes-agent \u2014 `hermes codex-runtime migrate` regenerates this section"
	EndMarker   = "# end hermes-agent managed section"
	emptyNote   = "# (no MCP servers, plugins, or permissions configured by Hermes)"
)

// DefaultPermissions is the permission profile written when the user sets
// none: sandboxed writes inside the workspace, no prompt on every edit.
const DefaultPermissions = ":workspace"

// BuiltinPermissions returns codex's built-in permission profiles, the ids
// default_permissions accepts besides the user's own [permissions.<id>]
// tables (codex-app-server.md §11.5; there is no ":danger-no-sandbox").
func BuiltinPermissions() []string {
	return []string{":read-only", ":workspace", ":danger-full-access"}
}

// ErrUnknownPermissions marks a default_permissions profile codex would
// not start with: not built in and not defined in config.toml.
var ErrUnknownPermissions = errors.New("unknown codex permission profile")

// CheckPermissions reports whether codex accepts profile as
// default_permissions: a built-in (the leading ':' may be left out) or a
// profile config.toml defines as [permissions.<id>]. user is config.toml
// parsed, nil when only the built-ins are known yet. Codex refuses to load
// a config naming an unknown profile, so writing one would break codex for
// every session rather than fail this run.
func CheckPermissions(profile string, user map[string]any) error {
	id := profile
	if id == "" {
		return nil
	}
	if slices.Contains(BuiltinPermissions(), id) || isBuiltinProfile(id) {
		return nil
	}
	want := fmt.Sprintf("use one of %s, a profile of your own defined as [permissions.<id>] in config.toml, or \"none\" to set no default", strings.Join(BuiltinPermissions(), ", "))
	if strings.HasPrefix(id, ":") {
		return fmt.Errorf("%w %q: codex has no such built-in profile; %s", ErrUnknownPermissions, profile, want)
	}
	if own, _ := user["permissions"].(map[string]any); own != nil {
		if _, ok := own[id]; ok {
			return nil
		}
	}
	return fmt.Errorf("%w %q: it is not a built-in profile and config.toml has no [permissions.%s] table; %s", ErrUnknownPermissions, profile, tomlKey(id), want)
}

// Plugin is an installed codex plugin to keep enabled in the block.
type Plugin struct {
	Name        string
	Marketplace string
	Enabled     bool
}

// ID is the plugin's config key, name@marketplace.
func (p Plugin) ID() string { return p.Name + "@" + p.Marketplace }

// CodexInput is what the managed block should contain.
type CodexInput struct {
	// HermesTools is the callback entry; nil leaves it out.
	HermesTools *Server
	// Servers are the user's Hermes MCP servers.
	Servers []Server
	// Plugins discovered through codex.
	Plugins []Plugin
	// DefaultPermissions is the profile for default_permissions; empty
	// writes none. A missing leading ':' is added for built-in names. Any
	// other profile must be defined in config.toml (CheckPermissions).
	DefaultPermissions string
}

// CodexReport says what a migration did, server by server.
type CodexReport struct {
	Servers []ServerReport `json:"servers,omitempty"`
	Plugins []string       `json:"plugins,omitempty"`
	// DefaultPermissions is the value written, empty if none.
	DefaultPermissions string `json:"default_permissions,omitempty"`
	// UserDefined lists what the block would have defined but the user's
	// own config.toml already does; the user's definition was kept.
	UserDefined []string `json:"user_defined,omitempty"`
	// Dropped names the servers the previous block defined that this one
	// does not: gone from config.yaml's mcp_servers (or from the run's
	// choice), and so taken out of codex. A report says so; a quiet
	// removal looks like lost configuration.
	Dropped []string `json:"dropped,omitempty"`
	// Changed is false when the file already had exactly this content.
	Changed bool `json:"changed"`
}

// ServerReport describes one server of the block.
type ServerReport struct {
	Name string `json:"name"`
	// Written is false when the user's own definition won.
	Written bool     `json:"written"`
	Notes   []string `json:"notes,omitempty"`
}

// ErrInvalidTOML wraps a config.toml that does not parse; the message
// carries line and column.
var ErrInvalidTOML = errors.New("config.toml is not valid TOML")

// MigrateCodex returns existing with the managed block replaced by one
// rendered from in. Every byte outside the block is kept: a block standing
// where one may stand is replaced in place, marker lines included; with no
// block, or one whose tables would capture the user's root keys, the block
// goes before the first table header. Where the user's own text already
// defines something the block would (default_permissions, a server table,
// a plugin table), the user's definition wins. Marker lines that do not
// make exactly one block are refused with a *MarkerError. The result is
// parsed before it is returned; nothing invalid is ever produced.
func MigrateCodex(existing []byte, in CodexInput) ([]byte, CodexReport, error) {
	var rep CodexReport
	doc, err := splitDocument(existing)
	if err != nil {
		return nil, rep, err
	}
	user, err := doc.parseUser()
	if err != nil {
		return nil, rep, err
	}
	if err := CheckPermissions(in.DefaultPermissions, user); err != nil {
		return nil, rep, err
	}
	block := renderBlock(in, user, &rep, doc.newline)
	if err := checkInlineTables(doc.user, rep); err != nil {
		return nil, rep, err
	}
	out := doc.with(block)
	if _, err := parseTOML(bytes.TrimPrefix(out, bom)); err != nil {
		return nil, rep, fmt.Errorf("the migrated file would not parse, so nothing was written (is mcp_servers or plugins an inline table in your config.toml? use [mcp_servers.<name>] tables): %w", err)
	}
	rep.Changed = !bytes.Equal(out, existing)
	for _, name := range blockServers(existing) {
		if !slices.ContainsFunc(rep.Servers, func(r ServerReport) bool { return r.Name == name }) {
			rep.Dropped = append(rep.Dropped, name)
		}
	}
	return out, rep, nil
}

// blockServers are the server names a managed block in text defines, in
// the block's order.
func blockServers(text []byte) []string {
	block := extractBlock(text)
	if block == nil {
		return nil
	}
	var names []string
	p := unstable.Parser{}
	p.Reset(block)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.Table {
			continue
		}
		it := e.Key()
		if !it.Next() || string(it.Node().Data) != "mcp_servers" || !it.Next() {
			continue
		}
		name := string(it.Node().Data)
		if !it.Next() && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// checkInlineTables refuses a file whose mcp_servers or plugins is one
// inline value (mcp_servers = { ... }): TOML closes an inline table, so no
// server can be added beside it. The user has to rewrite it as tables;
// rewriting their text for them would break the promise to keep it.
func checkInlineTables(user []byte, rep CodexReport) error {
	need := map[string]bool{"mcp_servers": false, "plugins": len(rep.Plugins) > 0}
	for _, s := range rep.Servers {
		need["mcp_servers"] = need["mcp_servers"] || s.Written
	}
	p := unstable.Parser{KeepComments: true}
	p.Reset(user)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind == unstable.Table || e.Kind == unstable.ArrayTable {
			return nil // root keys end at the first header
		}
		if e.Kind != unstable.KeyValue {
			continue
		}
		it := e.Key()
		if !it.Next() {
			continue
		}
		first := string(it.Node().Data)
		if it.Next() || !need[first] || e.Value().Kind != unstable.InlineTable {
			continue
		}
		line := bytes.Count(user[:e.Value().Raw.Offset], []byte("\n")) + 1
		return fmt.Errorf("config.toml line %d defines %s as one inline table; TOML allows nothing to be added to it, so Hermes cannot add its entries. Rewrite it as [%s.<name>] tables and run again; nothing was written", line, first, first)
	}
	return nil
}

// RemoveCodexBlock takes the managed block out again. The user's bytes are
// returned exactly as they were before the block was added, BOM, line
// endings and a missing final newline included.
func RemoveCodexBlock(existing []byte) (out []byte, removed bool, err error) {
	doc, err := splitDocument(existing)
	if err != nil {
		return nil, false, err
	}
	if _, err := doc.parseUser(); err != nil {
		return nil, false, err
	}
	if !doc.hadBlock {
		return existing, false, nil
	}
	return append(bytes.Clone(doc.bom), doc.user...), true, nil
}

// parseTOML parses text into a generic map, turning a parse error into one
// that names line and column.
func parseTOML(text []byte) (map[string]any, error) {
	var m map[string]any
	if err := toml.Unmarshal(text, &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, fmt.Errorf("%w: line %d, column %d: %s", ErrInvalidTOML, row, col, de.Error())
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidTOML, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// document is a config.toml split into the user's text and the place the
// managed block goes.
type document struct {
	bom      []byte
	text     []byte // the file without BOM
	user     []byte // text without the managed block
	insertAt int    // byte offset in user where a new block goes
	newline  string
	hadBlock bool
	span     blockSpan // the existing block in text, if hadBlock
	// inPlace is true when the existing block stands where a block may
	// stand, so replacing it touches no other byte.
	inPlace bool
}

var bom = []byte("\xef\xbb\xbf")

func splitDocument(text []byte) (document, error) {
	var d document
	if bytes.HasPrefix(text, bom) {
		d.bom, text = bom, text[len(bom):]
	}
	d.text, d.user = text, text
	span, ok, err := findBlock(text)
	if err != nil {
		return d, fmt.Errorf("managed block: %w", err)
	}
	if ok {
		d.hadBlock, d.span = true, span
		user := make([]byte, 0, len(text)-(span.end-span.begin))
		user = append(user, text[:span.begin-span.pre]...)
		d.user = append(user, text[span.end+span.sep:]...)
	}
	// A one-line file has no style of its own; keep the block's.
	d.newline = newlineOf(text)
	if bytes.IndexByte(d.user, '\n') >= 0 {
		d.newline = newlineOf(d.user)
	}
	d.insertAt = firstTableHeader(d.user)
	d.inPlace = ok && blockFits(d.user, span.begin-span.pre)
	return d, nil
}

// parseUser parses the user's text. A parse error's line number counts
// lines of the file as it is, block included, so the user finds the line.
func (d document) parseUser() (map[string]any, error) {
	m, err := parseTOML(d.user)
	if err != nil && d.hadBlock {
		if _, whole := parseTOML(d.text); whole != nil {
			return nil, whole
		}
	}
	return m, err
}

// with returns the file with block in place of the old one, or inserted
// before the first table header, where its root key (default_permissions)
// is a root key whatever the file contains; with no header it goes at the
// end. The separators it adds (a blank line after the block, a line break
// before it in a file without a final newline) are what findBlock counts
// as the block's, so removing the block gives back the user's bytes.
func (d document) with(block string) []byte {
	var b bytes.Buffer
	b.Write(d.bom)
	if d.inPlace {
		b.Write(d.text[:d.span.begin])
		if !d.span.finalNL {
			block = strings.TrimSuffix(block, d.newline)
		}
		b.WriteString(block)
		b.Write(d.text[d.span.end:])
		return b.Bytes()
	}
	before, after := d.user[:d.insertAt], d.user[d.insertAt:]
	b.Write(before)
	if len(before) > 0 && !bytes.HasSuffix(before, []byte("\n")) {
		// The file lacks a final newline: the block ends the file without
		// one as well, rather than giving the user's last line one.
		b.WriteString(d.newline)
		block = strings.TrimSuffix(block, d.newline)
	}
	b.WriteString(block)
	if len(after) > 0 {
		b.WriteString(d.newline)
		b.Write(after)
	}
	return b.Bytes()
}

// blockFits reports whether a block at offset at of the user's text would
// leave every key where it is: nothing but root keys come before it and no
// root key comes after it, so default_permissions stays a root key and the
// block's last table does not capture the user's keys that follow.
func blockFits(user []byte, at int) bool {
	p := unstable.Parser{KeepComments: true}
	p.Reset(user)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			return at <= headerLine(user, e)
		case unstable.KeyValue:
			if k := e.Key(); k.Next() && int(k.Node().Raw.Offset) >= at {
				return false
			}
		}
	}
	return true
}

// firstTableHeader returns the offset of the line holding the first table
// header, found by the TOML parser, so a '[' inside a multi-line string or
// array is never mistaken for one. Text that does not parse has been
// refused before this is called; len(text) means "no header".
func firstTableHeader(text []byte) int {
	p := unstable.Parser{KeepComments: true}
	p.Reset(text)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind == unstable.Table || e.Kind == unstable.ArrayTable {
			return aboveComments(text, headerLine(text, e))
		}
	}
	return len(text)
}

// headerLine returns the offset of the line holding a table header.
func headerLine(text []byte, e *unstable.Node) int {
	off := int(e.Raw.Offset)
	if off <= 0 || off > len(text) {
		// Fall back to the first key of the header.
		if k := e.Key(); k.Next() {
			off = int(k.Node().Raw.Offset)
		}
	}
	for off > 0 && text[off-1] != '\n' {
		off--
	}
	return off
}

// aboveComments moves a line offset up over the comment lines directly
// above it: a comment right over a table header describes that table and
// must stay with it.
func aboveComments(text []byte, off int) int {
	for off > 0 {
		prev := bytes.LastIndexByte(text[:off-1], '\n') + 1
		line := bytes.TrimSpace(text[prev:off])
		if len(line) == 0 || line[0] != '#' {
			break
		}
		off = prev
	}
	return off
}

// BlockPlugins returns the plugins a managed block in text lists, so a run
// that cannot ask codex (dry run, --no-plugins, discovery failed) keeps
// what an earlier run discovered instead of dropping it.
func BlockPlugins(text []byte) []Plugin {
	block := extractBlock(text)
	if block == nil {
		return nil
	}
	m, err := parseTOML(block)
	if err != nil {
		return nil
	}
	table, _ := m["plugins"].(map[string]any)
	var out []Plugin
	for id, v := range table {
		name, market, ok := strings.Cut(id, "@")
		if !ok || name == "" {
			continue
		}
		p := Plugin{Name: name, Marketplace: market, Enabled: true}
		if t, ok := v.(map[string]any); ok {
			if e, ok := t["enabled"].(bool); ok {
				p.Enabled = e
			}
		}
		out = append(out, p)
	}
	return dedupePlugins(out)
}

// extractBlock returns the text of the managed block, or nil when there
// is none or its markers are broken. The markers are comments, so the
// span parses as it is.
func extractBlock(text []byte) []byte {
	text = bytes.TrimPrefix(text, bom)
	span, ok, err := findBlock(text)
	if !ok || err != nil {
		return nil
	}
	return text[span.begin:span.end]
}

// renderBlock renders the managed block, skipping what the user defines.
func renderBlock(in CodexInput, user map[string]any, rep *CodexReport, nl string) string {
	var lines []string
	add := func(s ...string) { lines = append(lines, s...) }

	perm := ""
	if in.DefaultPermissions != "" {
		perm = in.DefaultPermissions
		if !strings.HasPrefix(perm, ":") && isBuiltinProfile(perm) {
			perm = ":" + perm
		}
		if _, ok := user["default_permissions"]; ok {
			rep.UserDefined = append(rep.UserDefined, "default_permissions")
			perm = ""
		}
	}

	servers := slices.Clone(in.Servers)
	if in.HermesTools != nil {
		// The callback is always Hermes' own: a Hermes server of the same
		// name in config.yaml does not replace it.
		servers = slices.DeleteFunc(servers, func(s Server) bool { return s.Name == in.HermesTools.Name })
		servers = append(servers, *in.HermesTools)
	}
	sort.SliceStable(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	userServers, _ := user["mcp_servers"].(map[string]any)
	var bodies []string
	for _, s := range servers {
		sr := ServerReport{Name: s.Name}
		if _, ok := userServers[s.Name]; ok {
			rep.UserDefined = append(rep.UserDefined, "mcp_servers."+s.Name)
			sr.Notes = append(sr.Notes, "config.toml already defines this server outside the managed block; that definition was kept")
			rep.Servers = append(rep.Servers, sr)
			continue
		}
		body, notes := codexServer(s)
		sr.Written, sr.Notes = true, append(slices.Clone(s.Notes), notes...)
		rep.Servers = append(rep.Servers, sr)
		bodies = append(bodies, strings.Join(append([]string{"[mcp_servers." + tomlKey(s.Name) + "]"}, body...), nl))
	}

	plugins := dedupePlugins(in.Plugins)
	userPlugins, _ := user["plugins"].(map[string]any)
	var pluginLines []string
	for _, p := range plugins {
		if _, ok := userPlugins[p.ID()]; ok {
			rep.UserDefined = append(rep.UserDefined, "plugins."+p.ID())
			continue
		}
		rep.Plugins = append(rep.Plugins, p.ID())
		pluginLines = append(pluginLines, "[plugins."+tomlQuote(p.ID())+"]"+nl+"enabled = "+strconv.FormatBool(p.Enabled))
	}

	add(BeginMarker)
	if perm == "" && len(bodies) == 0 && len(pluginLines) == 0 {
		add(emptyNote, EndMarker)
		return strings.Join(lines, nl) + nl
	}
	if perm != "" {
		rep.DefaultPermissions = perm
		add("", "default_permissions = "+tomlQuote(perm))
	}
	for _, b := range bodies {
		add("", b)
	}
	for _, p := range pluginLines {
		add("", p)
	}
	add("", EndMarker)
	return strings.Join(lines, nl) + nl
}

func isBuiltinProfile(p string) bool {
	switch p {
	case "read-only", "workspace", "danger-full-access":
		return true
	}
	return false
}

// dedupePlugins sorts by id and keeps the first of each name@marketplace.
func dedupePlugins(in []Plugin) []Plugin {
	seen := map[string]bool{}
	var out []Plugin
	for _, p := range in {
		if p.Marketplace == "" {
			p.Marketplace = "openai-curated"
		}
		if p.Name == "" || seen[p.ID()] {
			continue
		}
		seen[p.ID()] = true
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out
}

// shellRef is v as a POSIX shell would write it inside double quotes, for
// a note that tells the user what to export: "Bearer ${T}", "${T:-x}".
func shellRef(v Value) string {
	ref := "${" + v.Ref + "}"
	if v.HasDefault {
		ref = "${" + v.Ref + ":-" + v.Default + "}"
	}
	return v.Prefix + ref
}

// codexServer renders a server's keys in codex's vocabulary. Secrets stay
// references: ${VAR} env values become env_vars, header references become
// bearer_token_env_var or env_http_headers. What codex cannot express is
// left out with a note.
func codexServer(s Server) (lines []string, notes []string) {
	var kv []string
	set := func(k, v string) { kv = append(kv, k+" = "+v) }
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }

	if s.IsStdio() {
		set("command", tomlQuote(s.Command))
		if len(s.Args) > 0 {
			set("args", tomlStrings(s.Args))
		}
		if ParseValue(s.Command).IsRef() || slices.ContainsFunc(s.Args, func(a string) bool { return ParseValue(a).IsRef() || ParseValue(a).HasEmbeddedRef() }) {
			note("command/args mention ${VAR}; codex does not expand variables there, so they were written as is")
		}
		var env []KeyValue
		envVars := slices.Clone(s.EnvVars)
		for _, e := range s.Env {
			switch {
			case e.Value.IsRef() && e.Value.Prefix == "" && e.Value.Ref == e.Key:
				if !slices.Contains(envVars, e.Key) {
					envVars = append(envVars, e.Key)
				}
				if e.Value.HasDefault {
					note("env %s: codex forwards the variable but has no defaults, so the default after :- is dropped; set %s where codex runs", e.Key, e.Key)
				}
			case e.Value.IsRef():
				// Codex forwards a variable only under its own name, so the
				// server's name goes into env_vars and the user exports it
				// from the referenced one where codex runs; without the
				// env_vars entry even an exported value never arrives.
				if !slices.Contains(envVars, e.Key) {
					envVars = append(envVars, e.Key)
				}
				note("env %s refers to ${%s}, and codex forwards a variable only under its own name: export %s=\"%s\" where codex runs", e.Key, e.Value.Ref, e.Key, shellRef(e.Value))
			case e.Value.HasEmbeddedRef():
				note("env %s (a variable inside a longer value cannot be referenced in codex)", e.Key)
			default:
				env = append(env, e)
			}
		}
		if len(env) > 0 {
			set("env", tomlInlineTable(env))
		}
		if len(envVars) > 0 {
			set("env_vars", tomlStrings(envVars))
		}
		if s.Cwd != "" {
			set("cwd", tomlQuote(s.Cwd))
		}
	} else {
		set("url", tomlQuote(s.URL))
		if ParseValue(s.URL).IsRef() || ParseValue(s.URL).HasEmbeddedRef() {
			note("url mentions ${VAR}; codex does not expand it, so it was written as is")
		}
		if s.SSE {
			note("transport=sse (codex negotiates the HTTP transport itself)")
		}
		var literal, refs []KeyValue
		for _, h := range s.Headers {
			switch {
			case strings.EqualFold(h.Key, "Authorization") && h.Value.IsRef() && strings.EqualFold(strings.TrimSpace(h.Value.Prefix), "Bearer"):
				set("bearer_token_env_var", tomlQuote(h.Value.Ref))
			case h.Value.IsRef() && h.Value.Prefix == "":
				refs = append(refs, KeyValue{Key: h.Key, Value: Value{Literal: h.Value.Ref}})
			case h.Value.IsRef() || h.Value.HasEmbeddedRef():
				note("header %s (a variable inside a longer value cannot be referenced in codex; make the whole value ${VAR})", h.Key)
			default:
				literal = append(literal, h)
			}
		}
		if len(literal) > 0 {
			set("http_headers", tomlInlineTable(literal))
		}
		if len(refs) > 0 {
			set("env_http_headers", tomlInlineTable(refs))
		}
	}
	if s.StartupTimeoutSec > 0 {
		set("startup_timeout_sec", tomlFloat(s.StartupTimeoutSec))
	}
	if s.ToolTimeoutSec > 0 {
		set("tool_timeout_sec", tomlFloat(s.ToolTimeoutSec))
	}
	if s.Disabled {
		set("enabled", "false")
	}
	if len(s.EnabledTools) > 0 {
		set("enabled_tools", tomlStrings(s.EnabledTools))
	}
	if len(s.DisabledTools) > 0 {
		set("disabled_tools", tomlStrings(s.DisabledTools))
	}
	if s.ParallelToolCalls != nil {
		set("supports_parallel_tool_calls", strconv.FormatBool(*s.ParallelToolCalls))
	}
	if s.ApproveTools {
		set("default_tools_approval_mode", tomlQuote("approve"))
	}
	return kv, notes
}

// tomlKey writes a key bare when TOML allows it, quoted otherwise.
func tomlKey(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return tomlQuote(k)
		}
	}
	return k
}

// tomlQuote writes a basic string, escaping what TOML requires.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlQuote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func tomlInlineTable(kvs []KeyValue) string {
	if len(kvs) == 0 {
		return "{}"
	}
	parts := make([]string, len(kvs))
	for i, kv := range kvs {
		parts[i] = tomlKey(kv.Key) + " = " + tomlQuote(kv.Value.Literal)
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// tomlFloat writes a float the way the Python Hermes does (30.0, 2.5), so
// blocks from both implementations read the same.
func tomlFloat(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}
