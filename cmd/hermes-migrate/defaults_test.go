package main

import (
	"fmt"
	"github.com/hermes-go/hermes/configmigrate/migrate"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/filelock"
)

// TestDefaultClients: without --client, codex is configured when it is
// installed; when it is not, nothing is written and the clients found are
// listed with the command for each.
func TestDefaultClients(t *testing.T) {
	tests := []struct {
		name string
		// prepare changes the realistic home before the run.
		prepare func(t *testing.T, h *realHome)
		// writes says config.toml is written (where); "" writes nothing.
		writes  string
		want    []string
		notWant []string
	}{
		{
			name:    "a used ~/.codex",
			writes:  ".codex/config.toml",
			want:    []string{"codex: wrote ~/.codex/config.toml"},
			notWant: []string{"cursor", "claude-desktop"},
		},
		{
			name: "codex on PATH, no ~/.codex yet",
			prepare: func(t *testing.T, h *realHome) {
				removeAll(t, filepath.Join(h.home, ".codex"))
				h.onPath = []string{"codex"}
			},
			writes: ".codex/config.toml",
			want:   []string{"codex: wrote ~/.codex/config.toml: MCP servers github, hermes-tools, linear"},
		},
		{
			name: "$CODEX_HOME names one",
			prepare: func(t *testing.T, h *realHome) {
				removeAll(t, filepath.Join(h.home, ".codex"))
				h.env["CODEX_HOME"] = filepath.Join(h.home, "codex-elsewhere")
			},
			writes: "codex-elsewhere/config.toml",
			want:   []string{"codex: wrote ~/codex-elsewhere/config.toml"},
		},
		{
			name:    "no codex: the clients found, each with its command",
			prepare: func(t *testing.T, h *realHome) { removeAll(t, filepath.Join(h.home, ".codex")) },
			want: []string{
				"codex is not installed here (no codex on PATH, no ~/.codex), so nothing was written.",
				"  hermes-migrate --client claude-desktop  # Claude Desktop, ~/.config/Claude/claude_desktop_config.json\n",
				"  hermes-migrate --client cursor          # Cursor, ~/.cursor/mcp.json\n",
				"  hermes-migrate --client vscode          # VS Code, ~/.config/Code/User/mcp.json\n",
				"  hermes-migrate --client gemini          # Gemini CLI, ~/.gemini/settings.json\n",
				"npm i -g @openai/codex",
			},
			// ~/.claude.json is absent, and the home itself proves nothing.
			notWant: []string{"--client claude-code", "--client codex"},
		},
		{
			name: "no codex and no client",
			prepare: func(t *testing.T, h *realHome) {
				for _, d := range []string{".codex", ".config", ".cursor", ".gemini"} {
					removeAll(t, filepath.Join(h.home, d))
				}
			},
			want: []string{"No other MCP client's config was found either. Name a client: hermes-migrate --client <name> (" + strings.Join(migrate.KnownClients(), ", ") + ")."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRealHome(t)
			if tt.prepare != nil {
				tt.prepare(t, h)
			}
			before := h.snapshot(t)
			code, out, stderr := h.run(t)
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			after := h.snapshot(t)
			for p := range after {
				if after[p] != before[p] && !strings.HasPrefix(p, "/"+tt.writes) {
					t.Errorf("%s written, want only %q", p, tt.writes)
				}
			}
			if _, ok := after["/"+tt.writes]; tt.writes != "" && !ok {
				t.Errorf("%s not written", tt.writes)
			}
			if _, err := os.Stat(filepath.Join(h.home, ".codex")); tt.writes == "" && err == nil {
				t.Error("~/.codex was created where codex is not installed")
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
		})
	}
}

// TestDefaultClientsKeepMode: the commands listed keep --remove and
// --dry-run, so running one does what the user asked for.
func TestDefaultClientsKeepMode(t *testing.T) {
	h := newRealHome(t)
	removeAll(t, filepath.Join(h.home, ".codex"))
	code, out, _ := h.run(t, "--remove", "--dry-run")
	if code != exitOK || !strings.Contains(out, "to take Hermes' entries out of one, run:\n") ||
		!strings.Contains(out, "  hermes-migrate --client cursor --remove --dry-run  ") || strings.Contains(out, "install it") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// TestDefaultClientsJSON: with --json and no codex, stdout stays JSON (no
// reports) and the listing goes to stderr.
func TestDefaultClientsJSON(t *testing.T) {
	h := newRealHome(t)
	removeAll(t, filepath.Join(h.home, ".codex"))
	code, out, stderr := h.run(t, "--json")
	if code != exitOK || out != "[]\n" || !strings.Contains(stderr, "hermes-migrate --client cursor") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestBadCodexFlags: flag values codex would not accept are refused with
// exit 2 before any file is written, and the message blames the flag the
// value came from.
func TestBadCodexFlags(t *testing.T) {
	labTOML := "model = \"gpt-5.5\"\n\n[permissions.lab]\nextends = \":workspace\"\n"
	tests := []struct {
		name     string
		toml     string // "" keeps the fixture's config.toml
		args     []string
		code     int
		stderr   string // prefix, after "hermes-migrate: "
		contains string // in config.toml afterwards, when code is 0
	}{
		{"unknown built-in", "", []string{"--default-permissions", ":bogus"}, exitUsage, `--default-permissions: unknown codex permission profile ":bogus": codex has no such built-in profile`, ""},
		{"undefined own profile", "", []string{"--default-permissions", "lab"}, exitUsage, `codex: --default-permissions: `, ""},
		{"own profile defined in config.toml", labTOML, []string{"--default-permissions", "lab"}, exitOK, "", `default_permissions = "lab"`},
		{"built-in without its colon", "", []string{"--default-permissions", "read-only"}, exitOK, "", `default_permissions = ":read-only"`},
		{"none", "", []string{"--default-permissions", "none"}, exitOK, "", "[mcp_servers.hermes-tools]"},
		{"--codex-bin that is not there", "", []string{"--codex-bin", "/nonexistent/codex"}, exitUsage, `--codex-bin "/nonexistent/codex": not an executable file`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRealHome(t)
			cfg := filepath.Join(h.home, ".codex", "config.toml")
			if tt.toml != "" {
				if err := os.WriteFile(cfg, []byte(tt.toml), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			before := h.snapshot(t)
			code, _, stderr := h.run(t, append([]string{"--client", "all"}, tt.args...)...)
			if code != tt.code || (tt.stderr == "") != (stderr == "") || !strings.HasPrefix(stderr, "hermes-migrate: "+tt.stderr) && tt.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, tt.stderr)
			}
			if code != exitOK {
				after := h.snapshot(t)
				for p := range after {
					// The lock beside config.toml is not the user's file.
					if after[p] != before[p] && !strings.HasSuffix(p, filelock.Suffix) {
						t.Errorf("a refused flag still wrote %s", p)
					}
				}
				if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
					t.Errorf("want one line: %q", stderr)
				}
				return
			}
			got, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), tt.contains) {
				t.Errorf("config.toml lacks %q:\n%s", tt.contains, got)
			}
			if tt.args[1] == "none" && strings.Contains(string(got), "default_permissions") {
				t.Errorf("--default-permissions none wrote one:\n%s", got)
			}
		})
	}
}

