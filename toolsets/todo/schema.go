package todo

// description is the original's (tools/todo_tool.py) plus where the list
// lives here.
const description = "Track a task list for multi-step work (3+ steps). Use for complex tasks with 3+ steps or " +
	"when the user provides multiple tasks. For 'all N items' tasks, enumerate every instance as its own " +
	"checklist item so none are silently dropped. Call with no parameters to read the current list.\n" +
	"List order is priority. Only ONE item in_progress at a time. Break large phases into subtasks via parent. " +
	"Mark an item completed only after the work is verified done, never based on intent. If something fails, " +
	"cancel it and add a revised item. Always returns the full current list.\n" +
	"Statuses: pending, in_progress, completed, cancelled. " +
	"Without session_id (and without HERMES_SESSION_ID) the list belongs to this " +
	"connection only: this server process over stdio, this session over HTTP; it is not saved and ends with it. " +
	"A named session's list is saved in the Hermes home and is still there after a restart."

const inputSchema = `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array", "maxItems": 1000,
      "description": "Task items to write.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "maxLength": 8192, "description": "Stable identifier of the item."},
          "content": {"type": "string", "maxLength": 100000, "description": "Task description"},
          "status": {
            "type": "string",
            "enum": ["pending", "in_progress", "completed", "cancelled"],
            "description": "Where the item stands."
          },
          "parent": {"type": "string", "maxLength": 8192, "description": "Optional id of another item, making this a nested subtask. Omit for top-level."}
        },
        "required": ["id", "content", "status"]
      }
    },
    "merge": {
      "type": "boolean",
      "description": "true: update existing items by id, add new ones. false (default): replace the entire list with a fresh plan."
    },
    "session_id": {
      "type": "string", "maxLength": 8192,
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
          "status": {"enum": ["pending", "in_progress", "completed", "cancelled"]},
          "parent": {"type": "string"}
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
