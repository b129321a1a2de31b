package clientsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/internal/hermeshome"
)

// noFile stands for a config.toml that does not exist yet.
const noFile = "\x00none"

type jobFixture struct {
	dir, codexHome, hermesHome, toolsBin string
	discoverCalls                        int
}

func newJobFixture(t *testing.T, configTOML, configYAML string) *jobFixture {
	t.Helper()
	dir := t.TempDir()
	f := &jobFixture{
		dir:        dir,
		codexHome:  filepath.Join(dir, "codex"),
		hermesHome: filepath.Join(dir, "hermes"),
		toolsBin:   filepath.Join(dir, "bin", "hermes-tools-mcp"),
	}
	for _, d := range []string{f.codexHome, f.hermesHome, filepath.Dir(f.toolsBin)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(f.toolsBin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if configTOML != noFile {
		if err := os.WriteFile(f.tomlPath(), []byte(configTOML), 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if configYAML != "" {
		if err := os.WriteFile(filepath.Join(f.hermesHome, "config.yaml"), []byte(configYAML), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *jobFixture) tomlPath() string { return filepath.Join(f.codexHome, "config.toml") }

// job is a job over the fixture whose codex discovery answers found, err.
func (f *jobFixture) job(found []configmigrate.Plugin, err error) Job {
	return Job{
		Client:             Codex,
		CodexHome:          f.codexHome,
		HermesHome:         f.hermesHome,
		Pin:                hermeshome.Pin{Home: f.hermesHome},
		HermesToolsCommand: f.toolsBin,
		EnvVars:            []string{"MY_API_KEY"},
		DefaultPermissions: configmigrate.DefaultPermissions,
		Getenv:             func(string) string { return "" },
		Environ:            func() []string { return nil },
		DiscoverPlugins: func(context.Context, string, string, []string) ([]configmigrate.Plugin, error) {
			f.discoverCalls++
			return found, err
		},
	}
}

func (f *jobFixture) read(t *testing.T, path string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// withBlock is user followed by a managed block that lists plugin, as an
// earlier run would have left it.
func withBlock(t *testing.T, user string, plugin configmigrate.Plugin) string {
	t.Helper()
	out, _, err := configmigrate.MigrateCodex([]byte(user), configmigrate.CodexInput{Plugins: []configmigrate.Plugin{plugin}})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestCodexJobRun(t *testing.T) {
	const user = "# mine\nmodel = \"gpt-5.5\"\n\n[history]\npersistence = \"none\"\n"
	const yaml = "mcp_servers:\n  gh:\n    command: npx\n    env: {GITHUB_TOKEN: \"${GITHUB_TOKEN}\"}\n  broken: {}\n"
	github := configmigrate.Plugin{Name: "github", Marketplace: "openai-curated", Enabled: true}
	linear := configmigrate.Plugin{Name: "linear", Marketplace: "openai-curated", Enabled: true}
	tests := []struct {
		name        string
		before      string // noFile: config.toml is missing
		yaml        string
		edit        func(*Job)
		discoverErr error
		wantErr     string
		// After a failed run the file must be as before.
		want, absent []string
		check        func(t *testing.T, f *jobFixture, res JobResult)
	}{
		{
			name: "new file", before: noFile, yaml: yaml,
			want: []string{configmigrate.BeginMarker, "[mcp_servers.hermes-tools]", `command = "` + "%TOOLS%" + `"`, `env = { HERMES_HOME = "%HERMES%" }`,
				`env_vars = ["MY_API_KEY"]`, "[mcp_servers.gh]", `[plugins."github@openai-curated"]`, `default_permissions = ":workspace"`},
			check: func(t *testing.T, f *jobFixture, res JobResult) {
				if !res.Written || res.Backup != "" || res.PluginSource != "codex" || res.HermesTools == nil || res.HermesTools.Command != f.toolsBin {
					t.Errorf("result %+v", res)
				}
				if len(res.Problems) != 1 || !strings.Contains(res.Problems[0], `"broken"`) {
					t.Errorf("problems %q, want the server without a command", res.Problems)
				}
				if fi, err := os.Stat(f.tomlPath()); err != nil || fi.Mode().Perm() != 0o600 {
					t.Errorf("new config.toml: %v, %v; want mode 0600", fi, err)
				}
			},
		},
		{
			name: "existing file is kept around the block and backed up", before: user, yaml: yaml,
			want: []string{"# mine\nmodel = \"gpt-5.5\"\n", "[history]\npersistence = \"none\"\n", "[mcp_servers.gh]"},
			check: func(t *testing.T, f *jobFixture, res JobResult) {
				if bak, _ := f.read(t, res.Backup); res.Backup != f.tomlPath()+configmigrate.BackupSuffix || bak != user {
					t.Errorf("backup %q holds %q", res.Backup, bak)
				}
				if fi, _ := os.Stat(f.tomlPath()); fi.Mode().Perm() != 0o640 {
					t.Errorf("mode %v, want the file's own 0640", fi.Mode().Perm())
				}
			},
		},
		{
			name: "discovery failure keeps the previous block's plugins", before: withBlock(t, user, linear),
			discoverErr: errors.New("codex not installed"),
			want:        []string{`[plugins."linear@openai-curated"]`},
			check: func(t *testing.T, f *jobFixture, res JobResult) {
				if res.PluginSource != "previous block" || res.PluginError != "codex not installed" || !res.Written {
					t.Errorf("result %+v", res)
				}
			},
		},
		{
			name: "no discovery keeps the previous block's plugins", before: withBlock(t, user, linear),
			edit:   func(j *Job) { j.NoPluginDiscovery = true },
			want:   []string{`[plugins."linear@openai-curated"]`},
			absent: []string{"github@openai-curated"},
			check: func(t *testing.T, f *jobFixture, res JobResult) {
				if f.discoverCalls != 0 || res.PluginSource != "previous block" {
					t.Errorf("asked codex %d times, source %q", f.discoverCalls, res.PluginSource)
				}
			},
		},
		{
			name: "dry run writes nothing", before: user, yaml: yaml,
			edit:   func(j *Job) { j.DryRun = true },
			absent: []string{configmigrate.BeginMarker},
			check: func(t *testing.T, f *jobFixture, res JobResult) {
				if res.Written || !res.Changed || !strings.Contains(res.Diff, "+[mcp_servers.gh]") {
					t.Errorf("result %+v", res)
				}
				if _, ok := f.read(t, f.tomlPath()+configmigrate.BackupSuffix); ok {
					t.Error("dry run left a backup")
				}
			},
		},
		{
			name: "remove restores the user's file", before: withBlock(t, user, linear),
			edit:   func(j *Job) { j.Remove = true },
			absent: []string{configmigrate.BeginMarker},
			check: func(t *testing.T, f *jobFixture, res JobResult) {
				if got, _ := f.read(t, f.tomlPath()); got != user || !res.Removed || res.Report != nil || f.discoverCalls != 0 {
					t.Errorf("after remove (removed %v, discovery %d):\n%q\nwant\n%q", res.Removed, f.discoverCalls, got, user)
				}
			},
		},
		{
			name: "hermes-tools not found fails", before: user,
			edit:    func(j *Job) { j.HermesToolsCommand = "/nonexistent/hermes-tools-mcp" },
			wantErr: "--hermes-tools-command /nonexistent/hermes-tools-mcp: not an executable file",
		},
		{
			name: "hermes-tools not found, optional", before: noFile,
			edit: func(j *Job) {
				j.HermesToolsCommand, j.HermesToolsOptional = "", true
				j.Executable = func() (string, error) { return "/elsewhere/hermes", nil }
				j.LookPath = func(string) (string, error) { return "", errors.New("not on PATH") }
			},
			want:   []string{`[plugins."github@openai-curated"]`},
			absent: []string{"[mcp_servers.hermes-tools]"},
			check: func(t *testing.T, f *jobFixture, res JobResult) {
				if res.HermesTools != nil || res.HermesToolsError == nil || !strings.Contains(res.HermesToolsError.Error(), "(--hermes-tools-command)") {
					t.Errorf("entry %v, error %v", res.HermesTools, res.HermesToolsError)
				}
			},
		},
		{
			name: "home chosen by default is not written", before: noFile,
			edit:   func(j *Job) { j.Pin, j.ApproveTools = hermeshome.Pin{}, true },
			want:   []string{`default_tools_approval_mode = "approve"`},
			absent: []string{"HERMES_HOME"},
		},
		{name: "invalid config.toml is refused", before: "model = \"x\"\n[broken\n", wantErr: "config.toml: config.toml is not valid TOML"},
		{name: "invalid config.yaml is refused", before: user, yaml: "mcp_servers: [not, a, map]\n", wantErr: "config.yaml: mcp_servers in config.yaml is not a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newJobFixture(t, tt.before, tt.yaml)
			job := f.job([]configmigrate.Plugin{github}, tt.discoverErr)
			if tt.edit != nil {
				tt.edit(&job)
			}
			res, err := job.Run(context.Background())
			got, exists := f.read(t, f.tomlPath())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				if _, bak := f.read(t, f.tomlPath()+configmigrate.BackupSuffix); got != strings.TrimPrefix(tt.before, noFile) || exists == (tt.before == noFile) || bak {
					t.Errorf("a refused run changed config.toml or left a backup:\n%s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Path != f.tomlPath() {
				t.Errorf("path %q, want %q", res.Path, f.tomlPath())
			}
			expand := strings.NewReplacer("%TOOLS%", f.toolsBin, "%HERMES%", f.hermesHome).Replace
			for _, w := range tt.want {
				if !strings.Contains(got, expand(w)) {
					t.Errorf("config.toml lacks %q:\n%s", expand(w), got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("config.toml has %q:\n%s", a, got)
				}
			}
			if tt.check != nil {
				tt.check(t, f, res)
			}
		})
	}
}

// A second run with nothing new leaves the file alone: no write, no backup
// churn.
func TestCodexJobIsIdempotent(t *testing.T) {
	f := newJobFixture(t, "model = \"gpt-5.5\"\n", "mcp_servers:\n  gh:\n    command: npx\n")
	job := f.job([]configmigrate.Plugin{{Name: "github", Marketplace: "openai-curated", Enabled: true}}, nil)
	if _, err := job.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	before, _ := f.read(t, f.tomlPath())
	res, err := job.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := f.read(t, f.tomlPath()); res.Changed || res.Written || res.Report.Changed || after != before {
		t.Errorf("second run changed something: %+v", res)
	}
}

func TestCodexJobFindsCodexHome(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	tests := []struct {
		name, flag string
		env        map[string]string
		want       string
	}{
		{"flag wins, made absolute", "rel", map[string]string{"CODEX_HOME": "/env/codex", "HOME": "/home/u"}, filepath.Join(dir, "rel")},
		{"CODEX_HOME", "", map[string]string{"CODEX_HOME": filepath.Join(dir, "env"), "HOME": "/home/u"}, filepath.Join(dir, "env")},
		{"HOME", "", map[string]string{"HOME": filepath.Join(dir, "home")}, filepath.Join(dir, "home", ".codex")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := Job{Client: Codex, CodexHome: tt.flag, Remove: true, DryRun: true, Getenv: func(k string) string { return tt.env[k] }}
			res, err := job.Run(context.Background())
			if err != nil || res.Path != filepath.Join(tt.want, "config.toml") {
				t.Errorf("path %q, %v; want %q", res.Path, err, filepath.Join(tt.want, "config.toml"))
			}
		})
	}
}

// TestCodexRow: codex's row reads back what config.toml registers, inside
// the managed block or out of it, for list; its entries are one section,
// so Apply and Remove, which edit entry by entry, refuse it.
func TestCodexRow(t *testing.T) {
	block := withBlock(t, "[mcp_servers.mine]\nurl = \"http://127.0.0.1:1/mcp\"\n", configmigrate.Plugin{Name: "p", Marketplace: "m", Enabled: true})
	tools := toolsServer
	withTools, _, err := configmigrate.MigrateCodex([]byte(block), configmigrate.CodexInput{HermesTools: &tools})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Inspect(Codex, withTools)
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Name: "hermes-tools", Command: toolsServer.Command}, {Name: "mine", URL: "http://127.0.0.1:1/mcp"}}
	if !slices.Equal(entries, want) {
		t.Errorf("Inspect = %+v, want %+v", entries, want)
	}
	states, err := SyncStates(Codex, withTools, []configmigrate.Server{{Name: "mine", Command: "/other"}, {Name: "gone", Command: "/x"}})
	if err != nil || states["mine"] != Synced || states["gone"] != Missing {
		t.Errorf("SyncStates = %v, %v", states, err)
	}
	if _, err := Inspect(Codex, []byte("[broken\n")); err == nil || !strings.HasPrefix(err.Error(), "config.toml is not valid TOML: ") {
		t.Errorf("Inspect of broken TOML: %v", err)
	}
	if _, err := Apply(Codex, nil, []configmigrate.Server{toolsServer}, Options{}); err == nil || !strings.Contains(err.Error(), "register them with Job") {
		t.Errorf("Apply(codex) = %v, want a refusal", err)
	}
	if _, err := Remove(Codex, withTools, []string{"mine"}); err == nil {
		t.Error("Remove(codex) edited the block entry by entry")
	}
}
