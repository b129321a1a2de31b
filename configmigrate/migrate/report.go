package migrate

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/internal/hermesenv"
	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"

	"github.com/hermes-go/hermes/internal/termtext"
)

// humanReport is what the text output needs besides the clients' reports.
type humanReport struct {
	verbose bool
	// home is $HOME, shown as ~ so paths stay short and copyable.
	home string
	// vars are the variables hermes-tools reads that are set in this
	// environment (not by the home's .env); nil when the run registered no
	// hermes-tools entry (--remove).
	vars []string
	// dotenvVars are those the home's .env (dotenvFile) sets: hermes-tools
	// reads that file itself, so they need nothing from the clients.
	dotenvVars []string
	dotenvFile string
	// dotenvPath is where the home's .env is, or would be.
	dotenvPath string
	// dotenvRefs are variables the user's servers refer to that only the
	// home's .env sets, with the servers: the clients cannot see them.
	dotenvRefs []dotenvRef
	// toolsEntry says the run registered hermes-tools somewhere, so the
	// variables it reads are worth one line.
	toolsEntry bool
	// needs are the tools of enabled toolsets waiting for an unset
	// variable; needsErr is why they could not be found.
	needs    []toolNeed
	needsErr error
	// project is what the project files say about where they run, ""
	// outside --project.
	project string
}

// setVariables are the variables hermes-tools' toolsets read that are set
// where hermes-migrate runs: the keys the user has, which every client must
// hand on to hermes-tools. The other names are written too (so a key set
// later works) but need nothing from the user.
func setVariables(env *hermesenv.Env) []string {
	var out []string
	for _, v := range catalog.EnvVarNames() {
		if env.Source(v) == "environment" && v != hermeshome.EnvVar {
			out = append(out, v)
		}
	}
	return out
}

// dotenvVariables are the variables hermes-tools reads that the home's
// .env sets.
func dotenvVariables(env *hermesenv.Env) []string {
	var out []string
	for _, v := range catalog.EnvVarNames() {
		if env.FromFile(v) && env.Getenv(v) != "" {
			out = append(out, v)
		}
	}
	return out
}

// dotenvRef is a variable only the home's .env sets that user servers
// refer to.
type dotenvRef struct {
	name    string
	servers []string
}

// dotenvReferences finds, in the user's servers in config.yaml, the
// variables they refer to that the home's .env sets and the environment
// clients start in (getenv) does not: the Python Hermes resolves them
// from that file, a client never will.
func dotenvReferences(home string, env *hermesenv.Env, getenv func(string) string) []dotenvRef {
	servers, err := userServers(home, getenv)
	if err != nil {
		return nil // the migration itself reported the file's problem
	}
	var out []dotenvRef
	for _, s := range servers {
		for _, name := range configmigrate.ReferencedVars(s) {
			if !env.FromFile(name) || getenv(name) != "" {
				continue
			}
			i := slices.IndexFunc(out, func(r dotenvRef) bool { return r.name == name })
			if i < 0 {
				out = append(out, dotenvRef{name: name})
				i = len(out) - 1
			}
			if !slices.Contains(out[i].servers, s.Name) {
				out[i].servers = append(out[i].servers, s.Name)
			}
		}
	}
	return out
}

// writeReports prints one line per client (what happened, where, the
// backup) and below it only what the user has to act on; the variables
// hermes-tools reads come once, at the end, not once per client. A note or
// warning that several clients share (a user server's secret, a dropped
// timeout) is said once, after the clients, naming them. The translation
// details every run repeats for hermes-tools are for --verbose.
func writeReports(w io.Writer, reports []Report, h humanReport) {
	// Paths, server names, diffs and errors come from files the user or
	// other programs wrote: shown escaped, never obeyed as terminal
	// controls.
	tw := termtext.NewWriter(w)
	defer tw.Flush()
	w = tw
	hidden := 0
	var noVars []Report // clients that cannot hand variables on
	items := make([][]reportItem, len(reports))
	for i, r := range reports {
		items[i], hidden = clientItems(r, h, hidden)
	}
	shared := sharedItems(reports, items)
	for i, r := range reports {
		writeClient(w, r, h)
		for _, it := range items[i] {
			if _, ok := shared[it.key]; !ok {
				fmt.Fprintf(w, "  %s: %s\n", it.kind, it.text)
			}
		}
		if h.verbose {
			for _, s := range r.Skipped {
				fmt.Fprintf(w, "  note: kept your own definition of %s\n", s)
			}
		}
		if len(h.vars) > 0 && cannotPassVars(r, h.vars) {
			noVars = append(noVars, r)
		}
	}
	for _, g := range orderedShared(shared) {
		fmt.Fprintf(w, "%s: %s: %s\n", strings.Join(g.clients, ", "), g.kind, g.text)
	}
	if h.project != "" {
		fmt.Fprintln(w, h.project)
	}
	if h.toolsEntry {
		writeVariables(w, h, noVars)
	}
	if hidden > 0 {
		s := "s"
		if hidden == 1 {
			s = ""
		}
		fmt.Fprintf(w, "(%d more note%s on how entries were translated: add --verbose)\n", hidden, s)
	}
}

