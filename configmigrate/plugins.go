package configmigrate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/hermes-go/hermes/bridge"
)

// discoverTimeout bounds one start → initialize → plugin/list → close.
const discoverTimeout = 20 * time.Second

// ErrCodexNotInstalled marks a discovery that could not start because no
// codex is installed: none was named (binary, $CODEX_BIN) and none is on
// PATH. That is the normal state of a machine without codex, not a fault,
// so callers mention it quietly instead of warning.
var ErrCodexNotInstalled = errors.New("codex is not installed")

// DiscoverPlugins asks `codex app-server` for the plugins installed in
// codexHome. Codex runs with env (the user's own: its real HOME holds the
// personal plugin marketplace) with CODEX_HOME pointed at codexHome; binary
// empty means $CODEX_BIN, else codex on PATH. Callers treat an error as
// "keep what the block already lists", never as a failed migration.
func DiscoverPlugins(ctx context.Context, binary, codexHome string, env []string, log *slog.Logger) ([]Plugin, error) {
	bin, err := bridge.FindBinary(binary)
	if err != nil && binary == "" && envValue(env, bridge.BinaryEnv) == "" {
		// One fact, said once: the lookup's own error would repeat it
		// ("not found ... Install with ... executable file not found").
		return nil, fmt.Errorf("%w (no codex on PATH, or set %s to its path), so its plugins were not looked up", ErrCodexNotInstalled, bridge.BinaryEnv)
	}
	if err != nil {
		return nil, err
	}
	if _, err := bridge.CheckVersion(ctx, bin); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kept := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CODEX_HOME=") {
			kept = append(kept, kv)
		}
	}
	cfg := bridge.Config{Binary: bin, Env: append(kept, "CODEX_HOME="+codexHome), Logger: log}
	found, err := bridge.DiscoverPlugins(ctx, cfg, discoverTimeout)
	if err != nil {
		return nil, err
	}
	out := make([]Plugin, 0, len(found))
	for _, p := range found {
		out = append(out, Plugin{Name: p.Name, Marketplace: p.Marketplace, Enabled: p.Enabled})
	}
	return out, nil
}

// envValue is name's value in env (KEY=value entries), the last one winning
// as in exec.Cmd.
func envValue(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}
