package web

// The descriptions and input schemas are the original's (tools/web_tools.py),
// with web_extract's offset argument added: ours, for clients that cannot
// read the stored full text with a file tool.

const searchDescription = "Search the web for information. Returns up to 5 results by default with titles, URLs, " +
	"and descriptions. The query is passed through to the configured backend, so operators such as site:domain, " +
	"filetype:pdf, intitle:word, -term, and \"exact phrase\" may work when the backend supports them."

const extractDescription = "Extract content from web page URLs. Returns clean page content in markdown/text " +
	"(no LLM summarization — fast). Also works with PDF URLs (arxiv papers, documents) — pass the PDF link directly. " +
	"Pages within the char budget (default 15000) return whole; larger pages return a head+tail window with a footer " +
	"telling you the full text's saved file path and the read_file call to page through the omitted middle. " +
	"Inline images appear as [IMAGE: alt] placeholders; real image URLs are kept as links. If a URL fails or times " +
	"out, use the browser tool instead. A cut page also gives total_chars and next_offset: call again with that " +
	"offset to read the page on, char_limit characters at a time, until next_offset is null."

const searchInputSchema = `{
  "type": "object",
  "properties": {
    "query": {
      "type": "string", "maxLength": 100000,
      "description": "The search query to look up on the web. You may include backend-supported operators such as site:example.com, filetype:pdf, intitle:word, -term, or \"exact phrase\"."
    },
    "limit": {
      "type": "integer",
      "description": "Maximum number of results to return. Defaults to 5.",
      "minimum": 1,
      "maximum": 100,
      "default": 5
    }
  },
  "required": ["query"]
}`

// Firecrawl's rows reach the model as Firecrawl sent them, so only the
// url is certain.
const searchOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"const": true},
    "data": {
      "type": "object",
      "properties": {
        "web": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "url": {"type": "string"},
              "title": {"type": "string"},
              "description": {"type": "string"},
              "position": {"type": "integer", "minimum": 1}
            }
          }
        },
        "served_by": {"type": "string", "description": "The keyless vendor that answered, when it is not the one the call went to."},
        "rescued_from": {"type": "string", "description": "The configured backend that failed this call before the keyless tier answered it."},
        "backend_error": {"type": "string", "description": "Why the configured backend failed this call."}
      },
      "required": ["web"]
    }
  },
  "required": ["success", "data"]
}`

const extractInputSchema = `{
  "type": "object",
  "properties": {
    "urls": {
      "type": "array",
      "items": {"type": "string", "maxLength": 8192},
      "description": "List of URLs to extract content from (max 5 URLs per call)",
      "maxItems": 5
    },
    "char_limit": {
      "type": "integer",
      "description": "Optional per-page character budget sent back (default 15000). Pages larger than this are head+tail truncated with the full text stored to disk. Raise it when you need more of a long page inline.",
      "minimum": 2000
    },
    "offset": {
      "type": "integer",
      "description": "Optional: read a long page on from this character offset, the next_offset a cut result gave. Returns char_limit characters from there and the next offset, or says the page has ended.",
      "minimum": 0,
      "maximum": 2001000
    }
  },
  "required": ["urls"]
}`

const extractOutputSchema = `{
  "type": "object",
  "properties": {
    "results": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "url": {"type": "string"},
          "title": {"type": "string"},
          "content": {"type": "string"},
          "error": {"type": ["string", "null"]},
          "blocked_by_policy": {"type": "boolean"},
          "total_chars": {"type": "integer", "description": "The page's length in characters, when content shows only part of it."},
          "next_offset": {"type": ["integer", "null"], "description": "The offset to pass to read on; null when the page has ended."}
        },
        "required": ["url", "title", "content", "error"]
      }
    }
  },
  "required": ["results"]
}`
