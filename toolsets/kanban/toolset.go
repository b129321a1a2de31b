// Package kanban serves the Hermes kanban board (kanban.db) to MCP clients
// as the `kanban` toolset: the tools of tools/kanban_tools.py (the nine
// first ones, the review handoffs kanban_request_review and
// kanban_request_changes, and the attach tools kanban_attach,
// kanban_attach_url and kanban_attachments), with the original's
// parameters, results, error texts and gating.
//
// The board is shared with the Python Hermes and its dispatcher: every
// write is one IMMEDIATE transaction on the WAL-mode database, and claims,
// runs and events are written in the rows and shapes the dispatcher reads.
// Board exposes the same operations to Go callers (a dispatcher, tests).
//
// Gating follows the original: a dispatcher-spawned worker
// (HERMES_KANBAN_TASK set, outside a delegate_task descendant) sees every
// tool but kanban_list and kanban_unblock; a profile with "kanban" in
// config.yaml's toolsets or in a platform_toolsets list (an orchestrator)
// sees all of them; anyone else sees none. A worker's
// authority is its own task: every call it makes passes one check
// (authorize, authority.go) of every task id it names against one rule
// table, stricter than the original, which let a worker link, comment on
// and read any task. A client may call a tool it was not shown, so the
// check runs on the call, not on the listing.
package kanban

import (
	"encoding/json"
	"os"
	"time"

	"github.com/hermes-go/hermes/internal/urlguard"
	"github.com/hermes-go/hermes/toolsets/catalog"
	"github.com/hermes-go/hermes/toolsets/tooldef"
)

// ToolsetName is what users type in --toolsets and config.yaml's toolsets;
// "kanban" in a profile's toolsets is also what makes it an orchestrator.
const ToolsetName = catalog.Kanban

// Tool names. kanban_list and kanban_unblock are orchestrator-only; the
// rest are also a dispatcher worker's.
const (
	toolShow           = catalog.KanbanShow
	toolList           = catalog.KanbanList
	toolComplete       = catalog.KanbanComplete
	toolBlock          = catalog.KanbanBlock
	toolHeartbeat      = catalog.KanbanHeartbeat
	toolComment        = catalog.KanbanComment
	toolCreate         = catalog.KanbanCreate
	toolUnblock        = catalog.KanbanUnblock
	toolLink           = catalog.KanbanLink
	toolRequestReview  = catalog.KanbanRequestReview
	toolRequestChanges = catalog.KanbanRequestChanges
	toolAttach         = catalog.KanbanAttach
	toolAttachURL      = catalog.KanbanAttachURL
	toolAttachments    = catalog.KanbanAttachments
)

// Environment variables the toolset reads. The dispatcher sets the
// HERMES_KANBAN_* task variables in a worker's environment; the checks
// read only envTask, the handlers read the rest.
const (
	envTask            = catalog.EnvKanbanTask
	envRunID           = "HERMES_KANBAN_RUN_ID"
	envClaimLock       = "HERMES_KANBAN_CLAIM_LOCK"
	envClaimTTLSeconds = "HERMES_KANBAN_CLAIM_TTL_SECONDS"
	envDB              = "HERMES_KANBAN_DB"
	envBoard           = "HERMES_KANBAN_BOARD"
	envHome            = "HERMES_KANBAN_HOME"
	envProfile         = "HERMES_PROFILE"
	envTenant          = "HERMES_TENANT"
	envSessionID       = catalog.EnvSessionID
	envDelegatedChild  = "HERMES_DELEGATED_CHILD_CONTEXT"
)

// EnvVars returns the environment variables the toolset reads, a fresh
// slice the caller may keep or change.
func EnvVars() []string { return catalog.Get(ToolsetName).EnvVars }

// kanban_list's limits. kanban_list's description and schema advertise
// them as literal text, so the schemas stay constant strings;
// TestListLimitsAdvertised keeps the two in step.
const (
	listDefaultLimit = 50
	listMaxLimit     = 200
)

