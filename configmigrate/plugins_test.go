package configmigrate

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestDiscoverPluginsWithoutCodex: a machine without codex is a normal
// state (ErrCodexNotInstalled, said quietly); a codex the user named that
// is not there is a fault to warn about.
func TestDiscoverPluginsWithoutCodex(t *testing.T) {
	empty := t.TempDir()
	missing := filepath.Join(empty, "codex")
	t.Setenv("PATH", empty)
	tests := []struct {
		name         string
		binary       string
		codexBinEnv  string
		notInstalled bool
	}{
		{"nothing named, none on PATH", "", "", true},
		{"--codex-bin names a missing file", missing, "", false},
		{"$CODEX_BIN names a missing file", "", missing, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CODEX_BIN", tt.codexBinEnv)
			env := []string{"PATH=" + empty}
			if tt.codexBinEnv != "" {
				env = append(env, "CODEX_BIN="+tt.codexBinEnv)
			}
			_, err := DiscoverPlugins(context.Background(), tt.binary, t.TempDir(), env, nil)
			if err == nil {
				t.Fatal("discovery without a codex binary succeeded")
			}
			if got := errors.Is(err, ErrCodexNotInstalled); got != tt.notInstalled {
				t.Errorf("errors.Is(%v, ErrCodexNotInstalled) = %v, want %v", err, got, tt.notInstalled)
			}
		})
	}
}
