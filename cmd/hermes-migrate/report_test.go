package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/configmigrate/migrate"
	"github.com/hermes-go/hermes/internal/testkit/golden"
	"github.com/hermes-go/hermes/toolsets/catalog"
)

// What a first `hermes-migrate --client all` may print on
// testdata/realistic-home: a line per client (its file and backup), and
// the notes said once (tools waiting for a key, the variables set, the
// clients that cannot pass them on). It printed 7.4 KB when every client
// listed every variable name hermes-tools reads, and 4.3 KB when all
// meant 25 clients, each with its own hand-step line.
const (
	perClientBudget = 160
	notesBudget     = 700
)

// realHomeClients are the clients testdata/realistic-home has: --client
// all means these, in the table's order.
var realHomeClients = []string{"codex", "claude-desktop", "cursor", "vscode", "gemini", "zed"}

// realHome is a copy of testdata/realistic-home (a used ~/.codex, a Hermes
// home with an OpenRouter model and two MCP servers, Claude Desktop,
// Cursor, VS Code, Gemini CLI and Zed configs) with an environment where
// only OPENROUTER_API_KEY is set and codex is not installed.
type realHome struct {
	home, toolsBin string
	env            map[string]string
	pluginErr      error
	// onPath are the names lookPath finds (as /usr/bin/<name>).
	onPath []string
}

func newRealHome(t testing.TB) *realHome {
	t.Helper()
	dir := t.TempDir()
	h := &realHome{
		home:      filepath.Join(dir, "home"),
		toolsBin:  filepath.Join(dir, "bin", "hermes-tools-mcp"),
		pluginErr: fmt.Errorf("%w (no codex on PATH)", configmigrate.ErrCodexNotInstalled),
	}
	h.env = map[string]string{"HOME": h.home, "OPENROUTER_API_KEY": "sk-or-test"}
	if err := os.CopyFS(h.home, os.DirFS("testdata/realistic-home")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(h.toolsBin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.toolsBin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *realHome) deps() migrate.System {
	return migrate.System{
		Getenv:     func(k string) string { return h.env[k] },
		Environ:    func() []string { return environOf(h.env)() },
		Executable: func() (string, error) { return h.toolsBin, nil },
		LookPath: func(name string) (string, error) {
			if slices.Contains(h.onPath, name) {
				return "/usr/bin/" + name, nil
			}
			return "", errors.New("not on PATH")
		},
		DiscoverPlugins: func(context.Context, string, string, []string) ([]configmigrate.Plugin, error) {
			return nil, h.pluginErr
		},
	}
}

func (h *realHome) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb, h.deps())
	return code, out.String(), errb.String()
}

