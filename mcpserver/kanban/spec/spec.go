// Package spec declares the `kanban` toolset without implementing it: the
// tool names, titles, descriptions, input and output schemas and hints, the
// environment variables the toolset reads, and the gating checks that show
// the tools only to a dispatcher worker or an orchestrator profile.
//
// It exists so the MCP front process (hermes-tools-mcp) can list and gate
// the kanban tools without linking the implementation in mcpserver/kanban,
// whose cgo-free SQLite driver costs every spawn of the server start-up
// time; the front forwards calls to a worker process that does link it. The
// implementation builds its own toolset from these same declarations,
// binding its real handlers, so there is one copy of every description and
// schema and one copy of the gating rules.
//
// Keep this package light: the standard library, gopkg.in/yaml.v3 (through
// internal/hermeshome) and mcpserver/tooldef only; in particular no
// database/sql and nothing that opens a board. Nothing here may do work at
// package init.
package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/internal/hermeshome"
	"github.com/hermes-go/hermes/mcpserver/tooldef"
)

// ToolsetName is what users type in --toolsets and config.yaml's toolsets;
// "kanban" in a profile's toolsets is also what makes it an orchestrator.
const ToolsetName = "kanban"

// Tool names, for binding handlers by name. kanban_list and kanban_unblock
// are orchestrator-only; the rest are also a dispatcher worker's.
const (
	ToolShow           = "kanban_show"
	ToolList           = "kanban_list"
	ToolComplete       = "kanban_complete"
	ToolBlock          = "kanban_block"
	ToolHeartbeat      = "kanban_heartbeat"
	ToolComment        = "kanban_comment"
	ToolCreate         = "kanban_create"
	ToolUnblock        = "kanban_unblock"
	ToolLink           = "kanban_link"
	ToolRequestReview  = "kanban_request_review"
	ToolRequestChanges = "kanban_request_changes"
)

// Environment variables the toolset reads. The dispatcher sets the
// HERMES_KANBAN_* task variables in a worker's environment; the checks here
// read only EnvTask, the handlers read the rest.
const (
	EnvTask            = "HERMES_KANBAN_TASK"
	EnvRunID           = "HERMES_KANBAN_RUN_ID"
	EnvClaimLock       = "HERMES_KANBAN_CLAIM_LOCK"
	EnvClaimTTLSeconds = "HERMES_KANBAN_CLAIM_TTL_SECONDS"
	EnvDB              = "HERMES_KANBAN_DB"
	EnvBoard           = "HERMES_KANBAN_BOARD"
	EnvHome            = "HERMES_KANBAN_HOME"
	EnvProfile         = "HERMES_PROFILE"
	EnvTenant          = "HERMES_TENANT"
	EnvSessionID       = "HERMES_SESSION_ID"
)

// EnvVars are the variables the toolset reads, for Toolset.EnvVars. A
// slice of constants is laid out statically, with no init code.
var EnvVars = []string{
	EnvTask, EnvRunID, EnvClaimLock, EnvClaimTTLSeconds,
	EnvDB, EnvBoard, EnvHome,
	EnvProfile, EnvTenant, EnvSessionID,
}

// kanban_list's limits. They live here because kanban_list's description
// and schema advertise them (as literal text, so the schemas stay constant
// strings) and the implementation enforces them; TestListLimitsAdvertised
// keeps the two in step.
const (
	ListDefaultLimit = 50
	ListMaxLimit     = 200
)

// Options is what the declarations and their checks need.
type Options struct {
	// Home is HERMES_HOME, absolute; its config.yaml marks an orchestrator
	// profile unless ConfigPath overrides it.
	Home string
	// Getenv reads the environment when a check runs; nil means os.Getenv.
	Getenv func(string) string
	// ConfigPath is the config.yaml whose top-level toolsets mark an
	// orchestrator profile; empty means Home/config.yaml. It is read each
	// time a check runs, as Hermes does, so an edit applies without a
	// restart.
	ConfigPath string
}

