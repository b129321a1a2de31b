// Package spec declares the `session_search` toolset without implementing
// it: the toolset's name, description and environment variables, and the
// session_search tool's title, description, JSON schemas and hints.
//
// It is what the MCP front process (hermes-tools-mcp) serves to list the
// tool without linking the implementation in mcpserver/sessions, which
// reads state.db through the cgo-free SQLite driver; linking that driver
// costs every spawn of the front process start-up time, so the
// implementation runs in the worker process and the front binds the tool to
// a handler that forwards the call there. mcpserver/sessions builds its own
// toolset from these same declarations, binding its real handler, so there
// is one copy of every description and schema.
//
// The tool has no availability check: with no state.db yet it stays listed
// and a call says that Hermes has not recorded a session, which tells the
// model more than a hidden tool would. Everything that needs the database
// (opening it, its schema version) happens at call time in the handler.
//
// Keep this package light: the standard library (but not database/sql) and
// mcpserver/tooldef only, and no work at package initialisation.
package spec

import (
	"encoding/json"

	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// Names shared with the implementation.
const (
	// ToolsetName is the toolset's name, as config.yaml and --toolsets
	// spell it.
	ToolsetName = "session_search"
	// SearchTool is the toolset's one tool, for binding its handler.
	SearchTool = "session_search"
	// SessionIDEnv names the caller's own Hermes session, which discovery
	// leaves out (the caller already has it in context).
	SessionIDEnv = "HERMES_SESSION_ID"
)

// Options is what the declarations and checks need. Nothing in them
// depends on the home or the environment today (there is no check), so it
// is empty; it keeps Toolset's shape the same as the other spec packages'
// and lets a check that needs configuration be added without changing
// callers.
type Options struct{}

// Toolset returns the session_search toolset's declarations. Each tool's
// Handler is bind(tool name): the implementation binds its real handler,
// the MCP front process binds one that forwards to the worker. bind must
// not be nil.
func Toolset(_ Options, bind func(toolName string) tooldef.Handler) tooldef.Toolset {
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: "Search and read past Hermes conversations from state.db.",
		// On by default: it only reads, and recalling what was said in
		// earlier sessions is the point of keeping them.
		Default: true,
		EnvVars: []string{SessionIDEnv},
		Tools: []tooldef.Tool{{
			Name:         SearchTool,
			Title:        "Search past sessions",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// It only ever reads state.db, on this machine.
			Hints:   tooldef.Hints{ReadOnly: true, Idempotent: true},
			Handler: bind(SearchTool),
			// No Check: see the package comment.
		}},
	}
}
