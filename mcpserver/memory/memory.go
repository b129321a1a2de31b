// Package memory serves Hermes' curated memory (tools/memory_tool.py) to
// MCP clients as the `memory` toolset: one tool that adds, replaces,
// removes and reads short entries in <HERMES_HOME>/memories/MEMORY.md (the
// agent's notes) and USER.md (what it knows about the user).
//
// The files are Hermes' own: entries separated by a line holding only "§",
// bounded by character limits from config.yaml, read by Hermes into the
// system prompt of every new session. Writes take the same lock file
// Hermes takes and replace the file atomically, so Hermes and any number
// of MCP servers can write at once without losing an entry.
package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
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
const ToolsetName = "memory"

type kit struct{ opts Options }

// Toolset returns the memory toolset.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts}
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: "Keep durable notes about the environment and the user in Hermes' memory files, shared with every Hermes session.",
		// On by default: it is Hermes' own memory, which the agent would
		// have outside MCP too, and nothing else gives an MCP client a way
		// to keep what it learns for the next session.
		Default:      true,
		Instructions: "Memory persists across sessions: save durable facts about the user and the environment, not task progress.",
		Tools: []tooldef.Tool{{
			Name:         "memory",
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

const description = "Save what is worth remembering across sessions in Hermes' persistent memory. target " +
	"'memory' holds your own notes (facts about the environment, project conventions, tool quirks, lessons " +
	"learned); target 'user' holds what you know about the user (preferences, habits, how they like to work). " +
	"Entries are short and every one is loaded into future sessions, so keep them dense and lasting: no task " +
	"progress, no secrets, nothing you can look up again. action 'add' appends content; 'replace' swaps the entry " +
	"containing old_text for content; 'remove' deletes the entry containing old_text (old_text is a short phrase " +
	"unique to one entry); 'read' shows the current entries. Each store has a character limit: when it is full, " +
	"merge or drop entries before adding."

const inputSchema = `{
  "type": "object",
  "properties": {
    "action": {
      "type": "string",
      "enum": ["add", "replace", "remove", "read"],
      "description": "add a new entry, replace or remove the entry containing old_text, or read the store."
    },
    "target": {
      "type": "string",
      "enum": ["memory", "user"],
      "description": "'memory' for your notes (MEMORY.md), 'user' for the user profile (USER.md)."
    },
    "content": {
      "type": "string",
      "description": "The entry text for add, or the new text for replace."
    },
    "old_text": {
      "type": "string",
      "description": "For replace and remove: a short phrase found in exactly one entry."
    }
  },
  "required": ["action", "target"]
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "target": {"enum": ["memory", "user"]},
    "entries": {"type": "array", "items": {"type": "string"}},
    "usage": {"type": "string"},
    "entry_count": {"type": "integer", "minimum": 0},
    "message": {"type": "string"}
  },
  "required": ["success", "target", "entries", "usage", "entry_count", "message"]
}`

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

type args struct {
	Action  string `json:"action"`
	Target  string `json:"target"`
	Content string `json:"content"`
	OldText string `json:"old_text"`
}

func failure(msg string, extra map[string]any) tooldef.Result {
	v := map[string]any{"success": false, "error": msg}
	for k, x := range extra {
		v[k] = x
	}
	return tooldef.Failure(v)
}

func (k *kit) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return failure(fmt.Sprintf("Invalid arguments: %v", err), nil), nil
	}
	cfg, err := k.settings()
	if err != nil {
		return tooldef.Result{}, err
	}
	switch {
	case a.Target == TargetMemory && !enabled(cfg.Memory.MemoryEnabled):
		return failure("The 'memory' store is switched off (memory.memory_enabled: false in config.yaml).", nil), nil
	case a.Target == TargetUser && !enabled(cfg.Memory.UserProfileEnabled):
		return failure("The 'user' store is switched off (memory.user_profile_enabled: false in config.yaml).", nil), nil
	case a.Target != TargetMemory && a.Target != TargetUser:
		return failure(fmt.Sprintf("Invalid target '%s'. Use 'memory' or 'user'.", a.Target), nil), nil
	}
	st := k.store(cfg)
	var out Outcome
	switch a.Action {
	case "read":
		entries, err := st.Read(a.Target)
		if err != nil {
			return tooldef.Result{}, err
		}
		out = Outcome{OK: true, Message: fmt.Sprintf("%d entries.", len(entries)), Entries: entries}
	case "add":
		out, err = st.Add(ctx, a.Target, a.Content)
	case "replace":
		out, err = st.Replace(ctx, a.Target, a.OldText, a.Content)
	case "remove":
		out, err = st.Remove(ctx, a.Target, a.OldText)
	default:
		return failure(fmt.Sprintf("Unknown action '%s'. Use add, replace, remove or read.", a.Action), nil), nil
	}
	if err != nil {
		return tooldef.Result{}, err
	}
	entries := out.Entries
	if entries == nil {
		entries = []string{}
	}
	if !out.OK {
		extra := map[string]any{}
		switch {
		case out.Matches != nil:
			extra["matches"] = out.Matches
		case out.Backup != "":
			extra["drift_backup"] = out.Backup
		case out.Entries != nil:
			extra["current_entries"] = entries
			extra["usage"] = st.Usage(a.Target, entries)
		}
		return failure(out.Message, extra), nil
	}
	return tooldef.OK(map[string]any{
		"success":     true,
		"target":      a.Target,
		"entries":     entries,
		"usage":       st.Usage(a.Target, entries),
		"entry_count": len(entries),
		"message":     out.Message,
	}), nil
}
