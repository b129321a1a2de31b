package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/migrate"
)

// testEnv is a pair of homes and a fake hermes-tools-mcp binary.
type testEnv struct {
	codexHome, hermesHome, toolsBin string
	env                             map[string]string
	plugins                         []configmigrate.Plugin
	pluginErr                       error
	discoverCalls                   int
}

func newTestEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	e := &testEnv{
		codexHome:  filepath.Join(dir, "codex"),
		hermesHome: filepath.Join(dir, "hermes"),
		toolsBin:   filepath.Join(dir, "bin", "hermes-tools-mcp"),
		env:        map[string]string{"HOME": filepath.Join(dir, "home")},
	}
	for _, d := range []string{e.codexHome, e.hermesHome, filepath.Dir(e.toolsBin)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(e.toolsBin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *testEnv) deps() migrate.System {
	return migrate.System{
		Getenv:     func(k string) string { return e.env[k] },
		Executable: func() (string, error) { return e.toolsBin, nil }, // installed side by side
		LookPath:   func(string) (string, error) { return "", errors.New("not on PATH") },
		Environ:    environOf(e.env),
		DiscoverPlugins: func(ctx context.Context, codexHome, binary string, env []string) ([]configmigrate.Plugin, error) {
			e.discoverCalls++
			return e.plugins, e.pluginErr
		},
	}
}

// environOf is os.Environ over a test's variables, so that what a run
// reads through getenv and what it hands on through environ agree.
func environOf(m map[string]string) func() []string {
	return func() []string {
		var out []string
		for k, v := range m {
			out = append(out, k+"="+v)
		}
		return out
	}
}

func (e *testEnv) write(t *testing.T, rel, content string) string {
	t.Helper()
	p := filepath.Join(rel)
	if err := os.WriteFile(p, []byte(content), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

func (e *testEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	base := []string{"--codex-home", e.codexHome, "--hermes-home", e.hermesHome}
	code := run(context.Background(), append(base, args...), &out, &errb, e.deps())
	return code, out.String(), errb.String()
}

func (e *testEnv) config(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.codexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestMigrateWritesBackupAndIsIdempotent(t *testing.T) {
	e := newTestEnv(t)
	e.plugins = []configmigrate.Plugin{{Name: "github", Marketplace: "openai-curated", Enabled: true}}
	cfg := e.write(t, filepath.Join(e.codexHome, "config.toml"), "model = \"gpt-5.5\" # mine\n\n[history]\npersistence = \"none\"\n")
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  gh:\n    command: npx\n    env: {GITHUB_TOKEN: \"${GITHUB_TOKEN}\"}\n")

	code, out, stderr := e.run(t)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := e.config(t)
	for _, want := range []string{
		"model = \"gpt-5.5\" # mine\n",
		"[mcp_servers.hermes-tools]\ncommand = " + `"` + e.toolsBin + `"`,
		`env = { HERMES_HOME = "` + e.hermesHome + `" }`,
		`env_vars = ["GITHUB_TOKEN"]`,
		`[plugins."github@openai-curated"]`,
		"[history]\npersistence = \"none\"\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("config.toml lacks %q:\n%s", want, got)
		}
	}
	if !strings.Contains(out, "codex: wrote "+cfg+" (previous version in "+cfg+".bak)") {
		t.Errorf("report: %s", out)
	}

	before := e.config(t)
	code, out, _ = e.run(t)
	if code != exitOK || e.config(t) != before || !strings.Contains(out, "already up to date") {
		t.Fatalf("second run changed something (exit %d):\n%s", code, out)
	}
}

func TestMigrateDryRunWritesNothingAndKeepsPlugins(t *testing.T) {
	e := newTestEnv(t)
	e.plugins = []configmigrate.Plugin{{Name: "linear", Marketplace: "openai-curated", Enabled: true}}
	if code, _, stderr := e.run(t); code != exitOK {
		t.Fatal(stderr)
	}
	before := e.config(t)
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  web:\n    url: https://x.example/mcp\n")
	code, out, stderr := e.run(t, "--dry-run")
	if code != exitOK {
		t.Fatal(stderr)
	}
	if e.config(t) != before {
		t.Fatal("dry run wrote the file")
	}
	if e.discoverCalls != 1 {
		t.Errorf("dry run asked codex for plugins (%d calls)", e.discoverCalls)
	}
	if !strings.Contains(out, "+[mcp_servers.web]") || strings.Contains(out, `-[plugins."linear@openai-curated"]`) {
		t.Errorf("dry-run diff wrong (plugins must be carried over):\n%s", out)
	}
}

func TestMigrateReportsAndRefuses(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, filepath.Join(e.codexHome, "config.toml"), "model = \"x\"\n[broken\n")
	code, _, stderr := e.run(t)
	if code != exitFailure || !strings.Contains(stderr, "line 2, column") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q: want a one-line parse error with position", code, stderr)
	}

	e2 := newTestEnv(t)
	e2.write(t, filepath.Join(e2.hermesHome, "config.yaml"), "mcp_servers: [not, a, map]\n")
	if code, _, stderr := e2.run(t); code != exitFailure || !strings.Contains(stderr, "not a mapping") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}

	// A section begun and never ended (a hand edit, a merge conflict):
	// nothing is written, and the message names the line.
	e4 := newTestEnv(t)
	broken := "model = \"x\"\n" + configmigrate.BeginMarker + "\n[mcp_servers.mine]\ncommand = \"mine\"\n"
	path := e4.write(t, filepath.Join(e4.codexHome, "config.toml"), broken)
	if code, _, stderr := e4.run(t); code != exitMarkers || !strings.Contains(stderr, "line 2") {
		t.Fatalf("exit %d stderr %q, want %d naming line 2", code, stderr, exitMarkers)
	}
	if b, _ := os.ReadFile(path); string(b) != broken {
		t.Errorf("config.toml changed: %q", b)
	}

	e3 := newTestEnv(t)
	e3.pluginErr = errors.New("codex not installed")
	code, out, _ := e3.run(t, "--json")
	var reps []migrate.Report
	if code != exitOK || json.Unmarshal([]byte(out), &reps) != nil || reps[0].PluginError != "codex not installed" || !reps[0].Written {
		t.Fatalf("plugin failure must be reported and non-fatal: exit %d %s", code, out)
	}
}

