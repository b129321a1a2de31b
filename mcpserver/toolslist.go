package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/mcpserver/jsonrpc"
	"github.com/hermes-go/hermes/toolsets"
)

// toolsList answers tools/list from the plan. It is the one response every
// client waits for before it can use the server, so the list is encoded
// once, right after the handshake (or on the first tools/list), and then
// written as it is. mcp-go would re-encode and decode each schema as it
// registered the tool, then encode each through a map and re-validate it
// on every list. The response is the one mcp-go would send
// (TestToolsListMatchesMCPGo compares them in both protocol eras): tools
// sorted by name, the same members, the same cursor rule, cache hints on
// 2026-07-28 requests.
type toolsList struct {
	enabled []toolsets.Entry

	once    sync.Once
	err     error
	names   []string // sorted
	encoded [][]byte // each tool's JSON object, in names order
}

func newToolsList(enabled []toolsets.Entry) *toolsList {
	return &toolsList{enabled: enabled}
}

// prepare encodes the list if that has not been done; serve waits for an
// encoding in progress.
func (l *toolsList) prepare() { l.once.Do(l.build) }

// build encodes the list, once: after the handshake, or on the first
// tools/list (stateless clients have no handshake).
func (l *toolsList) build() {
	tools := slices.Clone(l.enabled)
	slices.SortFunc(tools, func(a, b toolsets.Entry) int { return strings.Compare(a.Tool.Name, b.Tool.Name) })
	for _, e := range tools {
		enc, err := encodeTool(e)
		if err != nil {
			l.err = err
			return
		}
		l.names = append(l.names, e.Tool.Name)
		l.encoded = append(l.encoded, enc)
	}
}

// encodeTool writes a tool as mcp-go's Tool.MarshalJSON does (members in
// sorted order). Schemas are compacted into place: one pass that also
// proves them valid JSON, whoever built the plan.
func encodeTool(e toolsets.Entry) ([]byte, error) {
	t := e.Tool
	var buf bytes.Buffer
	buf.Grow(len(t.InputSchema) + len(t.OutputSchema) + len(t.Description) + 256)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	value := func(v any) {
		// Strings and a struct of strings and bools cannot fail to encode.
		_ = enc.Encode(v)
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteString(`{"annotations":`)
	value(annotations(t))
	if t.Description != "" {
		buf.WriteString(`,"description":`)
		value(t.Description)
	}
	buf.WriteString(`,"inputSchema":`)
	if err := json.Compact(&buf, t.InputSchema); err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
	}
	buf.WriteString(`,"name":`)
	value(t.Name)
	if len(t.OutputSchema) > 0 {
		buf.WriteString(`,"outputSchema":`)
		if err := json.Compact(&buf, t.OutputSchema); err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", t.Name, err)
		}
	}
	if t.Title != "" {
		buf.WriteString(`,"title":`)
		value(t.Title)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// serve is the tools/list method.
func (l *toolsList) serve(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &p); err != nil {
			// mcp-go answers a request it cannot parse with -32600.
			return nil, jsonrpc.Errorf(mcp.INVALID_REQUEST, "unparsable tools/list request: %v", err)
		}
	}
	l.prepare()
	if l.err != nil {
		return nil, fmt.Errorf("encode tools/list: %w", l.err)
	}
	start := 0
	if p.Cursor != "" {
		// mcp-go's rule: the cursor is a base64 tool name, and the page
		// starts after it.
		after, err := base64.StdEncoding.DecodeString(p.Cursor)
		if err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid cursor: %v", err)
		}
		start = sort.SearchStrings(l.names, string(after)+"\x00")
	}
	// The members other than tools (cache hints) as mcp-go writes them;
	// tools comes last in the struct and is spliced in.
	var head mcp.ListToolsResult
	if server.IsModernRequest(ctx) {
		head.SetCacheHints(0, mcp.CacheScopePrivate)
	}
	prefix, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("encode tools/list: %w", err)
	}
	const null = `"tools":null}`
	if !bytes.HasSuffix(prefix, []byte(null)) {
		return nil, fmt.Errorf("encode tools/list: unexpected result shape %s", prefix)
	}
	size := len(prefix) + 2
	for _, e := range l.encoded[start:] {
		size += len(e) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, prefix[:len(prefix)-len("null}")]...)
	out = append(out, '[')
	for i, e := range l.encoded[start:] {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	out = append(out, "]}"...)
	return jsonrpc.Encoded(out), nil
}
