package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/internal/pystr"
)

// DefaultMarketplace is the marketplace assumed for a plugin whose
// marketplace has no name: codex's curated catalog.
const DefaultMarketplace = "openai-curated"

// MigrationClientName is the clientInfo.name DiscoverPlugins uses, as the
// Python Hermes does, so codex's logs and originator header tell the two
// kinds of session apart.
const MigrationClientName = "hermes-migration"

// Plugin is a codex plugin the user has installed.
type Plugin struct {
	Name        string
	Marketplace string
	// Enabled is the plugin's enabled flag in codex's config; true when
	// codex does not say.
	Enabled bool
	// ID is codex's "name@marketplace" id, when reported.
	ID string
}

// ListPlugins asks codex for its plugins (plugin/list) and keeps the
// installed ones, with the rules of the Python Hermes: availability absent,
// empty or AVAILABLE (any case); a non-empty name; marketplace defaulting to
// DefaultMarketplace; the first of each (name, marketplace) pair.
//
// cwds are extra project roots whose .agents/plugins/marketplace.json codex
// should consider; codex does not look at its own working directory. Plugins
// installed from a marketplace codex cannot see (neither curated, nor the
// personal ~/.agents/plugins/marketplace.json, nor a configured one, nor one
// under cwds) are not reported at all.
func ListPlugins(ctx context.Context, c *Client, cwds []string) ([]Plugin, error) {
	params := map[string]any{}
	if len(cwds) > 0 {
		params["cwds"] = cwds
	}
	var raw json.RawMessage
	if err := c.Call(ctx, "plugin/list", params, &raw); err != nil {
		return nil, fmt.Errorf("plugin/list query failed: %w", err)
	}
	return parsePluginList(raw)
}

// parsePluginList applies the filtering rules to a plugin/list result. It is
// tolerant of everything but a missing marketplaces list: entries of the
// wrong shape are skipped, as the Python original's dict lookups would.
func parsePluginList(raw json.RawMessage) ([]Plugin, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("plugin/list response is not an object: %w", err)
	}
	var marketplaces []json.RawMessage
	if m, ok := top["marketplaces"]; !ok || json.Unmarshal(m, &marketplaces) != nil || marketplaces == nil {
		return nil, errors.New("plugin/list response missing 'marketplaces'")
	}
	type key struct{ name, marketplace string }
	seen := map[key]bool{}
	out := []Plugin{}
	for _, mraw := range marketplaces {
		var m struct {
			Name    string            `json:"name"`
			Plugins []json.RawMessage `json:"plugins"`
		}
		if json.Unmarshal(mraw, &m) != nil {
			continue
		}
		market := m.Name
		if market == "" {
			market = DefaultMarketplace
		}
		for _, praw := range m.Plugins {
			var p struct {
				ID           string          `json:"id"`
				Name         string          `json:"name"`
				Installed    json.RawMessage `json:"installed"`
				Enabled      *bool           `json:"enabled"`
				Availability json.RawMessage `json:"availability"`
			}
			if json.Unmarshal(praw, &p) != nil {
				continue
			}
			if p.Name == "" || !pystr.TruthyJSON(p.Installed) || !available(p.Availability) {
				continue
			}
			k := key{p.Name, market}
			if seen[k] {
				continue
			}
			seen[k] = true
			enabled := true
			if p.Enabled != nil {
				enabled = *p.Enabled
			}
			out = append(out, Plugin{Name: p.Name, Marketplace: market, Enabled: enabled, ID: p.ID})
		}
	}
	return out, nil
}

// available accepts a missing, null or empty availability, or AVAILABLE in
// any case; codex's other value is DISABLED_BY_ADMIN.
func available(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	return s == "" || strings.EqualFold(s, "AVAILABLE")
}

// DiscoverPlugins starts codex with cfg, initializes as MigrationClientName,
// lists the installed plugins (see ListPlugins for cwds) and closes codex,
// all within timeout (0 means no limit beyond ctx). Failures are meant to be
// non-fatal for the caller, so the error only explains: "transport
// unavailable: …" when codex could not be started or initialized, else
// ListPlugins' errors.
func DiscoverPlugins(ctx context.Context, cfg Config, timeout time.Duration, cwds ...string) (plugins []Plugin, err error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	c, err := Start(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("transport unavailable: %w", err)
	}
	defer func() {
		// The list is what the caller wants; a messy exit afterwards is
		// only worth a log line.
		if cerr := c.Close(); cerr != nil {
			c.log.Warn("codex app-server did not shut down cleanly after plugin discovery", "error", cerr)
		}
	}()
	if _, err := c.Initialize(ctx, ClientInfo{Name: MigrationClientName, Title: "Hermes Agent", Version: "0.1"}, Capabilities{}); err != nil {
		return nil, fmt.Errorf("transport unavailable: %w", err)
	}
	return ListPlugins(ctx, c, cwds)
}
