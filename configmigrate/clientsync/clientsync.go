// Package clientsync registers Hermes' MCP servers with MCP clients: one
// table of clients (clients.go) says where each keeps its file on every
// OS, at user and project level, and how it spells an entry; one Job
// (job.go) runs any row of it for hermes-migrate and /codex-runtime.
//
// Codex is a row like the others with hooks for what only it has
// (codex.go): its entries are one section of config.toml that Hermes owns
// whole, between the Python Hermes' marker lines (configmigrate's managed
// block), with the plugins codex app-server reports and a
// default_permissions profile; the other clients' entries are edited one
// by one beside the user's.
//
// Those files belong to the user and several hold unrelated state
// (~/.claude.json, ~/.gemini/settings.json); they are JSON, JSONC, YAML
// (Goose) or TOML (Grok Build). So the package never re-marshals a file:
// JSON is parsed with a JSONC-tolerant scanner that records byte ranges
// and text is spliced into the servers object; YAML and TOML entries are
// found by line (yaml.v3 positions, table headers) and replaced as whole
// lines, each edit checked by parsing the result. Every byte outside the
// entries it adds, replaces or removes is kept: unknown keys, other
// servers, key order, indentation, line endings, comments, trailing
// commas.
//
// Apply and Remove work on bytes, and ConfigPath only computes a path
// from an injected Env. Job puts them together: it finds, reads and
// atomically rewrites a client's file and keeps the ownership state
// described below across runs.
//
// # Ownership
//
// The files carry no marker saying who wrote an entry (clients validate
// their entries, and only some formats have comments), so ownership is
// decided by name:
//
//   - configmigrate.HermesToolsName ("hermes-tools") is Hermes' own when
//     its entry has the shape Hermes writes (hermes-tools-mcp, Hermes'
//     arguments and variables); one the user wrote with their own
//     command, arguments or variables is theirs like any other.
//   - A name listed in Options.Owned (the names a previous Apply reported
//     in Result.Written; Job keeps them in hermes-migrate-state.json in
//     the Hermes home) is Hermes' and is replaced.
//   - An entry that already says exactly what Hermes would write is left
//     byte for byte as it is, and counts as written.
//   - Any other entry of the same name is the user's: it is kept, the
//     server is reported in Skipped with a "user definition wins" note,
//     unless Options.Overwrite (hermes-migrate --force) is set.
//
// A server Hermes cannot register any more (disabled, or not expressible
// in the client) is removed when its existing entry is Hermes' own.
//
// Where a client cannot reference environment variables (Claude Desktop),
// the entry leaves those variables out and a note asks the user to fill
// them in; when Hermes later rewrites its entry, values filled in that
// way are kept. A value Hermes copied there itself (--allow-literal-secrets)
// is not the user's: Job records a salted digest of it, never the value,
// and a later run without the flag takes out a value that still matches.
package clientsync

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/configmigrate"
)

// Client names an MCP client, as --client spells it.
type Client string

// The supported clients.
const (
	Codex         Client = "codex"
	ClaudeDesktop Client = "claude-desktop"
	ClaudeCode    Client = "claude-code"
	Cursor        Client = "cursor"
	VSCode        Client = "vscode"
	Gemini        Client = "gemini"
	Antigravity   Client = "antigravity"
	Cline         Client = "cline"
	ClineCLI      Client = "cline-cli"
	FX            Client = "fx"
	CopilotCLI    Client = "github-copilot-cli"
	KiloCode      Client = "kilo-code"
	KimiCode      Client = "kimi-code"
	KiroCLI       Client = "kiro-cli"
	MastraCode    Client = "mastracode"
	MCPorter      Client = "mcporter"
	OpenCode      Client = "opencode"
	Pi            Client = "pi"
	Windsurf      Client = "windsurf"
	Zed           Client = "zed"
	Goose         Client = "goose"
	GrokBuild     Client = "grok-build"
	RooCode       Client = "roo-code"
	LMStudio      Client = "lmstudio"
)

// Clients lists the supported clients in a stable order: codex, then the
// next five in the order hermes-migrate has always run them, then
// add-mcp's other JSON clients by name, two it lacks, then YAML and TOML.
func Clients() []Client {
	return []Client{Codex, ClaudeDesktop, ClaudeCode, Cursor, VSCode, Gemini,
		Antigravity, Cline, ClineCLI, FX, CopilotCLI, KiloCode, KimiCode, KiroCLI,
		MastraCode, MCPorter, OpenCode, Pi, Windsurf, Zed, RooCode, LMStudio, Goose, GrokBuild}
}

