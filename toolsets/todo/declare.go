package todo

import (
	"encoding/json"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// ToolsetName is what users type in --toolsets.
const ToolsetName = "todo"

// ToolName is the wire name of the toolset's only tool.
const ToolName = "todo"

// SessionEnv names the variable that picks the session whose list a call
// uses when the call names none.
const SessionEnv = "HERMES_SESSION_ID"

// EnvVars returns the environment variables the toolset reads.
func EnvVars() []string { return []string{SessionEnv} }

// The statuses an item can have. The implementation normalises every item
// to one of these and counts them in the summary; the schemas below spell
// them out literally, for readability, and TestSchemasListTheStatuses keeps
// the two in step.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusCancelled  = "cancelled"
)

// Statuses returns the item statuses in the order the schemas list them. A
// function, not a shared slice, so no caller can change another's copy.
func Statuses() []string {
	return []string{StatusPending, StatusInProgress, StatusCompleted, StatusCancelled}
}

// declare returns the todo toolset with its tool bound to handle.
func declare(handle tooldef.Handler) tooldef.Toolset {
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: "A task list for the current session; a named session's list survives server restarts.",
		// Off by default: codex, Claude Code and most other MCP clients
		// have a plan or todo tool of their own, and a second one costs
		// context and splits the plan in two. Turn it on for clients
		// without one.
		Default: false,
		EnvVars: EnvVars(),
		Tools: []tooldef.Tool{{
			Name:         ToolName,
			Title:        "Session todo list",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// Writing without merge replaces the list; the same call
			// repeated leaves it as the first call did.
			Hints:   tooldef.Hints{Destructive: true, Idempotent: true},
			Handler: handle,
			// No Check: the tool needs no key or binary, and a store that
			// cannot be opened is reported by the call that needs it.
		}},
	}
}

const description = "Plan and track a multi-step task. Call with no arguments to see the current list. " +
	"Pass todos to write it: each item has an id, the content, and a status (pending, in_progress, completed, " +
	"cancelled). Without merge the list is replaced; with merge=true items are updated by id and new ids are " +
	"appended. Keep exactly one item in_progress, mark items completed as soon as they are done, and cancel " +
	"what no longer applies. Without session_id (and without HERMES_SESSION_ID) the list belongs to this " +
	"connection only: this server process over stdio, this session over HTTP; it is not saved and ends with it. " +
	"A named session's list is saved in the Hermes home and is still there after a restart."

const inputSchema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "description": "The items to write. Omit to read the list.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Stable identifier of the item."},
          "content": {"type": "string", "description": "What to do."},
          "status": {
            "type": "string",
            "enum": ["pending", "in_progress", "completed", "cancelled"],
            "description": "Where the item stands."
          }
        },
        "required": ["id", "content", "status"]
      }
    },
    "merge": {
      "type": "boolean",
      "description": "true: update items by id and append new ones; false (default): replace the whole list."
    },
    "session_id": {
      "type": "string",
      "description": "Named list to use, saved in the Hermes home across restarts and shared by every connection that names it; defaults to HERMES_SESSION_ID, else this connection's own unsaved list."
    }
  },
  "required": []
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string"},
          "content": {"type": "string"},
          "status": {"enum": ["pending", "in_progress", "completed", "cancelled"]}
        },
        "required": ["id", "content", "status"]
      }
    },
    "summary": {
      "type": "object",
      "properties": {
        "total": {"type": "integer"},
        "pending": {"type": "integer"},
        "in_progress": {"type": "integer"},
        "completed": {"type": "integer"},
        "cancelled": {"type": "integer"}
      },
      "required": ["total", "pending", "in_progress", "completed", "cancelled"]
    },
    "session_id": {"type": "string", "description": "The named session whose list this is; absent for the connection's own list."}
  },
  "required": ["todos", "summary"]
}`
