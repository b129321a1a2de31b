package sessions

// The tool's description and schemas, kept as constants so the schemas are
// advertised byte for byte as written.

const description = "Recall past conversations with the user from Hermes' session history. With query it " +
	"runs a full-text search and returns the best-matching conversations, the top one with the messages around " +
	"the match and the start and end of its session (all words must match; write OR between words for either; a " +
	"query matching over 10,000 messages returns the most recent matches). " +
	"With session_id and around_message_id it returns the messages around that message, to scroll a conversation " +
	"(re-anchor on the first or last id to move). With session_id alone it returns that session. With no " +
	"arguments it lists recent sessions. Use it when the user refers to earlier work or when context from a " +
	"previous session would help."

const inputSchema = `{
  "type": "object",
  "properties": {
    "query": {"type": "string", "maxLength": 100000, "description": "Words to search for in past messages."},
    "limit": {"type": "integer", "description": "How many conversations to return (default 3, at most 10; browsing defaults to 10)."},
    "sort": {"type": "string", "enum": ["newest", "oldest"], "description": "Order matches or sessions by time instead of by relevance."},
    "session_id": {"type": "string", "maxLength": 8192, "description": "A session to read, as returned by an earlier call."},
    "around_message_id": {"type": "integer", "description": "With session_id: the message to centre the window on."},
    "window": {"type": "integer", "description": "Messages on each side of around_message_id (default 5, 1 to 20)."},
    "role_filter": {"type": "string", "maxLength": 8192, "description": "Comma-separated roles to search (default 'user,assistant'; add 'tool' for tool output)."},
    "profile": {"type": "string", "maxLength": 8192, "description": "Search another Hermes profile's history instead of this one's ('default' for the main profile)."}
  },
  "required": []
}`

const messageSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "integer"},
    "role": {"type": "string"},
    "content": {"type": "string"},
    "timestamp": {"type": ["number", "null"]},
    "tool_name": {"type": "string"},
    "tool_calls": {"type": "array", "items": {"type": "string"}},
    "is_anchor": {"const": true}
  },
  "required": ["id", "role", "content", "timestamp"]
}`

const messagesSchema = `{"type": "array", "items": ` + messageSchema + `}`

const sessionMetaSchema = `{
  "type": "object",
  "properties": {
    "when": {"type": "string"},
    "source": {"type": "string"},
    "model": {"type": "string"},
    "title": {"type": ["string", "null"]}
  },
  "required": ["when", "source", "model", "title"]
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "mode": {"enum": ["discover", "scroll", "read", "browse"]},
    "query": {"type": "string"},
    "count": {"type": "integer", "minimum": 0},
    "message": {"type": "string"},
    "results": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "session_id": {"type": "string"},
          "parent_session_id": {"type": "string"},
          "when": {"type": "string"},
          "source": {"type": "string"},
          "model": {"type": "string"},
          "title": {"type": ["string", "null"]},
          "matched_role": {"type": "string"},
          "match_message_id": {"type": "integer"},
          "snippet": {"type": "string"},
          "detail": {"enum": ["full", "compact"]},
          "bookend_start": ` + messagesSchema + `,
          "messages": ` + messagesSchema + `,
          "bookend_end": ` + messagesSchema + `,
          "messages_before": {"type": "integer"},
          "messages_after": {"type": "integer"}
        },
        "required": ["session_id", "when", "source", "model", "title", "matched_role", "match_message_id",
          "snippet", "detail", "bookend_start", "messages", "bookend_end", "messages_before", "messages_after"]
      }
    },
    "sessions_searched": {"type": "integer"},
    "session_id": {"type": "string"},
    "around_message_id": {"type": "integer"},
    "session_meta": ` + sessionMetaSchema + `,
    "window": {"type": "integer"},
    "messages": ` + messagesSchema + `,
    "messages_before": {"type": "integer"},
    "messages_after": {"type": "integer"},
    "total_messages": {"type": "integer"},
    "omitted": {"type": "integer"},
    "sessions": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "session_id": {"type": "string"},
          "when": {"type": "string"},
          "source": {"type": "string"},
          "model": {"type": "string"},
          "title": {"type": ["string", "null"]},
          "message_count": {"type": "integer"},
          "preview": {"type": "string"},
          "ended": {"type": "boolean"}
        },
        "required": ["session_id", "when", "source", "model", "title", "message_count", "preview"]
      }
    }
  },
  "required": ["success", "mode"],
  "anyOf": [
    {"properties": {"mode": {"const": "discover"}}, "required": ["query", "results", "count"]},
    {"properties": {"mode": {"const": "scroll"}}, "required": ["session_id", "around_message_id", "session_meta", "window", "messages", "messages_before", "messages_after"]},
    {"properties": {"mode": {"const": "read"}}, "required": ["session_id", "session_meta", "messages", "total_messages", "omitted"]},
    {"properties": {"mode": {"const": "browse"}}, "required": ["sessions", "count"]}
  ]
}`