func clientNames() string {
	names := make([]string, 0, len(dialects))
	for _, c := range Clients() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}

// ParseClient accepts a client name as the CLI spells it, or one of the
// aliases add-mcp accepts ("gemini-cli", "kiro").
func ParseClient(s string) (Client, error) {
	c := Client(strings.ToLower(strings.TrimSpace(s)))
	if _, ok := dialects[c]; ok {
		return c, nil
	}
	for _, d := range dialects {
		if slices.Contains(d.aliases, string(c)) {
			return d.client, nil
		}
	}
	return "", fmt.Errorf("unknown MCP client %q; valid clients are %s", s, clientNames())
}

// DisplayName is the client's name for people ("VS Code"); the Client
// value itself is the CLI spelling ("vscode").
func (c Client) DisplayName() string {
	if d, ok := dialects[c]; ok {
		return d.display
	}
	return string(c)
}

func dialectFor(c Client) (*dialect, error) {
	d, ok := dialects[c]
	if !ok {
		return nil, fmt.Errorf("unknown MCP client %q; valid clients are %s", string(c), clientNames())
	}
	return d, nil
}

// Env is the part of the environment that decides where config files
// live. It is passed in, never read from the process, so every OS can be
// tested from any OS.
type Env struct {
	// GOOS is runtime.GOOS of the machine the files are on.
	GOOS string
	// Home is the user's home directory (%USERPROFILE% on Windows).
	Home string
	// AppData is %APPDATA% (Windows only).
	AppData string
	// XDGConfigHome is $XDG_CONFIG_HOME; empty means ~/.config (Linux
	// and other Unix).
	XDGConfigHome string
	// Getenv reads a client's own home variable (CLINE_DIR,
	// COPILOT_HOME, KIMI_CODE_HOME, PI_CODING_AGENT_DIR); nil reads
	// none.
	Getenv func(string) string
}

// MachineEnv is the Env of the machine a program runs on, seen through
// getenv: the home is $HOME or, on Windows where HOME is usually unset,
// %USERPROFILE% (as os.UserHomeDir finds it).
func MachineEnv(goos string, getenv func(string) string) Env {
	home := getenv("HOME")
	if home == "" && goos == "windows" {
		home = getenv("USERPROFILE")
	}
	return Env{GOOS: goos, Home: home, AppData: getenv("APPDATA"), XDGConfigHome: getenv("XDG_CONFIG_HOME"), Getenv: getenv}
}

func (env Env) paths() (pathEnv, error) {
	p := pathEnv{Env: env, win: env.GOOS == "windows"}
	if !isAbs(env.Home, p.win) {
		return p, fmt.Errorf("home directory %q is not an absolute path; set HOME (USERPROFILE on Windows)", env.Home)
	}
	return p, nil
}

// ConfigPath returns the user-level config file of c: the file Apply's
// output belongs in when none of its alternates exists.
func ConfigPath(c Client, env Env) (string, error) {
	d, err := dialectFor(c)
	if err != nil {
		return "", err
	}
	p, err := env.paths()
	if err != nil && (d.homeVar == "" || env.Getenv == nil || env.Getenv(d.homeVar) == "") {
		return "", err
	}
	return d.user(p)
}

// ConfigPaths returns the user-level files c reads, preferred first: the
// first that exists is the one to edit, the last is ConfigPath.
func ConfigPaths(c Client, env Env) ([]string, error) {
	def, err := ConfigPath(c, env)
	if err != nil {
		return nil, err
	}
	d := dialects[c]
	p, _ := env.paths()
	var out []string
	if d.alternates != nil {
		out = append(out, d.alternates(p)...)
	}
	return append(out, def), nil
}

// ProjectPath returns the project-level config file of c in the project
// rooted at dir, or an error saying the client reads none.
func ProjectPath(c Client, dir string) (string, error) {
	d, err := dialectFor(c)
	if err != nil {
		return "", err
	}
	if d.project == "" {
		return "", fmt.Errorf("%s reads no project-level MCP config; register it without --project", d.display)
	}
	return filepath.Join(dir, filepath.FromSlash(d.project)), nil
}

