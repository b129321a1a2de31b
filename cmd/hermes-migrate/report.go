package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/atomicfile"
	"github.com/hermes-go/hermes/mcpserver"
)

// humanReport is what the text output needs besides the clients' reports.
type humanReport struct {
	verbose bool
	// home is $HOME, shown as ~ so paths stay short and copyable.
	home string
	// vars are the variables hermes-tools reads that are set here; nil
	// when the run registered no hermes-tools entry (--remove).
	vars []string
	// toolsEntry says the run registered hermes-tools somewhere, so the
	// variables it reads are worth one line.
	toolsEntry bool
	// needs are the tools of enabled toolsets waiting for an unset
	// variable; needsErr is why they could not be found.
	needs    []toolNeed
	needsErr error
}

// setVariables are the variables hermes-tools' toolsets read that are set
// where hermes-migrate runs: the keys the user has, which every client must
// hand on to hermes-tools. The other names are written too (so a key set
// later works) but need nothing from the user.
func setVariables(getenv func(string) string) []string {
	var out []string
	for _, v := range mcpserver.EnvVarNames() {
		if getenv(v) != "" {
			out = append(out, v)
		}
	}
	return out
}

// writeReports prints one line per client (what happened, where, the
// backup) and below it only what the user has to act on; the variables
// hermes-tools reads come once, at the end, not once per client. The
// translation details every run repeats (dropped timeouts, the full list
// of variable names each client passes) are for --verbose.
func writeReports(w io.Writer, reports []clientReport, h humanReport) {
	hidden := 0
	var noVars []clientReport // clients that cannot hand variables on
	for _, r := range reports {
		hidden += writeClient(w, r, h)
		if len(h.vars) > 0 && cannotPassVars(r, h.vars) {
			noVars = append(noVars, r)
		}
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

// writeClient prints one client's report and returns how many notes it
// left out.
func writeClient(w io.Writer, r clientReport, h humanReport) (hidden int) {
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
		fmt.Fprintln(w, "  removed Hermes' managed section")
	}
	own := func(server string) bool {
		return server == configmigrate.HermesToolsName && !slices.Contains(r.Skipped, server)
	}
	if c := r.Codex; c != nil {
		for _, s := range c.Servers {
			for _, n := range s.Notes {
				if own(s.Name) && !h.verbose {
					hidden++
					continue
				}
				fmt.Fprintf(w, "  note: %s: %s\n", s.Name, n)
			}
		}
		for _, u := range c.UserDefined {
			fmt.Fprintf(w, "  kept your own %s\n", u)
		}
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
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  warning: %s\n", p)
	}
	for _, n := range r.Notes {
		server, _, _ := strings.Cut(n, ": ")
		if own(server) && !h.verbose {
			hidden++
			continue
		}
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	if h.verbose {
		for _, s := range r.Skipped {
			fmt.Fprintf(w, "  note: kept your own definition of %s\n", s)
		}
	}
	return hidden
}

// failure reports a client's error in one line and returns the exit code
// that says what kind of error it is.
func failure(stderr io.Writer, client string, err error) int {
	switch {
	case errors.Is(err, atomicfile.ErrNotWritable):
		fmt.Fprintf(stderr, "hermes-migrate: %s: %v; rerun with --force to write it anyway\n", client, err)
		return exitNotWritable
	case errors.Is(err, configmigrate.ErrUnknownPermissions):
		fmt.Fprintf(stderr, "hermes-migrate: %s: --default-permissions: %v\n", client, err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "hermes-migrate: %s: %v\n", client, err)
	if _, ok := errors.AsType[*configmigrate.MarkerError](err); ok {
		return exitMarkers
	}
	return exitFailure
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
func cannotPassVars(r clientReport, vars []string) bool {
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

func writeVariables(w io.Writer, h humanReport, noVars []clientReport) {
	if len(h.needs) > 0 {
		var groups []string
		for _, n := range h.needs {
			groups = append(groups, fmt.Sprintf("%s (%s)", andList(n.tools), orList(n.vars)))
		}
		fmt.Fprintf(w, "hermes-tools hides these tools until a variable is set: %s; `hermes-tools-mcp doctor` says more.\n", strings.Join(groups, "; "))
	}
	if h.needsErr != nil {
		fmt.Fprintf(w, "warning: could not check which hermes-tools tools wait for a variable: %v\n", h.needsErr)
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
		fmt.Fprintf(w, "%s cannot pass variables on: add %s to hermes-tools' env in %s by hand (later runs keep %s).\n",
			noVars[0].Client, strings.Join(h.vars, ", "), tilde(noVars[0].Path, h.home), them)
	default:
		names := make([]string, len(noVars))
		for i, r := range noVars {
			names[i] = r.Client
		}
		fmt.Fprintf(w, "%s cannot pass variables on: add %s to hermes-tools' env in each one's file (above) by hand (later runs keep %s).\n",
			strings.Join(names, ", "), strings.Join(h.vars, ", "), them)
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
