// Package memory serves Hermes' curated memory (tools/memory_tool.py) to
// MCP clients as the `memory` toolset: one tool that adds, replaces and
// removes short entries in <HERMES_HOME>/memories/MEMORY.md (the agent's
// notes) and USER.md (what it knows about the user), one at a time or as
// an all-or-nothing batch, and (this server's addition) reads them.
//
// The files are Hermes' own: entries separated by a line holding only "§",
// bounded by character limits from config.yaml, read by Hermes into the
// system prompt of every new session. Writes take the same lock file
// Hermes takes, refuse a file that would not survive a rewrite (the
// original's drift rule), and replace the file atomically in the bytes
// Hermes writes, so Hermes and any number of MCP servers can write at once
// without losing an entry or each other's format.
package memory

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the memory toolset.
type Options struct {
	// Home is HERMES_HOME, absolute; memory lives in Home/memories.
	Home string
	// ConfigPath is the config.yaml holding the memory settings; empty
	// means Home/config.yaml. It is read on every call, so a change
	// applies without a restart.
	ConfigPath string
	// Now stamps drift backups; nil means time.Now.
	Now func() time.Time
}

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.Memory

type kit struct{ opts Options }

// Toolset returns the memory toolset.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts}
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "Memory persists across sessions: save durable facts about the user and the environment, not task progress.",
		Tools: []tooldef.Tool{{
			Name:         catalog.MemoryTool,
			Title:        "Hermes memory",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// Replace and remove overwrite entries; repeating any action
			// with the same arguments changes nothing further.
			Hints:   tooldef.Hints{Destructive: true, Idempotent: true},
			Handler: k.handle,
			Check:   k.check,
		}},
	}
}

// settings are the memory keys of config.yaml.
type settings struct {
	Memory struct {
		MemoryEnabled      *bool `yaml:"memory_enabled"`
		UserProfileEnabled *bool `yaml:"user_profile_enabled"`
		MemoryCharLimit    int   `yaml:"memory_char_limit"`
		UserCharLimit      int   `yaml:"user_char_limit"`
	} `yaml:"memory"`
}

func (k *kit) configPath() string {
	if k.opts.ConfigPath != "" {
		return k.opts.ConfigPath
	}
	return filepath.Join(k.opts.Home, hermeshome.ConfigFile)
}

func (k *kit) settings() (settings, error) {
	var s settings
	if err := hermeshome.DecodeFile(k.configPath(), &s); err != nil {
		return s, fmt.Errorf("the memory settings: %w", err)
	}
	return s, nil
}

func enabled(p *bool) bool { return p == nil || *p }

func (k *kit) check() error {
	s, err := k.settings()
	if err != nil {
		return err
	}
	if !enabled(s.Memory.MemoryEnabled) && !enabled(s.Memory.UserProfileEnabled) {
		return fmt.Errorf("memory is switched off in %s (memory.memory_enabled and memory.user_profile_enabled are false)", k.configPath())
	}
	return nil
}

func (k *kit) store(s settings) *Store {
	return &Store{
		Dir:    filepath.Join(k.opts.Home, "memories"),
		Limits: map[string]int{TargetMemory: s.Memory.MemoryCharLimit, TargetUser: s.Memory.UserCharLimit},
		Now:    k.opts.Now,
	}
}
