//go:build unix

package realclients

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/configmigrate/migrate"
	"github.com/hermes-go/hermes/internal/testkit/codextest"
	"github.com/hermes-go/hermes/internal/testkit/toolsbuild"
)

// TestRealCodexLoadsMigratedConfig migrates into a fresh CODEX_HOME, with
// plugin discovery through the pinned real codex, then starts codex on that
// home and asks it, through its own API, which MCP servers it loaded: the
// hermes-tools callback and the user's Hermes server must both be connected
// and list their tools.
func TestRealCodexLoadsMigratedConfig(t *testing.T) {
	codexBin := codextest.Binary(t)
	h := codextest.NewHome(t)
	proxy := codextest.NewProxy(t)
	env := h.Env(proxy.URL())

	// A config.toml of the user's own, which must survive.
	userTOML := "# mine\nmodel = \"fake-model\"\n\n[history]\npersistence = \"none\"\n"
	cfgPath := filepath.Join(h.CodexHome, "config.toml")
	if err := os.WriteFile(cfgPath, []byte(userTOML), 0o600); err != nil {
		t.Fatal(err)
	}
	// A plugin installed from the user's personal marketplace: codex records
	// the install as a [plugins."tinyplug@hermes-fixture"] table of its own
	// in config.toml, outside our block.
	if err := os.CopyFS(h.Home, os.DirFS(filepath.Join(codextest.RepoRoot(t), "bridge", "testdata", "marketplace"))); err != nil {
		t.Fatal(err)
	}
	withCodex(t, codexBin, env, func(ctx context.Context, c *bridge.Client) {
		if err := c.Call(ctx, "plugin/install", map[string]string{
			"marketplacePath": filepath.Join(h.Home, ".agents", "plugins", "marketplace.json"),
			"pluginName":      "tinyplug",
		}, nil); err != nil {
			t.Fatalf("plugin/install: %v", err)
		}
	})

	// The real hermes-tools-mcp, and a Hermes home whose config.yaml has a
	// user server (a second hermes-tools-mcp, exposing skills only).
	toolsBin := toolsbuild.ServerBinary(t)
	hermesHome := filepath.Join(t.TempDir(), "hermes")
	if err := os.CopyFS(hermesHome, toolsHome(t)); err != nil {
		t.Fatal(err)
	}
	yamlText := "mcp_servers:\n  docs:\n    command: " + toolsBin + "\n    args: [--toolsets, skills]\n    env: {HERMES_HOME: " + hermesHome + "}\n    timeout: 60\n"
	if err := os.WriteFile(filepath.Join(hermesHome, "config.yaml"), []byte(yamlText), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errb := runMigrate(t, env,
		"--codex-home", h.CodexHome, "--hermes-home", hermesHome,
		"--hermes-tools-command", toolsBin, "--codex-bin", codexBin,
		"--tools-approval", "approve", "--json",
	)
	if code != 0 {
		t.Fatalf("hermes-migrate exit %d: %s", code, errb)
	}
	var reps []migrate.Report
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatal(err)
	}
	rep := reps[0]
	// Discovery found the plugin; codex's own table for it wins over ours,
	// so it is defined exactly once.
	if rep.PluginSource != "codex" || rep.Codex == nil || !slices.Contains(rep.Codex.UserDefined, "plugins.tinyplug@hermes-fixture") {
		t.Fatalf("plugin discovery through codex: source %q, report %+v, error %q", rep.PluginSource, rep.Codex, rep.PluginError)
	}
	written, _ := os.ReadFile(cfgPath)
	if !strings.HasPrefix(string(written), "# mine\nmodel = \"fake-model\"\n\n") || strings.Count(string(written), `[plugins."tinyplug@hermes-fixture"]`) != 1 ||
		!strings.Contains(string(written), "[history]\npersistence = \"none\"\n") {
		t.Fatalf("user content not kept, or plugin defined twice:\n%s", written)
	}

	// Codex loads the result: both servers start and list their tools.
	withCodex(t, codexBin, env, func(ctx context.Context, c *bridge.Client) {
		statuses := waitForServers(ctx, t, c, "hermes-tools", "docs")
		for _, name := range []string{"hermes-tools", "docs"} {
			st := statuses[name]
			t.Logf("codex reports %s: %s, tools %v", name, st.RuntimeStatus, st.toolNames())
			if !slices.Contains(st.toolNames(), "skills_list") || !slices.Contains(st.toolNames(), "skill_view") {
				t.Errorf("%s: tools %v, status %q, error %q", name, st.toolNames(), st.RuntimeStatus, st.ToolsError)
			}
		}
	})
}

// runMigrate runs the built hermes-migrate with env as its whole
// environment and returns its exit code and output.
func runMigrate(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, migrateBinary(t, toolsbuild.ServerBinary(t)), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		return exit.ExitCode(), out.String(), errb.String()
	}
	if err != nil {
		t.Fatalf("hermes-migrate: %v", err)
	}
	return 0, out.String(), errb.String()
}

