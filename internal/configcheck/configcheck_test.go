package configcheck

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func warningLines(r Result) []string {
	var out []string
	for _, w := range r.Warnings {
		out = append(out, w.String())
	}
	return out
}

func TestCheckFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		// A config in the layout Hermes writes, using open sections
		// (env, headers, extra_body, skills.config), user-named levels,
		// env-style top-level keys and our hermes_tools: nothing to say.
		{"clean.yaml", nil},
		{"empty.yaml", nil},
		{"mcp_server_typo.yaml", []string{
			"line 6: mcp_server: unknown key, Hermes ignores it; did you mean mcp_servers?",
		}},
		{"modle_typo.yaml", []string{
			"line 1: modle: unknown key, Hermes ignores it; did you mean model?",
			"line 4: toolset: unknown key, Hermes ignores it; did you mean toolsets?",
			"line 6: provider: Hermes does not read this at the top level; it belongs under model: (or in a custom_providers entry); did you mean model.provider?",
		}},
		// Provider names the file defines (custom_providers) are valid,
		// case does not matter, and an id far from every known one may be
		// a plugin's: only near misses are reported.
		{"provider_typo.yaml", []string{
			`line 3: model.provider: "openruoter" is not a provider Hermes knows; did you mean openrouter?`,
			`line 6: delegation.provider: "nosu" is not a provider Hermes knows; did you mean nous?`,
			`line 8: fallback_providers[0].provider: "deepseak" is not a provider Hermes knows; did you mean deepseek?`,
		}},
		// Closed sections (custom_providers entries, hermes_tools) report
		// every unknown key; partial ones only near misses
		// (model.some_future_key and mcp_servers.github.retries are not
		// reported); open ones nothing (env, extra_body).
		{"nested_typos.yaml", []string{
			"line 3: model.provder: unknown key, Hermes ignores it; did you mean provider?",
			"line 6: terminal.backnd: unknown key, Hermes ignores it; did you mean backend?",
			"line 10: mcp_servers.github.comand: unknown key, Hermes ignores it; did you mean command?",
			"line 13: mcp_servers.github.tools.includes: unknown key, Hermes ignores it; did you mean include?",
			"line 19: custom_providers[0].base_ur: unknown key, Hermes ignores it; did you mean base_url?",
			"line 23: display.platforms.telegram.streamng: unknown key, Hermes ignores it; did you mean streaming?",
			"line 26: hermes_tools.exclude_tool: unknown key, Hermes ignores it; did you mean exclude_tools?",
			"line 27: hermes_tools.port: unknown key, Hermes ignores it (known here: toolsets, exclude_tools)",
			"line 34: agent.max_turns: written twice (also line 33); Hermes reads only the last one",
		}},
		// Merge keys and aliases are checked where they are used, with
		// the anchor's line, once per mistake.
		{"anchors.yaml", []string{
			"line 3: mcp_servers.github.comand: unknown key, Hermes ignores it; did you mean command?",
			`line 6: auxiliary.vision.provider: "openruoter" is not a provider Hermes knows; did you mean openrouter?`,
			"line 7: auxiliary.vision.timeoutt: unknown key, Hermes ignores it; did you mean timeout?",
		}},
		{"flow.yaml", []string{
			`line 1: model.provider: "opnai-codex" is not a provider Hermes knows; did you mean openai-codex?`,
			"line 3: mcp_servers.linear.headrs: unknown key, Hermes ignores it; did you mean headers?",
			"line 4: mcp_server: unknown key, Hermes ignores it; did you mean mcp_servers?",
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := Check(readFixture(t, tc.file))
			if r.Syntax != nil {
				t.Fatalf("unexpected syntax error: %v", r.Syntax)
			}
			if got := warningLines(r); !slices.Equal(got, tc.want) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, tc := range []struct {
		file    string
		line    int
		section string
		want    string
	}{
		// The case: an error inside mcp_servers used to be blamed
		// on the model section.
		{"syntax_mcp.yaml", 6, "mcp_servers", "config.yaml is not valid YAML at line 6, in the mcp_servers section: did not find expected ',' or ']'"},
		{"syntax_tab.yaml", 5, "mcp_servers", "config.yaml is not valid YAML at line 5, in the mcp_servers section: found character that cannot start any token"},
		{"two_docs.yaml", 3, "", "config.yaml is not valid YAML at line 3: a second YAML document (after ---); Hermes reads a single document"},
		{"list_root.yaml", 1, "", "config.yaml is not valid YAML at line 1: the top level must be a mapping of keys (key: value), not a list"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			r := Check(readFixture(t, tc.file))
			var se *SyntaxError
			if !errors.As(r.Err(), &se) {
				t.Fatalf("Err() = %v, want a *SyntaxError", r.Err())
			}
			if se.Line != tc.line || se.Section != tc.section {
				t.Errorf("line %d section %q, want line %d section %q", se.Line, se.Section, tc.line, tc.section)
			}
			if se.Error() != tc.want {
				t.Errorf("Error() = %q\nwant      %q", se.Error(), tc.want)
			}
			if len(r.Warnings) != 0 || r.Present("model") {
				t.Errorf("a file that does not parse has no warnings or keys, got %v, model present %v", r.Warnings, r.Present("model"))
			}
		})
	}
}