// reportItem is one warning or note under a client. key is its text with
// the client's name taken out, so the same note for two clients ("Cursor
// has no per-server timeout", "Zed has no ...") is one item.
type reportItem struct {
	kind, text, key string
	// general is text with the client's name as "each client", for the
	// line that names several.
	general string
}

// sharedGroup is an item several clients have, said once.
type sharedGroup struct {
	kind, text string
	clients    []string
	first      int
}

// clientItems are a client's warnings and notes about servers, in the order
// they are printed; hermes-tools' own translation notes are counted in
// hidden instead unless verbose.
func clientItems(r Report, h humanReport, hidden int) ([]reportItem, int) {
	own := func(server string) bool {
		return server == configmigrate.HermesToolsName && !slices.Contains(r.Skipped, server)
	}
	name := clientDisplayName(r.Client)
	item := func(kind, text string) reportItem {
		it := reportItem{kind: kind, text: text, key: kind + "\x00" + text, general: text}
		if name != "" && strings.Contains(text, name) {
			it.key = kind + "\x00" + strings.ReplaceAll(text, name, "\x01")
			it.general = strings.ReplaceAll(text, name, "each client")
		}
		return it
	}
	var out []reportItem
	if c := r.Codex; c != nil {
		for _, s := range c.Servers {
			for _, n := range s.Notes {
				if own(s.Name) && !h.verbose {
					hidden++
					continue
				}
				out = append(out, item("note", s.Name+": "+n))
			}
		}
	}
	for _, p := range r.Problems {
		out = append(out, item("warning", p))
	}
	for _, n := range r.Notes {
		server, _, _ := strings.Cut(n, ": ")
		if own(server) && !h.verbose {
			hidden++
			continue
		}
		out = append(out, item("note", n))
	}
	return out, hidden
}

// clientDisplayName is the name a client's notes call it by ("VS Code").
func clientDisplayName(client string) string {
	c, err := clientsync.ParseClient(client)
	if err != nil {
		return ""
	}
	return c.DisplayName()
}

// sharedItems are the items more than one client has, by key.
func sharedItems(reports []Report, items [][]reportItem) map[string]*sharedGroup {
	groups := map[string]*sharedGroup{}
	order := 0
	for i, its := range items {
		for _, it := range its {
			g, ok := groups[it.key]
			if !ok {
				g = &sharedGroup{kind: it.kind, text: it.text, first: order}
				order++
				groups[it.key] = g
			}
			if !slices.Contains(g.clients, reports[i].Client) {
				g.clients = append(g.clients, reports[i].Client)
			}
			if len(g.clients) > 1 {
				g.text = it.general
			}
		}
	}
	for k, g := range groups {
		if len(g.clients) < 2 {
			delete(groups, k)
		}
	}
	return groups
}

func orderedShared(groups map[string]*sharedGroup) []*sharedGroup {
	out := make([]*sharedGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *sharedGroup) int { return a.first - b.first })
	return out
}

// writeClient prints a client's own line: what happened to its file, and
// what only it has (codex's block, the plugin lookup).
func writeClient(w io.Writer, r Report, h humanReport) {
	path := tilde(r.Path, h.home)
	switch {
	case r.DryRun && r.Diff != "":
		fmt.Fprint(w, r.Diff)
		fmt.Fprintf(w, "%s: would update %s (dry run; nothing written)", r.Client, path)
	case r.Written:
		fmt.Fprintf(w, "%s: wrote %s", r.Client, path)
		if r.Backup != "" {
			fmt.Fprintf(w, " (previous version in %s)", tilde(r.Backup, h.home))
		}
	default:
		fmt.Fprintf(w, "%s: %s is already up to date", r.Client, path)
	}
	if c := r.Codex; c != nil && (r.Changed || h.verbose) {
		if s := codexSummary(c); s != "" {
			fmt.Fprintf(w, ": %s", s)
		}
	}
	fmt.Fprintln(w)
	if r.Removed {
		if r.Codex != nil {
			fmt.Fprintln(w, "  removed Hermes' managed section")
		} else {
			fmt.Fprintln(w, "  removed the hermes-tools entry and the servers hermes-migrate added")
		}
	}
	if c := r.Codex; c != nil {
		for _, u := range c.UserDefined {
			fmt.Fprintf(w, "  kept your own %s\n", u)
		}
	}
	if len(r.Dropped) > 0 {
		them := map[bool]string{true: "them", false: "it"}[len(r.Dropped) > 1]
		fmt.Fprintf(w, "  %s %s: no longer in config.yaml's mcp_servers (add %s back there to keep %s)\n",
			map[bool]string{true: "would take out", false: "took out"}[r.DryRun], strings.Join(r.Dropped, ", "), them, them)
	}
	switch {
	case r.PluginError == "":
	case r.codexNotInstalled:
		// A machine without codex: said once, when the block is written,
		// not on every run that changes nothing.
		if r.Changed || h.verbose {
			fmt.Fprintf(w, "  note: no codex on PATH, so installed codex plugins were not looked up (--codex-bin names one)\n")
		}
	default:
		fmt.Fprintf(w, "  warning: could not ask codex for its plugins (kept those the block listed): %s\n", r.PluginError)
	}
}

