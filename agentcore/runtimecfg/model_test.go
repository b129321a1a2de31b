package runtimecfg

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/filelock"
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
		// An indented document is re-encoded, still quoting what PyYAML
		// would read as a boolean or a number.
		{"  a: 1\n  model:\n    default: x\n", "default", "yes", "a: 1\nmodel:\n  default: \"yes\"\n"},
		{"  a: 1\n  model:\n    default: x\n", "default", "1:30", "a: 1\nmodel:\n  default: \"1:30\"\n"},
	}
	for _, tt := range tests {
		got, err := SetModelKey([]byte(tt.in), tt.key, tt.value, "/model --global")
		if err != nil || string(got) != tt.want {
			t.Errorf("SetModelKey(%q, %s=%q) =\n%q, %v\nwant\n%q", tt.in, tt.key, tt.value, got, err, tt.want)
		}
	}
}

// A file of several documents is refused, not cut to its first.
func TestSetModelKeyRefusesSeveralDocuments(t *testing.T) {
	if out, err := SetModelKey([]byte("a: 1\n---\nb: 2\n"), "default", "x", "/model --global"); err == nil {
		t.Errorf("accepted, wrote %q", out)
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
	if err := SaveModel(context.Background(), home, "new-model", "openrouter", true); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if want := "model:\n  default: new-model  # keep\n  provider: openrouter\nmemory:\n  provider: holographic\n"; string(got) != want {
		t.Errorf("config.yaml =\n%s\nwant\n%s", got, want)
	}
}

// The provider goes into the file only when it changes and the user chose
// it; a change that would pair the new provider with the old endpoint is
// refused, the file untouched.
func TestSaveModelProvider(t *testing.T) {
	tests := []struct {
		name, in, provider string
		chosen             bool
		want               string // "" means refused
	}{
		{"inferred stays implicit", "model:\n  default: a\n", "openai", false, "model:\n  default: b\n"},
		{"same provider", "model:\n  default: a\n  provider: openai\n", "OpenAI", true, "model:\n  default: b\n  provider: openai\n"},
		{"earlier switch", "model:\n  default: a\n  provider: openai\n", "openrouter", false, "model:\n  default: b\n  provider: openrouter\n"},
		{"endpoint of another provider", "model:\n  default: a\n  provider: custom\n  base_url: http://proxy/v1\n", "anthropic", true, ""},
		{"key without a provider", "model:\n  default: a\n  api_key: k\n", "openrouter", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, "config.yaml")
			if err := os.WriteFile(path, []byte(tt.in), 0o600); err != nil {
				t.Fatal(err)
			}
			err := SaveModel(context.Background(), home, "b", tt.provider, tt.chosen)
			got, _ := os.ReadFile(path)
			switch {
			case tt.want == "" && (err == nil || string(got) != tt.in):
				t.Errorf("not refused: %v\n%s", err, got)
			case tt.want != "" && (err != nil || string(got) != tt.want):
				t.Errorf("config.yaml =\n%s\nwant\n%s (%v)", got, tt.want, err)
			}
		})
	}
}

// Another program editing config.yaml under the same lock is waited for,
// and its edit kept: the model is set on the file as it is once locked.
// A config.yaml that is a symlink (a dotfiles checkout) stays one, and its
// target is edited.
func TestSaveModelBesideAnotherWriter(t *testing.T) {
	home := t.TempDir()
	target := filepath.Join(t.TempDir(), "dotfiles-config.yaml")
	if err := os.WriteFile(target, []byte("model:\n  default: old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "config.yaml")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	lock, err := filelock.Acquire(ctx, filepath.Join(home, "locks", "config.yaml.lock"), filelock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- SaveModel(ctx, home, "new", "", false) }()
	select {
	case err := <-done:
		t.Fatalf("SaveModel did not wait for the lock: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	const added = "# added by the other writer\nagent:\n  max_turns: 7\n"
	if err := os.WriteFile(target, []byte("model:\n  default: old\n"+added), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("config.yaml is no longer a symlink: %v", err)
	}
	got, _ := os.ReadFile(target)
	if want := "model:\n  default: new\n" + added; string(got) != want {
		t.Errorf("config.yaml =\n%s\nwant\n%s", got, want)
	}
}
