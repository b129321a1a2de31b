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
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/internal/pystr"
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

// description is the original's, with a paragraph for this server's read
// action: an MCP client sees saved memory only as it was when its session
// started.
const description = "Save durable facts to persistent memory that survive across sessions. Memory is " +
	"injected into every future turn, so keep entries compact and high-signal.\n\n" +
	"HOW: make ALL your changes in ONE call via an 'operations' array (each item: " +
	"{action, content?, old_text?}). The batch applies atomically and the char limit is " +
	"checked only on the FINAL result — so a single call can remove/replace stale entries " +
	"to free room AND add new ones, even when an add alone would overflow. The response " +
	"reports current/limit chars and confirms completion; one batch call finishes the " +
	"update, so don't repeat it. Use the bare action/content/old_text fields only for a " +
	"single lone change.\n\n" +
	"WHEN: only for facts that apply to EVERY session regardless of task: who the user " +
	"is, stable environment facts, standing conventions with no task home. Anything " +
	"learned while doing a task (procedures, pitfalls, and the user's preferences and " +
	"corrections for that kind of work) belongs in the task's skill via skill_manage, " +
	"where it loads only when relevant; memory is injected into every turn and must " +
	"stay small.\n\n" +
	"IF FULL: an add is rejected with the current entries shown. Reissue as ONE batch that " +
	"removes or shortens enough stale entries and adds the new one together.\n\n" +
	"TARGETS: 'user' = who the user is (name, role, preferences, style). 'memory' = your " +
	"notes (environment, conventions, tool quirks, lessons).\n\n" +
	"SKIP: trivial/obvious info, easily re-discovered facts, raw data dumps, task progress, " +
	"completed-work logs, temporary TODO state (use session_search for those). Reusable " +
	"procedures belong in a skill, not memory.\n\n" +
	"READ: action 'read' returns a store's current entries and changes nothing. Saved memory " +
	"reaches you as it was when this session started; read before replacing or removing " +
	"when you need the exact text of an entry."

// inputSchema is the original's parameters, with "read" added to the
// action enum; required is only target, as there.
const inputSchema = `{
  "type": "object",
  "properties": {
    "action": {
      "type": "string",
      "enum": ["add", "replace", "remove", "read"],
      "description": "The action to perform (single-op shape). Omit when using 'operations'. 'read' (an addition of this server) returns the current entries and changes nothing."
    },
    "target": {
      "type": "string",
      "enum": ["memory", "user"],
      "description": "Which memory store: 'memory' for personal notes, 'user' for user profile."
    },
    "content": {
      "type": "string",
      "description": "The entry content. Required for 'add' and 'replace'. For 'replace' it is the COMPLETE new entry text: the whole matched entry is overwritten, so include everything you want to keep. Alias: 'new_text' is also accepted (same full-entry meaning)."
    },
    "old_text": {
      "type": "string",
      "description": "REQUIRED for 'replace' and 'remove' (single-op shape): a short unique substring IDENTIFYING the existing entry to modify -- it locates the entry, it is not spliced out. Omit only for 'add'."
    },
    "new_text": {
      "type": "string",
      "description": "Alias for 'content' (single-op shape): the COMPLETE new entry for 'replace', not a patch of old_text. If both are set, 'content' wins."
    },
    "operations": {
      "type": "array",
      "description": "Batch shape: a list of operations applied atomically in one call against the final char budget. Preferred when making multiple changes or consolidating to make room. Each item is {action, content?, old_text?}.",
      "items": {
        "type": "object",
        "properties": {
          "action": {"type": "string", "enum": ["add", "replace", "remove"]},
          "content": {"type": "string", "description": "Entry content for add/replace. For replace, the COMPLETE new entry (whole entry is overwritten). Alias: 'new_text'."},
          "new_text": {"type": "string", "description": "Alias for 'content' in a batch op."},
          "old_text": {"type": "string", "description": "Substring identifying the entry for replace/remove."}
        },
        "required": ["action"]
      }
    }
  },
  "required": ["target"]
}`

// outputSchema covers the two successful replies: a write's (done, note,
// what it overwrote; no entries) and read's (the entries).
const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "done": {"const": true},
    "target": {"enum": ["memory", "user"]},
    "usage": {"type": "string"},
    "entry_count": {"type": "integer", "minimum": 0},
    "message": {"type": "string"},
    "replaced_entry": {"type": "string"},
    "removed_entry": {"type": "string"},
    "replaced_entries": {"type": "object", "additionalProperties": {"type": "string"}},
    "removed_entries": {"type": "object", "additionalProperties": {"type": "string"}},
    "note": {"type": "string"},
    "entries": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["success", "target", "usage", "entry_count"]
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

// args are the call's arguments as given: the original tells an absent
// argument from null (a null action reads "None" in its refusal, a null
// content lets new_text stand in), so each is kept raw until read.
type args map[string]json.RawMessage