// TestHomeErrorsNameTheirSource: a home that cannot be one is refused with
// exit 2, blaming the flag or the variable it actually came from. (No '$'
// in the case names: they become temporary paths, and Hermes expands
// variables in a home's path.)
func TestHomeErrorsNameTheirSource(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string // %f is a file, %h the realistic home
		args   []string
		code   int
		stderr string
	}{
		{"CODEX_HOME is a file", map[string]string{"CODEX_HOME": "%f"}, nil, exitUsage, `hermes-migrate: $CODEX_HOME "%f" is a file`},
		{"--codex-home is a file", nil, []string{"--codex-home", "%f"}, exitUsage, `hermes-migrate: --codex-home "%f" is a file`},
		{"HERMES_HOME does not exist", map[string]string{"HERMES_HOME": "%h/nope"}, nil, exitUsage, `hermes-migrate: $HERMES_HOME "%h/nope": %h/nope does not exist`},
		{"HERMES_HOME is a file", map[string]string{"HERMES_HOME": "%f"}, nil, exitUsage, `hermes-migrate: $HERMES_HOME "%f" is a file`},
		{"--hermes-home wins, and is the one blamed", map[string]string{"HERMES_HOME": "%h/.hermes"}, []string{"--hermes-home", "%h/nope"}, exitUsage, `hermes-migrate: --hermes-home "%h/nope": %h/nope does not exist`},
		{"a bad HERMES_HOME is not used when --hermes-home is given", map[string]string{"HERMES_HOME": "%h/nope"}, []string{"--hermes-home", "%h/.hermes"}, exitOK, ""},
		{"--remove needs no Hermes home", map[string]string{"HERMES_HOME": "%h/nope"}, []string{"--remove"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRealHome(t)
			file := filepath.Join(h.home, "a-file")
			if err := os.WriteFile(file, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			expand := strings.NewReplacer("%f", file, "%h", h.home).Replace
			for k, v := range tt.env {
				h.env[k] = expand(v)
			}
			args := []string{"--client", "codex"}
			for _, a := range tt.args {
				args = append(args, expand(a))
			}
			code, _, stderr := h.run(t, args...)
			if want := expand(tt.stderr); code != tt.code || !strings.HasPrefix(stderr, want) || (want == "") != (stderr == "") {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, want)
			}
		})
	}
}