func isAbs(p string, win bool) bool {
	if win {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

// Options tune Apply.
type Options struct {
	// Owned lists servers Hermes registered before (Result.Written of
	// an earlier Apply): their entries are Hermes' to replace or remove.
	Owned []string
	// Overwrite replaces entries of the same name even when they are
	// the user's own, hermes-tools included (hermes-migrate --force).
	Overwrite bool
	// File is the config file's path, named in notes; empty names the
	// client's config file instead.
	File string
	// Project says the file is a project-level one, where some clients
	// expand no references (dialect.refUserOnly).
	Project bool
	// Copied reports whether value is the one Hermes copied into field
	// ("env KEY", "header KEY") of server's entry under
	// --allow-literal-secrets (Result.copied of an earlier Apply): a
	// value the client can only be given by hand is then Hermes' to take
	// out, not the user's to keep. Nil counts every value as the user's.
	Copied func(server, field, value string) bool
	// Refused names servers left out because a credential sits where no
	// reference can stand for it (configmigrate.ProtectSecrets): an
	// entry of one that is still exactly what Hermes wrote under
	// --allow-literal-secrets (Copied with field copiedEntry) is taken
	// out, so the credential does not stay behind; one the user changed
	// is kept.
	Refused []string
}

// copiedEntry is the field under which the whole entry of a server with a
// copied credential is remembered (its canonical JSON).
const copiedEntry = "entry"

// Result is the new file content and what happened to each server.
type Result struct {
	// Output is the complete new file. It equals the input when
	// nothing changed (nil for a missing file that stays missing).
	Output []byte `json:"-"`
	// Changed reports whether Output differs from the input; write
	// the file only then.
	Changed bool `json:"changed"`
	// Written names the servers whose entry now is what Hermes wants
	// (added, replaced, or already identical). Keep it as the next
	// Options.Owned.
	Written []string `json:"written,omitempty"`
	// Skipped names the servers not registered: a user entry of the
	// same name, or nothing the client can express. Notes say why.
	Skipped []string `json:"skipped,omitempty"`
	// Removed names entries taken out of the file.
	Removed []string `json:"removed,omitempty"`
	// Notes say, one line each and prefixed with the server's name,
	// what was translated, dropped or left alone and what the user may
	// have to do by hand. They name variables and fields but never
	// carry a value (env, header, argument, URL), which may be a secret.
	Notes []string `json:"notes,omitempty"`
	// copied holds, for each server written, the values of its
	// configmigrate.Server.CopiedSecrets as the entry spells them, by
	// field: what Job records (hashed, never as they are) for
	// Options.Copied. A written server without any has none left in its
	// entry.
	copied map[string]map[string]string
}

// Apply registers servers in c's config file, given its current content
// (nil or empty when the file does not exist yet).
func Apply(c Client, existing []byte, servers []configmigrate.Server, opts Options) (Result, error) {
	d, err := dialectFor(c)
	if err != nil {
		return Result{}, err
	}
	if d.section != nil {
		return Result{}, errSection(d)
	}
	if opts.Project && d.refUserOnly {
		user := *d
		d = &user
		d.ref, d.refDefault, d.refSyntax = nil, nil, ""
	}
	seen := map[string]bool{}
	for i, s := range servers {
		if s.Name == "" {
			return Result{}, fmt.Errorf("server %d of %d has no name; every server needs one to be registered under", i+1, len(servers))
		}
		if seen[s.Name] {
			return Result{}, fmt.Errorf("server %q is listed twice; names must be unique", s.Name)
		}
		seen[s.Name] = true
	}
	ed, err := open(d, existing)
	if err != nil {
		return Result{}, err
	}
	res := Result{Notes: ed.notes()}
	for _, s := range servers {
		if err := applyServer(ed, d, s, slices.Contains(opts.Owned, s.Name), opts, &res); err != nil {
			return Result{}, err
		}
	}
	for _, name := range opts.Refused {
		if err := dropRefused(ed, name, opts, &res); err != nil {
			return Result{}, err
		}
	}
	res.Output = ed.bytes()
	res.Changed = !bytes.Equal(existing, res.Output)
	return res, nil
}

func applyServer(ed store, d *dialect, s configmigrate.Server, owned bool, opts Options, res *Result) error {
	noteAll := func(notes ...string) {
		for _, n := range notes {
			res.Notes = append(res.Notes, s.Name+": "+n)
		}
	}
	tr := translate(d, s)
	existing, found, err := ed.lookup(s.Name)
	if err != nil {
		return err
	}
	if s.Name == configmigrate.HermesToolsName && !owned {
		owned = !found || hermesWrote(d, s, existing)
	}
	if tr.skip != "" {
		res.Skipped = append(res.Skipped, s.Name)
		noteAll("not registered: " + tr.skip)
		if found && owned {
			if err := ed.del(s.Name); err != nil {
				return err
			}
			res.Removed = append(res.Removed, s.Name)
			noteAll("removed the entry Hermes had registered before")
		}
		return nil
	}
	handNotes := tr.keepHand(d, existing, func(field, value string) bool {
		return opts.Copied != nil && opts.Copied(s.Name, field, value)
	})
	entry := tr.entry
	switch {
	case !found:
		if err := ed.put(s.Name, entry); err != nil {
			return err
		}
	case sameAs(existing, entry):
		// Already what Hermes wants; keep the user's formatting.
	case owned || opts.Overwrite:
		if err := ed.put(s.Name, entry); err != nil {
			return err
		}
		if !owned {
			noteAll("replaced an entry of the same name that Hermes had not written (overwrite)")
		}
	case s.Name == configmigrate.HermesToolsName:
		file := opts.File
		if file == "" {
			file = d.display + "'s config file"
		}
		res.Skipped = append(res.Skipped, s.Name)
		noteAll(fmt.Sprintf("left your own hermes-tools entry in %s; rerun with --force to replace it", file))
		return nil
	default:
		res.Skipped = append(res.Skipped, s.Name)
		noteAll(fmt.Sprintf("not registered: %s already has a server of this name that Hermes did not write; kept it (user definition wins). Rename one of them, or rerun with --force to replace it", d.display))
		return nil
	}
	res.Written = append(res.Written, s.Name)
	if len(s.CopiedSecrets) > 0 {
		c := copiedValues(d, s, entry)
		if canon, ok := canonicalEntry([]byte(render(entry, layout{inline: true}))); ok {
			c[copiedEntry] = canon
		}
		if res.copied == nil {
			res.copied = map[string]map[string]string{}
		}
		res.copied[s.Name] = c
	}
	// The server's own notes (what Hermes' config could not express in
	// the neutral model) come first, as in the codex report.
	noteAll(tr.claimed(s.Notes)...)
	noteAll(handNotes...)
	noteAll(tr.notes...)
	return nil
}

// dropRefused takes out the entry of a server left out for a credential
// when it is still exactly what Hermes wrote there with the credential
// copied: left alone, the file would keep a secret that only
// --allow-literal-secrets may put there.
func dropRefused(ed store, name string, opts Options, res *Result) error {
	if opts.Copied == nil || !slices.Contains(opts.Owned, name) {
		return nil
	}
	existing, found, err := ed.lookup(name)
	if err != nil || !found {
		return err
	}
	canon, ok := canonicalEntry(existing)
	if !ok || !opts.Copied(name, copiedEntry, canon) {
		return nil
	}
	if err := ed.del(name); err != nil {
		return err
	}
	res.Removed = append(res.Removed, name)
	res.Notes = append(res.Notes, name+": removed the entry hermes-migrate had written with --allow-literal-secrets: it holds a credential that is copied only with that flag")
	return nil
}

// canonicalEntry is an entry's plain JSON with keys sorted and spacing
// gone, so an entry reads the same whatever the file's syntax or layout.
func canonicalEntry(plain []byte) (string, bool) {
	var v any
	if json.Unmarshal(plain, &v) != nil {
		return "", false
	}
	b, err := json.Marshal(v)
	return string(b), err == nil
}

// copiedValues are the env and header values of s.CopiedSecrets as entry
// spells them, by field; a field the entry does not hold as a string is
// left out.
func copiedValues(d *dialect, s configmigrate.Server, entry object) map[string]string {
	out := map[string]string{}
	for _, f := range s.CopiedSecrets {
		kind, key, _ := strings.Cut(f, " ")
		var container string
		switch kind {
		case "env":
			container = d.envKey
		case "header":
			container = "headers"
		default:
			continue // the whole entry stands for it (copiedEntry)
		}
		for _, top := range entry {
			pairs, ok := top.val.(object)
			if top.key != container || !ok {
				continue
			}
			for _, p := range pairs {
				if v, isStr := p.val.(string); isStr && p.key == key {
					out[f] = v
				}
			}
		}
	}
	return out
}

// Remove takes the named entries out of c's config file again. Names
// that are not there are ignored; the file is otherwise left as it is.
func Remove(c Client, existing []byte, names []string) (Result, error) {
	d, err := dialectFor(c)
	if err != nil {
		return Result{}, err
	}
	if d.section != nil {
		return Result{}, errSection(d)
	}
	ed, err := open(d, existing)
	if err != nil {
		return Result{}, err
	}
	res := Result{}
	for _, name := range names {
		_, found, err := ed.lookup(name)
		if err != nil {
			return Result{}, err
		}
		if !found {
			continue
		}
		if err := ed.del(name); err != nil {
			return Result{}, err
		}
		res.Removed = append(res.Removed, name)
	}
	res.Output = ed.bytes()
	res.Changed = !bytes.Equal(existing, res.Output)
	return res, nil
}

// ownHermesTools reports whether the client file existing holds a
// hermes-tools entry that Hermes never writes (it does not start
// hermes-tools-mcp): the user's own, which --remove leaves alone.
func ownHermesTools(c Client, existing []byte) (bool, error) {
	d, err := dialectFor(c)
	if err != nil {
		return false, err
	}
	ed, err := open(d, existing)
	if err != nil {
		return false, err
	}
	entry, found, err := ed.lookup(configmigrate.HermesToolsName)
	if err != nil || !found {
		return false, err
	}
	return !runsHermesTools(entry), nil
}

// runsHermesTools reports whether a hermes-tools entry (plain JSON) starts
// the hermes-tools-mcp binary, as every entry Hermes writes does, wherever
// it was installed then.
func runsHermesTools(entry []byte) bool {
	var have map[string]json.RawMessage
	if json.Unmarshal(entry, &have) != nil {
		return false
	}
	cmd, _, ok := entryCommand(have)
	return ok && isHermesToolsBinary(cmd)
}

// store is a client's config file being edited, whatever its syntax:
// entries are read back as plain JSON and written from an object.
type store interface {
	// lookup returns the entry named name as plain JSON.
	lookup(name string) (entry []byte, found bool, err error)
	// put inserts the entry, or replaces the value of an existing one.
	put(name string, val object) error
	del(name string) error
	// names lists the entries in file order.
	names() ([]string, error)
	bytes() []byte
	// notes are warnings about the file as it was.
	notes() []string
}

func open(d *dialect, existing []byte) (store, error) {
	switch d.format {
	case formatYAML:
		return openYAML(d, existing)
	case formatTOML:
		return openTOML(d, existing)
	}
	ed, err := newEditor(existing, d.rootKey)
	var syn *SyntaxError
	switch {
	case errors.As(err, &syn):
		syntax := "JSON"
		if d.comments {
			syntax = "JSON with comments"
		}
		return nil, fmt.Errorf("existing %s config is not valid %s at %w; fix it or move the file aside (nothing was changed)", d.display, syntax, err)
	case err != nil:
		return nil, fmt.Errorf("cannot edit the existing %s config (nothing was changed): %w", d.display, err)
	}
	return jsonStore{ed, d}, nil
}

// jsonStore edits JSON and JSONC files.
type jsonStore struct {
	*editor
	d *dialect
}

func (j jsonStore) lookup(name string) ([]byte, bool, error) {
	cont, idx, err := j.editor.lookup(name)
	if err != nil || idx < 0 {
		return nil, false, err
	}
	v := cont.members[idx].value
	return j.doc.standard(v.start, v.end), true, nil
}

func (j jsonStore) put(name string, val object) error {
	cont, idx, err := j.editor.lookup(name)
	if err != nil {
		return err
	}
	if idx >= 0 {
		return j.apply(j.replace(cont, idx, val))
	}
	if cont, err = j.ensureContainer(); err != nil {
		return err
	}
	return j.apply(j.insert(cont, name, val))
}

func (j jsonStore) del(name string) error {
	cont, idx, err := j.editor.lookup(name)
	if err != nil || idx < 0 {
		return err
	}
	return j.removeMember(cont, idx)
}

func (j jsonStore) names() ([]string, error) {
	cont, err := j.container()
	if err != nil || cont == nil {
		return nil, err
	}
	var out []string
	for _, m := range cont.members {
		out = append(out, m.key)
	}
	return out, nil
}

func (j jsonStore) bytes() []byte   { return j.src }
func (j jsonStore) notes() []string { return j.fileNotes(j.d) }

// removeMember deletes a member and collapses the servers object when
// it is left empty.
func (e *editor) removeMember(cont *node, idx int) error {
	if err := e.apply(e.remove(cont, idx)); err != nil {
		return err
	}
	cont, err := e.container()
	if err != nil || cont == nil {
		return err
	}
	if edits := e.collapse(cont); edits != nil {
		return e.apply(edits)
	}
	return nil
}

// fileNotes warns about syntax the client's own parser rejects. The
// file is still edited: the problem predates Hermes, and refusing would
// only leave Hermes' entry out too.
func (e *editor) fileNotes(d *dialect) []string {
	var what []string
	if len(e.doc.comments) > 0 && !d.comments {
		what = append(what, "comments")
	}
	if len(e.doc.trailingCommas) > 0 && !d.trailingCommas {
		what = append(what, "trailing commas")
	}
	if len(what) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("the file has %s, which %s does not accept; they were left as they are", strings.Join(what, " and "), d.display)}
}