// snapshot is every file under the home, by path.
func (h *realHome) snapshot(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(h.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[strings.TrimPrefix(p, h.home)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestFirstRunOnRealisticHomeIsShort(t *testing.T) {
	h := newRealHome(t)
	code, out, stderr := h.run(t, "--client", "all")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden.File(t, "testdata/realistic-home-first-run.golden", []byte(out))
	if n, budget := len(out), perClientBudget*len(realHomeClients)+notesBudget; n > budget {
		t.Errorf("first run printed %d characters, budget %d:\n%s", n, budget, out)
	}
	// One line per client found, naming the file; none for the others,
	// which get no file and no directory either.
	for _, c := range migrate.KnownClients() {
		want := 0
		if slices.Contains(realHomeClients, c) {
			want = 1
		}
		if n := len(regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(c)+`: wrote ~/`).FindAllString(out, -1)); n != want {
			t.Errorf("%d lines for %s, want %d:\n%s", n, c, want, out)
		}
	}
	for _, c := range clientsync.Clients() {
		if slices.Contains(realHomeClients, string(c)) {
			continue
		}
		p, err := clientsync.Locate(c, clientsync.Env{GOOS: runtime.GOOS, Home: h.home})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s, never installed, got %s", c, p)
		}
		if dir := filepath.Dir(p); dir != h.home {
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("%s, never installed, got its config directory %s", c, dir)
			}
		}
	}
	// The variable that is set is named where the user must act: once in
	// the summary and once on the one line for the clients that cannot
	// pass it on. The unset ones are named only on the one line of tools
	// waiting for them.
	if n := strings.Count(out, "OPENROUTER_API_KEY"); n != 2 {
		t.Errorf("OPENROUTER_API_KEY named %d times, want 2:\n%s", n, out)
	}
	if !strings.Contains(out, "claude-desktop, zed cannot pass variables on: put OPENROUTER_API_KEY in ") || strings.Count(out, "cannot pass") != 1 {
		t.Errorf("want one line of the hand step, naming Claude Desktop and Zed:\n%s", out)
	}
	var needs, rest []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "hermes-tools hides these tools until a key is set: ") {
			needs = append(needs, l)
		} else {
			rest = append(rest, l)
		}
	}
	if len(needs) != 1 || !strings.Contains(needs[0], "image_generate (") || strings.Contains(needs[0], "kanban") ||
		strings.Contains(needs[0], "run hermes-migrate") {
		t.Errorf("want one line of tools waiting for a variable, image_generate among them and no kanban tool: %q", needs)
	}
	for _, v := range catalog.EnvVarNames() {
		if v != "OPENROUTER_API_KEY" && strings.Contains(strings.Join(rest, "\n"), v) {
			t.Errorf("unset variable %s is named outside the line of tools waiting for one:\n%s", v, out)
		}
	}
	if strings.Contains(out, "warning") || strings.Contains(out, "failed") {
		t.Errorf("a home without codex is no fault:\n%s", out)
	}
	if strings.Count(out, "plugins were not looked up") != 1 {
		t.Errorf("want one quiet note that codex plugins were not looked up:\n%s", out)
	}

	// A rerun changes nothing and says so in one line per client, without
	// the plugin note.
	before := h.snapshot(t)
	code, again, _ := h.run(t, "--client", "all")
	if code != exitOK || strings.Contains(again, "plugins were not looked up") || strings.Count(again, "already up to date") != len(realHomeClients) {
		t.Errorf("rerun (exit %d):\n%s", code, again)
	}
	if after := h.snapshot(t); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("rerun changed files")
	}

	// --verbose brings back the translation details, the plugin note
	// included.
	_, verbose, _ := h.run(t, "--client", "all", "--verbose")
	for _, want := range []string{"timeouts dropped", "TAVILY_API_KEY", "plugins were not looked up"} {
		if !strings.Contains(verbose, want) {
			t.Errorf("--verbose lacks %q:\n%s", want, verbose)
		}
	}
	if strings.Contains(verbose, "more note") {
		t.Errorf("--verbose still hides notes:\n%s", verbose)
	}
}

// TestVariableSummary: the variables line names what is set, or points at
// doctor when nothing is; a client that cannot pass variables gets the hand
// step, one that can does not.
func TestVariableSummary(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		client  string
		want    []string
		notWant []string
	}{
		{
			name: "nothing set", client: "cursor",
			want:    []string{"hermes-tools hides these tools until a key is set: image_generate (", "hermes-tools-mcp doctor"},
			notWant: []string{"cannot pass", "(set here)"},
		},
		{
			name: "two set, a client that passes them", client: "cursor",
			env:     map[string]string{"EXA_API_KEY": "x", "OPENROUTER_API_KEY": "y"},
			want:    []string{"hermes-tools reads EXA_API_KEY, OPENROUTER_API_KEY (set here)", "where they are set"},
			notWant: []string{"cannot pass", "TAVILY"},
		},
		{
			// The issue: Claude Desktop was told to add all 33 names by
			// hand although none was set.
			name: "nothing set, Claude Desktop", client: "claude-desktop",
			notWant: []string{"cannot pass", "by hand"},
		},
		{
			// Its entry names every variable, set or not: setting one
			// later needs no second run.
			name: "Gemini CLI passes whatever is set later", client: "gemini",
			notWant: []string{"After setting one", "run hermes-migrate"},
		},
		{
			name: "set, two clients that cannot pass it: one line", client: "claude-desktop,zed,cursor",
			env:  map[string]string{"EXA_API_KEY": "x"},
			want: []string{"claude-desktop, zed cannot pass variables on: put EXA_API_KEY in ", "which hermes-tools reads itself (or add it to hermes-tools' env in each one's file above by hand"},
		},
		{
			name: "Cursor passes whatever is set later", client: "cursor",
			notWant: []string{"After setting one"},
		},
		{
			name: "set, Claude Desktop", client: "claude-desktop",
			env:  map[string]string{"EXA_API_KEY": "x"},
			want: []string{"claude-desktop cannot pass variables on: put EXA_API_KEY in ", "(or add it to hermes-tools' env in ~/.config/Claude/claude_desktop_config.json"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRealHome(t)
			h.env = map[string]string{"HOME": h.home}
			for k, v := range tt.env {
				h.env[k] = v
			}
			code, out, stderr := h.run(t, "--client", tt.client)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
			if n := strings.Count(out, "cannot pass"); n > 1 {
				t.Errorf("the hand step takes %d lines, want one:\n%s", n, out)
			}
			// An unset variable is named only on the line of tools
			// waiting for one.
			var rest []string
			for _, l := range strings.Split(out, "\n") {
				if !strings.HasPrefix(l, "hermes-tools hides these tools until a key is set: ") {
					rest = append(rest, l)
				}
			}
			for _, v := range catalog.EnvVarNames() {
				if _, set := tt.env[v]; !set && strings.Contains(strings.Join(rest, "\n"), v) {
					t.Errorf("unset variable %s is named outside the line of tools waiting for one:\n%s", v, out)
				}
			}
		})
	}
}

