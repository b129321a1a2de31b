package mcpserver

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/hermes-go/hermes/toolsets"
)

// MCPGoReference is a bare mcp-go server holding the plan's tools as the
// server registered them before it answered tools/list and tools/call
// itself: what tests compare our encodings with.
func MCPGoReference(plan toolsets.Plan) *server.MCPServer {
	s := server.NewMCPServer(ServerName, "test", server.WithToolCapabilities(false))
	for _, e := range plan.Enabled() {
		t := e.Tool
		s.AddTool(mcp.Tool{
			Name:            t.Name,
			Title:           t.Title,
			Description:     t.Description,
			RawInputSchema:  t.InputSchema,
			RawOutputSchema: t.OutputSchema,
			Annotations:     annotations(t),
		}, nil)
	}
	return s
}

// EncodedTools is each enabled tool as tools/list sends it.
func EncodedTools(plan toolsets.Plan) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, e := range plan.Enabled() {
		enc, err := encodeTool(e)
		if err != nil {
			return nil, err
		}
		out[e.Tool.Name] = enc
	}
	return out, nil
}