func TestSectionOfSyntaxError(t *testing.T) {
	for _, tc := range []struct {
		name, text, section string
	}{
		{"in model", "model:\n  default: [x\nmcp_servers:\n  a:\n    command: npx\n", "model"},
		{"in a later section", "model:\n  default: x\n\n# servers\nmcp_servers:\n  a: {command: npx\n", "mcp_servers"},
		{"quoted key", "\"mcp_servers\":\n  a:\n    command: 'npx\n", "mcp_servers"},
		{"before any key", "[unclosed\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check([]byte(tc.text))
			if r.Syntax == nil {
				t.Fatal("parsed; want a syntax error")
			}
			if r.Syntax.Section != tc.section {
				t.Errorf("section %q, want %q (%v)", r.Syntax.Section, tc.section, r.Syntax)
			}
		})
	}
}

func TestMCPServersAbsentOrMisspelt(t *testing.T) {
	for _, tc := range []struct {
		name       string
		text       string
		present    bool
		misspeltAs string
		line       int
	}{
		{"present", "mcp_servers:\n  github: {command: npx}\n", true, "", 0},
		{"present but empty", "mcp_servers:\n", true, "", 0},
		{"absent", "model: gpt-5.5\n", false, "", 0},
		{"no s", "model: gpt-5.5\nmcp_server:\n  github: {command: npx}\n", false, "mcp_server", 2},
		{"dash", "mcp-servers:\n  github: {command: npx}\n", false, "mcp-servers", 1},
		{"swap", "mpc_servers: {}\n", false, "mpc_servers", 1},
		{"both spelt", "mcp_servers: {}\nmcp_server: {}\n", true, "", 0},
		{"bom", "\ufeffmcp_server: {}\n", false, "mcp_server", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check([]byte(tc.text))
			if r.Present("mcp_servers") != tc.present {
				t.Errorf("Present = %v, want %v", r.Present("mcp_servers"), tc.present)
			}
			w, ok := r.MissingButSimilar("mcp_servers")
			if ok != (tc.misspeltAs != "") || w.Path != tc.misspeltAs || w.Line != tc.line {
				t.Errorf("MissingButSimilar = %+v, %v; want path %q line %d", w, ok, tc.misspeltAs, tc.line)
			}
			if ok && !strings.Contains(w.String(), "did you mean mcp_servers?") {
				t.Errorf("warning %q does not name mcp_servers", w)
			}
		})
	}
}

func TestTopLevelNotWarned(t *testing.T) {
	// Hermes bridges top-level scalars into the environment and skips
	// _-prefixed keys; a key far from every known one may be a plugin's.
	text := "OPENWEATHER_API_KEY: x\nMY_TOKEN_2: y\n_private: 1\nmy_plugin_settings:\n  a: 1\n"
	if r := Check([]byte(text)); len(r.Warnings) != 0 {
		t.Errorf("warnings %q, want none", warningLines(r))
	}
}

func TestWarningString(t *testing.T) {
	for _, tc := range []struct {
		w    Warning
		want string
	}{
		{Warning{Path: "mcp_server", Line: 3, Message: "unknown key, Hermes ignores it", Suggestion: "mcp_servers"},
			"line 3: mcp_server: unknown key, Hermes ignores it; did you mean mcp_servers?"},
		{Warning{Path: "a.b", Message: "unknown key"}, "a.b: unknown key"},
	} {
		if got := tc.w.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		if strings.Contains(tc.w.String(), "\n") {
			t.Errorf("String() %q is more than one line", tc.w.String())
		}
	}
}

