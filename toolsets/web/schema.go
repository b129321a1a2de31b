package web

const searchDescription = "Search the web for information on any topic. Returns up to 5 relevant results " +
	"by default (set limit for more, up to 100) with titles, URLs and descriptions. The query is passed " +
	"to the search backend as written, so operators such as site:, filetype:, intitle:, -term and " +
	"\"quoted phrases\" may work depending on the backend. Use web_extract to read a result in full."

const extractDescription = "Extract content from web page URLs as Markdown. Also reads PDF files: pass " +
	"the PDF link directly. Up to 5 URLs per call, fetched concurrently; each URL gets its own result, " +
	"and a URL that cannot be read reports its own error without failing the others. Very long pages " +
	"are truncated. URLs that carry API keys or tokens, and cloud metadata or private-network " +
	"addresses, are refused. If a page needs JavaScript or a login and comes back empty, use the " +
	"browser tools instead."

const searchInputSchema = `{
  "type": "object",
  "properties": {
    "query": {
      "type": "string",
      "description": "The search query to look up on the web. May include operators the backend supports, such as site:example.com, filetype:pdf, -term or \"exact phrase\"."
    },
    "limit": {
      "type": "integer",
      "description": "Maximum number of results to return (default 5).",
      "default": 5,
      "minimum": 1,
      "maximum": 100
    }
  },
  "required": ["query"]
}`

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
              "title": {"type": "string"},
              "url": {"type": "string"},
              "description": {"type": "string"},
              "position": {"type": "integer", "minimum": 1}
            },
            "required": ["title", "url", "description", "position"]
          }
        }
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
      "items": {"type": "string"},
      "description": "List of URLs to extract content from (max 5 URLs per call)",
      "maxItems": 5
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
          "blocked_by_policy": {"type": "boolean"}
        },
        "required": ["url", "title", "content", "error"]
      }
    }
  },
  "required": ["results"]
}`