func removeAll(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

// TestClientAll: in user scope all is the clients found here (the same
// ones a plain run lists) plus codex when it is installed; a client named
// besides it is written although it was not found; with nothing found, all
// is refused naming what to do, and nothing is written.
func TestClientAll(t *testing.T) {
	tests := []struct {
		name    string
		remove  []string // taken out of the realistic home first
		args    []string
		code    int
		clients []string // reported as written, in order
		stderr  string
	}{
		{name: "found clients and codex", args: []string{"--client", "all"}, clients: realHomeClients},
		{name: "codex not installed", remove: []string{".codex"}, args: []string{"--client", "all"}, clients: realHomeClients[1:]},
		{name: "a client named besides all", args: []string{"--client", "all,fx"}, clients: append(slices.Clone(realHomeClients), "fx")},
		{
			name: "nothing found", remove: []string{".codex", ".config", ".cursor", ".gemini"},
			args: []string{"--client", "all"}, code: exitUsage,
			stderr: "hermes-migrate: --client all: no MCP client was found here",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newRealHome(t)
			for _, d := range tt.remove {
				removeAll(t, filepath.Join(h.home, d))
			}
			before := h.snapshot(t)
			code, out, stderr := h.run(t, tt.args...)
			if code != tt.code || !strings.HasPrefix(stderr, tt.stderr) || (tt.stderr == "") != (stderr == "") {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, stderr, tt.code, tt.stderr)
			}
			var wrote []string
			for _, m := range regexp.MustCompile(`(?m)^([a-z-]+): wrote `).FindAllStringSubmatch(out, -1) {
				wrote = append(wrote, m[1])
			}
			if !slices.Equal(wrote, tt.clients) {
				t.Errorf("wrote %q, want %q:\n%s", wrote, tt.clients, out)
			}
			if code != exitOK {
				if after := h.snapshot(t); fmt.Sprint(after) != fmt.Sprint(before) {
					t.Error("a refused --client all wrote files")
				}
				if entries, _ := os.ReadDir(h.home); len(entries) != 1 { // .hermes
					t.Errorf("a refused --client all created %v", entries)
				}
			}
		})
	}
}