func TestHostileInputIsBounded(t *testing.T) {
	// Each level merges the previous one twice: expanded naively this
	// is 2^40 keys.
	var b strings.Builder
	b.WriteString("a0: &a0 {comand: x}\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("a")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(": &a")
		b.WriteString(strconv.Itoa(i))
		b.WriteString(" {<<: [*a")
		b.WriteString(strconv.Itoa(i - 1))
		b.WriteString(", *a")
		b.WriteString(strconv.Itoa(i - 1))
		b.WriteString("]}\n")
	}
	b.WriteString("mcp_servers:\n  x: *a40\n")
	r := Check([]byte(b.String()))
	if r.Syntax != nil {
		t.Fatal(r.Syntax)
	}
	if len(r.Warnings) > 10 {
		t.Errorf("%d warnings; the repeated anchor should be reported once", len(r.Warnings))
	}
}

func TestKeysParse(t *testing.T) {
	root, err := parseKeys(keysText)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"model", "mcp_servers", "hermes_tools", "custom_providers", "toolsets", "platform_toolsets", "providers", "fallback_model", "_config_version"} {
		if _, ok := root.children[key]; !ok {
			t.Errorf("top-level key %q missing from keys.txt", key)
		}
	}
	mcp := root.children["mcp_servers"]
	if !mcp.names || mcp.entry.children["command"] == nil {
		t.Errorf("mcp_servers: names %v, entry keys %v; want user names with command in each entry", mcp.names, mcp.entry.order)
	}
	if cp := root.children["custom_providers"]; !cp.list || cp.entry.mode != closed {
		t.Errorf("custom_providers: list %v, entry mode %v; want a list of closed entries", cp.list, cp.entry.mode)
	}
	if aux := root.children["auxiliary"].children["vision"]; aux.children["provider"] == nil || aux.children["provider"].value != "provider" {
		t.Error("auxiliary.vision does not have the @aux template's provider check")
	}
	if !slices.Contains(TopLevelKeys(), "mcp_servers") {
		t.Error("TopLevelKeys lacks mcp_servers")
	}
}

func TestKeysParseErrors(t *testing.T) {
	for _, text := range []string{
		"a\n   b\n",    // odd indent
		"a\n    b\n",   // skipped a level
		"a ! %\n",      // unknown modifier
		"a b !\n",      // modifier on a line of several keys
		"a @missing\n", // no such template
		"a\n  @t\n",    // template not at the top
	} {
		if _, err := parseKeys(text); err == nil {
			t.Errorf("parseKeys(%q) succeeded, want an error", text)
		}
	}
}

func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("<<: *x\n"))
	f.Add([]byte("\xef\xbb\xbf{]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Check(data)
		lines := strings.Count(string(data), "\n") + 2
		for _, w := range r.Warnings {
			if w.Line < 0 || w.Line > lines {
				t.Fatalf("warning %q has line %d, file has %d", w, w.Line, lines)
			}
			if strings.Contains(w.Path, "\n") && !strings.Contains(string(data), w.Path) {
				t.Fatalf("path %q not from the file", w.Path)
			}
		}
		if r.Syntax != nil && r.Syntax.Error() == "" {
			t.Fatal("empty syntax error")
		}
	})
}

func TestProviderValues(t *testing.T) {
	for _, tc := range []struct {
		provider string
		want     string // suggestion, "" when accepted
	}{
		{"openrouter", ""},
		{"OpenRouter", ""},
		{"llama-cpp", ""},   // ours (agentcore/native)
		{"custom:box", ""},  // a named custom endpoint
		{"team-proxy", ""},  // defined under providers: below
		{"claude", ""},      // an alias the original maps to anthropic
		{"my-plugin-x", ""}, // far from every known id: may be a plugin's
		{"openruoter", "openrouter"},
		{"antropic", "anthropic"},
		{"open-ai", "openai"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			text := "providers:\n  team-proxy:\n    base_url: http://127.0.0.1:9/v1\nmodel:\n  provider: " + tc.provider + "\n"
			r := Check([]byte(text))
			var got string
			for _, w := range r.Warnings {
				if w.Path == "model.provider" {
					got = w.Suggestion
				}
			}
			if got != tc.want || (tc.want == "" && len(r.Warnings) != 0) {
				t.Errorf("warnings %q, want suggestion %q", warningLines(r), tc.want)
			}
		})
	}
}