// TestPluginDiscoveryNotes: no codex installed is one quiet note on the run
// that writes the block; a codex that is there but fails is a warning on
// every run.
func TestPluginDiscoveryNotes(t *testing.T) {
	h := newRealHome(t)
	_, first, _ := h.run(t, "--client", "codex")
	_, second, _ := h.run(t, "--client", "codex")
	if strings.Count(first, "note: no codex on PATH") != 1 || strings.Contains(second, "codex on PATH") {
		t.Errorf("codex not installed: first run\n%s\nsecond run\n%s", first, second)
	}
	h.pluginErr = errors.New("codex app-server exited: status 1")
	for range 2 {
		_, out, _ := h.run(t, "--client", "codex")
		if !strings.Contains(out, "warning: could not ask codex for its plugins") || !strings.Contains(out, "status 1") {
			t.Errorf("a failing codex must warn on every run:\n%s", out)
		}
	}
}

// TestFailureAfterWrites: when one client fails, the clients written
// before it are still reported, and the failure is one line on stderr.
func TestFailureAfterWrites(t *testing.T) {
	h := newRealHome(t)
	if err := os.WriteFile(filepath.Join(h.home, ".cursor", "mcp.json"), []byte("{\"mcpServers\": {"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := h.run(t, "--client", "codex,claude-desktop,cursor,vscode")
	if code != exitFailure || !strings.HasPrefix(stderr, "hermes-migrate: cursor: ") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(out, "codex: wrote ~/.codex/config.toml") || !strings.Contains(out, "claude-desktop: wrote ~/") || strings.Contains(out, "vscode") {
		t.Errorf("want codex and claude-desktop reported, vscode not reached:\n%s", out)
	}
}

// userServersBudget is what each of the user's servers may add to
// --user-servers: its action items, said once for every client they apply
// to. It printed 8.6 KB when each note came once per client.
const userServersBudget = 700

// TestUserServersRunOnRealisticHomeIsShort: --client all --user-servers
// says each action item about a user server once, naming the clients it
// applies to, and never tells a client that cannot expand references that
// its entry reads one.
func TestUserServersRunOnRealisticHomeIsShort(t *testing.T) {
	h := newRealHome(t)
	// A server whose key is written into config.yaml, as many are: every
	// client is told once what to set, or to fill in by hand.
	cfg := filepath.Join(h.home, ".hermes", "config.yaml")
	yaml, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	fetch := "mcp_servers:\n  fetch:\n    command: /opt/mcp/fetch\n    env:\n      API_KEY: sk-live-4f9a8b7c6d5e4f3a2b1c0d9e\n"
	yaml = bytes.Replace(yaml, []byte("mcp_servers:\n"), []byte(fetch), 1)
	if err := os.WriteFile(cfg, yaml, 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := h.run(t, "--client", "all", "--user-servers")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden.File(t, "testdata/realistic-home-user-servers.golden", []byte(out))
	if n, budget := len(out), perClientBudget*len(realHomeClients)+notesBudget+2*userServersBudget; n > budget {
		t.Errorf("--user-servers printed %d characters, budget %d:\n%s", n, budget, out)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if strings.HasPrefix(l, "  ") && seen[l] {
			t.Errorf("line said twice: %q\n%s", l, out)
		}
		seen[l] = true
	}
	// Claude Desktop and Zed cannot expand references: no line may tell
	// them an entry reads $VAR.
	for _, l := range lines {
		if strings.Contains(l, "reads $") && (strings.Contains(l, "claude-desktop") || strings.Contains(l, "zed")) {
			t.Errorf("a client without references is told its entry reads one: %q", l)
		}
	}
}
