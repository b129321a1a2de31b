package web

import (
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/pystr"
	"github.com/hermes-go/hermes/internal/urlguard"
)

// Config is the part of config.yaml the web toolset reads. The search
// check and the handlers choose backends from it in one place, so a tool
// that is listed is a tool that works.
type Config struct {
	Web struct {
		Backend        string `yaml:"backend"`
		SearchBackend  string `yaml:"search_backend"`
		ExtractBackend string `yaml:"extract_backend"`
		// The next three are read as the original reads them (Python's
		// bool() and int() of whatever the file holds), so they stay
		// nodes until asked: an absent key and `key: null` differ.
		KeylessFallback  yaml.Node      `yaml:"keyless_fallback"`
		KeylessRescue    yaml.Node      `yaml:"keyless_rescue"`
		ExtractCharLimit yaml.Node      `yaml:"extract_char_limit"`
		ProviderTier     map[string]any `yaml:"provider_tier"`
		// AllowPrivateURLs is ours: the original always refuses them.
		AllowPrivateURLs bool `yaml:"allow_private_urls"`
	} `yaml:"web"`
}

// LoadConfig reads <home>/config.yaml; a missing file is the defaults.
func LoadConfig(home string) (Config, error) {
	var c Config
	err := hermeshome.Decode(home, &c)
	return c, err
}

// nodeValue decodes a scalar, list or map node into plain Go values; ok is
// false when the key is absent from the file.
func nodeValue(n yaml.Node) (v any, ok bool) {
	if n.Kind == 0 {
		return nil, false
	}
	if err := n.Decode(&v); err != nil {
		// A value that does not decode is still a value; Python's bool()
		// of any such object is true.
		return true, true
	}
	return v, true
}

// flag is Python's bool(web.get(key, True)).
func flag(n yaml.Node) bool {
	v, ok := nodeValue(n)
	if !ok {
		return true
	}
	return pystr.Truthy(v)
}

// KeylessOn reports whether the keyless free tier is on
// (web.keyless_fallback, default true).
func (c Config) KeylessOn() bool { return flag(c.Web.KeylessFallback) }

// RescueOn reports whether a failed call of a configured backend is
// retried once on the keyless tier (web.keyless_rescue, default true, and
// only while the tier itself is on).
func (c Config) RescueOn() bool { return flag(c.Web.KeylessRescue) && c.KeylessOn() }

// Tier is web.provider_tier.<name>: "free", "paid", or "auto" for
// anything else.
func (c Config) Tier(name string) string {
	v, ok := c.Web.ProviderTier[name]
	if !ok || v == nil {
		return "auto"
	}
	s := strings.TrimSpace(pystr.Lower(pystr.Str(v)))
	if s == "free" || s == "paid" {
		return s
	}
	return "auto"
}

// selects reports whether web.backend, web.search_backend or
// web.extract_backend names the backend (a "pinned" ring vendor).
func (c Config) selects(name string) bool {
	for _, v := range []string{c.Web.Backend, c.Web.SearchBackend, c.Web.ExtractBackend} {
		if strings.TrimSpace(strings.ToLower(v)) == name {
			return true
		}
	}
	return false
}

// Extract budget bounds, as the original clamps them.
const (
	defaultCharLimit = 15_000
	minCharLimit     = 2_000
	maxCharLimit     = 500_000
)

// clampCharLimit is the original's max(2000, min(int(v), 500000)).
func clampCharLimit(n int) int { return max(minCharLimit, min(n, maxCharLimit)) }

// CharLimit is web.extract_char_limit clamped to 2000..500000; unset or
// not a number means 15000.
func (c Config) CharLimit() int {
	v, ok := nodeValue(c.Web.ExtractCharLimit)
	if !ok || v == nil {
		return defaultCharLimit
	}
	n, ok := pyInt(v)
	if !ok {
		return defaultCharLimit
	}
	return clampCharLimit(n)
}

// pyInt is Python's int() of a decoded YAML scalar; ok is false where
// int() raises.
func pyInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		return int(max(min(x, math.MaxInt32), math.MinInt32)), true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case string:
		n, err := strconv.Atoi(strings.ReplaceAll(pystr.Strip(x), "_", ""))
		return n, err == nil
	}
	return 0, false
}

// urlPolicy is the URL policy config.yaml in home asks for.
func urlPolicy(c Config, home string) urlguard.Policy {
	return urlguard.Policy{
		AllowPrivate: c.Web.AllowPrivateURLs,
		AllowHint:    urlguard.AllowPrivateHint(home, "web.allow_private_urls"),
	}
}
