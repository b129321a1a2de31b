// Package hermeshome locates the Hermes home directory and reads the parts of
// its config.yaml that the Go tools use. The file is shared with the Python
// Hermes, so everything not modelled here is left alone and unknown keys are
// never an error.
package hermeshome

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-go/hermes/internal/configcheck"

	"github.com/hermes-go/hermes/internal/safefile"
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
	Toolsets StringList `yaml:"toolsets"`
	Skills   struct {
		// ExternalDirs may be one path or a list, as Hermes reads it.
		ExternalDirs StringList `yaml:"external_dirs"`
	} `yaml:"skills"`
	// HermesTools configures hermes-tools-mcp itself. It is our own section:
	// Hermes' top-level `toolsets` means something else (the agent's
	// toolsets) and must not be reinterpreted.
	HermesTools struct {
		Toolsets     []string `yaml:"toolsets"`
		ExcludeTools []string `yaml:"exclude_tools"`
	} `yaml:"hermes_tools"`
}

// StringList is a config value Hermes reads as a list of strings but
// also accepts as a single string (one item), as users write it. Items
// that are not scalars are dropped, and so is a mapping or a null: Hermes
// ignores those rather than failing, and so must a reader of the same file.
type StringList []string

// UnmarshalYAML accepts a scalar or a sequence of scalars.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	*l = nil
	switch n.Kind {
	case yaml.AliasNode:
		return l.UnmarshalYAML(n.Alias)
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			*l = StringList{n.Value}
		}
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind == yaml.AliasNode {
				item = item.Alias
			}
			if item.Kind == yaml.ScalarNode && item.Tag != "!!null" {
				*l = append(*l, item.Value)
			}
		}
	}
	return nil
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
	return DecodeFile(filepath.Join(home, ConfigFile), v)
}

// DecodeFile is Decode for a config file at another path (a profile's).
func DecodeFile(path string, v any) error {
	doc, err := load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := doc.Decode(v); err != nil {
		return fmt.Errorf("parse %s: %w (fix the YAML, or move the file aside to start from defaults)", path, err)
	}
	return nil
}

// loadedConfigs remembers the last parse of each config file. Every
// toolset reads its own section on every check and call, so that an edit
// applies without a restart; parsing (and even reading) a real config.yaml
// once per reader cost the server's start-up milliseconds: ~16 readers run
// before the first response. A parse is reused while the file is provably
// unchanged (see unchanged: the rule git uses for its index), and
// otherwise while its bytes are identical, so the cache never serves an
// edited file's old settings.
// Decoding from a shared node only reads it.
var loadedConfigs = struct {
	sync.Mutex
	byPath map[string]loadedConfig
}{byPath: map[string]loadedConfig{}}

type loadedConfig struct {
	info   fs.FileInfo
	readAt time.Time
	data   []byte
	doc    *yaml.Node
}

// racyWindow is how close to a read a modification time must not be for
// the file to be trusted unchanged by its metadata alone: coarser than any
// file system's timestamp granularity in use.
const racyWindow = 2 * time.Second

func load(path string) (*yaml.Node, error) {
	loadedConfigs.Lock()
	prev, ok := loadedConfigs.byPath[path]
	loadedConfigs.Unlock()
	info, err := os.Stat(path)
	if err != nil {
		return nil, statError(path, err)
	}
	if ok && unchanged(prev, info) {
		return prev.doc, nil
	}
	readAt := time.Now()
	// Read without blocking: a FIFO put in place of config.yaml would
	// otherwise hang every command that reads it, past SIGTERM.
	data, err := safefile.ReadUserFile(path, safefile.MaxConfigSize)
	if err != nil {
		return nil, err
	}
	doc := prev.doc
	if !ok || !bytes.Equal(prev.data, data) {
		doc = new(yaml.Node)
		if err := yaml.Unmarshal(data, doc); err != nil {
			// Name the section the error is in: a stray tab under
			// mcp_servers must not read as a problem with the model.
			if syn := configcheck.Check(data).Syntax; syn != nil {
				err = syn
			}
			return nil, fmt.Errorf("parse %s: %w (fix the YAML, or move the file aside to start from defaults)", path, err)
		}
	}
	loadedConfigs.Lock()
	loadedConfigs.byPath[path] = loadedConfig{info: info, readAt: readAt, data: data, doc: doc}
	loadedConfigs.Unlock()
	return doc, nil
}

// unchanged reports whether the file is provably the one prev read: same
// inode, size, modification and change times (the change time cannot be
// set back by tools that restore an mtime), and neither time so close to
// the read that an edit within the same timestamp tick could hide.
func unchanged(prev loadedConfig, info fs.FileInfo) bool {
	ctime, ok := changeTime(info)
	prevCtime, prevOK := changeTime(prev.info)
	return ok && prevOK && os.SameFile(prev.info, info) && prev.info.Size() == info.Size() &&
		prev.info.ModTime().Equal(info.ModTime()) && prevCtime.Equal(ctime) &&
		prev.readAt.Sub(info.ModTime()) > racyWindow && prev.readAt.Sub(ctime) > racyWindow
}

func statError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fmt.Errorf("read %s: %w", path, err)
}

// CheckConfig reports the keys in <home>/config.yaml that the original does
// not know (a misspelt key is otherwise ignored without a word by both
// programs), with the nearest known key. A missing file has nothing to
// report; a file that cannot be read or parsed is the error Decode gives.
func CheckConfig(home string) (configcheck.Result, error) {
	path := filepath.Join(home, ConfigFile)
	if _, err := load(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return configcheck.Result{}, nil
		}
		return configcheck.Result{}, err
	}
	loadedConfigs.Lock()
	data := loadedConfigs.byPath[path].data
	loadedConfigs.Unlock()
	return configcheck.Check(data), nil
}
