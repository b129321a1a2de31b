package runtimecfg

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Setting model.default (and provider) edits only that value, in every
// shape the model section takes; a value YAML would read as something
// else (PyYAML's `on`, a colon) is quoted.
func TestSetModelKey(t *testing.T) {
	tests := []struct{ in, key, value, want string }{
		{"# mine\nmodel:\n  default: gpt-4o   # main\n  provider: openai\n\nagent:\n  max_turns: 5\n", "default", "gpt-5.5",
			"# mine\nmodel:\n  default: gpt-5.5   # main\n  provider: openai\n\nagent:\n  max_turns: 5\n"},
		{"model: gpt-4o   # note\nx: 1\n", "default", "gpt-5.5", "model: gpt-5.5   # note\nx: 1\n"},
		{"model: 'gpt-4o'\n", "default", "it's", "model: 'it''s'\n"},
		{"", "default", "gpt-5.5", "model:\n  default: gpt-5.5\n"},
		{"model: {default: a, provider: openai}\n", "default", "gpt-5.5", "model: {default: gpt-5.5, provider: openai}\n"},
		{"model:\n  default: x\n", "provider", "openrouter", "model:\n  default: x\n  provider: openrouter\n"},
		{"model:\n  default: x\n", "default", "on", "model:\n  default: \"on\"\n"},
		{"model:\n  provider: ollama\n", "default", "llama3.1:8b", "model:\n  provider: ollama\n  default: \"llama3.1:8b\"\n"},
		{"model: x\n", "provider", "openai", "model:\n  default: x\n  provider: openai\n"},
	}
	for _, tt := range tests {
		got, err := SetModelKey([]byte(tt.in), tt.key, tt.value, "/model --global")
		if err != nil || string(got) != tt.want {
			t.Errorf("SetModelKey(%q, %s=%q) =\n%q, %v\nwant\n%q", tt.in, tt.key, tt.value, got, err, tt.want)
		}
	}
}

// Whatever the file and the name, an edit that succeeds reads back as
// the name set, through the same reader the agent uses.
func FuzzSetModelKey(f *testing.F) {
	f.Add("model:\n  default: a # c\n  provider: openai\n", "gpt-5")
	f.Add("model: {default: 'x}y'}\n", "a,b")
	f.Add("model: plain\n", "yes")
	f.Add("", "with \"quotes\" and # hash")
	f.Fuzz(func(t *testing.T, doc, value string) {
		out, err := SetModelKey([]byte(doc), "default", value, "/model --global")
		if err != nil {
			return
		}
		m, err := LoadModel(out)
		if err != nil || m.Default != value {
			t.Errorf("set %q in %q: read back %q, %v\n%s", value, doc, m.Default, err, out)
		}
	})
}

// SaveModel writes the file, and keeps an edit made before it ran.
func TestSaveModel(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(path, []byte("model:\n  default: old  # keep\nmemory:\n  provider: holographic\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SaveModel(context.Background(), home, "new-model", "openrouter"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "model:\n  default: new-model  # keep\n  provider: openrouter\nmemory:\n  provider: holographic\n"; string(got) != want {
		t.Errorf("config.yaml =\n%s\nwant\n%s", got, want)
	}
}
