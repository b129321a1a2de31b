//go:build unix

package configmigrate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hermes-go/hermes/internal/testkit/codextest"
)

// TestRealCodexPermissions holds CheckPermissions to the pinned codex: a
// profile it accepts is written and codex loads the result; a profile it
// refuses, written by hand, makes codex refuse its whole config, which is
// why hermes-migrate must not write it.
func TestRealCodexPermissions(t *testing.T) {
	codexBin := codextest.Binary(t)
	proxy := codextest.NewProxy(t)
	for _, tt := range permissionCases {
		if tt.profile == "" {
			continue
		}
		t.Run(fmt.Sprintf("%q", tt.profile), func(t *testing.T) {
			h := codextest.NewHome(t)
			text := []byte(fmt.Sprintf("default_permissions = %s\n\n%s", tomlQuote(tt.profile), tt.configTOML))
			if tt.ok {
				out, _, err := MigrateCodex([]byte(tt.configTOML), CodexInput{DefaultPermissions: tt.profile})
				if err != nil {
					t.Fatal(err)
				}
				text = out
			}
			if err := os.WriteFile(filepath.Join(h.CodexHome, "config.toml"), text, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, codexBin, "features", "list")
			cmd.Env = h.Env(proxy.URL())
			out, err := cmd.CombinedOutput()
			if loaded := err == nil; loaded != tt.ok {
				t.Errorf("CheckPermissions says ok=%v, codex loaded=%v (%v):\n%s\nconfig.toml:\n%s", tt.ok, loaded, err, lastLines(out), text)
			}
		})
	}
}

// lastLines keeps the end of codex's output, where its error is.
func lastLines(b []byte) []byte {
	if len(b) > 600 {
		return b[len(b)-600:]
	}
	return b
}
