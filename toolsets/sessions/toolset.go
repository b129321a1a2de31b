// Package sessions serves Hermes' session_search (tools/session_search_tool.py)
// to MCP clients as the `session_search` toolset: full-text search and
// reading of past conversations in <HERMES_HOME>/state.db, the SQLite
// database Hermes writes every session into.
//
// One tool, four shapes chosen by the arguments, as in the original:
// discover (a query: ranked matches grouped by conversation, the best one
// with its surrounding messages), scroll (session_id and
// around_message_id: a window of messages), read (session_id alone: the
// whole session, or its head and tail) and browse (nothing: the latest
// sessions). The database is only ever read, while Hermes may be writing
// it.
//
// The tool has no availability check: with no state.db yet it stays listed
// and a call says that Hermes has not recorded a session, which tells the
// model more than a hidden tool would. Everything that needs the database
// (opening it, its schema version) happens at call time.
package sessions

import (
	"encoding/json"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// ToolsetName is the toolset's name, as config.yaml and --toolsets spell
// it; its one tool has the same name.
const ToolsetName = catalog.SessionSearch

// sessionIDEnv names the caller's own Hermes session, which discovery
// leaves out (the caller already has it in context).
const sessionIDEnv = catalog.EnvSessionID

// EnvVars returns the environment variables the toolset reads, a fresh
// slice the caller may keep or change.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// Options configures the session_search toolset.
type Options struct {
	// Home is HERMES_HOME, absolute; its state.db is searched.
	Home string
	// Getenv reads HERMES_SESSION_ID (the caller's own session, left out
	// of discovery); nil means os.Getenv.
	Getenv func(string) string
	// BusyTimeout bounds a wait on Hermes' writer; zero means 5 s.
	BusyTimeout time.Duration
	// Location renders "when" fields; nil means time.Local, as Hermes.
	Location *time.Location
	// Logger receives notes about the file (a newer Hermes schema than
	// this build follows); nil discards them.
	Logger *slog.Logger
}

type kit struct {
	opts   Options
	getenv func(string) string
	loc    *time.Location
	log    *slog.Logger

	mu    sync.Mutex
	noted map[string]bool // notes already logged, once each
}

// Toolset returns the session_search toolset. It does no I/O: state.db is
// opened by each call.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts, getenv: opts.Getenv, loc: opts.Location, log: opts.Logger, noted: map[string]bool{}}
	if k.log == nil {
		k.log = slog.New(slog.DiscardHandler)
	}
	if k.getenv == nil {
		k.getenv = os.Getenv
	}
	if k.loc == nil {
		k.loc = time.Local
	}
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "Search earlier conversations before asking the user to repeat something.",
		EnvVars:      meta.EnvVars,
		Tools: []tooldef.Tool{{
			Name:         catalog.SessionSearchTool,
			Title:        "Search past sessions",
			Description:  description,
			InputSchema:  json.RawMessage(inputSchema),
			OutputSchema: json.RawMessage(outputSchema),
			// It only ever reads state.db, on this machine.
			Hints:   tooldef.Hints{ReadOnly: true, Idempotent: true},
			Handler: k.handle,
			// No Check: see the package comment.
		}},
	}
}
