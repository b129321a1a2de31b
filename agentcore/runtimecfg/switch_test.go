package runtimecfg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
)

func TestParseArg(t *testing.T) {
	tests := []struct {
		in   string
		want string
		show bool
		err  bool
	}{
		{"", "", true, false},
		{"  ", "", true, false},
		{"auto", Auto, false, false},
		{"codex_app_server", CodexAppServer, false, false},
		{"CODEX_APP_SERVER", CodexAppServer, false, false},
		{"on", CodexAppServer, false, false},
		{"codex", CodexAppServer, false, false},
		{"enable", CodexAppServer, false, false},
		{"off", Auto, false, false},
		{"default", Auto, false, false},
		{"disable", Auto, false, false},
		{"hermes", Auto, false, false},
		{"turbo", "", false, true},
	}
	for _, tt := range tests {
		got, show, err := ParseArg(tt.in)
		if got != tt.want || show != tt.show || (err != nil) != tt.err {
			t.Errorf("ParseArg(%q) = %q, %v, %v", tt.in, got, show, err)
		}
	}
	_, _, err := ParseArg("turbo")
	if err == nil || err.Error() != "Unknown runtime 'turbo'. Use one of: auto, codex_app_server, on, off" {
		t.Errorf("error text %v", err)
	}
}

// notInstalled is the error bridge.FindBinary returns when codex is not
// on PATH.
var notInstalled = fmt.Errorf("codex CLI not found (PATH: \"codex\"): %w", &exec.Error{Name: "codex", Err: exec.ErrNotFound})

const commented = `# my Hermes
model:
  default: gpt-5.5   # fast
  provider: openai

# servers
mcp_servers:
  files:
    command: npx
    args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
`

type fixture struct {
	sw       *Switch
	home     string
	codex    string
	checks   int
	discover int
}

