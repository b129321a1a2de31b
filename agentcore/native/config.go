package native

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/agentcore/runtimecfg"
	"github.com/hermes-go/hermes/internal/configcheck"
	"github.com/hermes-go/hermes/internal/safefile"
)

// DefaultMaxTurns is Hermes' agent.max_turns default.
const DefaultMaxTurns = 90

// DefaultBaseURL is used for the openai provider when neither config.yaml
// nor OPENAI_BASE_URL names an endpoint.
const DefaultBaseURL = "https://api.openai.com/v1/"

// DefaultMaxRetries matches the OpenAI SDK's own default.
const DefaultMaxRetries = 2

// Config is what the native runtime needs to reach a model.
type Config struct {
	Model    string
	Provider string
	BaseURL  string
	APIKey   string
	// MaxTurns bounds API calls in one user turn (agent.max_turns).
	MaxTurns int
	// MaxRetries is how often the SDK retries 408/409/429/5xx.
	MaxRetries int
	// KeyHint names the environment variable the provider's key comes
	// from, for the message about rejected credentials; empty for local
	// servers.
	KeyHint string
	// ReasoningEffort is sent as reasoning_effort when set (the Python
	// Hermes' --reasoning); models that take none ignore it or refuse.
	ReasoningEffort string
}

// rawConfig is the part of config.yaml read here. model may be a plain
// string (the model name) or a mapping, as in Hermes.
type rawConfig struct {
	Model yaml.Node `yaml:"model"`
	Agent struct {
		MaxTurns int `yaml:"max_turns"`
	} `yaml:"agent"`
}

type modelSection struct {
	Default  string `yaml:"default"`
	Model    string `yaml:"model"`
	Provider string `yaml:"provider"`
	BaseURL  string `yaml:"base_url"`
	APIKey   string `yaml:"api_key"`
}

// LoadConfig reads the model section and agent.max_turns from
// <home>/config.yaml, filling the endpoint and key the section leaves out
// from the provider table (Providers) and its environment variables,
// read through getenv (nil means os.Getenv). A missing file is fine as
// long as the result names a model.
func LoadConfig(home string, getenv func(string) string) (Config, error) {
	return LoadConfigProvider(home, "", getenv)
}

// LoadConfigProvider is LoadConfig with model.provider replaced by
// provider when it is not empty (hermes chat --provider), so the endpoint
// and key are the override's, not the configured provider's.
func LoadConfigProvider(home, provider string, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cfg := Config{MaxTurns: DefaultMaxTurns, MaxRetries: DefaultMaxRetries}
	path := filepath.Join(home, "config.yaml")
	data, err := safefile.ReadUserFile(path, safefile.MaxConfigSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return cfg, err
	}
	var raw rawConfig
	if err := yaml.Unmarshal(data, &raw); err != nil {
		if syn := configcheck.Check(data).Syntax; syn != nil {
			return cfg, fmt.Errorf("%s: %w", path, syn)
		}
		return cfg, fmt.Errorf("parse %s: %w (fix the YAML)", path, err)
	}
	var ms modelSection
	model := runtimecfg.Resolve(&raw.Model)
	switch model.Kind {
	case 0:
	case yaml.ScalarNode:
		ms.Default = model.Value
	case yaml.MappingNode:
		if err := model.Decode(&ms); err != nil {
			return cfg, fmt.Errorf("parse model section of %s: %w", path, err)
		}
	default:
		return cfg, fmt.Errorf("model in %s must be a model name or a mapping with default/provider/base_url", path)
	}
	if raw.Agent.MaxTurns > 0 {
		cfg.MaxTurns = raw.Agent.MaxTurns
	}
	cfg.Model = ms.Default
	if cfg.Model == "" {
		cfg.Model = ms.Model
	}
	cfg.Provider = strings.ToLower(strings.TrimSpace(cmp.Or(provider, ms.Provider)))
	if cfg.Model == "" {
		return cfg, cfg.validate(path)
	}
	baseURL, apiKey := ms.BaseURL, os.Expand(ms.APIKey, getenv)
	if provider != "" && !strings.EqualFold(strings.TrimSpace(provider), strings.TrimSpace(ms.Provider)) {
		// config.yaml's endpoint and key belong to its own provider; the
		// override's come from the table.
		baseURL, apiKey = "", ""
	}
	if err := resolveEndpoint(&cfg, baseURL, apiKey, path, getenv); err != nil {
		return cfg, err
	}
	return cfg, cfg.validate(path)
}

// Resolved fills the endpoint and key of a Config built in code from the
// provider table and getenv (nil means os.Getenv); path is the
// config.yaml that errors tell the user to edit.
func (c Config) Resolved(path string, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	err := resolveEndpoint(&c, c.BaseURL, c.APIKey, path, getenv)
	return c, err
}

// validate checks the config is usable and fills the OpenAI endpoint for
// providers that mean OpenAI.
func (c *Config) validate(path string) error {
	if c.Model == "" {
		return fmt.Errorf("no model configured: set model.default in %s (e.g. `model: {default: <model>, provider: openai}`)", path)
	}
	if c.BaseURL == "" {
		// A Config built in code rather than loaded: the table fills it.
		if err := resolveEndpoint(c, "", c.APIKey, path, func(string) string { return "" }); err != nil {
			return err
		}
	}
	if p, ok := LookupProvider(c.Provider); ok {
		if c.KeyHint == "" {
			c.KeyHint = p.KeyEnv
		}
		if c.APIKey == "" && needsKey(p) {
			return fmt.Errorf("provider %s needs %s (or model.api_key in %s)", p.Name, p.KeyEnv, path)
		}
	}
	if c.MaxTurns <= 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	return nil
}
