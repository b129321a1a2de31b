// Package todo serves Hermes' todo_list tool (tools/todo_tool.py; named
// todo before v2026.9.7) to MCP clients as the `todo` toolset, with the
// same arguments, item shape (parent included) and summary. The old name
// is not listed beside it: MCP clients take tool names from tools/list,
// and a second copy of the tool would cost every session its schema. Hermes keeps the list in the agent's memory. Here a list named by
// a session id (the call's, else HERMES_SESSION_ID) is kept in a small
// SQLite database in the Hermes home and survives the server being
// restarted; a call that names none gets the list of its own MCP session
// (the server process over stdio, the HTTP session over Streamable HTTP),
// kept in memory and released with the session, so unrelated clients never
// share one.
package todo

import (
	"encoding/json"
	"os"
	"time"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// Options configures the todo toolset.
type Options struct {
	// Home is HERMES_HOME; the lists live in Home/hermes-tools/todo.db, a
	// file of these tools (Hermes itself keeps no todo file).
	Home string
	// Getenv reads HERMES_SESSION_ID; nil means os.Getenv.
	Getenv func(string) string
	// BusyTimeout bounds waits for another server's write; zero means
	// sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now stamps updates; nil means time.Now.
	Now func() time.Time
}

// Toolset returns the todo toolset.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts, getenv: opts.Getenv, now: opts.Now}
	if k.getenv == nil {
		k.getenv = os.Getenv
	}
	if k.now == nil {
		k.now = time.Now
	}
	return declare(k.handle)
}

// ToolsetName is what users type in --toolsets.
const ToolsetName = catalog.Todo

// ToolName is the wire name of the toolset's only tool.
const ToolName = catalog.TodoTool

// SessionEnv names the variable that picks the session whose list a call
// uses when the call names none.
const SessionEnv = catalog.EnvSessionID

// EnvVars returns the environment variables the toolset reads.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// The statuses an item can have. The implementation normalises every item
// to one of these and counts them in the summary; the schemas below spell
// them out literally, for readability, and TestSchemasListTheStatuses keeps
// the two in step.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusCancelled  = "cancelled"
)

// Statuses returns the item statuses in the order the schemas list them. A
// function, not a shared slice, so no caller can change another's copy.
func Statuses() []string {
	return []string{StatusPending, StatusInProgress, StatusCompleted, StatusCancelled}
}

// declare returns the todo toolset with its tool bound to handle.
func declare(handle tooldef.Handler) tooldef.Toolset {
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: meta.Description,
		Default:     meta.Default,
		EnvVars:     meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:         ToolName,
			Title:        "Session todo list",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// Writing without merge replaces the list; the same call
			// repeated leaves it as the first call did.
			Hints:   tooldef.Hints{Destructive: true, Idempotent: true},
			Handler: handle,
			// No Check: the tool needs no key or binary, and a store that
			// cannot be opened is reported by the call that needs it.
		}},
	}
}
