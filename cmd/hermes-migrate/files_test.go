package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/configmigrate"
	"github.com/hermes-go/hermes/configmigrate/clientsync"
	"github.com/hermes-go/hermes/configmigrate/migrate"
	"github.com/hermes-go/hermes/internal/filelock"
)

// childEnv makes the test binary act as hermes-migrate, so concurrency is
// tested with real processes (real flock, real exits) while codex
// discovery stays faked and offline. Its value is the fake
// hermes-tools-mcp path.
const childEnv = "HERMES_MIGRATE_TEST_CHILD_TOOLS"

func TestMain(m *testing.M) {
	if tools := os.Getenv(childEnv); tools != "" {
		var d migrate.System
		d.Executable = func() (string, error) { return tools, nil }
		d.LookPath = func(string) (string, error) { return "", errors.New("not on PATH") }
		d.DiscoverPlugins = func(context.Context, string, string, []string) ([]configmigrate.Plugin, error) {
			return nil, errors.New("codex discovery is faked in tests")
		}
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, d))
	}
	os.Exit(m.Run())
}

const userTOML = "# mine\nmodel = \"gpt-5.5\"\n\n[history]\npersistence = \"none\"\n"

func TestReadOnlyAndLinkedConfig(t *testing.T) {
	tests := []struct {
		name     string
		link     bool
		mode     os.FileMode
		args     []string
		wantCode int
	}{
		{"linked config.toml is written through", true, 0o600, nil, exitOK},
		{"read-only config.toml is left alone", false, 0o444, nil, exitNotWritable},
		{"read-only link target is left alone", true, 0o444, nil, exitNotWritable},
		{"--force writes it and keeps the mode", true, 0o444, []string{"--force"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEnv(t)
			cfg := filepath.Join(e.codexHome, "config.toml")
			target := cfg
			if tt.link {
				target = filepath.Join(filepath.Dir(e.codexHome), "dotfiles", "codex.toml")
				os.MkdirAll(filepath.Dir(target), 0o755)
				if err := os.Symlink("../dotfiles/codex.toml", cfg); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(target, []byte(userTOML), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chmod(target, tt.mode)
			code, out, stderr := e.run(t, append([]string{"--no-plugins"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d: %s%s", code, tt.wantCode, out, stderr)
			}
			got, _ := os.ReadFile(target)
			if fi, _ := os.Lstat(cfg); (fi.Mode()&os.ModeSymlink != 0) != tt.link {
				t.Errorf("config.toml mode %v: link state changed", fi.Mode())
			}
			if fi, _ := os.Stat(target); fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tt.mode)
			}
			if tt.wantCode == exitNotWritable {
				if string(got) != userTOML || !strings.Contains(stderr, cfg) || !strings.Contains(stderr, "--force") {
					t.Errorf("stderr %q must name %s and --force; file:\n%s", stderr, cfg, got)
				}
				return
			}
			if !strings.Contains(string(got), "[mcp_servers.hermes-tools]") {
				t.Errorf("target not migrated:\n%s", got)
			}
		})
	}
}

// home-manager links config.toml into a read-only store: the run must
// end with the read-only exit code, and put no lock file in the store.
func TestLinkIntoReadOnlyStore(t *testing.T) {
	e := newTestEnv(t)
	store := filepath.Join(filepath.Dir(e.codexHome), "store")
	target := filepath.Join(store, "config.toml")
	os.MkdirAll(store, 0o755)
	if err := os.WriteFile(target, []byte(userTOML), 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chmod(store, 0o555)
	defer os.Chmod(store, 0o755)
	cfg := filepath.Join(e.codexHome, "config.toml")
	if err := os.Symlink(target, cfg); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := e.run(t, "--no-plugins")
	if code != exitNotWritable || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, _ := os.ReadDir(store)
	if len(entries) != 1 {
		t.Errorf("store holds %d entries, want only config.toml", len(entries))
	}
	if _, err := os.Stat(cfg + filelock.Suffix); err != nil {
		t.Errorf("no lock beside the link: %v", err)
	}
}

// --remove where nothing was ever migrated must not create a file, a
// lock or a client's directory.
func TestRemoveOnEmptyHomeCreatesNothing(t *testing.T) {
	e := newTestEnv(t)
	if code, out, stderr := e.run(t, "--client", "all", "--remove"); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	if entries, _ := os.ReadDir(e.codexHome); len(entries) != 0 {
		t.Errorf("codex home holds %v", entries)
	}
	if _, err := os.Stat(e.env["HOME"]); !os.IsNotExist(err) {
		t.Errorf("home was created (%v)", err)
	}
}

func TestHelpDocumentsFilesAndExitCodes(t *testing.T) {
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"--help"}, &bytes.Buffer{}, &errb, migrate.System{}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"-force", filelock.Suffix, "symlink", "3  a file was left alone", ".bak"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

func TestLockWaitIsReported(t *testing.T) {
	e := newTestEnv(t)
	cfg := e.write(t, filepath.Join(e.codexHome, "config.toml"), userTOML)
	held, err := filelock.Acquire(context.Background(), cfg+filelock.Suffix, filelock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"--codex-home", e.codexHome, "--hermes-home", e.hermesHome, "--no-plugins"}, &out, &errb, e.deps())
	held.Release()
	if code != exitFailure || !strings.Contains(errb.String(), "waiting for another hermes-migrate") || !strings.Contains(errb.String(), cfg) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	if got := e.config(t); got != userTOML {
		t.Errorf("a cancelled wait changed the file:\n%s", got)
	}
}

// Real hermes-migrate processes race on one home, twenty rounds: each
// backup must stay the user's file, the ownership state must know every
// client's entries, and --remove must give back exactly the user's files.
func TestConcurrentProcesses(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the files' paths and locks are tested on Unix")
	}
	e := newTestEnv(t)
	home := e.env["HOME"]
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(e.hermesHome, "config.yaml"), []byte("mcp_servers:\n  gh:\n    command: npx\n"), 0o644)
	user := map[string]string{filepath.Join(e.codexHome, "config.toml"): userTOML}
	var jsonFiles []string
	for _, c := range clientsync.Clients() {
		if c == clientsync.Codex {
			continue // its file is the one in --codex-home, above
		}
		p, err := clientsync.ConfigPath(c, clientsync.Env{GOOS: runtime.GOOS, Home: home})
		if err != nil {
			t.Fatal(err)
		}
		info, err := clientsync.Describe(c)
		if err != nil {
			t.Fatal(err)
		}
		key := info.ServersKey
		switch info.Format {
		case "YAML":
			user[p] = fmt.Sprintf("%s:\n  mine:\n    cmd: my-server\n", key)
		case "TOML":
			user[p] = fmt.Sprintf("[%s.mine]\ncommand = \"my-server\"\n", key)
		default:
			user[p] = fmt.Sprintf("{\n  %q: {\n    \"mine\": {\"command\": \"my-server\"}\n  }\n}\n", key)
		}
		jsonFiles = append(jsonFiles, p)
	}
	for p, content := range user {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hermes := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, exe, append([]string{"--codex-home", e.codexHome, "--hermes-home", e.hermesHome, "--no-plugins"}, args...)...)
		cmd.Env = append(os.Environ(), childEnv+"="+e.toolsBin, "HOME="+home, "XDG_CONFIG_HOME=", "APPDATA=", "CODEX_HOME=", "HERMES_HOME=")
		return cmd
	}
	// Runs that want different content, as hermes and hermes-migrate with
	// different flags would.
	variants := [][]string{
		{"--client", "all", "--user-servers"},
		{"--client", "all", "--default-permissions", "none"},
		{"--client", "codex,cursor,gemini", "--user-servers", "--tools-approval", "approve"},
		{"--client", "vscode,claude-code,claude-desktop,codex", "--user-servers"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for round := range 20 {
		var wg sync.WaitGroup
		for _, args := range variants {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if out, err := hermes(ctx, args...).CombinedOutput(); err != nil {
					t.Errorf("round %d %v: %v\n%s", round, args, err, out)
				}
			}()
		}
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		for p, content := range user {
			if bak, _ := os.ReadFile(p + configmigrate.BackupSuffix); string(bak) != content {
				t.Fatalf("round %d: %s holds\n%s\nwant the user's file", round, p+configmigrate.BackupSuffix, bak)
			}
		}
		state, _ := os.ReadFile(filepath.Join(e.hermesHome, "hermes-migrate-state.json"))
		for _, p := range jsonFiles {
			if !strings.Contains(string(state), fmt.Sprintf("%q: [\n    \"gh\"\n  ]", p)) {
				t.Fatalf("round %d: state does not own gh in %s:\n%s", round, p, state)
			}
		}
	}
	if out, err := hermes(ctx, "--client", "all", "--remove").CombinedOutput(); err != nil {
		t.Fatalf("--remove: %v\n%s", err, out)
	}
	for p, content := range user {
		if got, _ := os.ReadFile(p); string(got) != content {
			t.Errorf("after --remove %s:\n%s\nwant\n%s", p, got, content)
		}
		if _, err := os.Stat(p + filelock.Suffix); !os.IsNotExist(err) {
			t.Errorf("--remove left %s (%v)", p+filelock.Suffix, err)
		}
	}
}

