package memory

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
      "type": "string", "maxLength": 100000,
      "description": "The entry content. Required for 'add' and 'replace'. For 'replace' it is the COMPLETE new entry text: the whole matched entry is overwritten, so include everything you want to keep. Alias: 'new_text' is also accepted (same full-entry meaning)."
    },
    "old_text": {
      "type": "string", "maxLength": 100000,
      "description": "REQUIRED for 'replace' and 'remove' (single-op shape): a short unique substring IDENTIFYING the existing entry to modify -- it locates the entry, it is not spliced out. Omit only for 'add'."
    },
    "new_text": {
      "type": "string", "maxLength": 100000,
      "description": "Alias for 'content' (single-op shape): the COMPLETE new entry for 'replace', not a patch of old_text. If both are set, 'content' wins."
    },
    "operations": {
      "type": "array", "maxItems": 100,
      "description": "Batch shape: a list of operations applied atomically in one call against the final char budget. Preferred when making multiple changes or consolidating to make room. Each item is {action, content?, old_text?}.",
      "items": {
        "type": "object",
        "properties": {
          "action": {"type": "string", "enum": ["add", "replace", "remove"]},
          "content": {"type": "string", "maxLength": 100000, "description": "Entry content for add/replace. For replace, the COMPLETE new entry (whole entry is overwritten). Alias: 'new_text'."},
          "new_text": {"type": "string", "maxLength": 100000, "description": "Alias for 'content' in a batch op."},
          "old_text": {"type": "string", "maxLength": 100000, "description": "Substring identifying the entry for replace/remove."}
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