func newFixture(t *testing.T, config string, codexErr error) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{home: filepath.Join(dir, "hermes"), codex: filepath.Join(dir, "codex")}
	if err := os.MkdirAll(f.home, 0o755); err != nil {
		t.Fatal(err)
	}
	if config != "" {
		if err := os.WriteFile(filepath.Join(f.home, "config.yaml"), []byte(config), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	tools := filepath.Join(dir, "hermes-tools-mcp")
	if err := os.WriteFile(tools, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	f.sw = &Switch{
		HermesHome:         f.home,
		CodexHome:          f.codex,
		HermesToolsCommand: tools,
		Getenv:             func(k string) string { return env[k] },
		Environ:            func() []string { return []string{"HOME=" + dir} },
		CheckCodex: func(context.Context, string) (string, string, error) {
			f.checks++
			if codexErr != nil {
				return "", "", codexErr
			}
			return "/bin/codex", "0.200.0", nil
		},
		DiscoverPlugins: func(context.Context, string, string, []string) ([]configmigrate.Plugin, error) {
			f.discover++
			return []configmigrate.Plugin{{Name: "github", Marketplace: "openai-curated", Enabled: true}}, nil
		},
	}
	return f
}

func (f *fixture) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func TestApply(t *testing.T) {
	enabled := strings.Replace(commented, "  provider: openai\n", "  provider: openai\n  openai_runtime: codex_app_server\n", 1)
	tests := []struct {
		name       string
		config     string
		arg        string
		codexErr   error
		wantConfig string // "" = unchanged
		success    bool
		changed    bool
		migrated   bool
		msg        []string
	}{
		{"on", commented, "on", nil, enabled, true, true, true,
			[]string{"openai_runtime: auto → codex_app_server", "codex CLI: 0.200.0", "Migrated 1 MCP server(s):", "  - files", "github@openai-curated", "Default sandbox: :workspace", "Effective from the next session"}},
		{"alias codex", commented, "codex", nil, enabled, true, true, true, []string{"auto → codex_app_server"}},
		{"already on still migrates", enabled, "codex_app_server", nil, "", true, false, true,
			[]string{"openai_runtime already set to codex_app_server", "Migrated 1 MCP server(s):"}},
		{"off", enabled, "off", nil, strings.Replace(enabled, "openai_runtime: codex_app_server", "openai_runtime: auto", 1), true, true, false,
			[]string{"openai_runtime: codex_app_server → auto", "OpenAI/Codex turns will use the default Hermes runtime.", "Effective from the next session"}},
		{"auto unchanged", commented, "auto", nil, "", true, false, false, []string{"openai_runtime already set to auto"}},
		{"missing codex", commented, "on", notInstalled, "", false, false, false,
			[]string{"Cannot enable codex_app_server runtime: codex CLI not installed (install with: npm i -g @openai/codex, or set CODEX_BIN to its path)"}},
		{"unusable codex", commented, "on", errors.New("codex 0.1.0 is older than required"), "", false, false, false,
			[]string{"Cannot enable codex_app_server runtime: codex CLI not usable: codex 0.1.0 is older than required"}},
		{"show", enabled, "", nil, "", true, false, false, []string{"openai_runtime: codex_app_server", "codex CLI: OK 0.200.0"}},
		{"show missing codex", commented, "", notInstalled, "", true, false, false, []string{"codex CLI: not installed (install with: npm i -g @openai/codex, or set CODEX_BIN to its path)"}},
		{"show unusable codex", commented, "", errors.New("nope"), "", true, false, false, []string{"codex CLI: not usable: nope"}},
		{"no config file", "", "on", nil, "model:\n  openai_runtime: codex_app_server\n", true, true, true, []string{"No MCP servers found in Hermes config."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.config, tt.codexErr)
			st, err := f.sw.Apply(context.Background(), tt.arg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("message:\n%s", st.Message)
			want := tt.wantConfig
			if want == "" {
				want = tt.config
			}
			if got := f.read(t, f.sw.ConfigPath()); got != want {
				t.Errorf("config.yaml\n got %q\nwant %q", got, want)
			}
			if st.Success != tt.success || st.Changed != tt.changed || (st.Migration != nil) != tt.migrated {
				t.Errorf("status %+v", st)
			}
			for _, m := range tt.msg {
				if !strings.Contains(st.Message, m) {
					t.Errorf("message lacks %q", m)
				}
			}
			// The user is told what to do, not how exec failed.
			if strings.Contains(st.Message, "executable file not found") {
				t.Errorf("message shows the lookup error:\n%s", st.Message)
			}
			toml := f.read(t, filepath.Join(f.codex, "config.toml"))
			if tt.migrated != strings.Contains(toml, configmigrate.BeginMarker) {
				t.Errorf("config.toml migrated=%v:\n%s", tt.migrated, toml)
			}
			if tt.migrated {
				for _, s := range []string{"[mcp_servers.hermes-tools]", "[mcp_servers.files]", `[plugins."github@openai-curated"]`} {
					if !strings.Contains(toml, s) && (tt.config != "" || s != "[mcp_servers.files]") {
						t.Errorf("config.toml lacks %s:\n%s", s, toml)
					}
				}
			}
		})
	}
}

// What the migration could not do is reported, and the rest still happens:
// the switch has no other way to tell the user why codex lacks something.
func TestApplyReportsMigrationGaps(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Switch)
		msg   []string
		block []string // present in config.toml
	}{
		{
			name: "hermes-tools missing",
			edit: func(s *Switch) { s.HermesToolsCommand = filepath.Join(t.TempDir(), "missing") },
			msg: []string{"⚠ MCP migration: --hermes-tools-command ", "not an executable file",
				"; codex will not get Hermes' tools until it is installed and /codex-runtime on runs again"},
			block: []string{"[mcp_servers.files]"},
		},
		{
			name: "plugin discovery failing",
			edit: func(s *Switch) {
				s.DiscoverPlugins = func(context.Context, string, string, []string) ([]configmigrate.Plugin, error) {
					return nil, errors.New("codex app-server did not start")
				}
			},
			msg:   []string{"Codex plugin discovery skipped: codex app-server did not start", "are available to codex through the hermes-tools MCP server"},
			block: []string{"[mcp_servers.hermes-tools]", "[mcp_servers.files]"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, commented, nil)
			tt.edit(f.sw)
			st, err := f.sw.Apply(context.Background(), "on")
			if err != nil {
				t.Fatal(err)
			}
			if !st.Success || st.Migration == nil || !st.Migration.Written {
				t.Fatalf("status %+v", st)
			}
			for _, m := range tt.msg {
				if !strings.Contains(st.Message, m) {
					t.Errorf("message lacks %q:\n%s", m, st.Message)
				}
			}
			toml := f.read(t, filepath.Join(f.codex, "config.toml"))
			for _, b := range tt.block {
				if !strings.Contains(toml, b) {
					t.Errorf("config.toml lacks %s:\n%s", b, toml)
				}
			}
		})
	}
}

// Enabling twice migrates twice: the second run keeps the user's own
// config.toml content, backs the previous file up, and picks up a server
// added to config.yaml in between.
func TestApplyAlreadyOnRefreshesMigration(t *testing.T) {
	f := newFixture(t, commented, nil)
	if err := os.MkdirAll(f.codex, 0o755); err != nil {
		t.Fatal(err)
	}
	user := "# mine\nmodel = \"gpt-5.5\"\n"
	tomlPath := filepath.Join(f.codex, "config.toml")
	if err := os.WriteFile(tomlPath, []byte(user), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := f.sw.Apply(ctx, "on"); err != nil {
		t.Fatal(err)
	}
	cfg := f.read(t, f.sw.ConfigPath()) + "  notes:\n    url: http://127.0.0.1:9/mcp\n"
	if err := os.WriteFile(f.sw.ConfigPath(), []byte(cfg), 0o640); err != nil {
		t.Fatal(err)
	}
	st, err := f.sw.Apply(ctx, "on")
	if err != nil {
		t.Fatal(err)
	}
	if st.Changed || st.Migration == nil || !st.Migration.Written || f.discover != 2 {
		t.Fatalf("status %+v, discover %d", st, f.discover)
	}
	toml := f.read(t, tomlPath)
	if !strings.HasPrefix(toml, user) || !strings.Contains(toml, "[mcp_servers.notes]") {
		t.Errorf("config.toml:\n%s", toml)
	}
	if !strings.Contains(st.Message, "(config: "+tomlPath+"; previous version in "+tomlPath+".bak)") {
		t.Errorf("message does not name the backup:\n%s", st.Message)
	}
	fi, err := os.Stat(f.sw.ConfigPath())
	if err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("config.yaml mode %v, %v", fi.Mode(), err)
	}
}