// mcpStatus is the part of codex's mcpServerStatus/list entry we check.
type mcpStatus struct {
	Name          string                     `json:"name"`
	RuntimeStatus string                     `json:"runtimeStatus"`
	ToolsError    string                     `json:"toolsError"`
	Tools         map[string]json.RawMessage `json:"tools"`
}

func (s mcpStatus) toolNames() []string {
	var out []string
	for n := range s.Tools {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// waitForServers polls codex until the named servers report tools (MCP
// servers start in the background) or the context ends.
func waitForServers(ctx context.Context, t *testing.T, c *bridge.Client, names ...string) map[string]mcpStatus {
	t.Helper()
	var last map[string]mcpStatus
	for {
		var res struct {
			Data []mcpStatus `json:"data"`
		}
		if err := c.Call(ctx, "mcpServerStatus/list", map[string]any{"detail": "full"}, &res); err != nil {
			t.Fatalf("mcpServerStatus/list: %v", err)
		}
		last = map[string]mcpStatus{}
		ready := true
		for _, s := range res.Data {
			last[s.Name] = s
		}
		for _, n := range names {
			if len(last[n].Tools) == 0 {
				ready = false
			}
		}
		if ready {
			return last
		}
		select {
		case <-ctx.Done():
			t.Fatalf("servers not ready: %+v", last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func withCodex(t *testing.T, bin string, env []string, fn func(context.Context, *bridge.Client)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := bridge.Start(ctx, bridge.Config{Binary: bin, Env: env, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("close codex: %v", err)
		}
	}()
	if _, err := c.Initialize(ctx, bridge.ClientInfo{Name: "hermes-migrate-test", Version: "0"}, bridge.Capabilities{}); err != nil {
		t.Fatal(err)
	}
	fn(ctx, c)
}

// TestRealCodexForwardsReferencedSecret is the README's own example from
// the far side: a Hermes server whose env refers to another variable
// (GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}"). Codex hands a stdio
// server only its default variables, env and env_vars, and forwards a
// variable only under its own name; so after migrating, a user who
// exports what the note says must see the token reach the server started
// by the real codex, and the referenced variable itself must not.
func TestRealCodexForwardsReferencedSecret(t *testing.T) {
	codexBin := codextest.Binary(t)
	h := codextest.NewHome(t)
	proxy := codextest.NewProxy(t)
	hermesHome := filepath.Join(t.TempDir(), "hermes")
	if err := os.Mkdir(hermesHome, 0o755); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "probe-env")
	yamlText := "mcp_servers:\n  github:\n    command: /bin/sh\n" +
		"    args: [\"-c\", 'env > \"$0\"; exit 1', " + dump + "]\n" +
		"    env: { GITHUB_PERSONAL_ACCESS_TOKEN: \"${GITHUB_TOKEN}\" }\n"
	if err := os.WriteFile(filepath.Join(hermesHome, "config.yaml"), []byte(yamlText), 0o644); err != nil {
		t.Fatal(err)
	}
	// An environment of nothing: the run reads only its flags.
	code, out, errb := runMigrate(t, []string{},
		"--codex-home", h.CodexHome, "--hermes-home", hermesHome,
		"--hermes-tools-command", toolsbuild.ServerBinary(t), "--codex-bin", codexBin, "--no-plugins",
	)
	if code != 0 {
		t.Fatalf("hermes-migrate exit %d: %s", code, errb)
	}
	t.Logf("hermes-migrate:\n%s", out)
	if want := `export GITHUB_PERSONAL_ACCESS_TOKEN="${GITHUB_TOKEN}"`; !strings.Contains(out, want) {
		t.Errorf("the report does not tell the user to %s:\n%s", want, out)
	}

	// The user did as told: both variables are in codex's environment.
	env := append(h.Env(proxy.URL()), "GITHUB_TOKEN=tok-123", "GITHUB_PERSONAL_ACCESS_TOKEN=tok-123")
	withCodex(t, codexBin, env, func(ctx context.Context, c *bridge.Client) {
		// Codex starts its MCP servers in the background; asking for their
		// status makes sure it has begun, then the probe's dump is awaited.
		_ = c.Call(ctx, "mcpServerStatus/list", map[string]any{"detail": "full"}, nil)
		for {
			if b, err := os.ReadFile(dump); err == nil && len(b) > 0 {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatal("codex never started the github server")
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	checkServerEnv(t, "codex", serverEnv(t, dump, "codex"), map[string][]string{
		"GITHUB_PERSONAL_ACCESS_TOKEN": {"tok-123"},
		"GITHUB_TOKEN":                 {absent},
	}, nil)
}
