package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/hermes-go/hermes/bridge"
	"github.com/hermes-go/hermes/configmigrate"
)

// jsonClientNames lists the JSON-configured clients.
func jsonClientNames() []string { return nil }

func migrateJSONClient(client string, o options, d deps) (clientReport, error) {
	return clientReport{Client: client}, errors.New("not supported yet")
}

// discoverPlugins runs `codex app-server` against codexHome and asks it for
// the installed plugins. Codex gets the user's environment (its real HOME
// holds the personal marketplace) with CODEX_HOME pointing at the home
// being migrated.
func discoverPlugins(ctx context.Context, codexHome, binary string, env []string) ([]configmigrate.Plugin, error) {
	bin, err := bridge.FindBinary(binary)
	if err != nil {
		return nil, err
	}
	if _, err := bridge.CheckVersion(ctx, bin); err != nil {
		return nil, err
	}
	cfg := bridge.Config{
		Binary: bin,
		Env:    append(withoutVar(env, "CODEX_HOME"), "CODEX_HOME="+codexHome),
		Logger: slog.New(slog.DiscardHandler),
	}
	found, err := bridge.DiscoverPlugins(ctx, cfg, discoverTimeout)
	if err != nil {
		return nil, err
	}
	out := make([]configmigrate.Plugin, 0, len(found))
	for _, p := range found {
		out = append(out, configmigrate.Plugin{Name: p.Name, Marketplace: p.Marketplace, Enabled: p.Enabled})
	}
	return out, nil
}

func withoutVar(env []string, name string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