// Options configures the kanban toolset.
type Options struct {
	// Home is HERMES_HOME, absolute. Boards live under the kanban root
	// derived from it (see Root), and its config.yaml marks an orchestrator
	// profile unless ConfigPath overrides it.
	Home string
	// Getenv reads the environment when a check or a call runs; nil means
	// os.Getenv.
	Getenv func(string) string
	// ConfigPath is the config.yaml whose top-level toolsets mark an
	// orchestrator profile; empty means Home/config.yaml. It is read each
	// time gating is decided, as Hermes does, so an edit applies without a
	// restart.
	ConfigPath string
	// BusyTimeout bounds waits for another process's lock; zero means
	// sqlitestore.DefaultBusyTimeout.
	BusyTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// FetchTimeout bounds each step of a kanban_attach_url download;
	// zero means DefaultFetchTimeout (Hermes' 30 s).
	FetchTimeout time.Duration
	// Resolver looks up the hosts kanban_attach_url fetches from, for the
	// URL policy and the connection; nil means net.DefaultResolver.
	Resolver urlguard.Resolver
}

type kit struct {
	opts   Options
	getenv func(string) string
}

// Toolset returns the kanban toolset. It does no I/O: the board is opened
// by each call, config.yaml is read by each check.
func Toolset(opts Options) tooldef.Toolset {
	k := &kit{opts: opts, getenv: opts.Getenv}
	if k.getenv == nil {
		k.getenv = os.Getenv
	}
	tool := func(name, title, desc, in, out string, h tooldef.Hints, handler tooldef.Handler, check func() error) tooldef.Tool {
		return tooldef.Tool{
			Name: name, Title: title, Description: desc,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Hints: h, Handler: k.guarded(name, handler), Check: check,
		}
	}
	// Hints: a transition that ends a run or overwrites what the task
	// holds (its result, its assignee) is destructive; adding rows is not.
	readOnly := tooldef.Hints{ReadOnly: true, Idempotent: true}
	ending := tooldef.Hints{Destructive: true}
	additive := tooldef.Hints{}
	settles := tooldef.Hints{Idempotent: true}
	// kanban_attach_url downloads from the web; each call adds a file.
	fetches := tooldef.Hints{OpenWorld: true}
	meta := catalog.Get(ToolsetName)
	return tooldef.Toolset{
		Name:         ToolsetName,
		Description:  meta.Description,
		Default:      meta.Default,
		Instructions: "Report on your kanban task with these tools before you stop: complete it, block it, or hand it to review.",
		EnvVars:      meta.EnvVars,
		Tools: []tooldef.Tool{
			tool(toolShow, "Show a kanban task", showDescription, showInput, showOutput, readOnly, k.handleShow, k.checkWorker),
			tool(toolList, "List kanban tasks", listDescription, listInput, listOutput, settles, k.handleList, k.checkOrchestrator),
			tool(toolComplete, "Complete a kanban task", completeDescription, completeInput, okTaskRunOutput, ending, k.handleComplete, k.checkWorker),
			tool(toolBlock, "Block a kanban task", blockDescription, blockInput, okTaskRunOutput, ending, k.handleBlock, k.checkWorker),
			tool(toolHeartbeat, "Kanban heartbeat", heartbeatDescription, heartbeatInput, heartbeatOutput, additive, k.handleHeartbeat, k.checkWorker),
			tool(toolComment, "Comment on a kanban task", commentDescription, commentInput, commentOutput, additive, k.handleComment, k.checkWorker),
			tool(toolAttach, "Attach a file to a kanban task", attachDescription, attachInput, attachOutput, additive, k.handleAttach, k.checkWorker),
			tool(toolAttachURL, "Attach a file from a URL to a kanban task", attachURLDescription, attachURLInput, attachOutput, fetches, k.handleAttachURL, k.checkWorker),
			tool(toolAttachments, "List a kanban task's attachments", attachmentsDescription, attachmentsInput, attachmentsOutput, readOnly, k.handleAttachments, k.checkWorker),
			tool(toolCreate, "Create a kanban task", createDescription, createInput, createOutput, additive, k.handleCreate, k.checkWorker),
			tool(toolUnblock, "Unblock a kanban task", unblockDescription, unblockInput, statusOutput, settles, k.handleUnblock, k.checkOrchestrator),
			tool(toolLink, "Link kanban tasks", linkDescription, linkInput, linkOutput, settles, k.handleLink, k.checkWorker),
			tool(toolRequestReview, "Request review of a kanban task", requestReviewDescription, requestReviewInput, statusOutput, ending, k.handleRequestReview, k.checkWorker),
			tool(toolRequestChanges, "Request changes on a kanban task", requestChangesDescription, requestChangesInput, requestChangesOutput, ending, k.handleRequestChanges, k.checkWorker),
		},
	}
}
