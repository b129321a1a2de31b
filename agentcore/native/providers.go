package native

import (
	"fmt"
	"strings"
)

// Provider is a model provider as Hermes users name it in
// model.provider: where its OpenAI-compatible endpoint is and which
// environment variable holds its key.
type Provider struct {
	Name string
	// BaseURL is the built-in endpoint; empty means model.base_url (or
	// BaseURLEnv) must name one.
	BaseURL string
	// BaseURLEnv, when set, overrides BaseURL from the environment.
	BaseURLEnv string
	// KeyEnv is the variable the key is read from when model.api_key is
	// unset; empty for servers that take no key.
	KeyEnv string
	// Local says the endpoint is a server on this machine: a missing key
	// is normal, not a mistake.
	Local bool
	// Aliases are other spellings Hermes accepts.
	Aliases []string
}

// Providers is the provider table, in the order `auto` tries the hosted
// ones. A function, not a variable, so no caller can change the table
// another reads.
func Providers() []Provider {
	return []Provider{
		{Name: "openai", BaseURL: DefaultBaseURL, BaseURLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY", Aliases: []string{"openai-codex"}},
		{Name: "openrouter", BaseURL: "https://openrouter.ai/api/v1/", BaseURLEnv: "OPENROUTER_BASE_URL", KeyEnv: "OPENROUTER_API_KEY"},
		{Name: "nous", BaseURL: "https://inference-api.nousresearch.com/v1/", KeyEnv: "NOUS_API_KEY"},
		{Name: "deepseek", BaseURL: "https://api.deepseek.com/v1/", KeyEnv: "DEEPSEEK_API_KEY"},
		// custom is any OpenAI-compatible server: model.base_url says
		// where, and the key (if it needs one) is model.api_key or
		// OPENAI_API_KEY, as in Hermes.
		{Name: "custom", BaseURLEnv: "OPENAI_BASE_URL", KeyEnv: "OPENAI_API_KEY"},
		{Name: "ollama", BaseURL: "http://127.0.0.1:11434/v1/", BaseURLEnv: "OLLAMA_BASE_URL", Local: true},
		{Name: "llamacpp", BaseURL: "http://127.0.0.1:8080/v1/", Local: true, Aliases: []string{"llama.cpp", "llama-cpp"}},
		{Name: "lmstudio", BaseURL: "http://127.0.0.1:1234/v1/", Local: true},
		{Name: "vllm", BaseURL: "http://127.0.0.1:8000/v1/", Local: true},
	}
}

// LookupProvider finds a provider by name or alias, ignoring case.
func LookupProvider(name string) (Provider, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, p := range Providers() {
		if p.Name == name {
			return p, true
		}
		for _, a := range p.Aliases {
			if a == name {
				return p, true
			}
		}
	}
	return Provider{}, false
}

// providerNames lists the names users may write, for error messages.
func providerNames() string {
	var names []string
	for _, p := range Providers() {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// autoProvider is what provider `auto` (or none) means: an explicit
// endpoint is a custom server; otherwise the first hosted provider whose
// key is set, OpenAI when none is (so the missing-key message names
// OPENAI_API_KEY, the most common).
func autoProvider(baseURL string, getenv func(string) string) Provider {
	if baseURL != "" || getenv("OPENAI_BASE_URL") != "" {
		p, _ := LookupProvider("custom")
		return p
	}
	for _, p := range Providers() {
		if !p.Local && p.KeyEnv != "" && p.BaseURL != "" && getenv(p.KeyEnv) != "" {
			return p
		}
	}
	p, _ := LookupProvider("openai")
	return p
}

// resolveEndpoint fills BaseURL and APIKey from the provider table for
// what config.yaml left empty. baseURL and apiKey are model.base_url and
// model.api_key (already expanded).
func resolveEndpoint(c *Config, baseURL, apiKey, path string, getenv func(string) string) error {
	var p Provider
	switch c.Provider {
	case "", "auto":
		p = autoProvider(baseURL, getenv)
	default:
		var ok bool
		if p, ok = LookupProvider(c.Provider); !ok {
			if baseURL == "" {
				return fmt.Errorf("provider %q has no built-in endpoint in the native runtime: set model.base_url in %s to its OpenAI-compatible URL (and model.api_key), or use one of: %s", c.Provider, path, providerNames())
			}
			// An unknown provider with an explicit endpoint is a custom
			// server under another name.
			p, _ = LookupProvider("custom")
		}
	}
	c.BaseURL = baseURL
	if c.BaseURL == "" && p.BaseURLEnv != "" {
		c.BaseURL = getenv(p.BaseURLEnv)
	}
	if c.BaseURL == "" {
		c.BaseURL = p.BaseURL
	}
	if c.BaseURL == "" {
		return fmt.Errorf("provider %s needs an endpoint: set model.base_url in %s to the server's OpenAI-compatible URL (e.g. http://127.0.0.1:8080/v1)", p.Name, path)
	}
	c.APIKey = apiKey
	if c.APIKey == "" && p.KeyEnv != "" {
		c.APIKey = getenv(p.KeyEnv)
	}
	c.KeyHint = p.KeyEnv
	if c.APIKey == "" && needsKey(p) {
		// Hosted providers answer a keyless request with 401; saying so
		// here spares the request and names the fix.
		return fmt.Errorf("provider %s needs %s (or model.api_key in %s)", p.Name, p.KeyEnv, path)
	}
	return nil
}

// needsKey says a request to p without a key cannot succeed. Local servers
// take none, and custom is any server, whose key is optional.
func needsKey(p Provider) bool {
	return p.KeyEnv != "" && !p.Local && p.Name != "custom"
}
