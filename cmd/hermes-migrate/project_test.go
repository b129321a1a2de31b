package main

import (
	"encoding/json"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/configmigrate/migrate"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func newProject(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// TestProjectScope: --project writes the project-level files with the same
// guarantees, and never outside a project unless one is named.
func TestProjectScope(t *testing.T) {
	e := newTestEnv(t)
	proj := newProject(t)
	sub := filepath.Join(proj, "a", "b")
	os.MkdirAll(sub, 0o755)
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  gh:\n    command: npx\n")
	userVS := filepath.Join(proj, ".vscode", "mcp.json")
	os.MkdirAll(filepath.Dir(userVS), 0o755)
	const mine = "{\n  // my project's servers\n  \"servers\": {\n    \"db\": {\"type\": \"stdio\", \"command\": \"db-mcp\"},\n  },\n}\n"
	e.write(t, userVS, mine)

	tests := []struct {
		name  string
		args  []string
		wd    string
		code  int
		files []string // relative to proj, must exist afterwards
		err   string
	}{
		{name: "named dir, flag order kept", args: []string{"--project", proj, "--client", "cursor,vscode,claude-code", "--user-servers"},
			files: []string{".cursor/mcp.json", ".vscode/mcp.json", ".mcp.json"}},
		{name: "working dir inside the project", args: []string{"--client", "gemini", "--project"}, wd: sub,
			files: []string{".gemini/settings.json"}},
		{name: "equals form", args: []string{"--client", "kiro", "--project=" + proj}, files: []string{".kiro/settings/mcp.json"}},
		{name: "named clients without a trace in the project", args: []string{"--client", "codex,opencode,zed,mcporter", "--project", proj, "--no-plugins"},
			files: []string{".codex/config.toml", "opencode.jsonc", ".zed/settings.json", "config/mcporter.json"}},
		{name: "outside a project", args: []string{"--client", "cursor", "--project"}, wd: t.TempDir(), code: exitUsage, err: "not inside a project"},
		{name: "client without a project file", args: []string{"--client", "windsurf", "--project", proj}, code: exitUsage, err: "Windsurf reads no project-level MCP config"},
		{name: "not a directory", args: []string{"--client", "cursor", "--project", userVS}, code: exitUsage, err: "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := e.deps()
			wd := tt.wd
			d.Getwd = func() (string, error) { return wd, nil }
			code, out, stderr := runWith(t, e, d, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.err) {
				t.Fatalf("exit %d, stderr %q; want %d with %q\n%s", code, stderr, tt.code, tt.err, out)
			}
			for _, f := range tt.files {
				p := filepath.Join(proj, filepath.FromSlash(f))
				b, err := os.ReadFile(p)
				if err != nil || !strings.Contains(string(b), "hermes-tools") {
					t.Errorf("%s: %v\n%s", f, err, b)
				}
			}
		})
	}
	// The user's bytes in the project file are kept, and nothing was
	// written at user level or outside the project.
	got, _ := os.ReadFile(userVS)
	if !strings.HasPrefix(string(got), "{\n  // my project's servers\n  \"servers\": {\n    \"db\": {\"type\": \"stdio\", \"command\": \"db-mcp\"},\n") {
		t.Errorf("project .vscode/mcp.json lost the user's bytes:\n%s", got)
	}
	if b, _ := os.ReadFile(userVS + ".bak"); string(b) != mine {
		t.Errorf("backup is not the user's version:\n%s", b)
	}
	for _, p := range []string{filepath.Join(e.env["HOME"], ".cursor"), filepath.Join(e.codexHome, "config.toml"), filepath.Join(proj, ".codeium"), filepath.Join(sub, ".gemini")} {
		if exists(p) {
			t.Errorf("%s was written; --project must write only the project's files", p)
		}
	}
	// list --project shows the project's files, not the user's.
	code, js, stderr := e.list(t, "--project", proj, "--json")
	var list []migrate.ListedClient
	if code != exitOK || json.Unmarshal([]byte(js), &list) != nil {
		t.Fatalf("list --project: exit %d %s\n%s", code, stderr, js)
	}
	for _, c := range list {
		if !strings.HasPrefix(c.Path, proj+string(filepath.Separator)) || c.HermesTools == nil || c.HermesTools.Command != "hermes-tools-mcp" {
			t.Errorf("list --project: %+v", c)
		}
	}
	if len(list) < 7 {
		t.Errorf("list --project found %d clients:\n%s", len(list), js)
	}
	// A second run changes nothing; --remove gives the user's file back.
	if code, out, _ := runWith(t, e, e.deps(), "--project", proj, "--client", "cursor,vscode,claude-code", "--user-servers"); code != exitOK || strings.Contains(out, "wrote") {
		t.Errorf("second run: exit %d\n%s", code, out)
	}
	if code, _, stderr := runWith(t, e, e.deps(), "--project", proj, "--client", "vscode", "--remove"); code != exitOK {
		t.Fatalf("--remove: exit %d %s", code, stderr)
	}
	if got, _ := os.ReadFile(userVS); string(got) != mine {
		t.Errorf("--remove did not restore the project file:\n%s", got)
	}
}