// Toolset returns the kanban toolset's declarations. Each tool's Handler is
// bind(tool name), called once per tool here: the implementation binds its
// real handlers, the MCP front process binds handlers that forward to the
// worker. bind must not be nil.
func Toolset(opts Options, bind func(toolName string) tooldef.Handler) tooldef.Toolset {
	g := &gate{opts: opts, getenv: opts.Getenv}
	if g.getenv == nil {
		g.getenv = os.Getenv
	}
	tool := func(name, title, desc, in, out string, h tooldef.Hints, check func() error) tooldef.Tool {
		return tooldef.Tool{
			Name: name, Title: title, Description: desc,
			InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out),
			Hints: h, Handler: bind(name), Check: check,
		}
	}
	// Hints: a transition that ends a run or overwrites what the task
	// holds (its result, its assignee) is destructive; adding rows is not.
	readOnly := tooldef.Hints{ReadOnly: true, Idempotent: true}
	ending := tooldef.Hints{Destructive: true}
	additive := tooldef.Hints{}
	settles := tooldef.Hints{Idempotent: true}
	return tooldef.Toolset{
		Name:        ToolsetName,
		Description: "Work the Hermes kanban board: report back from a dispatched task, or route work as an orchestrator.",
		// On by default, yet every tool stays hidden unless this process is
		// a dispatcher worker or an orchestrator profile: a codex worker
		// whose callback lacks these tools cannot report back and hangs
		// until the dispatcher times it out.
		Default: true,
		EnvVars: slices.Clone(EnvVars),
		Tools: []tooldef.Tool{
			tool(ToolShow, "Show a kanban task", showDescription, showInput, showOutput, readOnly, g.checkWorker),
			tool(ToolList, "List kanban tasks", listDescription, listInput, listOutput, settles, g.checkOrchestrator),
			tool(ToolComplete, "Complete a kanban task", completeDescription, completeInput, okTaskRunOutput, ending, g.checkWorker),
			tool(ToolBlock, "Block a kanban task", blockDescription, blockInput, okTaskRunOutput, ending, g.checkWorker),
			tool(ToolHeartbeat, "Kanban heartbeat", heartbeatDescription, heartbeatInput, heartbeatOutput, additive, g.checkWorker),
			tool(ToolComment, "Comment on a kanban task", commentDescription, commentInput, commentOutput, additive, g.checkWorker),
			tool(ToolCreate, "Create a kanban task", createDescription, createInput, statusOutput, additive, g.checkWorker),
			tool(ToolUnblock, "Unblock a kanban task", unblockDescription, unblockInput, statusOutput, settles, g.checkOrchestrator),
			tool(ToolLink, "Link kanban tasks", linkDescription, linkInput, linkOutput, settles, g.checkWorker),
			tool(ToolRequestReview, "Request review of a kanban task", requestReviewDescription, requestReviewInput, statusOutput, ending, g.checkWorker),
			tool(ToolRequestChanges, "Request changes on a kanban task", requestChangesDescription, requestChangesInput, requestChangesOutput, ending, g.checkWorker),
		},
	}
}

// --- gating ---

// gate decides which tools this process shows. It needs only the
// environment and config.yaml, never the board, which is why the front
// process can run it.
type gate struct {
	opts   Options
	getenv func(string) string
}

func (g *gate) configPath() string {
	if g.opts.ConfigPath != "" {
		return g.opts.ConfigPath
	}
	return filepath.Join(g.opts.Home, hermeshome.ConfigFile)
}

// profileHasKanban reads config.yaml: "kanban" in the top-level toolsets,
// and not in agent.disabled_toolsets. An unreadable file means no, as in
// Hermes: gating must not be the thing that fails.
func (g *gate) profileHasKanban() bool {
	var cfg struct {
		Toolsets []any `yaml:"toolsets"`
		Agent    struct {
			DisabledToolsets []any `yaml:"disabled_toolsets"`
		} `yaml:"agent"`
	}
	if hermeshome.DecodeFile(g.configPath(), &cfg) != nil {
		return false
	}
	has := func(list []any) bool {
		for _, v := range list {
			if fmt.Sprint(v) == ToolsetName {
				return true
			}
		}
		return false
	}
	return has(cfg.Toolsets) && !has(cfg.Agent.DisabledToolsets)
}