func TestApplyUnknownValue(t *testing.T) {
	f := newFixture(t, commented, nil)
	if _, err := f.sw.Apply(context.Background(), "sideways"); err == nil || !strings.Contains(err.Error(), "Use one of") {
		t.Fatalf("err %v", err)
	}
	if got := f.read(t, f.sw.ConfigPath()); got != commented {
		t.Errorf("config changed:\n%s", got)
	}
}

// A server whose secret env value became a reference was migrated: the
// message lists it with a note naming the variable, never as skipped.
// Copying the value as is (--allow-literal-secrets) says so too.
func TestMigrationNotesAreNotSkips(t *testing.T) {
	const cfg = commented + `  fetch:
    command: uvx
    args: [mcp-server-fetch]
    env:
      FETCH_API_KEY: sk-live-0123456789abcdef
`
	for _, tt := range []struct {
		name    string
		literal bool
		msg     []string
		toml    string
	}{
		{"reference", false, []string{"  - fetch\n      note: env FETCH_API_KEY looks like a secret"}, `env_vars = ["FETCH_API_KEY"]`},
		// A copied secret is a warning, not a note on the server.
		{"literal", true, []string{"  - fetch\n", "⚠ MCP migration: server fetch: env FETCH_API_KEY looks like a credential and was copied as is"}, "sk-live-0123456789abcdef"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, cfg, nil)
			f.sw.AllowLiteralSecrets = tt.literal
			msg, err := f.sw.Migrate(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(msg, "skipped") || !strings.Contains(msg, "Migrated 2 MCP server(s):") {
				t.Errorf("message:\n%s", msg)
			}
			for _, m := range tt.msg {
				if !strings.Contains(msg, m) {
					t.Errorf("message lacks %q:\n%s", m, msg)
				}
			}
			if toml := f.read(t, filepath.Join(f.codex, "config.toml")); !strings.Contains(toml, "[mcp_servers.fetch]") || !strings.Contains(toml, tt.toml) {
				t.Errorf("config.toml lacks fetch with %s:\n%s", tt.toml, toml)
			}
		})
	}
}

// An edit of config.yaml that lands while the switch runs (here: while it
// checks codex, after it read the file) is kept: the runtime is set in the
// file as it is when the switch writes, under the lock, never by writing
// back the content it read first.
func TestApplyKeepsAnEditMadeMeanwhile(t *testing.T) {
	f := newFixture(t, commented, nil)
	path := f.sw.ConfigPath()
	const added = "\n# added by the user while the switch ran\nagent:\n  max_turns: 12\n"
	check := f.sw.CheckCodex
	f.sw.CheckCodex = func(ctx context.Context, override string) (string, string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, added...), 0o640); err != nil {
			t.Fatal(err)
		}
		return check(ctx, override)
	}
	st, err := f.sw.Apply(context.Background(), "on")
	if err != nil || !st.Changed {
		t.Fatalf("Apply: %+v, %v", st, err)
	}
	got := f.read(t, path)
	if !strings.HasSuffix(got, added) || !strings.Contains(got, "openai_runtime: codex_app_server") {
		t.Errorf("config.yaml lost the edit made meanwhile, or the runtime:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(f.home, "locks", "config.yaml.lock")); err != nil {
		t.Errorf("the edit did not go through the Hermes home's lock for config.yaml: %v", err)
	}
}

// The codex runtime runs OpenAI models only: turning it on (or showing it
// on) for another provider says the next chat stays native, and an OpenAI
// provider gets no such line.
func TestApplySaysWhenCodexIsNotInEffect(t *testing.T) {
	openrouter := strings.Replace(commented, "  provider: openai\n", "  provider: openrouter\n", 1)
	if openrouter == commented {
		t.Fatal("fixture has no provider: openai line")
	}
	enabledOR := strings.Replace(openrouter, "  provider: openrouter\n", "  provider: openrouter\n  openai_runtime: codex_app_server\n", 1)
	for _, tt := range []struct {
		name, config, arg string
		warn              bool
	}{
		{"on, openrouter", openrouter, "on", true},
		{"show, openrouter", enabledOR, "", true},
		{"on, openai", commented, "on", false},
		{"off, openrouter", enabledOR, "off", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st, err := newFixture(t, tt.config, nil).sw.Apply(context.Background(), tt.arg)
			if err != nil {
				t.Fatal(err)
			}
			want := "⚠ not in effect: model.provider is openrouter, and the codex runtime runs OpenAI models only"
			if got := strings.Contains(st.Message, want); got != tt.warn {
				t.Errorf("warned %v, want %v:\n%s", got, tt.warn, st.Message)
			}
		})
	}
}