func runWith(t *testing.T, e *testEnv, d migrate.System, args ...string) (int, string, string) {
	t.Helper()
	var out, errb strings.Builder
	base := []string{"--codex-home", e.codexHome, "--hermes-home", e.hermesHome}
	code := run(t.Context(), append(base, args...), &out, &errb, d)
	return code, out.String(), errb.String()
}

// TestNoSecretInAnyFile runs the whole CLI over every client with a
// config.yaml full of literal secrets: no file written anywhere holds one,
// unless --allow-literal-secrets says so, and then with a warning.
func TestNoSecretInAnyFile(t *testing.T) {
	secrets := []string{"sk-live-4f9a8b7c6d5e4f3a2b1c", "hunter2hunter2", "opaque-session-value-123",
		"Zq8wXv2Lk9Pm", "tok_abc123def", "hunter5hunter5", "P4ssw0rd-xyz", "ghp_abcdefghijklmnopqrstuvwxyz0123", "hunter7hunter7", "plainvalue1", "plainvalue2"}
	yaml := `mcp_servers:
  fetch:
    command: fetch-mcp
    env:
      FETCH_API_KEY: "sk-live-4f9a8b7c6d5e4f3a2b1c"
      DB_PASSWORD: hunter2hunter2
      LOG_LEVEL: info
  api:
    url: https://api.example.com/mcp
    headers:
      Authorization: "Bearer opaque-session-value-123"
  flags:
    command: node
    args: ["s.js", "--api-key", "Zq8wXv2Lk9Pm", "--token", "tok_abc123def", "-p", "8080", "--password", "hunter5hunter5"]
  userinfo:
    url: https://admin:P4ssw0rd-xyz@mcp.example.com/mcp
  defaults:
    command: srv
    env:
      GH: "${MY_TOK:-ghp_abcdefghijklmnopqrstuvwxyz0123}"
      PW: "${PW:-hunter7hunter7}"
  middle:
    command: srv
    env:
      ACCESS_TOKEN_VALUE: plainvalue1
      DB_PASS_PHRASE: plainvalue2
`
	for _, allow := range []bool{false, true} {
		e := newTestEnv(t)
		e.write(t, filepath.Join(e.hermesHome, "config.yaml"), yaml)
		proj := newProject(t)
		args := []string{"--client", "all", "--user-servers", "--no-plugins"}
		if allow {
			args = append(args, "--allow-literal-secrets")
		}
		var outs string
		// In a project, all means the clients it uses: name every one.
		projectArgs := []string{"--client", strings.Join(projectCapable(), ","), "--user-servers", "--no-plugins", "--project", proj}
		if allow {
			projectArgs = append(projectArgs, "--allow-literal-secrets")
		}
		for _, a := range [][]string{args, projectArgs} {
			code, out, stderr := e.run(t, a...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			outs += out
		}
		found := map[string]bool{}
		for _, root := range []string{e.env["HOME"], e.codexHome, proj} {
			filepath.WalkDir(root, func(p string, de os.DirEntry, err error) error {
				if err != nil || de.IsDir() || strings.HasSuffix(p, ".bak") {
					return nil
				}
				b, _ := os.ReadFile(p)
				for _, s := range secrets {
					if strings.Contains(string(b), s) {
						found[s] = true
						if !allow {
							t.Errorf("%s holds the secret %q:\n%s", p, s, b)
						}
					}
				}
				return nil
			})
		}
		// Kilo drops a whole project file that holds an {env:VAR}
		// reference, which its user file may hold: the project run
		// passes the scope down to the translation.
		if b, err := os.ReadFile(filepath.Join(proj, "kilo.json")); err != nil || strings.Contains(string(b), "{env:") {
			t.Errorf("the project's kilo.json (%v) holds a reference Kilo would drop the file for:\n%s", err, b)
		}
		if allow && len(found) != len(secrets) {
			t.Errorf("--allow-literal-secrets wrote only %v", found)
		}
		if allow != strings.Contains(outs, "warning: server flags: args[2] looks like a credential and was copied as is (--allow-literal-secrets)") {
			t.Errorf("allow=%v: warning shown = %v\n%s", allow, !allow, outs)
		}
		if !allow && !strings.Contains(outs, "set FETCH_API_KEY in the environment") {
			t.Errorf("the report does not say which variable to set:\n%s", outs)
		}
	}
}

// TestProjectAllAndPortableEntries: in a project, all means the clients
// the project already uses (their project file or dot-directory is
// there); a named client is written anyway. Project files name
// hermes-tools-mcp, not this machine's path, carry HERMES_HOME only when
// --hermes-home asks, and no lock file is left in the project.
func TestProjectAllAndPortableEntries(t *testing.T) {
	tests := []struct {
		name    string
		markers []string // files (with a dot in the base) or directories made first
		args    []string
		code    int
		written []string // project files that must exist afterwards
		err     string
		home    bool // HERMES_HOME in the entries
	}{
		{name: "dot-directories and files in use", markers: []string{".cursor/", ".zed/", ".mcp.json", ".codex/"}, args: []string{"--client", "all"},
			written: []string{".cursor/mcp.json", ".zed/settings.json", ".mcp.json", ".codex/config.toml"}},
		{name: "a generic config dir is no client", markers: []string{"config/", ".vscode/"}, args: []string{"--client", "all"},
			written: []string{".vscode/mcp.json"}},
		{name: "fresh project", args: []string{"--client", "all"}, code: exitUsage, err: "no MCP client uses"},
		{name: "named client written anyway", args: []string{"--client", "gemini"}, written: []string{".gemini/settings.json"}},
		{name: "--hermes-home is written", markers: []string{".cursor/"}, args: []string{"--client", "all", "--hermes-home", "HOME"},
			written: []string{".cursor/mcp.json"}, home: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			e.env["HERMES_HOME"] = e.hermesHome // set for this user: not the team's
			proj := newProject(t)
			for _, m := range tt.markers {
				p := filepath.Join(proj, filepath.FromSlash(m))
				if strings.HasSuffix(m, "/") {
					os.MkdirAll(p, 0o755)
				} else {
					e.write(t, p, "{}\n")
				}
			}
			args := []string{"--project", proj, "--no-plugins"}
			for _, a := range tt.args {
				if a == "HOME" {
					a = e.hermesHome
				}
				args = append(args, a)
			}
			var out, errb strings.Builder
			code := run(t.Context(), args, &out, &errb, e.deps())
			if code != tt.code || !strings.Contains(errb.String(), tt.err) {
				t.Fatalf("exit %d, stderr %q; want %d with %q\n%s", code, errb.String(), tt.code, tt.err, out.String())
			}
			var files []string
			filepath.WalkDir(proj, func(p string, de os.DirEntry, err error) error {
				if err == nil && !de.IsDir() && !strings.Contains(p, string(filepath.Separator)+".git"+string(filepath.Separator)) {
					rel, _ := filepath.Rel(proj, p)
					files = append(files, filepath.ToSlash(rel))
				}
				return nil
			})
			for _, f := range files {
				if strings.HasSuffix(f, ".lock") {
					t.Errorf("lock file %s left in the project", f)
				}
			}
			for _, f := range tt.written {
				b, err := os.ReadFile(filepath.Join(proj, filepath.FromSlash(f)))
				if err != nil {
					t.Errorf("%s not written: %v (files: %v)", f, err, files)
					continue
				}
				if !strings.Contains(string(b), "hermes-tools-mcp") || strings.Contains(string(b), e.toolsBin) {
					t.Errorf("%s does not start hermes-tools-mcp by name:\n%s", f, b)
				}
				if got := strings.Contains(string(b), e.hermesHome); got != tt.home {
					t.Errorf("%s holds the Hermes home %v, want %v:\n%s", f, got, tt.home, b)
				}
			}
			for _, f := range files {
				base := strings.TrimSuffix(f, ".bak")
				if !slices.Contains(tt.written, base) && !slices.Contains(tt.markers, f) {
					t.Errorf("%s written; the project uses no such client", f)
				}
			}
			if tt.code == exitOK && !strings.Contains(out.String(), "Project files start hermes-tools-mcp by name") {
				t.Errorf("the report does not say the project files are portable:\n%s", out.String())
			}
		})
	}
}

// projectCapable are the clients that read a project-level file.
func projectCapable() []string {
	var out []string
	for _, c := range clientsync.Clients() {
		if _, err := clientsync.ProjectPath(c, "/"); err == nil {
			out = append(out, string(c))
		}
	}
	return out
}
