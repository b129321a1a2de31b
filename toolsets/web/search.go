package web

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hermes-go/hermes/toolsets/tooldef"
)

type searchArgs struct {
	Query string `json:"query"`
	Limit *int   `json:"limit"`
}

// maxQueryChars bounds a query before any work starts; no search API
// takes more.
const maxQueryChars = 2000

// limitBuckets are the original's: vendors are asked for the smallest
// bucket that covers the limit (10 for the default 5), and the answer is
// cut back to the limit.
var limitBuckets = [...]int{10, 20, 50, 100}

func bucketLimit(limit int) int {
	for _, b := range limitBuckets {
		if limit <= b {
			return b
		}
	}
	return limitBuckets[len(limitBuckets)-1]
}

func (t *tools) handleSearch(ctx context.Context, raw json.RawMessage) (tooldef.Result, error) {
	args, err := tooldef.DecodeArgs[searchArgs](raw)
	if err != nil {
		return tooldef.Result{}, err
	}
	query := strings.TrimSpace(args.Query)
	if query == "" {
		return tooldef.Errorf("query is required: pass the words to search for"), nil
	}
	if n := utf8.RuneCountInString(query); n > maxQueryChars {
		return tooldef.Errorf("query is %d characters long; at most %d are accepted: shorten it", n, maxQueryChars), nil
	}
	limit := 5
	if args.Limit != nil {
		limit = min(max(*args.Limit, 1), 100)
	}
	c, err := LoadConfig(t.home)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	sel, err := SearchBackend(c, t.getenv)
	if err != nil {
		return tooldef.Errorf("%v", err), nil
	}
	fetch := bucketLimit(limit)
	var data searchData
	if sel.Ring {
		data.Web, data.ServedBy, err = t.ringSearch(ctx, c, "", query, fetch)
	} else {
		var viaRing bool
		data.Web, data.ServedBy, viaRing, err = t.search(ctx, c, sel.Name, query, fetch)
		if err != nil && ctx.Err() == nil && !viaRing && c.RescueOn() {
			data, err = t.rescueSearch(ctx, c, sel.Name, query, fetch, err)
		}
	}
	if ctx.Err() != nil {
		return tooldef.Failure(map[string]any{"error": "Interrupted", "success": false}), nil
	}
	if err != nil {
		return tooldef.Failure(searchFail{Success: false, Error: err.Error()}), nil
	}
	if len(data.Web) > limit {
		data.Web = data.Web[:limit]
	}
	if data.Web == nil {
		data.Web = []json.RawMessage{}
	}
	return tooldef.OK(searchOK{Success: true, Data: data}), nil
}

// rescueSearch runs a failed call of a configured backend once more on
// the keyless tier, as the original's web_tools_rescue does: the answer
// says which backend failed and why; the next call goes to it again.
func (t *tools) rescueSearch(ctx context.Context, c Config, name, query string, limit int, cause error) (searchData, error) {
	rows, servedBy, err := t.ringSearch(ctx, c, name, query, limit)
	if err != nil {
		return searchData{}, fmt.Errorf("%v (keyless rescue also failed: %v)", cause, err)
	}
	t.log.Info("web_search rescued on the keyless tier", "backend", name, "served_by", servedBy)
	return searchData{
		Web:         rows,
		ServedBy:    servedBy,
		RescuedFrom: name,
		BackendError: fmt.Sprintf("Configured backend '%s' failed this call (%s); result served by the keyless free tier. "+
			"The next call will use '%s' again.", name, clipRunes(cause.Error(), 300), name),
	}, nil
}

// clipRunes is Python's s[:n].
func clipRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// search runs one search on a named backend. viaRing reports that the
// call went to the keyless tier (a ring vendor with no key, or pinned
// free), which already failed over and is never rescued.
func (t *tools) search(ctx context.Context, c Config, backend, query string, limit int) (rows []json.RawMessage, servedBy string, viaRing bool, err error) {
	if t.keylessRoute(c, backend) {
		rows, servedBy, err = t.ringSearch(ctx, c, backend, query, limit)
		return rows, servedBy, true, err
	}
	ctx, cancel := t.withTimeout(ctx)
	defer cancel()
	switch backend {
	case BackendTavily:
		rows, err = t.tavilySearch(ctx, c, query, limit)
	case BackendExa:
		rows, err = t.exaSearch(ctx, query, limit)
	case BackendParallel:
		rows, err = t.parallelSearch(ctx, query, limit)
	case BackendPerplexity:
		rows, err = t.perplexitySearch(ctx, query, limit)
	case BackendKeenable:
		rows, err = t.keenableSearch(ctx, query, limit)
	case BackendFirecrawl:
		rows, err = t.firecrawlSearch(ctx, c, query, limit)
	case BackendSearXNG:
		rows, err = t.searxngSearch(ctx, query, limit)
	case BackendBrave:
		rows, err = t.braveSearch(ctx, query, limit)
	case BackendDDGS:
		rows, err = t.ddgsSearch(ctx, query, limit)
	default:
		err = unknownBackend("backend", backend)
	}
	return rows, "", false, err
}

// keylessRoute reports whether a named ring vendor serves from its free
// tier: pinned free always; pinned paid never; otherwise when its key is
// missing and the tier is on. Firecrawl keeps to its own API whenever a
// key or a self-hosted URL is set.
func (t *tools) keylessRoute(c Config, backend string) bool {
	if !inRing(backend) {
		return false
	}
	if backend == BackendFirecrawl && (t.getenv("FIRECRAWL_API_KEY") != "" || t.getenv(envFirecrawlURL) != "") {
		return false
	}
	switch c.Tier(backend) {
	case "free":
		return true
	case "paid":
		return false
	}
	return t.getenv(keyEnv(backend)) == "" && c.KeylessOn()
}
