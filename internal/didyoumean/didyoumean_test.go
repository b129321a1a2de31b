package didyoumean

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"model", "model", 0},
		{"modle", "model", 1}, // swap of neighbours is one edit
		{"openruoter", "openrouter", 1},
		{"mcp_server", "mcp_servers", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"héllo", "hello", 1},
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

var clients = []string{"claude-desktop", "claude-code", "codex", "cursor", "vscode", "gemini", "windsurf", "zed"}

var flags = []string{"--client", "--dry-run", "--remove", "--verbose", "--home", "--list", "--version", "--toolsets", "--listen"}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		input      string
		candidates []string
		want       []string
	}{
		{"abbreviation names both", "claude", clients, []string{"claude-desktop", "claude-code"}},
		{"typo", "cusor", clients, []string{"cursor"}},
		{"swap", "codxe", clients, []string{"codex"}},
		{"case and underscore", "Claude_Code", clients, []string{"claude-code"}},
		{"exact first, then abbreviation", "code", []string{"codex", "code"}, []string{"code", "codex"}},
		{"nothing close", "emacs", clients, nil},
		{"too short to guess", "c", clients, nil},
		{"two letters only exact", "ze", clients, nil},
		{"flag typo", "--dryrun", flags, []string{"--dry-run"}},
		{"flag with one dash", "-verbos", flags, []string{"--verbose"}},
		{"flag abbreviation", "--tool", flags, []string{"--toolsets"}},
		{"near typo before abbreviation", "--liste", flags, []string{"--list", "--listen"}},
		{"empty input", "", clients, nil},
		{"duplicates once", "codx", []string{"codex", "codex"}, []string{"codex"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Suggest(tc.input, tc.candidates)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Suggest(%q) = %q, want %q", tc.input, got, tc.want)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"model", "mcp_servers", "toolsets", "max_turns", "providers"}
	for _, tc := range []struct {
		input, want string
	}{
		{"modle", "model"},
		{"mcp_server", "mcp_servers"},
		{"mcp-servers", "mcp_servers"},
		{"toolset", "toolsets"},
		// A prefix alone is not a typo: "max" is a real key in many
		// sections and must not be reported as a misspelt max_turns.
		{"max", ""},
		// Short names allow one edit, not two.
		{"modl", "model"},
		{"mdl", ""},
		{"provider", "providers"},
		{"unrelated_key", ""},
	} {
		if got := Closest(tc.input, keys); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.input, got, tc.want)
		}
	}
}

func TestHint(t *testing.T) {
	for _, tc := range []struct {
		input string
		want  string
	}{
		{"claude", `did you mean "claude-desktop" or "claude-code"?`},
		{"cusor", `did you mean "cursor"?`},
		{"emacs", ""},
	} {
		if got := Hint(tc.input, clients); got != tc.want {
			t.Errorf("Hint(%q) = %q, want %q", tc.input, got, tc.want)
		}
	}
	many := []string{"alpha1", "alpha2", "alpha3", "alpha4"}
	if got, want := Hint("alpha", many), `did you mean "alpha1", "alpha2" or "alpha3"?`; got != want {
		t.Errorf("Hint with four matches = %q, want %q", got, want)
	}
}

func FuzzSuggest(f *testing.F) {
	for _, s := range []string{"claude", "", "--", "ü", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, name := range Suggest(s, clients) {
			if !slices.Contains(clients, name) {
				t.Fatalf("Suggest(%q) returned %q, not a candidate", s, name)
			}
		}
		if Distance(s, s) != 0 {
			t.Fatalf("Distance(%q, itself) != 0", s)
		}
	})
}
