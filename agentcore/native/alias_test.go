package native

import (
	"os"
	"path/filepath"
	"testing"
)

// hermes chat reads `model: *openai` as the anchored mapping, as the
// Python Hermes (PyYAML) does, instead of refusing the file.
func TestLoadConfigAliasedModel(t *testing.T) {
	home := t.TempDir()
	doc := "defs:\n  m: &openai\n    provider: openai\n    default: gpt-5.5\nmodel: *openai\n"
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(home, func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-test"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "gpt-5.5" || cfg.Provider != "openai" {
		t.Errorf("model %q provider %q, want gpt-5.5 from openai", cfg.Model, cfg.Provider)
	}
}