func TestRemoveRestoresUserFile(t *testing.T) {
	e := newTestEnv(t)
	orig := "# mine\nmodel = \"gpt-5.5\"\n\n[history]\npersistence = \"none\"\n"
	e.write(t, filepath.Join(e.codexHome, "config.toml"), orig)
	if code, _, stderr := e.run(t, "--no-plugins"); code != exitOK {
		t.Fatal(stderr)
	}
	if e.discoverCalls != 0 {
		t.Error("--no-plugins still asked codex")
	}
	if code, out, stderr := e.run(t, "--remove"); code != exitOK || !strings.Contains(out, "removed") {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	if got := e.config(t); got != orig {
		t.Fatalf("after --remove:\n%q\nwant\n%q", got, orig)
	}
}

func TestFlagsAndLookup(t *testing.T) {
	e := newTestEnv(t)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--client", "emacs"}, exitUsage, `unknown client`},
		{[]string{"--client", "claude"}, exitUsage, `unknown client; did you mean "claude-desktop" or "claude-code"?`},
		{[]string{"--clinet", "cursor"}, exitUsage, `unknown flag --clinet: did you mean "--client"? (run hermes-migrate -h for the flags)`},
		{[]string{"--tools-approval", "yolo"}, exitUsage, `--tools-approval "yolo"`},
		{[]string{"stray"}, exitUsage, `unexpected argument "stray"`},
		{[]string{"--hermes-tools-command", "/nonexistent/bin"}, exitFailure, "not an executable file"},
	}
	for _, tt := range tests {
		code, _, stderr := e.run(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d stderr %q, want %d and %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
	// Not next to hermes-migrate and not on PATH: a message saying how to fix it.
	d := e.deps()
	d.Executable = func() (string, error) { return "/elsewhere/hermes-migrate", nil }
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"--codex-home", e.codexHome}, &out, &errb, d)
	if code != exitFailure || !strings.Contains(errb.String(), "--hermes-tools-command") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

func TestToolsApprovalAndPermissionsFlags(t *testing.T) {
	e := newTestEnv(t)
	if code, _, stderr := e.run(t, "--tools-approval", "approve", "--default-permissions", "none"); code != exitOK {
		t.Fatal(stderr)
	}
	got := e.config(t)
	if !strings.Contains(got, `default_tools_approval_mode = "approve"`) || strings.Contains(got, "default_permissions") {
		t.Fatalf("flags not applied:\n%s", got)
	}
}

func TestSyncJSONClients(t *testing.T) {
	e := newTestEnv(t)
	home := e.env["HOME"]
	cursorDir := filepath.Join(home, ".cursor")
	if err := os.MkdirAll(cursorDir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The user's own Cursor config, with another server and an unknown key.
	cursor := filepath.Join(cursorDir, "mcp.json")
	e.write(t, cursor, "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"}\n  },\n  \"x-extra\": true\n}\n")
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  gh:\n    command: npx\n    env: {GITHUB_TOKEN: \"${GITHUB_TOKEN}\"}\n")

	// Named, so written although only Cursor is installed here.
	code, out, stderr := e.run(t, "--client", "codex,claude-desktop,claude-code,cursor,vscode,gemini", "--user-servers", "--no-plugins")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []string{"codex", "claude-desktop", "claude-code", "cursor", "vscode", "gemini"} {
		if !strings.Contains(out, c+": wrote ") {
			t.Errorf("no write reported for %s:\n%s", c, out)
		}
	}
	got, _ := os.ReadFile(cursor)
	var doc struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
		Extra bool `json:"x-extra"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatalf("cursor config is not JSON: %v\n%s", err, got)
	}
	if doc.MCPServers["mine"].Command != "my-server" || !doc.Extra {
		t.Errorf("user content lost:\n%s", got)
	}
	if doc.MCPServers["hermes-tools"].Command != e.toolsBin || doc.MCPServers["gh"].Env["GITHUB_TOKEN"] != "${env:GITHUB_TOKEN}" {
		t.Errorf("entries wrong (secrets must stay references):\n%s", got)
	}

	// --remove reaches the job. What it takes out, and the ownership that
	// decides it, is clientsync's to test (TestJobRuns).
	code, out, stderr = e.run(t, "--client", "cursor", "--remove")
	if code != exitOK || out != "cursor: wrote ~/.cursor/mcp.json (previous version in ~/.cursor/mcp.json.bak)\n  removed the hermes-tools entry and the servers hermes-migrate added\n" {
		t.Fatalf("exit %d: %q %s", code, out, stderr)
	}
	got, _ = os.ReadFile(cursor)
	if strings.Contains(string(got), "hermes-tools") || !strings.Contains(string(got), `"mine"`) {
		t.Errorf("after --remove:\n%s", got)
	}
}

// TestJSONClientReport checks how a JSON client's result is printed and
// how a failure maps to the exit code.
func TestJSONClientReport(t *testing.T) {
	tests := []struct {
		name       string
		cursor     string // "" leaves the file missing
		yaml       string
		state      string
		args       []string
		code       int
		wantOut    []string // lines of stdout, in order; %s is the config path, %~ the same under ~
		wantStderr string   // %s is the Hermes home
	}{
		{
			name: "dry run prints the diff and writes nothing",
			args: []string{"--dry-run"},
			wantOut: []string{
				"--- %s", "+++ %s (migrated)", "@@ -0,0 +1,", "+{",
				"cursor: would update %~ (dry run; nothing written)",
			},
		},
		{
			name:    "nothing to do",
			cursor:  "{}",
			args:    []string{"--remove"},
			wantOut: []string{"cursor: %~ is already up to date"},
		},
		{
			name:   "the user's definition is kept and said so; untranslatable servers are warnings",
			cursor: `{"mcpServers": {"gh": {"command": "user-gh"}}}`,
			yaml:   "mcp_servers:\n  gh:\n    command: npx\n  bad:\n    foo: 1\n",
			args:   []string{"--user-servers"},
			wantOut: []string{
				"cursor: wrote %~ (previous version in %~.bak)",
				"  warning: ",
				"  note: gh: not registered: Cursor already has a server of this name that Hermes did not write; kept it (user definition wins). Rename one of them, or rerun with --force to replace it",
			},
		},
		{
			name:       "a damaged state file fails in one line",
			cursor:     "{}",
			state:      "{",
			code:       exitFailure,
			wantStderr: "hermes-migrate: cursor: %s/hermes-migrate-state.json is damaged (unexpected end of JSON input); delete it and run again (entries hermes-migrate wrote before will then count as yours)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			cursor := filepath.Join(e.env["HOME"], ".cursor", "mcp.json")
			if err := os.MkdirAll(filepath.Dir(cursor), 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.cursor != "" {
				e.write(t, cursor, tt.cursor)
			}
			if tt.yaml != "" {
				e.write(t, filepath.Join(e.hermesHome, "config.yaml"), tt.yaml)
			}
			if tt.state != "" {
				e.write(t, filepath.Join(e.hermesHome, "hermes-migrate-state.json"), tt.state)
			}
			code, out, stderr := e.run(t, append([]string{"--client", "cursor"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, stderr)
			}
			if want := strings.ReplaceAll(tt.wantStderr, "%s", e.hermesHome); stderr != want {
				t.Errorf("stderr %q, want %q", stderr, want)
			}
			rest := out
			for _, w := range tt.wantOut {
				w = strings.ReplaceAll(strings.ReplaceAll(w, "%~", "~/.cursor/mcp.json"), "%s", cursor)
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("stdout lacks %q after what came before:\n%s", w, out)
				}
				rest = rest[i+len(w):]
			}
			if tt.cursor == "" {
				if _, err := os.Stat(cursor); err == nil {
					t.Error("config written")
				}
			}
		})
	}
}

// A hermes-tools entry the user wrote by hand is theirs: kept, with a note
// naming --force, which replaces it.
func TestOwnHermesToolsEntryWinsUnlessForced(t *testing.T) {
	e := newTestEnv(t)
	dir := filepath.Join(e.env["HOME"], ".cursor")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cursor := e.write(t, filepath.Join(dir, "mcp.json"), "{\n  \"mcpServers\": {\n    \"hermes-tools\": {\"command\": \"/opt/my/hermes-tools-wrapper\", \"args\": [\"--toolsets\", \"web\"]}\n  }\n}\n")
	before, _ := os.ReadFile(cursor)
	code, out, stderr := e.run(t, "--client", "cursor")
	if code != exitOK || !strings.Contains(out+stderr, "--force") {
		t.Fatalf("exit %d, out %q, stderr %q: want the entry kept with a note naming --force", code, out, stderr)
	}
	if after, _ := os.ReadFile(cursor); string(after) != string(before) {
		t.Errorf("the user's entry changed:\n%s", after)
	}
	// --remove leaves it too.
	if code, out, stderr := e.run(t, "--client", "cursor", "--remove"); code != exitOK || !strings.Contains(out+stderr, "left your own hermes-tools entry") {
		t.Fatalf("--remove: exit %d, out %q, stderr %q", code, out, stderr)
	}
	if after, _ := os.ReadFile(cursor); string(after) != string(before) {
		t.Errorf("--remove changed the user's entry:\n%s", after)
	}
	if code, _, stderr := e.run(t, "--client", "cursor", "--force"); code != exitOK {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(cursor); !strings.Contains(string(after), e.toolsBin) || strings.Contains(string(after), "hermes-tools-wrapper") {
		t.Errorf("--force did not replace the entry:\n%s", after)
	}
}

// A misspelt mcp_servers must not read as "the user removed every server":
// the run stops, names the key meant, and the servers registered before
// stay in codex's file byte for byte.
func TestMisspeltServersSectionRemovesNothing(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  github:\n    command: npx\n  linear:\n    url: https://mcp.linear.app/mcp\n")
	if code, _, stderr := e.run(t); code != exitOK {
		t.Fatal(stderr)
	}
	before := e.config(t)
	if !strings.Contains(before, "[mcp_servers.github]") || !strings.Contains(before, "[mcp_servers.linear]") {
		t.Fatalf("first run did not register the servers:\n%s", before)
	}
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_server:\n  github:\n    command: npx\n  linear:\n    url: https://mcp.linear.app/mcp\n")
	for _, args := range [][]string{{"--dry-run"}, nil} {
		code, out, stderr := e.run(t, args...)
		if code == exitOK || !strings.Contains(stderr, "did you mean mcp_servers?") || strings.Contains(out, "-[mcp_servers.github]") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want a refusal naming mcp_servers and no removal", args, code, out, stderr)
		}
		if e.config(t) != before {
			t.Fatalf("%v: codex's config changed:\n%s", args, e.config(t))
		}
	}
}

// A key the original does not know is named, with the key meant, before
// the run goes on.
func TestConfigTyposWarned(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "modle:\n  default: x\nmcp_servers:\n  gh:\n    command: npx\n    arg: [-y]\n")
	code, _, stderr := e.run(t)
	if code != exitOK || !strings.Contains(stderr, "line 1: modle: unknown key") || !strings.Contains(stderr, "did you mean model?") ||
		!strings.Contains(stderr, "did you mean args?") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// A server that left config.yaml's mcp_servers leaves codex's block, and
// the report says which, in the dry run and in the run.
func TestDroppedServersAreNamed(t *testing.T) {
	e := newTestEnv(t)
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  github:\n    command: npx\n  linear:\n    url: https://mcp.linear.app/mcp\n")
	if code, _, stderr := e.run(t); code != exitOK {
		t.Fatal(stderr)
	}
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "model:\n  default: x\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--dry-run"}, "would take out github, linear: no longer in config.yaml's mcp_servers"},
		{nil, "took out github, linear: no longer in config.yaml's mcp_servers"},
	} {
		code, out, stderr := e.run(t, tc.args...)
		if code != exitOK || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", tc.args, code, out, stderr, tc.want)
		}
	}
	if code, out, _ := e.run(t); code != exitOK || strings.Contains(out, "took out") {
		t.Errorf("a run with nothing to take out says %q", out)
	}
}