// Registering with JSON clients and removing again leaves nothing of
// hermes-migrate behind, in the clients' directories or in the Hermes home
// (the ownership state and its lock go with the last client), and the
// removal says what it took out in the client's terms.
func TestRemoveLeavesNothingBehind(t *testing.T) {
	e := newTestEnv(t)
	home := e.env["HOME"]
	os.MkdirAll(filepath.Join(home, ".cursor"), 0o755)
	cursor := e.write(t, filepath.Join(home, ".cursor", "mcp.json"), "{\"mcpServers\": {\"mine\": {\"command\": \"mine\"}}}\n")
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  gh:\n    command: npx\n")
	list := func() []string {
		var files []string
		for _, root := range []string{filepath.Dir(cursor), e.hermesHome} {
			entries, _ := os.ReadDir(root)
			for _, en := range entries {
				files = append(files, filepath.Join(filepath.Base(root), en.Name()))
			}
		}
		return files
	}
	if code, out, stderr := e.run(t, "--client", "cursor", "--user-servers"); code != exitOK {
		t.Fatalf("exit %d: %s%s", code, out, stderr)
	}
	code, out, stderr := e.run(t, "--client", "cursor", "--remove", "--dry-run")
	if code != exitOK || !strings.Contains(out, "(after --remove)") || strings.Contains(out, "(migrated)") {
		t.Errorf("remove dry run: exit %d, %s%s", code, out, stderr)
	}
	code, out, stderr = e.run(t, "--client", "cursor", "--remove")
	if code != exitOK || !strings.Contains(out, "removed the hermes-tools entry") || strings.Contains(out, "managed section") {
		t.Errorf("remove: exit %d, %s%s", code, out, stderr)
	}
	for _, f := range list() {
		if strings.HasSuffix(f, filelock.Suffix) || strings.Contains(f, "hermes-migrate-state") {
			t.Errorf("left behind after --remove: %s (all: %v)", f, list())
		}
	}
}
