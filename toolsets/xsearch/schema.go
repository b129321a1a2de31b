package xsearch

// The description and input schema are the original's, word for word.

const description = "Search X (Twitter) posts, profiles, and threads using xAI's built-in X Search tool. " +
	"Read-only discovery only: use this for current discussion, reactions, or claims on public X rather than " +
	"general web pages. Do not use it to post, reply, like, DM, upload media, delete, or inspect the user's " +
	"authenticated X account — those require a separate authenticated X API surface outside this tool. " +
	"Available when xAI credentials are configured (SuperGrok OAuth or XAI_API_KEY)."

const inputSchema = `{
  "type": "object",
  "properties": {
    "query": {
      "type": "string", "maxLength": 100000,
      "description": "What to look up on X."
    },
    "allowed_x_handles": {
      "type": "array", "maxItems": 100,
      "items": {"type": "string", "maxLength": 8192},
      "description": "Optional list of X handles to include exclusively (max 10)."
    },
    "excluded_x_handles": {
      "type": "array", "maxItems": 100,
      "items": {"type": "string", "maxLength": 8192},
      "description": "Optional list of X handles to exclude (max 10)."
    },
    "from_date": {
      "type": "string", "maxLength": 8192,
      "description": "Optional start date in YYYY-MM-DD format."
    },
    "to_date": {
      "type": "string", "maxLength": 8192,
      "description": "Optional end date in YYYY-MM-DD format."
    },
    "enable_image_understanding": {
      "type": "boolean",
      "description": "Whether xAI should analyze images attached to matching X posts.",
      "default": false
    },
    "enable_video_understanding": {
      "type": "boolean",
      "description": "Whether xAI should analyze videos attached to matching X posts.",
      "default": false
    }
  },
  "required": ["query"]
}`

const outputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "provider": {"const": "xai"},
    "credential_source": {"type": "string"},
    "tool": {"const": "x_search"},
    "model": {"type": "string"},
    "query": {"type": "string"},
    "answer": {"type": "string"},
    "citations": {"type": "array"},
    "inline_citations": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "url": {},
          "title": {},
          "start_index": {},
          "end_index": {}
        }
      }
    },
    "x_search_calls": {"description": "How many X searches xAI ran, when it says; 0 means the answer is unsourced."},
    "degraded": {"type": "boolean", "description": "True when the answer came without citations: treat it as unsourced."},
    "degraded_reason": {"type": ["string", "null"]}
  },
  "required": ["success", "provider", "tool", "model", "query", "answer", "citations", "inline_citations", "degraded"]
}`
