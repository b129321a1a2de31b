package configmigrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/tools/txtar"

	"github.com/hermes-go/hermes/internal/testkit/golden"
)

// caseOptions is the -- options -- section of a codex golden case.
type caseOptions struct {
	HermesTools        *HermesToolsOptions `json:"hermes_tools"`
	Plugins            []Plugin            `json:"plugins"`
	DefaultPermissions *string             `json:"default_permissions"`
}

// TestCodexGolden runs each testdata/codex/*.txtar: -- hermes.yaml -- and
// an optional -- config.toml -- go in; -- want.toml -- and -- report.json --
// (or -- error --) come out. Every case is also checked for the invariants:
// the output parses, a second run changes nothing, and removing the block
// gives back the user's bytes.
func TestCodexGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/codex/*.txtar")
	if len(files) == 0 {
		t.Fatal("no golden cases")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sec := map[string][]byte{}
			for _, f := range ar.Files {
				sec[f.Name] = f.Data
			}
			in := CodexInput{DefaultPermissions: DefaultPermissions}
			if raw := sec["options"]; len(raw) > 0 {
				var o caseOptions
				if err := json.Unmarshal(raw, &o); err != nil {
					t.Fatalf("options: %v", err)
				}
				if o.HermesTools != nil {
					s := HermesToolsServer(*o.HermesTools)
					in.HermesTools = &s
				}
				in.Plugins = o.Plugins
				if o.DefaultPermissions != nil {
					in.DefaultPermissions = *o.DefaultPermissions
				}
			}
			servers, problems, err := HermesServers(sec["hermes.yaml"])
			if err != nil {
				t.Fatalf("HermesServers: %v", err)
			}
			in.Servers = servers
			existing := unescapeCR(sec["config.toml"])
			out, rep, err := MigrateCodex(existing, in)
			got := map[string][]byte{}
			if err != nil {
				got["error"] = []byte(err.Error() + "\n")
			} else {
				got["want.toml"] = escapeCR(out)
				var probs []string
				for _, p := range problems {
					probs = append(probs, p.Error())
				}
				js, err := golden.JSON(struct {
					CodexReport
					Problems []string `json:"problems,omitempty"`
				}{rep, probs})
				if err != nil {
					t.Fatal(err)
				}
				got["report.json"] = js
				checkCodexInvariants(t, existing, out, in)
			}
			golden.Archive(t, file, ar, []string{"want.toml", "report.json", "error"}, got)
		})
	}
}

// checkCodexInvariants holds for every input: valid TOML, idempotent, and
// the user's bytes recoverable exactly.
func checkCodexInvariants(t *testing.T, existing, out []byte, in CodexInput) {
	t.Helper()
	var m map[string]any
	if err := toml.Unmarshal(bytes.TrimPrefix(out, bom), &m); err != nil {
		t.Fatalf("output does not parse: %v\n%s", err, out)
	}
	again, rep, err := MigrateCodex(out, in)
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	if !bytes.Equal(again, out) || rep.Changed {
		t.Errorf("second run changed the file:\n--- first\n%s--- second\n%s", out, again)
	}
	user, _, err := RemoveCodexBlock(out)
	if err != nil {
		t.Fatal(err)
	}
	orig, _, _ := RemoveCodexBlock(existing)
	if !bytes.Equal(orig, user) {
		t.Errorf("user bytes changed:\n--- before\n%q\n--- after\n%q", orig, user)
	}
}

// txtar cannot hold a bare CR visibly; golden files spell it «CR».
func unescapeCR(b []byte) []byte { return bytes.ReplaceAll(b, []byte("«CR»"), []byte("\r")) }
func escapeCR(b []byte) []byte   { return bytes.ReplaceAll(b, []byte("\r"), []byte("«CR»")) }

func TestMigrateCodexRefusesInvalidTOML(t *testing.T) {
	_, _, err := MigrateCodex([]byte("model = \"x\"\n[broken\n"), CodexInput{DefaultPermissions: DefaultPermissions})
	if !errors.Is(err, ErrInvalidTOML) || !strings.Contains(err.Error(), "line 2, column") {
		t.Fatalf("err = %v, want ErrInvalidTOML with line 2", err)
	}
}

func TestBlockPluginsCarriedOver(t *testing.T) {
	in := CodexInput{Plugins: []Plugin{{Name: "github", Marketplace: "openai-curated", Enabled: true}, {Name: "x", Marketplace: "lab", Enabled: false}}}
	out, _, err := MigrateCodex([]byte("a = 1\n"), in)
	if err != nil {
		t.Fatal(err)
	}
	got := BlockPlugins(out)
	if len(got) != 2 || got[0].ID() != "github@openai-curated" || !got[0].Enabled || got[1].ID() != "x@lab" || got[1].Enabled {
		t.Fatalf("BlockPlugins = %+v", got)
	}
	if BlockPlugins([]byte("a = 1\n")) != nil {
		t.Fatal("no block should mean no plugins")
	}
}

func TestParseValue(t *testing.T) {
	tests := []struct {
		in   string
		want Value
	}{
		{"${TOKEN}", Value{Ref: "TOKEN"}},
		{"$TOKEN", Value{Ref: "TOKEN"}},
		{"Bearer ${TOKEN}", Value{Prefix: "Bearer ", Ref: "TOKEN"}},
		{"plain", Value{Literal: "plain"}},
		{"key-${K}-x", Value{Literal: "key-${K}-x"}},
		{"${A}${B}", Value{Literal: "${A}${B}"}},
		{"$", Value{Literal: "$"}},
	}
	for _, tt := range tests {
		if got := ParseValue(tt.in); got != tt.want {
			t.Errorf("ParseValue(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
	if !ParseValue("key-${K}-x").HasEmbeddedRef() || ParseValue("plain").HasEmbeddedRef() {
		t.Error("HasEmbeddedRef wrong")
	}
}

// ${VAR:-default} reaches codex as a forwarded variable, and the dropped
// default is said.
func TestCodexNotesDroppedDefault(t *testing.T) {
	_, notes := codexServer(Server{Name: "gh", Command: "gh-mcp", Env: []KeyValue{{Key: "GH_HOST", Value: ParseValue("${GH_HOST:-github.com}")}}})
	if len(notes) != 1 || !strings.Contains(notes[0], "default after :- is dropped") {
		t.Errorf("notes %q", notes)
	}
	if _, notes := codexServer(Server{Name: "gh", Command: "gh-mcp", Env: []KeyValue{{Key: "GH_HOST", Value: ParseValue("${GH_HOST}")}}}); len(notes) != 0 {
		t.Errorf("a plain reference got notes %q", notes)
	}
}
