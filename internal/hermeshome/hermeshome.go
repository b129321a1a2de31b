// Package hermeshome locates the Hermes home directory and reads the parts of
// its config.yaml that the Go tools use. The file is shared with the Python
// Hermes, so everything not modelled here is left alone and unknown keys are
// never an error.
package hermeshome

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"gopkg.in/yaml.v3"
)

// EnvVar names the variable that relocates the Hermes home.
const EnvVar = "HERMES_HOME"

// ConfigFile is the config file name inside the home.
const ConfigFile = "config.yaml"

// Resolve returns the Hermes home: override when non-empty, else
// $HERMES_HOME, else the platform default (~/.hermes, or
// %LOCALAPPDATA%\hermes on Windows). The result is absolute and cleaned; the
// directory need not exist.
func Resolve(override string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	dir := override
	if dir == "" {
		dir = getenv(EnvVar)
	}
	if dir == "" {
		if runtime.GOOS == "windows" {
			if local := getenv("LOCALAPPDATA"); local != "" {
				return filepath.Join(local, "hermes"), nil
			}
		}
		home, err := userHome(getenv)
		if err != nil {
			return "", fmt.Errorf("locate the Hermes home: %w (set %s)", err, EnvVar)
		}
		return filepath.Join(home, ".hermes"), nil
	}
	dir, err := ExpandPath(dir, getenv)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve Hermes home %q: %w", dir, err)
	}
	return abs, nil
}

func userHome(getenv func(string) string) (string, error) {
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	return os.UserHomeDir()
}

// ExpandPath expands a leading ~ and $VAR / ${VAR} references, the way
// Hermes treats paths written in config.yaml.
func ExpandPath(p string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	p = os.Expand(p, getenv)
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`) {
		home, err := userHome(getenv)
		if err != nil {
			return "", fmt.Errorf("expand %q: %w", p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	return p, nil
}

// Config is the subset of config.yaml the Go tools read.
type Config struct {
	// Toolsets is Hermes' own toolset list; "kanban" in it marks an
	// orchestrator profile.
	Toolsets []string `yaml:"toolsets"`
	Skills   struct {
		ExternalDirs []string `yaml:"external_dirs"`
	} `yaml:"skills"`
	// HermesTools configures hermes-tools-mcp itself. It is our own section:
	// Hermes' top-level `toolsets` means something else (the agent's
	// toolsets) and must not be reinterpreted.
	HermesTools struct {
		Toolsets     []string `yaml:"toolsets"`
		ExcludeTools []string `yaml:"exclude_tools"`
	} `yaml:"hermes_tools"`
}

// LoadConfig reads <home>/config.yaml. A missing file is an empty config; a
// file that does not parse is an error naming the file and the line.
func LoadConfig(home string) (Config, error) {
	var cfg Config
	err := Decode(home, &cfg)
	return cfg, err
}

// Decode reads <home>/config.yaml into v, a struct of the keys the caller
// needs (each package reads its own section; unknown keys are fine). A
// missing file, or an empty home, leaves v as it is: the defaults. A file
// that does not parse is an error naming the file and the line: ignoring
// it could turn a setting such as a URL refusal into its default.
func Decode(home string, v any) error {
	if home == "" {
		return nil
	}
	path := filepath.Join(home, ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		return fmt.Errorf("parse %s: %w (fix the YAML, or move the file aside to start from defaults)", path, err)
	}
	return nil
}