// codexSummary names what the managed block holds.
func codexSummary(c *configmigrate.CodexReport) string {
	var parts []string
	var servers []string
	for _, s := range c.Servers {
		if s.Written {
			servers = append(servers, s.Name)
		}
	}
	if len(servers) > 0 {
		parts = append(parts, "MCP servers "+strings.Join(servers, ", "))
	}
	if len(c.Plugins) > 0 {
		parts = append(parts, "plugins "+strings.Join(c.Plugins, ", "))
	}
	if c.DefaultPermissions != "" {
		parts = append(parts, fmt.Sprintf("default_permissions %q", c.DefaultPermissions))
	}
	return strings.Join(parts, "; ")
}

// cannotPassVars reports whether a client's hermes-tools entry left out a
// variable that is set here: the client cannot hand variables on, so the
// user has to put the value in by hand.
func cannotPassVars(r Report, vars []string) bool {
	for _, n := range r.Notes {
		rest, ok := strings.CutPrefix(n, configmigrate.HermesToolsName+": ")
		if !ok || !strings.Contains(rest, "not written") {
			continue
		}
		names, _, _ := strings.Cut(rest, "not written")
		for _, f := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == ' ' }) {
			if slices.Contains(vars, f) {
				return true
			}
		}
	}
	return false
}

// dotenvWhere is the home's .env as the report shows it.
func (h humanReport) dotenvWhere() string {
	if h.dotenvPath != "" {
		return tilde(h.dotenvPath, h.home)
	}
	return "the Hermes home's .env"
}

func writeVariables(w io.Writer, h humanReport, noVars []Report) {
	if len(h.needs) > 0 {
		var groups []string
		for _, n := range h.needs {
			groups = append(groups, fmt.Sprintf("%s (%s)", andList(n.tools), orList(n.vars)))
		}
		where := h.dotenvWhere()
		// Every client starts hermes-tools with the home's .env read, so
		// that file is where a key goes whatever the client (Claude
		// Desktop passes no environment of its own).
		fmt.Fprintf(w, "hermes-tools hides these tools until a key is set: %s. Put keys in %s (the Python Hermes' `hermes config set NAME value` writes there): hermes-tools reads it whichever client starts it; `hermes-tools-mcp doctor` says more.\n", strings.Join(groups, "; "), where)
	}
	if h.needsErr != nil {
		fmt.Fprintf(w, "warning: could not check which hermes-tools tools wait for a variable: %v\n", h.needsErr)
	}
	if len(h.dotenvVars) > 0 {
		fmt.Fprintf(w, "hermes-tools reads %s from %s itself: nothing to pass on.\n", strings.Join(h.dotenvVars, ", "), tilde(h.dotenvFile, h.home))
	}
	for _, r := range h.dotenvRefs {
		fmt.Fprintf(w, "warning: %s, which your server%s %s refer%s to, is set only in %s; MCP clients do not read that file: export it where they start.\n",
			r.name, plural(len(r.servers)), andList(r.servers), map[bool]string{true: "", false: "s"}[len(r.servers) > 1], tilde(h.dotenvFile, h.home))
	}
	if len(h.vars) == 0 {
		return
	}
	them := "it"
	if len(h.vars) > 1 {
		them = "them"
	}
	fmt.Fprintf(w, "hermes-tools reads %s (set here) from the environment a client starts it in: start clients where %s set.\n",
		strings.Join(h.vars, ", "), map[string]string{"it": "it is", "them": "they are"}[them])
	// One line for all of them: their files are on the lines above.
	switch len(noVars) {
	case 0:
	case 1:
		fmt.Fprintf(w, "%s cannot pass variables on: put %s in %s, which hermes-tools reads itself (or add %s to hermes-tools' env in %s by hand; later runs keep %s).\n",
			noVars[0].Client, strings.Join(h.vars, ", "), h.dotenvWhere(), them, tilde(noVars[0].Path, h.home), them)
	default:
		names := make([]string, len(noVars))
		for i, r := range noVars {
			names[i] = r.Client
		}
		fmt.Fprintf(w, "%s cannot pass variables on: put %s in %s, which hermes-tools reads itself (or add %s to hermes-tools' env in each one's file above by hand; later runs keep %s).\n",
			strings.Join(names, ", "), strings.Join(h.vars, ", "), h.dotenvWhere(), them, them)
	}
}

// tilde shows a path under home as ~/...
func tilde(p, home string) string {
	if home == "" || p == "" || !filepath.IsAbs(home) {
		return p
	}
	rel, err := filepath.Rel(home, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return "~" + string(filepath.Separator) + rel
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
