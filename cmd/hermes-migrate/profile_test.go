package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// profileTestEnv is a testEnv whose Hermes root has a profile "work" with
// its own config.yaml (one server) and .env; the root has another server.
func profileTestEnv(t *testing.T) (e *testEnv, work string) {
	t.Helper()
	e = newTestEnv(t)
	work = filepath.Join(e.hermesHome, "profiles", "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write(t, filepath.Join(e.hermesHome, "config.yaml"), "mcp_servers:\n  rootsrv:\n    command: root-server\n")
	e.write(t, filepath.Join(work, "config.yaml"), "mcp_servers:\n  github:\n    command: npx\n    env: { GITHUB_PERSONAL_ACCESS_TOKEN: \"${GITHUB_TOKEN}\" }\n")
	e.write(t, filepath.Join(work, ".env"), "GITHUB_TOKEN=ghp_fromdotenv\nTAVILY_API_KEY=tvly-dotenv\n")
	return e, work
}

// runNoHome runs without --hermes-home, as a user does.
func (e *testEnv) runNoHome(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"--codex-home", e.codexHome}, args...), &out, &errb, e.deps())
	return code, out.String(), errb.String()
}

func TestProfileSelectsTheHome(t *testing.T) {
	t.Run("-p", func(t *testing.T) {
		e, work := profileTestEnv(t)
		e.env["HERMES_HOME"] = e.hermesHome
		code, out, stderr := e.runNoHome(t, "-p", "work", "--client", "codex")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		cfg := e.config(t)
		if !strings.Contains(cfg, "[mcp_servers.github]") || strings.Contains(cfg, "rootsrv") {
			t.Errorf("not the profile's servers:\n%s", cfg)
		}
		// The server is pinned to the profile the user chose, as the
		// Python Hermes takes it: the root and --profile, so that it serves
		// that profile whatever the root's active_profile says.
		if !strings.Contains(cfg, `HERMES_HOME = "`+e.hermesHome+`"`) || !strings.Contains(cfg, `args = ["--profile", "work"]`) {
			t.Errorf("hermes-tools entry lacks HERMES_HOME=%s and --profile work:\n%s", e.hermesHome, cfg)
		}
		_ = work
		t.Logf("report:\n%s", out)
	})
	t.Run("active_profile", func(t *testing.T) {
		e, _ := profileTestEnv(t)
		e.env["HERMES_HOME"] = e.hermesHome
		e.write(t, filepath.Join(e.hermesHome, "active_profile"), "work\n")
		code, _, stderr := e.runNoHome(t, "--client", "codex")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		cfg := e.config(t)
		if !strings.Contains(cfg, "[mcp_servers.github]") || strings.Contains(cfg, "rootsrv") {
			t.Errorf("the sticky profile's servers were not migrated:\n%s", cfg)
		}
		// HERMES_HOME named the root: the server must get it, and find the
		// sticky profile there itself (no --profile pins it).
		if !strings.Contains(cfg, `HERMES_HOME = "`+e.hermesHome+`"`) || strings.Contains(cfg, "--profile") {
			t.Errorf("hermes-tools entry must pass HERMES_HOME=%s and no --profile:\n%s", e.hermesHome, cfg)
		}
	})
	t.Run("ownership record at the root", func(t *testing.T) {
		// Client files are one per user: the record of the entries
		// hermes-migrate owns there must not move with the profile, or a
		// --remove in another profile forgets them.
		e, work := profileTestEnv(t)
		e.env["HERMES_HOME"] = e.hermesHome
		if code, _, stderr := e.runNoHome(t, "-p", "work", "--client", "cursor", "--user-servers"); code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(e.hermesHome, "hermes-migrate-state.json")); err != nil {
			t.Errorf("no ownership record at the root: %v", err)
		}
		if _, err := os.Stat(filepath.Join(work, "hermes-migrate-state.json")); err == nil {
			t.Errorf("the ownership record went into the profile")
		}
		if code, _, stderr := e.runNoHome(t, "--client", "cursor", "--remove"); code != exitOK {
			t.Fatalf("remove: exit %d: %s", code, stderr)
		}
		b, _ := os.ReadFile(filepath.Join(e.env["HOME"], ".cursor", "mcp.json"))
		if strings.Contains(string(b), "github") {
			t.Errorf("--remove from the root left the entry written under the profile:\n%s", b)
		}
	})
	t.Run("missing profile", func(t *testing.T) {
		e, _ := profileTestEnv(t)
		e.env["HERMES_HOME"] = e.hermesHome
		code, _, stderr := e.runNoHome(t, "--profile", "nope", "--client", "codex")
		if code != exitUsage || !strings.Contains(stderr, `profile "nope" does not exist`) {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}

// TestReportDotEnvKeys: keys in the home's .env are read by hermes-tools
// itself, so the report asks nothing for them; a user server's reference
// to a variable only the .env sets is a warning, since no client reads
// that file.
func TestReportDotEnvKeys(t *testing.T) {
	e, _ := profileTestEnv(t)
	e.env["HERMES_HOME"] = e.hermesHome
	e.env["EXA_API_KEY"] = "exa-shell"
	code, out, stderr := e.runNoHome(t, "-p", "work", "--client", "codex")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"hermes-tools reads TAVILY_API_KEY from " + filepath.Join(e.hermesHome, "profiles", "work", ".env") + " itself: nothing to pass on.",
		"hermes-tools reads EXA_API_KEY (set here) from the environment",
		"warning: GITHUB_TOKEN, which your server github refers to, is set only in",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "TAVILY_API_KEY (set here)") || strings.Contains(out, "web_search (") {
		t.Errorf("a key in .env is reported as missing or as the user's to pass on:\n%s", out)
	}
	if strings.Contains(out, "ghp_fromdotenv") || strings.Contains(e.config(t), "ghp_fromdotenv") {
		t.Errorf("a value from .env was copied")
	}
}
