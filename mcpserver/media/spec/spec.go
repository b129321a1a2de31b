// Package spec declares the media toolsets (vision, image_gen, tts) without
// implementing them: tool names, titles, descriptions, JSON schemas, hints,
// environment variables, and the availability checks that hide a tool with
// the reason. It is what the MCP front process serves to list these tools
// without linking the implementation in mcpserver/media (its HTTP clients,
// URL guard and audio handling), which runs in a worker process; the front
// process binds each tool to a handler that forwards the call there.
//
// The checks need to know which provider, model and key are configured, so
// the provider resolution lives here too, once: mcpserver/media resolves
// through the same functions before it calls a provider. config.yaml is read
// on every resolution, so edits apply without a restart.
//
// Keep this package light: the standard library, gopkg.in/yaml.v3,
// mcpserver/tooldef and internal/hermeshome only (TestLightDependencies
// enforces it), and no work at package initialisation.
package spec

import (
	"os"
	"os/exec"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Options is what the declarations and checks need to know.
type Options struct {
	// Home is HERMES_HOME, absolute; config.yaml is read from it.
	Home string
	// Getenv reads provider keys, base URLs and model overrides; nil means
	// os.Getenv.
	Getenv func(string) string
	// LookPath finds espeak-ng; nil means exec.LookPath.
	LookPath func(string) (string, error)
}

func (o Options) getenv(key string) string {
	if o.Getenv == nil {
		return os.Getenv(key)
	}
	return o.Getenv(key)
}

func (o Options) lookPath(file string) (string, error) {
	if o.LookPath == nil {
		return exec.LookPath(file)
	}
	return o.LookPath(file)
}

// Toolsets returns the vision, image_gen and tts toolsets, in that order.
func Toolsets(opts Options, bind func(toolName string) tooldef.Handler) []tooldef.Toolset {
	return []tooldef.Toolset{VisionToolset(opts, bind), ImageToolset(opts, bind), TTSToolset(opts, bind)}
}

// defaultOpenAIBase is where OpenAI-compatible calls go when nothing
// names another endpoint.
const defaultOpenAIBase = "https://api.openai.com/v1"

// config is the part of config.yaml these toolsets read.
type config struct {
	Model     mainModel `yaml:"model"`
	Auxiliary struct {
		Vision struct {
			Provider        string  `yaml:"provider"`
			Model           string  `yaml:"model"`
			BaseURL         string  `yaml:"base_url"`
			APIKey          string  `yaml:"api_key"`
			Timeout         float64 `yaml:"timeout"`
			DownloadTimeout float64 `yaml:"download_timeout"`
		} `yaml:"vision"`
	} `yaml:"auxiliary"`
	ImageGen struct {
		Provider string `yaml:"provider"`
		Model    string `yaml:"model"`
		BaseURL  string `yaml:"base_url"`
	} `yaml:"image_gen"`
	TTS TTSSettings `yaml:"tts"`
	Web struct {
		AllowPrivateURLs bool `yaml:"allow_private_urls"`
	} `yaml:"web"`
}

// TTSSettings is config.yaml's tts section: the provider, and the voice
// settings the implementation applies when it speaks.
type TTSSettings struct {
	Provider string `yaml:"provider"`
	OpenAI   struct {
		Model   string  `yaml:"model"`
		Voice   string  `yaml:"voice"`
		BaseURL string  `yaml:"base_url"`
		Speed   float64 `yaml:"speed"`
	} `yaml:"openai"`
	ElevenLabs struct {
		VoiceID string `yaml:"voice_id"`
		ModelID string `yaml:"model_id"`
		BaseURL string `yaml:"base_url"`
	} `yaml:"elevenlabs"`
	Espeak struct {
		Voice string `yaml:"voice"`
		Speed int    `yaml:"speed"`
	} `yaml:"espeak"`
}

// mainModel is `model:`, which Hermes allows as a bare name or a mapping.
type mainModel struct {
	Name     string
	Provider string
	BaseURL  string
	APIKey   string
}

func (m *mainModel) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		m.Name = n.Value
		return nil
	}
	var v struct {
		Default  string `yaml:"default"`
		Model    string `yaml:"model"`
		Provider string `yaml:"provider"`
		BaseURL  string `yaml:"base_url"`
		APIKey   string `yaml:"api_key"`
	}
	if err := n.Decode(&v); err != nil {
		return err
	}
	m.Name = v.Default
	if m.Name == "" {
		m.Name = v.Model
	}
	m.Provider, m.BaseURL, m.APIKey = v.Provider, v.BaseURL, v.APIKey
	return nil
}

// loadConfig reads config.yaml afresh: checks and calls see edits without
// a restart.
func loadConfig(home string) (config, error) {
	var c config
	err := hermeshome.Decode(home, &c)
	return c, err
}