func (g *gate) envTask() string { return strings.TrimSpace(g.getenv(EnvTask)) }

func (g *gate) checkWorker() error {
	if g.envTask() != "" || g.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`kanban tools are for Hermes kanban work only: a dispatcher worker (HERMES_KANBAN_TASK set) or an orchestrator profile ("kanban" in toolsets in %s)`, g.configPath())
}

func (g *gate) checkOrchestrator() error {
	if g.envTask() != "" {
		return errors.New("orchestrator-only: hidden from dispatcher workers (HERMES_KANBAN_TASK is set)")
	}
	if g.profileHasKanban() {
		return nil
	}
	return fmt.Errorf(`orchestrator-only: add "kanban" to toolsets in %s to route board work from this profile`, g.configPath())
}

// --- descriptions ---

const showDescription = "Read everything about a kanban task: its brief, assignee and status, parent and child " +
	"tasks, earlier attempts with their handoffs, comments and recent events, plus worker_context, a ready-made " +
	"summary to read before you start. Call it first when you pick up a task, and again when you retry one."

const listDescription = "List kanban tasks so an orchestrator can see what to route. Filter by assignee, status " +
	"or tenant; archived tasks are left out unless asked for. Returns compact rows (id, title, status, assignee, " +
	"priority, parent and child ids), 50 by default and at most 200, and says when the list was cut short. " +
	"Before listing it promotes tasks whose parents have all finished, like the Hermes CLI. Orchestrators only."

const completeDescription = "Finish your kanban task and hand off the result. Put a short human-readable account " +
	"of what you did in summary and machine-readable facts (changed files, tests run, findings) in metadata; at " +
	"least one of summary or result is needed. List tasks you created with kanban_create in created_cards and " +
	"deliverable files in artifacts. Children waiting on this task become ready."

const blockDescription = "Stop work on your kanban task because you need a person: a decision, an answer, access " +
	"you lack. The reason is shown on the board and to whoever unblocks the task. Only for real blockers, not for " +
	"things you can work out yourself."

const heartbeatDescription = "Tell the board you are still working on your kanban task during a long operation " +
	"(a build, a crawl, a training run): it extends your claim so the dispatcher does not take the task back, and " +
	"logs an optional progress note. Call it every few minutes. Changes nothing else."

const commentDescription = "Add a comment to a kanban task's thread, yours or another's. Comments outlive this run: " +
	"use them for questions to the next worker, findings, or the reasoning behind a decision, not for passing " +
	"thoughts."

const createDescription = "Create a kanban task, for example to split your work into pieces for other profiles. " +
	"Give it an assignee and a clear body; list parents to make it wait for other tasks (include your own task id " +
	"to run it after you). The dispatcher starts the assigned profile once the task is ready."

const unblockDescription = "Release a blocked kanban task: it becomes ready again, or waits in todo while a parent " +
	"is unfinished. Orchestrators only; dispatched workers never see this tool."

const linkDescription = "Make one existing kanban task wait for another: the child stays out of ready until every " +
	"parent is done. Links that would form a cycle, or link a task to itself, are refused."

const requestReviewDescription = "Hand your kanban task to review once the work is built, self-checked and verified: " +
	"it moves to the review column (reassigned to reviewer when you name one) and your run ends. Unlike " +
	"kanban_block it is not a blocker, so repeated review rounds are never mistaken for a stuck task."

const requestChangesDescription = "As the reviewer of a kanban task, send it back to its implementer with the " +
	"changes that must be made: your review run ends and the task returns to ready (or todo while a parent is " +
	"unfinished). Use it only on a task you claimed from review; use kanban_block for a real external blocker."