// str returns the argument as a string, whether it was a string, and
// whether it was given at all (null counts as not given).
func (a args) str(key string) (string, bool) {
	raw, ok := a[key]
	if !ok || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		// Not a string (the schema check lets none through); the
		// original would fail on it as on a missing value.
		return "", false
	}
	return s, true
}

// ops decodes a batch. An item that is null or not an object is an op
// with no action, which the batch refuses by its position.
func ops(raw json.RawMessage) ([]Op, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil, false
	}
	out := make([]Op, len(items))
	for i, item := range items {
		var a args
		if json.Unmarshal(item, &a) != nil {
			continue
		}
		out[i].Action, _ = a.str("action")
		out[i].Content, _ = a.str("content")
		out[i].NewText, _ = a.str("new_text")
		out[i].OldText, _ = a.str("old_text")
	}
	return out, true
}

func (k *kit) handle(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	a, err := tooldef.DecodeArgs[args](raw)
	if err != nil {
		return toolError(fmt.Sprintf("Invalid arguments: %v", err)).result(), nil
	}
	cfg, err := k.settings()
	if err != nil {
		return tooldef.Result{}, err
	}
	st := k.store(cfg)

	// The dispatch order is the original's: content falls back to
	// new_text, a missing or null target is "memory", the target is
	// checked, then operations (when truthy) win over action.
	content, hasContent := a.str("content")
	if !hasContent {
		content, _ = a.str("new_text")
	}
	oldText, _ := a.str("old_text")
	target, ok := a.str("target")
	if !ok {
		if _, given := a["target"]; given && string(a["target"]) != "null" {
			target = string(a["target"]) // not a string: quoted as given
		} else {
			target = TargetMemory
		}
	}
	if target != TargetMemory && target != TargetUser {
		return failure(boundError(fmt.Sprintf("Invalid memory target '%s'. Use 'memory' or 'user'.", target))).result(), nil
	}
	on := enabled(cfg.Memory.MemoryEnabled)
	if target == TargetUser {
		on = enabled(cfg.Memory.UserProfileEnabled)
	}
	if !on {
		return failure(fmt.Sprintf("Built-in %s writes are disabled in memory config.", fileName(target)),
			field{"target", target}).result(), nil
	}

	if rawOps, given := a["operations"]; given && pystr.TruthyJSON(rawOps) {
		list, ok := ops(rawOps)
		if !ok {
			return toolError("operations must be a list of {action, content?, old_text?} objects.").result(), nil
		}
		out, err := st.Batch(ctx, target, list)
		if err != nil {
			return tooldef.Result{}, err
		}
		return out.result(), nil
	}

	action, ok := a.str("action")
	if !ok {
		if v, given := a["action"]; given && string(v) == "null" {
			action = "None" // how the original prints a null action
		}
	}
	var out Reply
	switch action {
	case "read":
		return k.read(st, target), nil
	case "add":
		if content == "" {
			return toolError("Content is required for 'add' action.").result(), nil
		}
		out, err = st.Add(ctx, target, content)
	case "replace", "remove":
		if oldText == "" {
			return k.needsOldText(st, target, action).result(), nil
		}
		if action == "remove" {
			out, err = st.Remove(ctx, target, oldText)
			break
		}
		if content == "" {
			return toolError("content is required for 'replace' action.").result(), nil
		}
		out, err = st.Replace(ctx, target, oldText, content)
	default:
		return toolError(fmt.Sprintf("Unknown action '%s'. Use: add, replace, remove", action)).result(), nil
	}
	if err != nil {
		return tooldef.Result{}, err
	}
	return out.result(), nil
}

// needsOldText is the original's recoverable refusal of a replace or
// remove without old_text: the entries come back so the model can pick
// one and reissue the call.
func (k *kit) needsOldText(st *Store, target, action string) Reply {
	hint := ""
	if action == "replace" {
		hint = " For 'replace', content is the COMPLETE new entry -- the whole matched entry is overwritten, not just the old_text span."
	}
	entries, _ := st.Read(target) // an unreadable store shows as empty here; the write refuses it
	return failure(fmt.Sprintf("'%s' needs old_text -- a short unique substring of the entry to %s. None was "+
		"provided. Reissue the %s with old_text set to part of one of the current_entries below.%s",
		action, action, action, hint),
		field{"current_entries", nonNil(entries)}, field{"usage", st.shortUsage(target, entries)})
}

// read answers this server's read action: the entries, which is the
// point of reading, with the usage a write reports. A drifted file reads
// as the original loads it; an unreadable one is refused with the cause.
func (k *kit) read(st *Store, target string) tooldef.Result {
	entries, err := st.Read(target)
	if err != nil {
		return failure(fmt.Sprintf("Could not read %s (%v). Nothing was changed; fix or move the file, then retry.",
			fileName(target), err)).result()
	}
	entries = nonNil(entries)
	return Reply{OK: true, body: object{
		{"success", true}, {"target", target}, {"usage", st.Usage(target, entries)},
		{"entry_count", len(entries)}, {"entries", entries},
	}}.result()
}
