package runtimecfg

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/internal/testkit/golden"
)

// Each fixture is set to both values; the result must match its golden
// file (review a `make docs` diff: only the runtime lines may change) and read
// back as the value set.
func TestSetRuntimeGolden(t *testing.T) {
	tests := []struct{ name, value string }{
		{"existing", CodexAppServer},
		{"existing", Auto},
		{"quoted", Auto},
		{"nokey", CodexAppServer},
		{"string", CodexAppServer},
		{"nomodel", CodexAppServer},
		{"empty", CodexAppServer},
		{"nullmodel", CodexAppServer},
		{"flow", CodexAppServer},
	}
	for _, tt := range tests {
		t.Run(tt.name+"_"+tt.value, func(t *testing.T) {
			in, err := os.ReadFile(filepath.Join("testdata", tt.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			out, err := SetRuntime(in, tt.value)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := Current(out); err != nil || got != tt.value {
				t.Fatalf("Current = %q, %v; want %q\n%s", got, err, tt.value, out)
			}
			golden.File(t, filepath.Join("testdata", "golden", tt.name+"_"+tt.value+".yaml"), out)

			// Setting it again changes nothing.
			again, err := SetRuntime(out, tt.value)
			if err != nil || string(again) != string(out) {
				t.Errorf("second SetRuntime changed the file: %v\n%s", err, again)
			}
		})
	}
}

// Outside the edited line every byte of the commented fixture survives.
func TestSetRuntimeKeepsOtherLines(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "existing.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := SetRuntime(in, CodexAppServer)
	if err != nil {
		t.Fatal(err)
	}
	a, b := strings.Split(string(in), "\n"), strings.Split(string(out), "\n")
	if len(a) != len(b) {
		t.Fatalf("line count %d → %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] && !(strings.Contains(a[i], "openai_runtime: auto") &&
			b[i] == strings.Replace(a[i], "auto", CodexAppServer, 1)) {
			t.Errorf("line %d changed: %q → %q", i+1, a[i], b[i])
		}
	}
}

func TestSetRuntimeRejects(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"not yaml", "model: [unclosed\n"},
		{"list root", "- a\n- b\n"},
		{"model list", "model:\n  - a\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if out, err := SetRuntime([]byte(tt.doc), CodexAppServer); err == nil {
				t.Fatalf("no error; got\n%s", out)
			}
		})
	}
}

func TestLoadModel(t *testing.T) {
	tests := []struct {
		doc  string
		want Model
	}{
		{"", Model{}},
		{"model: gpt-5\n", Model{Default: "gpt-5"}},
		{"model:\n  model: gpt-5\n  provider: openai\n  openai_runtime: CODEX_APP_SERVER\n", Model{Default: "gpt-5", Provider: "openai", OpenAIRuntime: "CODEX_APP_SERVER"}},
	}
	for _, tt := range tests {
		got, err := LoadModel([]byte(tt.doc))
		if err != nil || got != tt.want {
			t.Errorf("LoadModel(%q) = %+v, %v; want %+v", tt.doc, got, err, tt.want)
		}
	}
	if cur, _ := Current([]byte("model:\n  openai_runtime: Codex_App_Server\n")); cur != CodexAppServer {
		t.Errorf("Current is case-sensitive: %q", cur)
	}
	if cur, _ := Current([]byte("model:\n  openai_runtime: bogus\n")); cur != Auto {
		t.Errorf("Current of an unknown value = %q", cur)
	}
}
