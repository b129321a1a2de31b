package todo

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
