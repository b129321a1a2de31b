package web

import "encoding/json"

// Search rows reach the model as JSON, and the original's key order is
// part of what it sees: url-first for Exa, Parallel, Keenable and the
// keyless ring, title-first for Tavily, Brave, SearXNG, ddgs and
// Perplexity; Firecrawl's rows pass through as Firecrawl sent them.

type urlHit struct {
	URL         string `json:"url"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Position    int    `json:"position"`
}

type titleHit struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Position    int    `json:"position"`
}

// row encodes one hit; the structs above cannot fail to encode.
func row(v any) json.RawMessage {
	return json.RawMessage(encodeBody(v))
}

// searchData is data in the success envelope, with the original's
// optional notes on who served the call.
type searchData struct {
	Web          []json.RawMessage `json:"web"`
	ServedBy     string            `json:"served_by,omitempty"`
	RescuedFrom  string            `json:"rescued_from,omitempty"`
	BackendError string            `json:"backend_error,omitempty"`
}

type searchOK struct {
	Success bool       `json:"success"`
	Data    searchData `json:"data"`
}

type searchFail struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
}
