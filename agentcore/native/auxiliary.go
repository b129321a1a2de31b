package native

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// AuxRoute is one auxiliary.<task> section of config.yaml: the model a
// side task (a title, a review, a goal verdict, a summary) runs on instead
// of the main one, as the Python Hermes reads it.
type AuxRoute struct {
	Provider  string `yaml:"provider"`
	Model     string `yaml:"model"`
	BaseURL   string `yaml:"base_url"`
	APIKey    string `yaml:"api_key"`
	KeyEnv    string `yaml:"key_env"`
	APIKeyEnv string `yaml:"api_key_env"`
}

// Auxiliary task names as config.yaml spells them under auxiliary:.
const (
	AuxTitle       = "title_generation"
	AuxCompression = "compression"
	AuxGoalJudge   = "goal_judge"
	AuxSearch      = "session_search"
	AuxVision      = "vision"
	AuxWebExtract  = "web_extract"
	AuxSkillsHub   = "skills_hub"
	AuxApproval    = "approval"
	AuxMCP         = "mcp"
	AuxFlush       = "flush_memories"
)

func unset(v string) bool {
	v = strings.TrimSpace(v)
	// "main" is the original's explicit "use the main model" route.
	return v == "" || strings.EqualFold(v, "auto") || strings.EqualFold(v, "main")
}

// AuxiliaryConfig is the Config for auxiliary task task: main (the
// resolved main model) with what auxiliary.<task> in <home>/config.yaml
// overrides. Precedence follows the original: a base_url makes the route
// a custom endpoint unless the provider is one the table knows; a
// provider alone takes the table's endpoint and key; nothing (or "auto")
// keeps the main model. api_key, when empty, comes from the variable
// key_env (or api_key_env) names, then from the provider's own variable.
func AuxiliaryConfig(home, task string, main Config, getenv func(string) string) (Config, error) {
	return routeConfig(home, []string{"auxiliary", task}, main, getenv)
}

// DelegationConfig is the Config delegate_task's sub-agents run on: the
// delegation section's provider/model/base_url/api_key, read with the
// same rules as an auxiliary route; an empty section keeps the main model.
func DelegationConfig(home string, main Config, getenv func(string) string) (Config, error) {
	return routeConfig(home, []string{"delegation"}, main, getenv)
}

func routeConfig(home string, keys []string, main Config, getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	path := filepath.Join(home, "config.yaml")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return main, fmt.Errorf("read %s: %w", path, err)
	}
	task := strings.Join(keys, ".")
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return main, fmt.Errorf("parse %s: %w (fix the YAML)", path, err)
	}
	node := lookupNode(&root, keys)
	if node == nil || node.Kind == 0 {
		return main, nil
	}
	if node.Kind != yaml.MappingNode {
		return main, fmt.Errorf("%s in %s must be a mapping with provider/model/base_url/api_key", task, path)
	}
	var rt AuxRoute
	if err := node.Decode(&rt); err != nil {
		return main, fmt.Errorf("parse %s in %s: %w", task, path, err)
	}
	key := os.Expand(strings.TrimSpace(rt.APIKey), getenv)
	if key == "" {
		if env := strings.TrimSpace(rt.KeyEnv + rt.APIKeyEnv); env != "" {
			key = getenv(strings.TrimSpace(rt.KeyEnv))
			if key == "" && rt.APIKeyEnv != "" {
				key = getenv(strings.TrimSpace(rt.APIKeyEnv))
			}
		}
	}
	provider := strings.ToLower(strings.TrimSpace(rt.Provider))
	baseURL := strings.TrimSpace(rt.BaseURL)
	if unset(provider) && baseURL == "" && key == "" {
		// Only the model (or nothing) differs: same endpoint and key.
		if !unset(rt.Model) {
			main.Model = strings.TrimSpace(rt.Model)
		}
		return main, nil
	}
	cfg := Config{MaxTurns: main.MaxTurns, MaxRetries: main.MaxRetries}
	switch {
	case baseURL != "":
		cfg.Provider = "custom"
		if p, ok := LookupProvider(provider); ok && p.Name != "custom" {
			cfg.Provider = p.Name
		}
	case !unset(provider):
		cfg.Provider = provider
	default:
		// A key alone is a key for the main endpoint.
		cfg.Provider, baseURL = main.Provider, main.BaseURL
	}
	if !unset(provider) && provider == main.Provider && baseURL == "" {
		// Same provider as the main model: its endpoint, and its key
		// unless the section names another.
		baseURL = main.BaseURL
		if key == "" {
			key = main.APIKey
		}
	}
	cfg.Model = strings.TrimSpace(rt.Model)
	if unset(cfg.Model) {
		if cfg.Provider != main.Provider {
			return main, fmt.Errorf("%s in %s names provider %s but no model; set %s.model", task, path, cfg.Provider, task)
		}
		cfg.Model = main.Model
	}
	where := task + " in " + path
	if err := resolveEndpoint(&cfg, baseURL, key, where, getenv); err != nil {
		return main, err
	}
	return cfg, cfg.validate(path)
}

// lookupNode follows keys through nested mappings; nil when a key is
// missing or a level is not a mapping (a scalar section is reported by the
// caller when it is the last level).
func lookupNode(root *yaml.Node, keys []string) *yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range keys {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

// More auxiliary task names, as the original spells them.
const (
	AuxBackgroundReview = "background_review"
)

// AuxFlag reads the boolean auxiliary.<task>.<key> from <home>/config.yaml
// the way the original's is_truthy_value does (true/yes/on/1, false/no/
// off/0); anything else, or no value, is def.
func AuxFlag(home, task, key string, def bool) bool {
	data, err := os.ReadFile(filepath.Join(home, "config.yaml"))
	if err != nil {
		return def
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil {
		return def
	}
	n := lookupNode(&root, []string{"auxiliary", task, key})
	if n == nil || n.Kind != yaml.ScalarNode {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(n.Value)) {
	case "true", "yes", "on", "1", "y":
		return true
	case "false", "no", "off", "0", "n":
		return false
	}
	return def
}
