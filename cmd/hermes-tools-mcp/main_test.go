package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func fixtureHome(t *testing.T) string {
	t.Helper()
	home, err := filepath.Abs("testdata/home")
	if err != nil {
		t.Fatal(err)
	}
	return home
}

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestCLIExitCodesAndMessages(t *testing.T) {
	home := fixtureHome(t)
	badHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(badHome, "config.yaml"), []byte("skills: [unclosed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfgHome, "config.yaml"), []byte("hermes_tools:\n  toolsets: [nosuch]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exclHome := t.TempDir()
	if err := os.WriteFile(filepath.Join(exclHome, "config.yaml"), []byte("hermes_tools:\n  exclude_tools: [web_serch]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"version", []string{"--version"}, exitOK, "hermes-tools-mcp ", ""},
		{"help", []string{"-h"}, exitOK, "", "Exit codes:"},
		{"unknown flag", []string{"--bogus"}, exitUsage, "", "unknown flag --bogus (run hermes-tools-mcp -h for the flags)"},
		{"unknown command", []string{"launch"}, exitUsage, "", `unknown command "launch"`},
		{"stray argument", []string{"doctor", "extra"}, exitUsage, "", `unexpected argument "extra"`},
		{"bad log level", []string{"--log-level", "loud"}, exitUsage, "", `--log-level "loud"`},
		{"unknown toolset", []string{"doctor", "--hermes-home", home, "--toolsets", "skils"}, exitUsage, "",
			`unknown toolset "skils"; did you mean "skills"? (known: web, browser,`},
		{"unknown toolset from config", []string{"doctor", "--hermes-home", cfgHome}, exitUsage, "",
			`set by config.yaml hermes_tools.toolsets`},
		{"unknown excluded tool", []string{"doctor", "--hermes-home", home, "--exclude-tools", "nope"}, exitUsage, "", `unknown tool "nope"`},
		{"unknown excluded tool from config", []string{"doctor", "--hermes-home", exclHome, "--exclude-tools", "memory"}, exitUsage, "", `(set by config.yaml hermes_tools.exclude_tools;`},
		// The flag is to blame, not the default toolsets it applies to.
		{"unknown excluded tool names the flag", []string{"doctor", "--hermes-home", home, "--exclude-tools", "web_serch"}, exitUsage, "", `(set by --exclude-tools;`},
		{"broken config.yaml", []string{"doctor", "--hermes-home", badHome}, exitUsage, "", "parse " + filepath.Join(badHome, "config.yaml")},
		{"doctor", []string{"doctor", "--hermes-home", home}, exitOK, "Hermes home: " + home, ""},
		{"doctor excluded", []string{"tools", "--hermes-home", home, "--exclude-tools", "skill_view"}, exitOK, "excluded by --exclude-tools", ""},
		{"serve until EOF", []string{"--hermes-home", home}, exitOK, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, "", tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout %q lacks %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestDoctorTable(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "doctor", "--hermes-home", fixtureHome(t), "--toolsets", "skills")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, re := range []string{`(?m)^TOOL\s+TOOLSET\s+STATUS\s+WHY HIDDEN$`, `(?m)^skills_list\s+skills\s+exposed\s*$`, `Toolsets:\s+skills \(from --toolsets\)`} {
		if !regexp.MustCompile(re).MatchString(stdout) {
			t.Errorf("doctor output lacks %s:\n%s", re, stdout)
		}
	}
}

// Every hidden tool says why, whatever hides it: a missing key, a missing
// browser, the kanban gate, the user's exclusion. web_search is not among
// them: with no key it searches through the keyless free tier.
func TestDoctorExplainsEveryHiddenTool(t *testing.T) {
	for _, k := range []string{"TAVILY_API_KEY", "EXA_API_KEY", "FIRECRAWL_API_KEY", "FIRECRAWL_API_URL", "SEARXNG_URL",
		"BRAVE_SEARCH_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY", "FAL_KEY", "BROWSER_CDP_URL", "HERMES_KANBAN_TASK",
		"XAI_API_KEY"} {
		t.Setenv(k, "")
	}
	t.Setenv("CHROME_PATH", filepath.Join(t.TempDir(), "no-chromium"))
	code, stdout, stderr := runCLI(t, "", "doctor", "--json", "--hermes-home", fixtureHome(t), "--toolsets", "all", "--exclude-tools", "todo_list")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("doctor --json is not JSON: %v\n%s", err, stdout)
	}
	want := map[string]string{
		"x_search":         "XAI_API_KEY",
		"browser_navigate": "no-chromium",
		"kanban_show":      "HERMES_KANBAN_TASK",
		"todo_list":        "exclude",
	}
	hidden := 0
	for _, tl := range rep.Tools {
		if tl.Enabled {
			continue
		}
		hidden++
		if tl.Reason == "" {
			t.Errorf("%s is hidden without a reason", tl.Name)
		}
		if w, ok := want[tl.Name]; ok && !strings.Contains(tl.Reason, w) {
			t.Errorf("%s hidden because %q, want a reason naming %q", tl.Name, tl.Reason, w)
		}
	}
	for name := range want {
		if i := slices.IndexFunc(rep.Tools, func(d doctorTool) bool { return d.Name == name }); i < 0 || rep.Tools[i].Enabled {
			t.Errorf("%s is not listed as hidden", name)
		}
	}
	if i := slices.IndexFunc(rep.Tools, func(d doctorTool) bool { return d.Name == "web_search" }); i < 0 || !rep.Tools[i].Enabled {
		t.Error("web_search is hidden on a home without keys; the keyless tier should serve it")
	}
	if hidden == 0 {
		t.Fatal("nothing hidden; the environment was not cleared")
	}
}

func TestDoctorJSON(t *testing.T) {
	code, stdout, stderr := runCLI(t, "", "doctor", "--json", "--hermes-home", fixtureHome(t), "--exclude-tools", "skill_view")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep doctorReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("doctor --json is not JSON: %v\n%s", err, stdout)
	}
	got := map[string]doctorTool{}
	for _, tl := range rep.Tools {
		got[tl.Name] = tl
	}
	if !got["skills_list"].Enabled || got["skill_view"].Enabled || got["skill_view"].Reason == "" {
		t.Errorf("unexpected tool states: %+v", rep.Tools)
	}
	if rep.HermesHome != fixtureHome(t) || rep.Source != "default" {
		t.Errorf("home %q source %q", rep.HermesHome, rep.Source)
	}
}

// Serving answers on stdout and writes nothing else there; logs go to stderr.
func TestServeWritesOnlyProtocol(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skills_list","arguments":{}}}
`
	code, stdout, stderr := runCLI(t, in, "--hermes-home", fixtureHome(t), "--log-level", "debug")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 response lines, got %d:\n%s", len(lines), stdout)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("non-JSON on stdout: %q", l)
		}
	}
	if !strings.Contains(lines[1], "interop-alpha") {
		t.Errorf("skills_list did not list the fixture skills: %s", lines[1])
	}
	if !strings.Contains(stderr, "serving on stdio") {
		t.Errorf("expected the startup log on stderr, got %q", stderr)
	}
}

// doctor names every skill the library refuses to serve, and why.
func TestDoctorListsSkillsNotServed(t *testing.T) {
	home := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("---\nname: leak\ndescription: x\n---\nsecret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, "skills", "leak")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "", "doctor", "--hermes-home", home, "--toolsets", "skills")
	if code != exitOK || !strings.Contains(stdout, "Skills not served (1):") || !strings.Contains(stdout, dir) {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, _ = runCLI(t, "", "doctor", "--json", "--hermes-home", home, "--toolsets", "skills")
	var rep doctorReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != exitOK {
		t.Fatalf("doctor --json: exit %d, %v\n%s", code, err, stdout)
	}
	if len(rep.SkillsNotServed) != 1 || !strings.Contains(rep.SkillsNotServed[0].Reason, "outside") {
		t.Errorf("skills_not_served = %+v", rep.SkillsNotServed)
	}
}

// Run by hand on a terminal, the server says what it is for instead of
// looking hung; on a client's pipe it says nothing on stderr.
func TestBareRunOnATerminalSaysWhatItIs(t *testing.T) {
	home := fixtureHome(t)
	tty, err := os.Open(os.DevNull) // a character device, as a terminal is
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var out, errb strings.Builder
	if code := run(context.Background(), []string{"--hermes-home", home}, tty, &out, &errb); code != exitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "hermes-migrate --client") || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q; want the note on stderr only", errb.String(), out.String())
	}
	if _, _, stderr := runCLI(t, "", "--hermes-home", home); strings.Contains(stderr, "hermes-migrate --client") {
		t.Errorf("the note was printed to a client's pipe: %q", stderr)
	}
}

// A misspelt key in config.yaml is named with the key meant, in doctor and
// in the serving log; a YAML error names the section it is in.
func TestConfigMistakesNamed(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		args         []string
		code         int
		want         []string
	}{
		{"doctor", "modle:\n  default: x\nmcp_server:\n  github: {command: npx}\n", []string{"doctor"}, exitOK,
			[]string{"line 1: modle: unknown key", "did you mean model?", "line 3: mcp_server", "did you mean mcp_servers?"}},
		{"serving", "hermes_tools:\n  toolset: [skills]\n", nil, exitOK,
			[]string{"hermes_tools.toolset: unknown key", "did you mean toolsets?"}},
		{"a tab inside mcp_servers", "model:\n  default: x\nmcp_servers:\n  github:\n\tcommand: npx\n", []string{"doctor"}, exitUsage,
			[]string{"line 5, in the mcp_servers section"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, "", append(tc.args, "--hermes-home", home)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("output lacks %q:\n%s%s", w, stdout, stderr)
				}
			}
		})
	}
}

// A mistyped flag is one line naming the flag meant, not the usage; the
// command may follow the flags.
func TestFlagMistakesAreOneLine(t *testing.T) {
	code, _, stderr := runCLI(t, "", "--toolset", "web")
	if code != exitUsage || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, `did you mean "--toolsets"?`) {
		t.Errorf("exit %d, stderr %q; want one line suggesting --toolsets", code, stderr)
	}
	home := fixtureHome(t)
	if code, stdout, stderr := runCLI(t, "", "--hermes-home", home, "--json", "doctor"); code != exitOK || !strings.HasPrefix(stdout, "{") {
		t.Errorf("flags before doctor: exit %d, stdout %.80q, stderr %q", code, stdout, stderr)
	}
}
